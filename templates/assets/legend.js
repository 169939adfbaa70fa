/*
 * Matsite.Legend: the strip under the map that explains the colours (the
 * manifest's legend: a unit and [value, colour(, label)] stops) and notes,
 * without alarm, the times a build left out (the manifest's skipped list).
 * Real text, not a picture of text; it sits between the map and the controls,
 * so it covers neither.
 */
(function (L, M) {
	'use strict';

	M.Legend = L.Class.extend({
		// legend: the manifest's legend or undefined; skipped: [{time, reason}] or undefined;
		// format: (ms) -> words for a skipped time; resolve: (url) -> URL of a manifest-relative
		// file (the legend's image).
		initialize: function (legend, skipped, format, resolve) {
			this._container = null;
			var stops = legend && Array.isArray(legend.stops) ? legend.stops.filter(function (s) {
				return Array.isArray(s) && typeof s[0] === 'number' && isFinite(s[0]) && M.safeColor(s[1]);
			}) : [];
			var left = Array.isArray(skipped) ? skipped.filter(function (s) {
				return s && typeof s.time === 'string' && isFinite(Date.parse(s.time));
			}) : [];
			if (!stops.length && !left.length) { return; }
			var c = this._container = L.DomUtil.create('div', 'matsite-info');
			if (stops.length) {
				var unit = typeof legend.unit === 'string' ? legend.unit : '';
				var box = L.DomUtil.create('div', 'matsite-legend', c);
				box.setAttribute('role', 'group');
				box.setAttribute('aria-label', 'Legend' + (unit ? ' (' + unit + ')' : ''));
				if (unit) { L.DomUtil.create('span', 'matsite-legend-unit', box).textContent = unit; }
				// The product's own colour bar, beside (never instead of) the stops as text (a data
				// layer's sits in its folder).
				if (typeof legend.image === 'string' && /^([a-z0-9][a-z0-9-]*\/)?legend-[0-9a-f]+\.(png|jpg|webp)$/.test(legend.image)) {
					var img = L.DomUtil.create('img', 'matsite-legend-image', box);
					img.alt = typeof legend.image_alt === 'string' ? legend.image_alt : '';
					img.decoding = 'async';
					img.src = resolve(legend.image);
				}
				var list = L.DomUtil.create('ul', 'matsite-legend-stops', box);
				stops.forEach(function (s) {
					var item = L.DomUtil.create('li', 'matsite-legend-stop', list);
					var swatch = L.DomUtil.create('span', 'matsite-swatch', item);
					swatch.setAttribute('aria-hidden', 'true');
					swatch.style.backgroundColor = s[1];
					var text = typeof s[2] === 'string' && s[2] ? s[2] : String(s[0]);
					L.DomUtil.create('span', 'matsite-legend-value', item).textContent = text;
				});
			}
			if (left.length) {
				var note = L.DomUtil.create('p', 'matsite-skipped', c);
				var times = left.map(function (s) { return format(Date.parse(s.time)); });
				note.textContent = (left.length === 1 ? 'Not in this loop yet: ' : left.length + ' times not in this loop yet: ') +
					times.join(', ') + (typeof left[0].reason === 'string' && left.length === 1 ? ' (' + left[0].reason + ')' : '') + '.';
			}
		},

		// Inserts the strip into parent before `before` (the controls); nothing when there is nothing to say.
		addTo: function (parent, before) {
			if (this._container) { parent.insertBefore(this._container, before || null); }
			return this;
		},

		getContainer: function () { return this._container; },

		remove: function () {
			if (this._container) { L.DomUtil.remove(this._container); }
			this._container = null;
			return this;
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
