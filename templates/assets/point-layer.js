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
			duration: 350,
			// @option perFrame: Number = 80
			// The most elements made, or moves started, in one frame. Styling,
			// laying out and painting them costs the browser several times the script,
			// in the same frame; on a device whose frames come late, fewer.
			perFrame: 80,
			// @option moves: Number = 300
			// The most elements one draw moves or fades, nearest the view's centre first;
			// the rest appear in place. Every moving element is a layer the browser
			// composites, and past a few hundred the layers cost more than a frame.
			moves: 300,
			// @option merges: Number = 150
			// Of those, the most that merge (move and fade) on a zoom out: the elements
			// that merge were already drawn, and are redrawn at the new zoom first.
			merges: 150
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
			// The layer's elements live in boxes inside one root in the marker pane: the
			// box of the level shown, and while a new level is being made, its box, under
			// the other. Leaflet hides the root, not each element, during its zoom
			// animation: one style change instead of one per element.
			this._root = L.DomUtil.create('div', 'matsite-point-box leaflet-zoom-hide', map.getPane('markerPane'));
			this._box = L.DomUtil.create('div', 'matsite-point-box', this._root);
			this._next = null;
			this._retired = [];
			// One listener on the root for every element (thousands of elements each with
			// their own would cost more to create than the elements themselves). A press on
			// a point or cluster is not the map's: no drag, no double-click zoom, no map click.
			L.DomEvent.on(this._root, 'mousedown touchstart dblclick contextmenu', this._onPress, this);
			L.DomEvent.on(this._root, 'click', this._onClick, this);
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
			L.DomUtil.remove(this._root);
			this._root = this._box = this._next = null;
			this._queue = null;
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
			// After a zoom the elements shown stand where the old zoom put them: they stay
			// hidden until drawn, and the draw waits for the next frame, leaving this one
			// to Leaflet's end of the zoom.
			if (zoomed) { L.DomUtil.addClass(this._root, 'matsite-point-wait'); }
			var draw = function () {
				if (ticket !== self._ticket || !self._map) { return; }
				self._from = undefined;
				L.DomUtil.removeClass(self._root, 'matsite-point-wait');
				self._draw(z, from !== null && from !== z ? from : null);
			};
			Promise.all(need).then(function (all) {
				if (ticket !== self._ticket || !self._map) { return; }
				self._props = self._props || all[all.length - 1] || null;
				if (self._from !== undefined) { L.Util.requestAnimFrame(draw); } else { draw(); }
			}).catch(function () {
				// A level that cannot be had leaves the layer as it was.
				if (self._root) { L.DomUtil.removeClass(self._root, 'matsite-point-wait'); }
			});
		},

		// Draws level z; `from` is the level drawn before when the change is animated.
		// Elements already shown are updated at once; new elements, and moves, go in
		// a few at a time over the next frames, nearest the view's centre first: making
		// and styling a thousand elements, or starting a thousand moves, in one frame
		// would freeze the page for a tenth of a second on a fast machine.
		_draw: function (z, from) {
			var map = this._map;
			var d = this._data[z];
			var move = from !== null && !this.options.reducedMotion;
			var view = map.getBounds();
			var bounds = view.pad(0.1);
			var south = bounds.getSouth(), north = bounds.getNorth(), west = bounds.getWest(), east = bounds.getEast();
			this._switch();
			this._finishLeaving();
			var old = this._shown, oldLevel = this._level, oldData = oldLevel === null ? null : this._data[oldLevel];
			// Zooming in, the new level is made in a box of its own, under the level shown,
			// which stays until the new level's moves start: its clusters cover the new
			// members that start where they stand, so each cluster is seen to split.
			// (Zooming out, the new level is made among the old one's elements, which
			// merge away once it is made.)
			if (oldLevel !== null && oldLevel < z) {
				this._next = L.DomUtil.create('div', 'matsite-point-box');
				this._root.insertBefore(this._next, this._box);
			}
			var shown = {};
			var self = this;
			var jobs = [];
			var src = move && from < z ? this._data[from] : null;
			// Only what can be seen moves; the margin kept for panning just appears.
			var lo = map.latLngToLayerPoint(view.getNorthWest()), hi = map.latLngToLayerPoint(view.getSouthEast());
			var seen = function (p) { return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y; };
			var drawn = 0;
			var ids = d.ids, n = ids ? ids.length : d.lat.length;
			for (var k = 0; k < n; k++) {
				var i = ids ? ids[k] : k;
				var lat = d.lat[i], lon = d.lon[i];
				if (lat < south || lat > north || lon < west || lon > east) { continue; }
				var count = this._countAt(d, i);
				if (count <= 0) { continue; }
				drawn++;
				var el = oldLevel === z ? old[i] : null;
				var target = map.latLngToLayerPoint([lat, lon]);
				if (el) {
					delete old[i];
					this._setCount(el, d, i, count);
					this._place(el, target);
					shown[i] = el;
					continue;
				}
				var job = {i: i, count: count, at: target, start: null};
				if (src) {
					// Splitting: from where the ancestor stood.
					var a = this._ancestor(z, i, from);
					var start = a >= 0 ? map.latLngToLayerPoint([src.lat[a], src.lon[a]]) : null;
					if (start && (seen(start) || seen(target))) { job.start = start; }
				}
				jobs.push(job);
			}
			// What the new level no longer shows: merged into its ancestor, or simply gone.
			// The merges nearest the centre move (as many as may); the others go now.
			var centre = map.latLngToLayerPoint(map.getCenter());
			var far = function (p) { return Math.abs(p.x - centre.x) + Math.abs(p.y - centre.y); };
			var merging = [];
			Object.keys(old).forEach(function (key) {
				var gone = old[key];
				if (self._next && oldData && from < z) {
					// Shown where it stands at the new zoom until the new level replaces it.
					var at = map.latLngToLayerPoint([oldData.lat[+key], oldData.lon[+key]]);
					if (seen(at)) {
						self._place(gone, at);
						gone.setAttribute('aria-hidden', 'true');
						gone.tabIndex = -1;
						return;
					}
				}
				if (move && from > z && oldData) {
					var a = self._ancestor(from, +key, z);
					var start = map.latLngToLayerPoint([oldData.lat[+key], oldData.lon[+key]]);
					var end = a >= 0 ? map.latLngToLayerPoint([d.lat[a], d.lon[a]]) : null;
					if (end && (seen(start) || seen(end))) {
						merging.push({el: gone, at: end, start: start, far: far(start)});
						return;
					}
				}
				L.DomUtil.remove(gone);
			});
			merging.sort(function (p, q) { return p.far - q.far; });
			merging.forEach(function (job, n) {
				if (n >= self.options.merges) {
					L.DomUtil.remove(job.el);
					return;
				}
				self._place(job.el, job.start);
				job.el.setAttribute('aria-hidden', 'true');
				job.el.tabIndex = -1;
				self._leaving.push(job.el);
			});
			this._shown = shown;
			this._level = z;
			this._drawn = drawn;
			jobs.forEach(function (j) { j.far = far(j.at); });
			jobs.sort(function (p, q) { return p.far - q.far; });
			jobs = merging.slice(0, this.options.merges).concat(jobs);
			this._run(jobs, d, z);
		},

		// Carries out a draw's jobs (an element to make, perhaps moving from a start; an
		// element to move away and fade) in two steps. First every element is made, a
		// few at a time, one slice a frame; then, from the next frame, the moves and fades
		// start, again a slice a frame. A moving element is a layer the browser composites, and adding
		// elements to the page while hundreds of such layers exist costs several times
		// more than adding them before. A later draw drops what is left: it works out
		// its own.
		_run: function (jobs, d, z) {
			var self = this;
			var queue = this._queue = {};
			var shown = this._shown;
			var box = this._next || this._box;
			var k = 0;
			var motion = !this.options.reducedMotion;
			var anims = [];  // [el, start, end, kind]: kind 'split', 'merge' or 'fade'
			// How much a frame takes is learnt from the frames themselves: a frame that
			// came late (the one before took too long) makes the next slice smaller, a
			// frame on time lets it grow back, up to perFrame. A slow phone ends up with
			// small slices.
			var last = 0;
			var pace = function () {
				var t = window.performance ? performance.now() : Date.now();
				var n = self._pace || self.options.perFrame;
				if (last) {
					if (t - last > 30) { n = Math.max(10, Math.round(n * 0.6)); } else if (t - last < 20) { n = Math.min(self.options.perFrame, Math.round(n * 1.25)); }
				}
				last = t;
				self._pace = n;
				return n;
			};
			var make = function () {
				if (self._queue !== queue || !self._map) { return; }
				var made = 0, most = pace();
				var added = document.createDocumentFragment();
				while (k < jobs.length && made < most) {
					var job = jobs[k++];
					var animate = motion && anims.length < self.options.moves;
					if (job.el) {
						if (animate) { anims.push([job.el, job.start, job.at, 'merge']); } else { L.DomUtil.remove(job.el); }
					} else if (!shown[job.i]) {
						var el = self._create(d, z, job.i, job.count);
						made++;
						if (animate && job.start) {
							L.DomUtil.setPosition(el, job.start);
							anims.push([el, job.start, job.at, 'split']);
						} else {
							L.DomUtil.setPosition(el, job.at);
							if (animate) {
								// Out of sight until its fade starts.
								el.style.opacity = '0';
								anims.push([el, null, null, 'fade']);
							}
						}
						shown[job.i] = el;
						added.appendChild(el);
					}
				}
				box.appendChild(added);
				if (k < jobs.length) {
					L.Util.requestAnimFrame(make);
				} else if (first) {
					start();
				} else {
					L.Util.requestAnimFrame(start);
				}
				first = false;
			};
			var started = 0;
			var start = function () {
				if (self._queue !== queue || !self._map) { return; }
				self._switch();
				var end = Math.min(anims.length, started + pace());
				for (; started < end; started++) {
					var a = anims[started];
					self._start(a[0], a[1], a[2], a[3]);
				}
				if (started < anims.length) {
					L.Util.requestAnimFrame(start);
					return;
				}
				self._queue = null;
				if (self._leaving.length) {
					self._timers.push(setTimeout(function () { self._finishLeaving(); }, self.options.duration + 50));
				}
				self.fire('drawn', {zoom: z, shown: self._drawn});
				// The levels one zoom away, fetched and parsed now, so a zoom does not wait for them.
				var prefetch = function () {
					[z - 1, z + 1].forEach(function (n) {
						if (n >= self._min && n <= self._max) { self._load(n).catch(function () {}); }
					});
				};
				if (window.requestIdleCallback) { window.requestIdleCallback(prefetch, {timeout: 2000}); } else { setTimeout(prefetch, 200); }
			};
			// A small draw is done at once. A large one starts in the next frame: this one
			// has worked out the draw (and Leaflet its own zoom), and elements that merge
			// were moved to where they start.
			var first = jobs.length <= self.options.perFrame / 4 && (!jobs.length || !jobs[0].el);
			if (first) { make(); } else { L.Util.requestAnimFrame(make); }
		},

		// The new level's box, made whole or not (a later draw may come first), takes
		// the place of the level shown before. That box stays while elements in it merge
		// away.
		_switch: function () {
			if (!this._next) { return; }
			var old = this._box;
			this._box = this._next;
			this._next = null;
			if (this._leaving.length) { this._retired.push(old); } else { L.DomUtil.remove(old); }
		},

		_finishLeaving: function () {
			this._leaving.forEach(function (el) { L.DomUtil.remove(el); });
			this._leaving = [];
			this._retired.forEach(function (box) { L.DomUtil.remove(box); });
			this._retired = [];
		},

		// Starts one element's animation with Web Animations (no second style for a
		// transition to start from, no layout read, and a move the compositor runs):
		// a split moves it from start to end, a merge also fades it out (it is removed
		// after), a fade brings it in where it stands.
		_start: function (el, start, end, kind) {
			if (el._matsiteMove) { el._matsiteMove.cancel(); }
			if (kind === 'fade') { el.style.opacity = ''; }
			if (kind === 'merge') {
				L.DomUtil.addClass(el, 'matsite-point-leaving');
			} else if (kind === 'split') {
				L.DomUtil.setPosition(el, end);
			}
			if (typeof el.animate !== 'function') { return; }
			var keys;
			if (kind === 'fade') {
				keys = [{opacity: 0}, {opacity: 1}];
			} else {
				keys = [{transform: 'translate3d(' + start.x + 'px,' + start.y + 'px,0)'},
					{transform: 'translate3d(' + end.x + 'px,' + end.y + 'px,0)'}];
				if (kind === 'merge') { keys[0].opacity = 1; keys[1].opacity = 0; }
			}
			el._matsiteMove = el.animate(keys, {duration: kind === 'fade' ? 250 : this.options.duration, easing: 'ease-out'});
		},

		// Puts an element at a position at once, ending a move under way (or one a
		// dropped draw never started).
		_place: function (el, pos) {
			if (el._matsiteMove) {
				el._matsiteMove.cancel();
				el._matsiteMove = null;
			}
			if (el.style.opacity) { el.style.opacity = ''; }
			var at = el._leaflet_pos;
			if (!at || at.x !== pos.x || at.y !== pos.y) { L.DomUtil.setPosition(el, pos); }
		},

		_clear: function () {
			this._finishLeaving();
			var shown = this._shown;
			Object.keys(shown).forEach(function (k) { L.DomUtil.remove(shown[k]); });
			this._shown = {};
		},

		// The element of this layer an event happened in, if any.
		_item: function (e) {
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

		// Shows count on an element (a cluster, or a single point with its label); an
		// element that already shows it is not touched, so a frame change restyles only
		// the elements whose count changed.
		_setCount: function (el, d, i, count) {
			if (el._matsiteCount === count) { return; }
			el._matsiteCount = count;
			var title = String(this._def.title || this._def.id || 'Points');
			var leaf = count === 1 ? this._leaf(d, i) : -1;
			var kind = count === 1 && leaf >= 0 ? 'matsite-point' :
				'matsite-cluster matsite-cluster-' + (count < 10 ? 's' : count < 1000 ? 'm' : 'l');
			if (el._matsiteKind !== kind) {
				if (el._matsiteKind) { el._matsiteKind.split(' ').forEach(function (c) { L.DomUtil.removeClass(el, c); }); }
				kind.split(' ').forEach(function (c) { L.DomUtil.addClass(el, c); });
				el._matsiteKind = kind;
			}
			el.setAttribute('data-count', String(count));
			if (kind === 'matsite-point') {
				var label = this._labelOf(leaf);
				el.textContent = '';
				if (label) { L.DomUtil.create('span', 'matsite-point-label', el).textContent = label; }
				el.setAttribute('aria-label', title + ': ' + (label || 'a point') + ' (opens details)');
				el.setAttribute('data-leaf', String(leaf));
			} else {
				el.textContent = count >= 10000 ? Math.round(count / 1000) + 'k' : String(count);
				el.setAttribute('aria-label', title + ': ' + words(count) + ' here (zooms in)');
				el.removeAttribute('data-leaf');
			}
		},

		// A cluster zooms in to where it splits; a single point opens its popup.
		_open: function (el) {
			var map = this._map;
			if (!map) { return; }
			var z = +el.getAttribute('data-zoom'), i = +el.getAttribute('data-index');
			var d = this._data[z];
			if (!d) { return; }
			var latlng = L.latLng(d.lat[i], d.lon[i]);
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
