/*
 * Matsite.PointLayer: one point layer clustered at build time (the manifest's
 * points[] entry), drawn as buttons in Leaflet's marker pane. Each zoom has its
 * own published level (clusters down to max_zoom, then the points themselves);
 * nothing is clustered here. Every element carries data-count (1 for a single
 * point), data-layer, data-zoom (the level) and data-index (the item in it).
 *
 * Zooming in, the items of the new level start where their ancestor stood in
 * the level shown before and move out to their own place; zooming out, the old
 * items move into their ancestor and merge; panning, items coming into view
 * fade in. No motion under prefers-reduced-motion. setFrame(i) makes counts
 * follow the animation's frame (for layers published with times).
 *
 * Matsite.PointLayers: every layer of a manifest, with the toggle control that
 * names each layer and its count for screen readers.
 *
 * A deep level too large for one file is published as tiles (the manifest's
 * level has tiles, and its url names an index of them, cells of a quadtree keyed
 * z/x/y): only the tiles around the view are fetched, and their items keep their
 * index in the whole level, so parents and leaves of other levels still point
 * at them.
 *
 * Data is read as text: labels and popups are set with textContent, never as
 * markup.
 */
(function (L, M) {
	'use strict';

	function isNum(v) { return typeof v === 'number' && isFinite(v); }

	function words(n) { return n === 1 ? '1 point' : n + ' points'; }

	M.PointLayer = L.Layer.extend({
		options: {
			// @option frame: Number = 0
			// The frame shown first.
			frame: 0,
			// @option reducedMotion: Boolean = false
			// No moves or fades.
			reducedMotion: false,
			// @option duration: Number = 350
			// Milliseconds a split or merge takes.
			duration: 350
		},

		// def: the manifest's entry; resolve: (url relative to the manifest) -> URL.
		initialize: function (def, resolve, options) {
			L.setOptions(this, options);
			this._def = def;
			this._resolve = resolve;
			this._frame = this.options.frame;
			this._levels = {};      // zoom -> promise of level data
			this._data = {};        // zoom -> level data, once loaded
			this._shown = {};       // index -> element, for the level drawn
			this._level = null;     // zoom of the level drawn
			this._leaving = [];     // elements merging away
			this._timers = [];
			this._props = null;
			this._drawn = 0;
			var zooms = (def.levels || []).map(function (l) { return l.zoom; }).filter(isNum);
			this._min = Math.min.apply(null, zooms);
			this._max = Math.max.apply(null, zooms);
		},

		onAdd: function (map) {
			this._pane = map.getPane('markerPane');
			map.on('zoomend', this._onZoom, this);
			map.on('moveend', this._onMove, this);
			this._update(false);
		},

		onRemove: function (map) {
			map.off('zoomend', this._onZoom, this);
			map.off('moveend', this._onMove, this);
			this._timers.forEach(clearTimeout);
			this._timers = [];
			this._clear();
			this._level = null;
		},

		// Counts and points follow frame i.
		setFrame: function (i) {
			if (i === this._frame) { return this; }
			this._frame = i;
			if (this._def.timed && this._map) { this._update(false); }
			return this;
		},

		// Points shown in the current frame (all of them for a layer without times).
		total: function () {
			var top = this._data[this._min];
			// A tiled top level holds only the tiles seen: the manifest's count is the whole.
			if (!top || (top.ids && !this._def.timed)) { return isNum(this._def.count) ? this._def.count : 0; }
			var sum = 0;
			var ids = top.ids, n = ids ? ids.length : top.lat.length;
			for (var k = 0; k < n; k++) { sum += this._countAt(top, ids ? ids[k] : k); }
			return sum;
		},

		// Resolves once the first level is drawn.
		whenReady: function () {
			return this._load(this._min);
		},

		_levelFor: function (zoom) {
			return Math.max(this._min, Math.min(this._max, Math.floor(zoom + 1e-6)));
		},

		// The level of a zoom, with the tiles around the view when it is tiled.
		_load: function (zoom) {
			var self = this;
			if (!this._levels[zoom]) {
				var entry = (this._def.levels || []).filter(function (l) { return l.zoom === zoom; })[0];
				this._levels[zoom] = !entry || typeof entry.url !== 'string' ? Promise.reject(new Error('no level ' + zoom)) :
					this._fetchJSON(entry.url).then(function (d) {
						d = isNum(entry.tiles) ? self._tiled(d, zoom) : d;
						if (!d || (!d.ids && (!Array.isArray(d.lat) || !Array.isArray(d.lon) || d.lat.length !== d.lon.length))) {
							throw new Error('bad level ' + zoom);
						}
						self._data[zoom] = d;
						return d;
					});
			}
			return this._levels[zoom].then(function (d) { return d.ids ? self._loadTiles(d) : d; });
		},

		_fetchJSON: function (url) {
			return fetch(this._resolve(url), {credentials: 'same-origin'}).then(function (res) {
				if (!res.ok) { throw new Error('HTTP ' + res.status); }
				return res.json();
			});
		},

		// An empty store for a tiled level, from its index: the columns are filled by index
		// as tiles arrive, and ids lists the items held.
		_tiled: function (index, zoom) {
			if (!index || !index.tiles || typeof index.tiles !== 'object') { return null; }
			// Each cell's extent in world units (0..1 east and south), read once.
			var cells = [];
			Object.keys(index.tiles).forEach(function (key) {
				var p = key.split('/').map(Number), url = index.tiles[key];
				if (p.length !== 3 || !p.every(isNum) || typeof url !== 'string') { return; }
				var size = 1 / Math.pow(2, p[0]);
				cells.push({key: key, url: url, x0: p[1] * size, y0: p[2] * size, x1: (p[1] + 1) * size, y1: (p[2] + 1) * size});
			});
			return {
				zoom: zoom, cells: cells, requested: {}, ids: [],
				lat: {}, lon: {}, parent: {}, count: null, split: {}, leaf: {}, frames: this._def.timed ? {} : undefined
			};
		},

		// Fetches the level's tiles that meet the view (with a margin) and are not held yet.
		_loadTiles: function (d) {
			var map = this._map;
			if (!map) { return Promise.resolve(d); }
			var b = map.getBounds().pad(0.25);
			var wy = function (lat) {
				var r = Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI / 180;
				return (1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2;
			};
			var x0 = (b.getWest() + 180) / 360, x1 = (b.getEast() + 180) / 360, y0 = wy(b.getNorth()), y1 = wy(b.getSouth());
			var waits = [];
			for (var k = 0; k < d.cells.length; k++) {
				var c = d.cells[k];
				if (c.x1 < x0 || c.x0 > x1 || c.y1 < y0 || c.y0 > y1) { continue; }
				if (!d.requested[c.key]) { d.requested[c.key] = this._fetchTile(d, c.key, c.url); }
				waits.push(d.requested[c.key]);
			}
			return Promise.all(waits).then(function () { return d; });
		},

		_fetchTile: function (d, key, url) {
			var self = this;
			return this._fetchJSON(url).then(function (t) {
				if (!t || !Array.isArray(t.index) || !Array.isArray(t.lat) || t.lat.length !== t.index.length) { throw new Error('bad tile'); }
				var cols = t.points === true ? ['lat', 'lon', 'parent'] : ['lat', 'lon', 'parent', 'split', 'leaf'];
				if (t.points === true) { d.points = true; } else if (!d.count) { d.count = {}; }
				if (d.count && Array.isArray(t.count)) { cols.push('count'); }
				if (d.frames && Array.isArray(t.frames)) { cols.push('frames'); }
				t.index.forEach(function (i, k) {
					cols.forEach(function (c) { d[c][i] = t[c] ? t[c][k] : undefined; });
					d.ids.push(i);
				});
			}).catch(function () {
				// A tile that cannot be had is asked for again on the next move.
				delete d.requested[key];
				self.fire('tileerror', {zoom: d.zoom, tile: key});
			});
		},

		_loadProps: function () {
			if (!this._propsPromise) {
				var url = this._def.properties;
				this._propsPromise = typeof url !== 'string' ? Promise.resolve(null) :
					fetch(this._resolve(url), {credentials: 'same-origin'}).then(function (res) {
						return res.ok ? res.json() : null;
					}).catch(function () { return null; });
			}
			return this._propsPromise;
		},

		// The count of item i of a level in the current frame: the last change point at or
		// before it (0 before the first).
		_countAt: function (d, i) {
			if (!this._def.timed || !d.frames || typeof d.frames !== 'object') { return d.count ? d.count[i] : 1; }
			var ch = d.frames[i] || [];
			var c = 0;
			for (var k = 0; k + 1 < ch.length && ch[k] <= this._frame; k += 2) { c = ch[k + 1]; }
			return c;
		},

		// The ancestor of item i of level `from` at level `to` (to < from); -1 when unknown.
		_ancestor: function (from, i, to) {
			for (var z = from; z > to && i >= 0; z--) {
				var d = this._data[z];
				if (!d || !d.parent || !isNum(d.parent[i])) { return -1; }
				i = d.parent[i];
			}
			return i;
		},

		_onZoom: function () { this._update(true); },

		_onMove: function () { this._update(false); },

		// Draws the level of the map's zoom; `zoomed` after a zoom, when a change of level
		// is animated from the level drawn before.
		_update: function (zoomed) {
			var map = this._map;
			if (!map) { return; }
			var z = this._levelFor(map.getZoom());
			// A zoom's moveend follows its zoomend: the change stays animated until drawn.
			if (zoomed && this._from === undefined) { this._from = this._level; }
			var from = this._from === undefined ? this._level : this._from;
			var need = [this._load(z)];
			var lo = Math.min(z, from === null ? z : from), hi = Math.max(z, from === null ? z : from);
			for (var k = lo; k <= hi; k++) { need.push(this._load(k)); }
			if (this._def.labeled || (this._def.popup && this._def.popup.length)) { need.push(this._loadProps()); }
			var self = this;
			var ticket = this._ticket = (this._ticket || 0) + 1;
			Promise.all(need).then(function (all) {
				if (ticket !== self._ticket || !self._map) { return; }
				self._props = self._props || all[all.length - 1] || null;
				self._from = undefined;
				self._draw(z, from !== null && from !== z ? from : null);
			}).catch(function () { /* a level that cannot be had leaves the layer as it was */ });
		},

		// Draws level z; `from` is the level drawn before when the change is animated.
		_draw: function (z, from) {
			var map = this._map;
			var d = this._data[z];
			var move = from !== null && !this.options.reducedMotion;
			var bounds = map.getBounds().pad(0.1);
			var south = bounds.getSouth(), north = bounds.getNorth(), west = bounds.getWest(), east = bounds.getEast();
			var old = this._shown, oldLevel = this._level, oldData = oldLevel === null ? null : this._data[oldLevel];
			this._finishLeaving();
			var shown = {};
			var self = this;
			var moves = [];
			this._drawn = 0;
			var ids = d.ids, n = ids ? ids.length : d.lat.length;
			for (var k = 0; k < n; k++) {
				var i = ids ? ids[k] : k;
				var lat = d.lat[i], lon = d.lon[i];
				if (lat < south || lat > north || lon < west || lon > east) { continue; }
				var count = this._countAt(d, i);
				if (count <= 0) { continue; }
				var el = oldLevel === z ? old[i] : null;
				var latlng = L.latLng(lat, lon);
				var target = map.latLngToLayerPoint(latlng);
				if (el) {
					delete old[i];
					this._setCount(el, d, i, count);
					this._still(el);
					L.DomUtil.setPosition(el, target);
				} else {
					el = this._create(d, z, i, count, latlng);
					if (move && from < z) {
						// Splitting: start where the ancestor stood.
						var a = this._ancestor(z, i, from);
						var src = this._data[from];
						var start = a >= 0 && src ? map.latLngToLayerPoint([src.lat[a], src.lon[a]]) : target;
						moves.push([el, start, target]);
					} else {
						L.DomUtil.setPosition(el, target);
						if (!this.options.reducedMotion) { L.DomUtil.addClass(el, 'matsite-point-enter'); }
					}
				}
				shown[i] = el;
				this._drawn++;
			}
			// What the new level no longer shows: merged into its ancestor, or simply gone.
			Object.keys(old).forEach(function (key) {
				var gone = old[key];
				if (move && from > z && oldData) {
					var a = self._ancestor(from, +key, z);
					if (a >= 0) {
						var to = map.latLngToLayerPoint([d.lat[a], d.lon[a]]);
						moves.push([gone, map.latLngToLayerPoint([oldData.lat[+key], oldData.lon[+key]]), to]);
						L.DomUtil.addClass(gone, 'matsite-point-leaving');
						gone.setAttribute('aria-hidden', 'true');
						gone.tabIndex = -1;
						self._leaving.push(gone);
						return;
					}
				}
				self._still(gone);
				L.DomUtil.remove(gone);
			});
			this._animate(moves);
			if (this._leaving.length) {
				this._timers.push(setTimeout(function () { self._finishLeaving(); }, this.options.duration + 50));
			}
			this._shown = shown;
			this._level = z;
			this.fire('drawn', {zoom: z, shown: this._drawn});
			// The levels one zoom away, fetched and parsed now, so a zoom does not wait for them.
			var prefetch = function () {
				[z - 1, z + 1].forEach(function (k) {
					if (k >= self._min && k <= self._max) { self._load(k).catch(function () {}); }
				});
			};
			if (window.requestIdleCallback) { window.requestIdleCallback(prefetch, {timeout: 2000}); } else { setTimeout(prefetch, 200); }
		},

		_finishLeaving: function () {
			var self = this;
			this._leaving.forEach(function (el) { self._still(el); L.DomUtil.remove(el); });
			this._leaving = [];
		},

		// Moves each [el, start, end] from start to end with a transition. All starts are
		// set before one layout, then all ends: a layout per element would cost thousands.
		_animate: function (moves) {
			if (!moves.length) { return; }
			var self = this;
			moves.forEach(function (m) {
				self._still(m[0]);
				L.DomUtil.setPosition(m[0], m[1]);
			});
			// Reading layout commits the start positions, so the changes below transition.
			void this._pane.offsetWidth;
			var batch = (this._batch || 0) + 1;
			this._batch = batch;
			var duration = this.options.duration + 'ms';
			moves.forEach(function (m) {
				m[0].style.transitionDuration = duration;
				m[0]._matsiteBatch = batch;
				L.DomUtil.addClass(m[0], 'matsite-point-moving');
				L.DomUtil.setPosition(m[0], m[2]);
			});
			this._timers.push(setTimeout(function () {
				moves.forEach(function (m) { if (m[0]._matsiteBatch === batch) { self._still(m[0]); } });
			}, this.options.duration + 50));
		},

		// Ends a move at once (a new one, or a position in another zoom's coordinates, follows).
		_still: function (el) {
			el._matsiteBatch = 0;
			L.DomUtil.removeClass(el, 'matsite-point-moving');
			el.style.transitionDuration = '';
		},

		_clear: function () {
			this._finishLeaving();
			var shown = this._shown, self = this;
			Object.keys(shown).forEach(function (k) { self._still(shown[k]); L.DomUtil.remove(shown[k]); });
			this._shown = {};
		},

		_leaf: function (d, i) {
			if (d.points === true) { return i; }
			return d.leaf && isNum(d.leaf[i]) ? d.leaf[i] : -1;
		},

		_labelOf: function (leaf) {
			var p = this._props;
			if (!p || leaf < 0 || !Array.isArray(p.label)) { return ''; }
			var t = p.label[leaf];
			return typeof t === 'string' ? t : '';
		},

		_create: function (d, z, i, count, latlng) {
			var el = L.DomUtil.create('button', 'matsite-point-item leaflet-zoom-hide', this._pane);
			el.type = 'button';
			el.setAttribute('data-layer', String(this._def.id));
			el.setAttribute('data-zoom', String(z));
			el.setAttribute('data-index', String(i));
			L.DomEvent.disableClickPropagation(el);
			L.DomEvent.on(el, 'dblclick', L.DomEvent.stopPropagation);
			var self = this;
			L.DomEvent.on(el, 'click', function () { self._open(el, latlng); });
			this._setCount(el, d, i, count);
			return el;
		},

		_setCount: function (el, d, i, count) {
			var title = String(this._def.title || this._def.id || 'Points');
			var leaf = count === 1 ? this._leaf(d, i) : -1;
			el.setAttribute('data-count', String(count));
			if (count === 1 && leaf >= 0) {
				var label = this._labelOf(leaf);
				['matsite-cluster', 'matsite-cluster-s', 'matsite-cluster-m', 'matsite-cluster-l'].forEach(function (c) {
					L.DomUtil.removeClass(el, c);
				});
				L.DomUtil.addClass(el, 'matsite-point');
				el.textContent = '';
				if (label) { L.DomUtil.create('span', 'matsite-point-label', el).textContent = label; }
				el.setAttribute('aria-label', title + ': ' + (label || 'a point') + ' (opens details)');
				el.setAttribute('data-leaf', String(leaf));
			} else {
				L.DomUtil.removeClass(el, 'matsite-point');
				L.DomUtil.addClass(el, 'matsite-cluster');
				L.DomUtil.removeClass(el, 'matsite-cluster-s');
				L.DomUtil.removeClass(el, 'matsite-cluster-m');
				L.DomUtil.removeClass(el, 'matsite-cluster-l');
				L.DomUtil.addClass(el, count < 10 ? 'matsite-cluster-s' : count < 1000 ? 'matsite-cluster-m' : 'matsite-cluster-l');
				el.textContent = count >= 10000 ? Math.round(count / 1000) + 'k' : String(count);
				el.setAttribute('aria-label', title + ': ' + words(count) + ' here (zooms in)');
				el.removeAttribute('data-leaf');
			}
		},

		// A cluster zooms in to where it splits; a single point opens its popup.
		_open: function (el, latlng) {
			var map = this._map;
			if (!map) { return; }
			var z = +el.getAttribute('data-zoom'), i = +el.getAttribute('data-index');
			var d = this._data[z];
			var leaf = el.hasAttribute('data-leaf') ? +el.getAttribute('data-leaf') : -1;
			if (leaf < 0) {
				var split = d && d.split && isNum(d.split[i]) && d.split[i] > z ? d.split[i] : z + 1;
				map.setView(latlng, Math.min(map.getMaxZoom(), Math.max(split, Math.floor(map.getZoom()) + 1)));
				return;
			}
			var self = this;
			this._loadProps().then(function (p) {
				self._props = self._props || p;
				var box = L.DomUtil.create('div', 'matsite-popup');
				var label = self._labelOf(leaf);
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
				var popup = L.popup({autoPan: true, className: 'matsite-point-popup'}).setLatLng(latlng).setContent(box);
				popup.once('remove', function () { if (document.body.contains(el)) { el.focus(); } });
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

	// The layers of one manifest and their toggle: a checkbox per layer whose label is
	// the layer's title and its count in the current frame.
	M.PointLayers = L.Control.extend({
		options: {position: 'topright'},

		initialize: function (defs, resolve, options) {
			L.setOptions(this, options);
			this._layers = defs.filter(function (def) {
				return def && typeof def.id === 'string' && Array.isArray(def.levels) && def.levels.length;
			}).map(function (def) {
				return new M.PointLayer(def, resolve, {frame: options.frame || 0, reducedMotion: !!options.reducedMotion});
			});
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
				name.textContent = String(layer._def.title || layer._def.id);
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
