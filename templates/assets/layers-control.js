/*
 * Matsite.LayersControl: the strip that lists an animation's data layers,
 * between the map and the controls (covering neither), top layer first as a
 * map's layer list reads: per layer a checkbox named by its title (shows or
 * hides it), an opacity range named "Opacity: <title>" (native controls, so
 * keyboards, touch and screen readers know them), a "no data" note while the
 * layer has no frame at the step shown, and the layer's legend while it is
 * shown. Like PlayerControl it only renders state it is given and reports what
 * the viewer asked for; the player decides.
 *
 * Events (what the viewer asked for):
 *   layer {id, visible}   a checkbox
 *   layer {id, opacity}   an opacity range (0..1)
 */
(function (L, M) {
	'use strict';

	M.LayersControl = L.Evented.extend({
		// layers: bottom to top, {id, title, visible, opacity, legend, skipped, gaps (no frame
		// at some step)}; format: (ms) ->
		// words for a time (left-out times in a legend); resolve: (url) -> URL of a
		// manifest-relative file (a legend's image).
		initialize: function (layers, format, resolve) {
			var c = this._container = L.DomUtil.create('div', 'matsite-layers');
			c.setAttribute('role', 'group');
			c.setAttribute('aria-label', 'Layers');
			this._rows = {};
			layers.slice().reverse().forEach(function (layer) {
				this._rows[layer.id] = this._row(c, layer, format, resolve);
				this.update(layer.id, {visible: layer.visible, opacity: layer.opacity});
			}, this);
		},

		// Inserts the strip into parent before `before` (the legend strip or the controls).
		addTo: function (parent, before) {
			parent.insertBefore(this._container, before || null);
			return this;
		},

		getContainer: function () { return this._container; },

		// state: {visible, opacity}; only the keys given are updated.
		update: function (id, state) {
			var row = this._rows[id];
			if (!row) { return this; }
			if ('visible' in state) {
				row.toggle.checked = !!state.visible;
				L.DomUtil[state.visible ? 'removeClass' : 'addClass'](row.el, 'matsite-layer-hidden');
				if (row.legend) { row.legend.hidden = !state.visible; }
			}
			if ('opacity' in state) {
				var pct = Math.round(state.opacity * 100);
				row.opacity.value = String(pct);
				row.opacity.setAttribute('aria-valuetext', pct + '%');
			}
			return this;
		},

		// ids: the layers with no frame at the step shown. A layer without data at some step
		// of the loop keeps its note's room at every step (the note unseen where it has data):
		// the strip, and the map above it, keep their size from step to step.
		setNoData: function (ids) {
			for (var id in this._rows) {
				var row = this._rows[id], none = ids.indexOf(id) >= 0;
				row.note.hidden = !none && !row.gaps;
				L.DomUtil[!none && row.gaps ? 'addClass' : 'removeClass'](row.note, 'matsite-layer-nodata-spare');
			}
			return this;
		},

		remove: function () {
			L.DomUtil.remove(this._container);
			this.off();
			return this;
		},

		_row: function (parent, layer, format, resolve) {
			var el = L.DomUtil.create('div', 'matsite-layer', parent);
			el.setAttribute('data-layer', layer.id);
			el.setAttribute('role', 'group');
			el.setAttribute('aria-label', layer.title);
			var label = L.DomUtil.create('label', 'matsite-layer-toggle', el);
			var toggle = L.DomUtil.create('input', '', label);
			toggle.type = 'checkbox';
			L.DomUtil.create('span', 'matsite-layer-name', label).textContent = layer.title;
			var box = L.DomUtil.create('label', 'matsite-layer-opacity', el);
			L.DomUtil.create('span', 'matsite-opacity-name', box).textContent = 'Opacity';
			var o = L.DomUtil.create('input', 'matsite-opacity', box);
			o.type = 'range';
			o.min = '0';
			o.max = '100';
			o.step = '5';
			o.setAttribute('aria-label', 'Opacity: ' + layer.title);
			o.title = 'Opacity: ' + layer.title;
			var note = L.DomUtil.create('span', 'matsite-layer-nodata', el);
			note.textContent = 'no data at this time';
			note.hidden = true;

			var legend = new M.Legend(layer.legend, layer.skipped, format, resolve).getContainer();
			if (legend) {
				L.DomUtil.addClass(legend, 'matsite-layer-legend');
				el.appendChild(legend);
			}
			L.DomEvent.on(toggle, 'change', function () { this.fire('layer', {id: layer.id, visible: toggle.checked}); }, this);
			L.DomEvent.on(o, 'input', function () { this.fire('layer', {id: layer.id, opacity: Number(o.value) / 100}); }, this);
			return {el: el, toggle: toggle, opacity: o, note: note, legend: legend, gaps: !!layer.gaps};
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
