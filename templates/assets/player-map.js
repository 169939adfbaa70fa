/*
 * Matsite.Player, map: the Leaflet map a player draws on, made once the
 * manifest is in: its deepest zoom (from the frames', the fallback tiles' and
 * the base map's detail), the attribution, the base map (and its detail tiles
 * around the animation), and the view fitted to the frames.
 *
 * A mixin (Matsite.PlayerMap) the class takes in with `includes`: load it
 * before player.js.
 */
(function (L, M) {
	'use strict';

	var isNum = M.isNum;

	// The map's deepest zoom: two levels past the deepest fallback tiles (the
	// animation's or a data layer's), deeper with a base map that has the detail.
	function deepestZoom(m, fb, base) {
		var fallbacks = [fb].concat(Array.isArray(m.layers) ? m.layers.map(function (l) { return l && l.fallback; }) : []);
		var deepest = fallbacks.reduce(function (z, f) {
			return f && isNum(f.max_native_zoom) ? Math.max(z, f.max_native_zoom + 2) : z;
		}, m.zoom + 4);
		if (base && isNum(base.max_zoom)) { deepest = Math.max(deepest, Math.min(base.max_zoom, m.zoom + 6)); }
		return Math.min(22, deepest);
	}

	M.PlayerMap = {
		_buildMap: function (m) {
			var base = m.base_map && typeof m.base_map.url === 'string' ? m.base_map : null;
			var fb = m.fallback && Array.isArray(m.fallback.templates) ? m.fallback : null;
			var deepest = deepestZoom(m, fb, base);
			// On a touch screen one finger scrolls the page, as everywhere else on it; two fingers
			// move and zoom the map. A map that took every swipe would trap the page's scrolling.
			var touch = !!(window.matchMedia && window.matchMedia('(pointer: coarse)').matches);
			var map = this._map = L.map(this._mapEl, {
				keyboard: false, // Left/Right belong to the frame stepping
				zoomSnap: 0.5,
				maxZoom: deepest,
				worldCopyJump: false,
				dragging: !touch,
				tap: false,
				attributionControl: true
			});
			map.attributionControl.setPrefix('<a href="https://leafletjs.com" rel="noopener noreferrer" target="_blank">Leaflet</a>');
			var attribution = typeof m.attribution_html === 'string' ? M.safeAttribution(m.attribution_html)
				: typeof m.attribution === 'string' && m.attribution ? M.escapeText(m.attribution) : '';
			if (attribution) { map.attributionControl.addAttribution(attribution); }
			if (base) { this._addBaseMap(base, deepest); }
			this._fallback = fb;
		},

		_addBaseMap: function (base, deepest) {
			var opts = {
				maxZoom: deepest,
				maxNativeZoom: isNum(base.max_native_zoom) ? base.max_native_zoom : isNum(base.max_zoom) ? base.max_zoom : 19,
				attribution: M.safeAttribution(base.attribution_html || '') || undefined,
				className: 'matsite-basemap'
			};
			if (Array.isArray(base.subdomains) && base.subdomains.length) { opts.subdomains = base.subdomains; }
			new M.TileLayer(this._resolve(base.url), opts).addTo(this._map);
			// The demo base map is drawn deeper around the animation only: those tiles go
			// over the world's coarser ones there, and nothing is asked for elsewhere.
			var d = base.detail;
			if (d && isNum(d.min_zoom) && isNum(d.max_native_zoom) && Array.isArray(d.bounds) && d.bounds.length === 4) {
				var detail = L.extend({}, opts, {minZoom: d.min_zoom, maxNativeZoom: d.max_native_zoom, attribution: undefined});
				if (d.bounds[0] < d.bounds[2]) { detail.bounds = [[d.bounds[1], d.bounds[0]], [d.bounds[3], d.bounds[2]]]; }
				new M.TileLayer(this._resolve(base.url), detail).addTo(this._map);
			}
		},

		_fitMap: function (m) {
			this._frameBounds = this._overlay.getBounds();
			// Small frames in a large page would otherwise open already "too deep".
			this._map.fitBounds(this._frameBounds, {animate: false, maxZoom: m.zoom + 1});
			this._map.setMinZoom(Math.max(0, this._map.getZoom() - 3));
		}
	};
}(window.L, window.Matsite = window.Matsite || {}));
