/*
 * Matsite.LayerStack: the frame layer of an animation with data layers on one
 * timeline (manifest `layers`, each timeline frame's `layers`: per layer the
 * index of the layer frame shown, or null). To the player it is a frame layer
 * like any other (frame-layer.js lists what they offer), indexed by the
 * timeline; inside it holds one frame layer per data layer, made by
 * Matsite.frameLayer from that layer's own frames (images or levels), each in
 * a pane of its own carrying data-layer="<id>", bottom to top as the manifest
 * lists them, all in one pane the animation's opacity fades as a whole.
 *
 * At each timeline step only the layers whose frame changes are told to show
 * it (and crossfade); the others are not touched, so they stay exactly as they
 * were: no fade, no flicker. A layer with no frame at a step (null) is hidden
 * there (fading out over the step's crossfade, and in again when a frame is
 * back and on top); noData(i) names such layers for the player to say so,
 * except where the timeline's past and future part (issue 37): an observed
 * layer at a forecast step, or a layer of forecasts only at an observed step,
 * has nothing to show there by design, and is not said to lack data.
 *
 * A layer's pane also carries data-layer-frame (the layer frame shown, or
 * "none") and the class matsite-layer-off while the viewer has it hidden.
 *
 * Events:
 *   shown {index}                 the layers that changed at timeline step
 *                                 `index` are fully on top
 *   layer {id, visible, opacity}  a layer's visibility or opacity changed
 */
(function (L, M) {
	'use strict';

	var isNum = M.isNum, clamp01 = M.clamp01;

	function usableFallback(fb) {
		return fb && Array.isArray(fb.templates) ? fb : null;
	}

	// What a manifest's layer needs to be drawn: an id and frames with URLs.
	function usableLayer(def) {
		return def && typeof def.id === 'string' && Array.isArray(def.frames) && def.frames.length > 0 &&
			def.frames.every(function (f) { return f && (typeof f.url === 'string' || typeof f.tiles === 'string'); });
	}

	M.LayerStack = L.Layer.extend({
		options: {
			// @option posterUrl: String = ''
			// Shown under the bottom layer until its frames load.
			posterUrl: '',
			// @option first: Number = 0
			// The timeline step the player opens on (each layer loads its frame there first).
			first: 0,
			// @option budget: Number = 128 MiB
			// Decoded bytes the layers published as levels, or with reduced levels, share.
			budget: 128 * 1024 * 1024,
			// @option concurrency: Number = 6
			// Fetches each layer's loader keeps in flight after its first load.
			concurrency: 6,
			// @option visible: String[] = undefined
			// Ids of the layers shown at first (the others hidden). Default: all.
			visible: undefined
		},

		// m: the animation's manifest; resolve: (URL relative to the manifest) -> URL.
		initialize: function (m, resolve, options) {
			L.setOptions(this, options);
			var o = this.options;
			this._resolve = resolve;
			this._defs = m.layers.filter(usableLayer);
			var count = this._defs.length;
			// Per step, per layer: the layer frame shown, or null (an index out of range counts as null).
			this._steps = m.frames.map(function (f) {
				var row = Array.isArray(f.layers) ? f.layers : [];
				return this._defs.map(function (def) {
					var k = m.layers.indexOf(def), li = row[k];
					return Number.isInteger(li) && li >= 0 && li < def.frames.length ? li : null;
				});
			}, this);
			// Per step, the layers that have frames of its kind (all of them without forecasts).
			var forecast = function (f) { return !!f && f.kind === 'forecast'; };
			var split = m.frames.some(forecast);
			this._ofKind = m.frames.map(function (step) {
				return this._defs.map(function (def) {
					return !split || def.frames.some(function (f) { return forecast(f) === forecast(step); });
				});
			}, this);
			var levels = this._defs.filter(function (def) {
				return M.PyramidGrid.usable(def) || M.FrameLevels.of(def, resolve) !== null;
			}).length;
			var first = Math.max(0, Math.min(this._steps.length - 1, o.first | 0));
			this._subs = this._defs.map(function (def, k) {
				var opening = this._at(first, k);
				return M.frameLayer({bounds: m.bounds, zoom: isNum(def.zoom) ? def.zoom : m.zoom, width: def.width, height: def.height,
					frames: def.frames, pyramid: def.pyramid}, {
					resolve: resolve,
					first: opening === null ? 0 : opening,
					posterUrl: k === 0 ? o.posterUrl : '',
					alt: typeof def.title === 'string' && def.title ? def.title : def.id,
					pane: 'matsiteLayer' + k,
					budget: o.budget / Math.max(1, levels),
					concurrency: o.concurrency
				});
			}, this);
			this._loader = new M.LayerLoader(this._subs.map(function (s) { return s.getLoader(); }), this.titles());
			this._shown = this._defs.map(function () { return null; });  // layer frame per layer, or null
			this._visible = this._defs.map(function (def) {
				return !Array.isArray(o.visible) || o.visible.indexOf(def.id) >= 0;
			});
			this._opacity = this._defs.map(function (def) { return isNum(def.opacity) ? clamp01(def.opacity) : 1; });
			this._fallbacks = this._defs.map(function (def) { return usableFallback(def.fallback); });
			this._fallbackLayers = [];
			this._reveal = [];  // per layer: the layer frame whose arrival on top unhides it
			this._revealMs = [];  // per layer: how long that unhiding fades in
			this._paneFades = [];  // per layer: the pane's fade in or out under way
			this._groupOpacity = 1;
			this._index = first;
			this._panes = [];
			var east = m.bounds.east < m.bounds.west ? m.bounds.east + 360 : m.bounds.east;
			this._bounds = L.latLngBounds([m.bounds.south, m.bounds.west], [m.bounds.north, east]);
			this._subs.forEach(function (sub, k) {
				sub.on('shown', function (e) { this._onShown(k, e.index); }, this);
			}, this);
		},

		getLoader: function () { return this._loader; },

		getBounds: function () { return this._bounds; },

		// The finest detail any layer has: past it, no layer gains anything from its frames.
		detailZoom: function () {
			return this._subs.reduce(function (z, s) { var d = s.detailZoom(); return isNum(d) && d > z ? d : z; }, -Infinity);
		},

		frontIndex: function () { return this._index; },

		// The layers, bottom to top: {id, title, visible, opacity, legend, skipped, gaps}
		// (gaps: the layer has no frame at some step).
		layers: function () {
			return this._defs.map(function (def, k) {
				return {id: def.id, title: this.titles()[k], visible: this._visible[k], opacity: this._opacity[k],
					legend: def.legend, skipped: def.skipped,
					gaps: this._steps.some(function (row) { return row[k] === null; })};
			}, this);
		},

		titles: function () {
			return this._defs.map(function (def) { return typeof def.title === 'string' && def.title ? def.title : def.id; });
		},

		// The shown layers with no frame at timeline step i: [{id, title}].
		noData: function (i) {
			var titles = this.titles();
			return this._defs.map(function (def, k) {
				var none = this._visible[k] && this._at(i, k) === null && (!this._ofKind[i] || this._ofKind[i][k]);
				return none ? {id: def.id, title: titles[k]} : null;
			}, this).filter(Boolean);
		},

		onAdd: function (map) {
			var group = this._group = map.createPane('matsiteLayers', this.getPane());
			L.DomUtil.addClass(group, 'matsite-layers-pane');
			this._panes = this._defs.map(function (def, k) {
				var pane = map.createPane('matsiteLayer' + k, group);
				L.DomUtil.addClass(pane, 'matsite-layer-pane');
				pane.setAttribute('data-layer', def.id);
				return pane;
			});
			this.setOpacity(this._groupOpacity);
			this._subs.forEach(function (sub, k) {
				map.addLayer(sub);
				sub.setOpacity(this._opacity[k]);
				this._mark(k);
			}, this);
		},

		onRemove: function (map) {
			this._subs.forEach(function (sub) { map.removeLayer(sub); });
			this._showFallback(false);
			L.DomUtil.remove(this._group);
			delete map._panes.matsiteLayers;
			this._panes.forEach(function (pane, k) { delete map._panes['matsiteLayer' + k]; });
			this._panes = [];
		},

		// Shows timeline step i while frames load; not a frame change.
		showInitial: function (i) {
			this._index = i;
			this._subs.forEach(function (sub, k) {
				var li = this._at(i, k);
				this._shown[k] = li;
				this._reveal[k] = undefined;
				this._fadePane(k, null, 0);
				sub.showInitial(li === null ? 0 : li);
				this._mark(k);
			}, this);
			return this;
		},

		// Readies, for each layer, the next frame it will change to from step i on.
		prepare: function (i) {
			var n = this._steps.length;
			if (i < 0 || !n) { return this; }
			this._subs.forEach(function (sub, k) {
				var front = sub.frontIndex();
				for (var s = 0; s < n; s++) {
					var li = this._at((i + s) % n, k);
					if (li !== null && li !== front) { sub.prepare(li); break; }
				}
			}, this);
			return this;
		},

		// Brings timeline step i to the top: the layers whose frame changes crossfade over
		// fadeMs (0: at once), the others are left as they are.
		show: function (i, fadeMs) {
			var changed = false;
			this._index = i;
			this._subs.forEach(function (sub, k) {
				var li = this._at(i, k), before = this._shown[k];
				this._shown[k] = li;
				if (li === null) {
					this._reveal[k] = undefined;
					// To no data: the frame shown fades out as a changing frame would.
					if (before !== null) { this._fadePane(k, 'out', fadeMs); }
				} else if (before === null) {
					// Back from no data: the frame goes on top at once (hidden), and the layer
					// fades in once it is there.
					this._fadePane(k, null, 0);
					this._reveal[k] = li;
					this._revealMs[k] = fadeMs;
					sub.show(li, 0);
					if (sub.frontIndex() === li) { this._revealed(k); }
				} else if (li !== before) {
					changed = true;
					sub.show(li, fadeMs);
				}
				if (li !== before && this._fallbackLayers[k]) { this._fallbackLayers[k].setUrl(this._fallbackUrl(k, li)); }
				this._mark(k);
			}, this);
			// Nothing to wait for: the step is on top now.
			if (!changed) { this.fire('shown', {index: i}); }
			return this;
		},

		// Opacity of all layers together against the map below.
		setOpacity: function (opacity) {
			this._groupOpacity = opacity;
			if (this._group) { this._group.style.opacity = opacity >= 1 ? '' : String(Math.max(0, opacity)); }
			return this;
		},

		// While fallback tiles stand in, the frames of the layers without them stay (scaled).
		setVisible: function () { return this; },

		// Whether the frame on screen stands still: each layer picks its detail by it.
		setStill: function (still) {
			this._subs.forEach(function (sub) { if (sub.setStill) { sub.setStill(still); } });
			return this;
		},

		removePoster: function () {
			this._subs.forEach(function (sub) { sub.removePoster(); });
			return this;
		},

		// Shows (visible) or hides a layer and/or sets its opacity; id: the layer's id.
		// False when there is no such layer.
		setLayer: function (id, visible, opacity) {
			var k = this._find(id);
			if (k < 0) { return false; }
			if (typeof visible === 'boolean' && visible !== this._visible[k]) {
				this._visible[k] = visible;
				this._fadePane(k, null, 0);
			}
			if (isNum(opacity)) {
				this._opacity[k] = clamp01(opacity);
				this._subs[k].setOpacity(this._opacity[k]);
				if (this._fallbackLayers[k]) { this._fallbackLayers[k].setOpacity(this._opacity[k]); }
			}
			this._mark(k);
			this.fire('layer', {id: id, visible: this._visible[k], opacity: this._opacity[k]});
			return true;
		},

		// Zoomed past the frames or panned off them (on): each layer with fallback tiles shows
		// its current frame as tiles, in its own pane; the others keep their scaled frames.
		// True when some layer has fallback tiles.
		showFallback: function (on) {
			this._showFallback(on);
			return this._fallbacks.some(Boolean);
		},

		_showFallback: function (on) {
			this._subs.forEach(function (sub, k) {
				var fb = this._fallbacks[k];
				if (!fb) { return; }
				if (on && !this._fallbackLayers[k] && this._map) {
					var opts = {
						pane: 'matsiteLayer' + k,
						maxZoom: this._map.getMaxZoom(),
						className: 'matsite-fallback',
						opacity: this._opacity[k]
					};
					if (isNum(fb.min_zoom)) { opts.minNativeZoom = fb.min_zoom; }
					if (isNum(fb.max_native_zoom)) { opts.maxNativeZoom = fb.max_native_zoom; }
					if (Array.isArray(fb.subdomains) && fb.subdomains.length) { opts.subdomains = fb.subdomains; }
					// Published tiles exist only over the frames' bounds: do not ask for others.
					if (fb.published === true) { opts.bounds = this._bounds; }
					this._fallbackLayers[k] = new M.TileLayer(this._fallbackUrl(k, this._shown[k]), opts).addTo(this._map);
				} else if (!on && this._fallbackLayers[k]) {
					this._fallbackLayers[k].remove();
					this._fallbackLayers[k] = null;
				}
				sub.setVisible(!on);
			}, this);
		},

		// A layer frame's fallback tiles: its own template (tiles published in a folder named by
		// their content, or the source's); with no frame (null) a URL that asks for nothing.
		_fallbackUrl: function (k, li) {
			return li === null ? '' : this._resolve(String(this._fallbacks[k].templates[li] || ''));
		},

		_at: function (i, k) {
			var row = this._steps[i];
			return row ? row[k] : null;
		},

		_find: function (id) {
			for (var k = 0; k < this._defs.length; k++) {
				if (this._defs[k].id === id) { return k; }
			}
			return -1;
		},

		_onShown: function (k, li) {
			if (this._reveal[k] === li) { this._revealed(k); }
			this.fire('shown', {index: this._index});
		},

		// A layer back from no data has its frame on top: it shows, fading in.
		_revealed: function (k) {
			this._reveal[k] = undefined;
			this._mark(k);
			this._fadePane(k, 'in', this._revealMs[k]);
		},

		// Fades layer k's pane in or out over ms (a Web Animation the compositor runs), or
		// (dir null) ends a fade under way. Until a fade out ends, the pane stays shown.
		_fadePane: function (k, dir, ms) {
			var pane = this._panes[k], was = this._paneFades[k];
			if (was) {
				this._paneFades[k] = null;
				was.cancel();
			}
			if (!dir || !(ms > 0) || !pane || typeof pane.animate !== 'function' || !this._visible[k]) {
				if (was) { this._mark(k); }
				return;
			}
			var fade = pane.animate(dir === 'in' ? [{opacity: 0}, {opacity: 1}] : [{opacity: 1}, {opacity: 0}],
				{duration: ms, easing: 'linear', fill: 'forwards'});
			fade.matsiteOut = dir === 'out';
			this._paneFades[k] = fade;
			var self = this;
			fade.onfinish = function () {
				if (self._paneFades[k] !== fade) { return; }
				self._paneFades[k] = null;
				self._mark(k);
				fade.cancel();
			};
			this._mark(k);
		},

		// A layer's pane shows what the layer shows: hidden while the viewer has it off, at a
		// step without a frame, or until a frame back from no data is on top.
		_mark: function (k) {
			var pane = this._panes[k];
			if (!pane) { return; }
			var li = this._shown[k];
			pane.setAttribute('data-layer-frame', li === null ? 'none' : String(li));
			L.DomUtil[this._visible[k] ? 'removeClass' : 'addClass'](pane, 'matsite-layer-off');
			var out = this._paneFades[k] && this._paneFades[k].matsiteOut;
			var blank = (li === null && !out) || this._reveal[k] !== undefined;
			L.DomUtil[blank ? 'addClass' : 'removeClass'](pane, 'matsite-layer-blank');
		}
	});

	// Whether a manifest has data layers a LayerStack can draw.
	M.LayerStack.usable = function (m) {
		return !!m && Array.isArray(m.layers) && m.layers.some(usableLayer);
	};
}(window.L, window.Matsite = window.Matsite || {}));
