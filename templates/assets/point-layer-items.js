/*
 * Matsite.PointLayer, items: the element of a cluster or a point (a button
 * with data-count, its count as text or its label in data-label, an aria-label naming the layer
 * and what a press does), and what a press does: a cluster zooms in to where it
 * splits, a point opens a popup of its fields. Joined to the class with
 * include, after point-layer.js.
 */
(function (L, M) {
	'use strict';

	function words(n) { return n === 1 ? '1 point' : n + ' points'; }

	var isNum = M.isNum;

	M.PointLayer.include({
		// The element of this layer an event happened in, if any: none while the layer is
		// hidden over a zoom (transparent, its elements would still take presses).
		_item: function (e) {
			if (this._root && L.DomUtil.hasClass(this._root, 'matsite-point-wait')) { return null; }
			var t = e.target;
			var el = t && t.closest ? t.closest('.matsite-point-item') : null;
			return el && el._matsiteLayer === this ? el : null;
		},

		_onPress: function (e) {
			if (this._item(e)) { L.DomEvent.stopPropagation(e); }
		},

		_onClick: function (e) {
			var el = this._item(e);
			if (!el) { return; }
			L.DomEvent.stopPropagation(e);
			this._open(el);
		},

		_create: function (d, z, i, count) {
			var el = document.createElement('button');
			el.className = 'matsite-point-item';
			el.type = 'button';
			el.setAttribute('data-layer', String(this._def.id));
			el.setAttribute('data-zoom', String(z));
			el.setAttribute('data-index', String(i));
			el._matsiteLayer = this;
			this._setCount(el, d, i, count);
			return el;
		},

		// An element taken over by item i of level z (the same points, another level).
		_retag: function (el, z, i) {
			el.setAttribute('data-zoom', String(z));
			el.setAttribute('data-index', String(i));
			el.removeAttribute('aria-hidden');
			el.removeAttribute('tabindex');
		},

		// Shows count on an element (a cluster, or a single point with its label); an
		// element that already shows it is not touched, so a frame change restyles only
		// the elements whose count changed.
		_setCount: function (el, d, i, count) {
			if (el._matsiteCount === count) { return; }
			el._matsiteCount = count;
			var title = this.title();
			var leaf = count === 1 ? this._levels.leaf(d, i) : -1;
			var kind = count === 1 && leaf >= 0 ? 'matsite-point' :
				'matsite-cluster matsite-cluster-' + (count < 10 ? 's' : count < 1000 ? 'm' : 'l');
			if (el._matsiteKind !== kind) {
				if (el._matsiteKind) { el._matsiteKind.split(' ').forEach(function (c) { L.DomUtil.removeClass(el, c); }); }
				kind.split(' ').forEach(function (c) { L.DomUtil.addClass(el, c); });
				el._matsiteKind = kind;
			}
			el.setAttribute('data-count', String(count));
			// A point's label is an attribute the stylesheet shows (::after), not an element
			// of its own: at deep zooms most items are points, and an element each more is
			// what made a level slow to style and lay out on a slow device. An attribute is
			// text, never markup.
			if (kind === 'matsite-point') {
				var label = this._levels.labelOf(leaf);
				el.textContent = '';
				if (label) { el.setAttribute('data-label', label); } else { el.removeAttribute('data-label'); }
				el.setAttribute('aria-label', title + ': ' + (label || 'a point') + ' (opens details)');
				el.setAttribute('data-leaf', String(leaf));
			} else {
				el.textContent = count >= 10000 ? Math.round(count / 1000) + 'k' : String(count);
				el.setAttribute('aria-label', title + ': ' + words(count) + ' here (zooms in)');
				el.removeAttribute('data-leaf');
				el.removeAttribute('data-label');
			}
		},

		// A cluster zooms in to where it splits; a single point opens its popup.
		_open: function (el) {
			var map = this._map;
			if (!map) { return; }
			var z = +el.getAttribute('data-zoom'), i = +el.getAttribute('data-index');
			var d = this._levels.data(z);
			if (!d) { return; }
			var latlng = L.latLng(d.lat[i], d.lon[i]);
			var leaf = el.hasAttribute('data-leaf') ? +el.getAttribute('data-leaf') : -1;
			if (leaf < 0) {
				var split = d && d.split && isNum(d.split[i]) && d.split[i] > z ? d.split[i] : z + 1;
				var to = Math.min(map.getMaxZoom(), Math.max(split, Math.floor(map.getZoom()) + 1));
				// While the animation plays at the map's zoom, a press zooms in no deeper than it
				// still plays (the next press goes on to where the cluster splits).
				var play = this.options.playZoom ? this.options.playZoom() : null;
				if (isNum(play) && map.getZoom() < Math.floor(play)) { to = Math.min(to, Math.floor(play)); }
				map.setView(latlng, to);
				return;
			}
			var self = this;
			this._levels.loadProperties().then(function (p) {
				var box = L.DomUtil.create('div', 'matsite-popup');
				var label = self._levels.labelOf(leaf);
				L.DomUtil.create('p', 'matsite-popup-title', box).textContent = label || String(self._def.title || '');
				var keys = p && Array.isArray(p.keys) ? p.keys : [];
				var values = p && Array.isArray(p.popup) && Array.isArray(p.popup[leaf]) ? p.popup[leaf] : [];
				if (keys.length) {
					var dl = L.DomUtil.create('dl', 'matsite-popup-fields', box);
					keys.forEach(function (k, n) {
						var v = values[n];
						if (v === null || v === undefined) { return; }
						L.DomUtil.create('dt', '', dl).textContent = String(k);
						L.DomUtil.create('dd', '', dl).textContent = String(v);
					});
				}
				// At least 200 px wide: measured on its own, a popup near the map's right edge took the
				// narrow room left there and broke long values every few letters, taller than the map.
				var popup = L.popup({autoPan: true, minWidth: 200, maxWidth: 300, className: 'matsite-point-popup'}).setLatLng(latlng).setContent(box);
				// Focus goes back to the point, or to the element that shows it now: the popup's own
				// pan may have had the layer draw that point anew.
				popup.once('remove', function () {
					var root = self._root;
					var back = document.body.contains(el) ? el
						: root && root.querySelector('.matsite-point[data-leaf="' + leaf + '"]:not(.matsite-point-leaving)');
					if (back) { back.focus(); }
				});
				popup.openOn(map);
				// Keyboard users land in the popup: its close button is the first stop.
				var close = popup.getElement() && popup.getElement().querySelector('.leaflet-popup-close-button');
				if (close) {
					close.setAttribute('aria-label', 'Close details');
					close.setAttribute('role', 'button');
					close.focus();
				}
			});
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
