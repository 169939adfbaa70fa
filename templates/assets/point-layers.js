/*
 * Matsite.PointLayers: every point layer of a manifest (a Matsite.PointLayer
 * each) and their toggle, a Leaflet control: a checkbox per layer whose label
 * is the layer's title and its count in the current frame, which screen
 * readers read with it.
 */
(function (L, M) {
	'use strict';

	function words(n) { return n === 1 ? '1 point' : n + ' points'; }

	M.PointLayers = L.Control.extend({
		options: {
			// @option position: String = 'topright'
			position: 'topright',
			// @option frame: Number = 0
			// The frame shown first.
			frame: 0,
			// @option reducedMotion: Boolean = false
			// No moves or fades.
			reducedMotion: false,
			// @option playZoom: Function = null
			// () -> the deepest zoom the animation still plays at: a cluster's press zooms in
			// no deeper while the map is above it.
			playZoom: null
		},

		// defs: the manifest's points entries; resolve: (url relative to the manifest) -> URL.
		initialize: function (defs, resolve, options) {
			L.setOptions(this, options);
			this._layers = defs.filter(function (def) {
				return def && typeof def.id === 'string' && Array.isArray(def.levels) && def.levels.length;
			}).map(function (def) {
				return new M.PointLayer(def, resolve, {frame: this.options.frame || 0, reducedMotion: !!this.options.reducedMotion,
					playZoom: this.options.playZoom});
			}, this);
			this._rows = [];
		},

		onAdd: function (map) {
			var box = L.DomUtil.create('div', 'matsite-point-layers leaflet-bar');
			box.setAttribute('role', 'group');
			box.setAttribute('aria-label', 'Point layers');
			L.DomEvent.disableClickPropagation(box);
			L.DomEvent.disableScrollPropagation(box);
			var self = this;
			this._rows = this._layers.map(function (layer) {
				var row = L.DomUtil.create('label', 'matsite-point-toggle', box);
				var input = L.DomUtil.create('input', '', row);
				input.type = 'checkbox';
				input.checked = true;
				var name = L.DomUtil.create('span', 'matsite-point-name', row);
				name.textContent = layer.title();
				var count = L.DomUtil.create('span', 'matsite-point-count', row);
				L.DomEvent.on(input, 'change', function () {
					if (input.checked) { map.addLayer(layer); } else { map.removeLayer(layer); }
				});
				map.addLayer(layer);
				layer.whenReady().then(function () { self._count(); }, function () {});
				return {layer: layer, count: count};
			});
			this._count();
			return box;
		},

		onRemove: function (map) {
			this._layers.forEach(function (layer) { map.removeLayer(layer); });
		},

		setFrame: function (i) {
			this._layers.forEach(function (layer) { layer.setFrame(i); });
			this._count();
			return this;
		},

		layers: function () { return this._layers.slice(); },

		_count: function () {
			this._rows.forEach(function (row) {
				row.count.textContent = ' (' + words(row.layer.total()) + ')';
			});
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
