/*
 * Matsite.NoDataMarks: hatched boxes labelled "No data" over the tiles a frame
 * lacks (its manifest entry's missing_tiles), so a gap in the source reads as
 * "no data", not as "no rain". Each frame layer keeps one inside the element
 * that covers the frames' box; the marks are placed in percent of that box, so
 * they follow the layer through pans and Leaflet's zoom animation.
 */
(function (L, M) {
	'use strict';

	var R = 6378137;
	var MAX_LAT = 85.0511287798;

	// Web Mercator y for a latitude, in metres.
	function mercY(lat) {
		lat = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat));
		var s = Math.sin(lat * Math.PI / 180);
		return R * Math.log((1 + s) / (1 - s)) / 2;
	}

	M.NoDataMarks = L.Class.extend({
		// parent: the element over the frames' box; frames: the manifest's frame entries;
		// bounds: the manifest's bounds (west/south/east/north; east < west across the antimeridian).
		initialize: function (parent, frames, bounds) {
			this._frames = frames;
			this._box = {west: bounds.west, south: bounds.south,
				east: bounds.east < bounds.west ? bounds.east + 360 : bounds.east, north: bounds.north};
			this._container = L.DomUtil.create('div', 'matsite-missing-layer', parent);
		},

		// Marks the tiles frame `index` lacks, and only those.
		show: function (index) {
			var layer = this._container;
			while (layer.firstChild) { layer.removeChild(layer.firstChild); }
			var frame = this._frames[index];
			var tiles = frame && Array.isArray(frame.missing_tiles) ? frame.missing_tiles : [];
			if (!tiles.length) { return this; }
			var b = this._box;
			var x0 = b.west, xs = b.east - b.west;
			var y0 = mercY(b.north), ys = mercY(b.south) - y0;
			tiles.forEach(function (t) {
				var tb = t && t.bounds;
				if (!tb || ![tb.west, tb.south, tb.east, tb.north].every(isFinite)) { return; }
				var east = tb.east < tb.west ? tb.east + 360 : tb.east;
				var west = tb.west < b.west - 180 ? tb.west + 360 : tb.west;
				if (east < west) { east += 360; }
				var left = Math.max(0, (west - x0) / xs);
				var right = Math.min(1, (east - x0) / xs);
				var top = Math.max(0, (mercY(tb.north) - y0) / ys);
				var bottom = Math.min(1, (mercY(tb.south) - y0) / ys);
				if (right <= left || bottom <= top) { return; }
				var box = L.DomUtil.create('div', 'matsite-nodata', layer);
				box.title = 'No data';
				box.style.left = (left * 100) + '%';
				box.style.top = (top * 100) + '%';
				box.style.width = ((right - left) * 100) + '%';
				box.style.height = ((bottom - top) * 100) + '%';
			});
			return this;
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
