/*
 * Matsite.ViewRange: watches whether the map's view is still within what the
 * stitched frames can show, in the manner of a Leaflet layer that draws nothing
 * (added to the map with addTo, listening to the map only while added).
 *
 * Out of range means zoomed in more than `slack` levels past the frames' zoom
 * ('zoom'), or the view's centre outside the frames' bounds ('bounds'). The
 * viewer may insist on playing anyway (override()): the range then reads as
 * fine until the view changes range again.
 *
 * Events:
 *   change {reason}   reason: 'zoom' | 'bounds' | null (in range or overridden)
 */
(function (L, M) {
	'use strict';

	M.ViewRange = L.Layer.extend({
		options: {
			// @option zoom: Number = 0
			// The zoom the frames were stitched at.
			zoom: 0,
			// @option slack: Number = 1
			// Levels past `zoom` still shown from the frames (scaled up).
			slack: 1
		},

		// bounds: the frames' L.LatLngBounds (east may exceed 180 across the antimeridian).
		initialize: function (bounds, options) {
			L.setOptions(this, options);
			this._bounds = bounds;
			this._raw = undefined;
			this._overridden = false;
		},

		onAdd: function () {
			this._raw = undefined;
			this._overridden = false;
			this._check();
		},

		onRemove: function () {
			this._raw = undefined;
			this._overridden = false;
		},

		getEvents: function () {
			return {zoomend: this._check, moveend: this._check};
		},

		// Why the view is out of range, or null.
		reason: function () {
			return this._overridden ? null : (this._raw || null);
		},

		// The viewer insists: report in range until the view changes range.
		override: function () {
			if (!this._raw || this._overridden) { return this; }
			this._overridden = true;
			this.fire('change', {reason: null});
			return this;
		},

		_check: function () {
			if (!this._map) { return; }
			var raw = this._map.getZoom() > this.options.zoom + this.options.slack + 1e-6 ? 'zoom'
				: this._containsCenter() ? null : 'bounds';
			if (raw === this._raw) { return; }
			this._raw = raw;
			this._overridden = false;
			this.fire('change', {reason: raw});
		},

		_containsCenter: function () {
			var c = this._map.getCenter();
			var b = this._bounds;
			return [0, 360, -360].some(function (shift) { return b.contains(L.latLng(c.lat, c.lng + shift)); });
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
