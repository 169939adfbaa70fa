/*
 * Matsite.TileLayer: Leaflet's tile layer without data: URLs. Leaflet points a
 * tile it drops or cancels at a data: GIF to stop its request, which a page
 * under `Content-Security-Policy: default-src 'self'` reports as a violation
 * on every pan and zoom. An empty src stops the request just the same and
 * requests nothing (HTML: an empty src fires error at once, without a fetch).
 * Same private hooks in Leaflet 1.6 and 1.7, which Debian ships.
 */
(function (L, M) {
	'use strict';

	var NONE = '';

	M.TileLayer = L.TileLayer.extend({
		options: {
			// A failed tile stays empty (its alt is "", so no broken-image mark is drawn).
			errorTileUrl: NONE
		},

		_abortLoading: function () {
			for (var key in this._tiles) {
				if (this._tiles[key].coords.z === this._tileZoom) { continue; }
				var tile = this._tiles[key].el;
				tile.onload = L.Util.falseFn;
				tile.onerror = L.Util.falseFn;
				if (!tile.complete) {
					tile.setAttribute('src', NONE);
					L.DomUtil.remove(tile);
					delete this._tiles[key];
				}
			}
		},

		_removeTile: function (key) {
			var tile = this._tiles[key];
			if (!tile) { return; }
			tile.el.setAttribute('src', NONE);
			return L.GridLayer.prototype._removeTile.call(this, key);
		},

		_tileReady: function (coords, err, tile) {
			if (!this._map || (tile && tile.getAttribute('src') === NONE)) { return; }
			return L.GridLayer.prototype._tileReady.call(this, coords, err, tile);
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
