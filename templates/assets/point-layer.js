/*
 * Matsite.PointLayer: one point layer clustered at build time (the manifest's
 * points[] entry), drawn as buttons in Leaflet's marker pane. Each zoom has its
 * own published level (Matsite.PointLevels, point-levels.js, loads them);
 * nothing is clustered here. Every element carries data-count (1 for a single
 * point), data-layer, data-zoom (the level) and data-index (the item in it).
 *
 * Zooming in, the items of the new level start where their ancestor stood in
 * the level shown before and move out to their own place; zooming out, the old
 * items move into their ancestor and merge; panning, items coming into view
 * fade in. No motion under prefers-reduced-motion. setFrame(i) makes counts
 * follow the animation's frame (for layers published with times).
 *
 * The class is spread over files joined with include, as Leaflet.markercluster
 * spreads its own: this one follows the map and decides when to draw which
 * level (_update); point-layer-draw.js works out what a draw shows, a part per
 * direction (zoom-in, zoom-out, pan); point-layer-motion.js carries a draw out
 * over the next frames (making the elements a slice a frame, then starting
 * their moves and fades); point-layer-items.js makes an element, shows its
 * count and label, and opens a cluster or a point. Load them in that order,
 * after point-levels.js.
 *
 * Data is read as text: labels and popups are set with textContent, never as
 * markup.
 *
 * Events:
 *   drawn {zoom, shown}     a draw is carried out (its moves started)
 *   tileerror {zoom, tile}  a tile of a tiled level could not be had
 */
(function (L, M) {
	'use strict';

	M.PointLayer = L.Layer.extend({
		options: {
			// @option frame: Number = 0
			// The frame shown first.
			frame: 0,
			// @option reducedMotion: Boolean = false
			// No moves or fades.
			reducedMotion: false,
			// @option playZoom: Function = null
			// () -> the deepest zoom the animation plays at, or null (see point-layers.js).
			playZoom: null,
			// @option duration: Number = 350
			// Milliseconds a split or merge takes.
			duration: 350,
			// @option perFrame: Number = 80
			// The most elements made, or moves started, in one frame. Styling,
			// laying out and painting them costs the browser several times the script,
			// in the same frame; on a device whose frames come late, fewer.
			perFrame: 80,
			// @option moves: Number = 120
			// The most elements one draw moves or fades, nearest the view's centre first;
			// the rest appear in place. Every moving element is a layer the browser
			// composites while it moves, and making and dropping a few hundred of them
			// cost a slow device frames of 50-100 ms.
			moves: 120,
			// @option merges: Number = 60
			// Of those, the most that merge (move and fade) on a zoom out: the elements
			// that merge were already drawn, and are redrawn at the new zoom first.
			merges: 60,
			// @option edge: Number = 26
			// Pixels beyond the view's edges within which items are drawn: the largest
			// element's half and its shadow, so none is cut off at an edge.
			edge: 26
		},

		// def: the manifest's entry; resolve: (url relative to the manifest) -> URL.
		initialize: function (def, resolve, options) {
			L.setOptions(this, options);
			this._def = def;
			this._levels = new M.PointLevels(def, resolve);
			this._levels.on('tileerror', function (e) { this.fire('tileerror', e); }, this);
			this._frame = this.options.frame;
			this._shown = {};       // index -> element, for the level drawn
			this._level = null;     // zoom of the level drawn
			this._leaving = [];     // elements merging away
			this._timers = [];
			this._drawn = 0;
			this._prep = null;     // the slices of a zoom's animation under way (_onZoomAnim)
			this._pre = null;      // a draw made during a zoom's animation (_predraw)
		},

		onAdd: function (map) {
			// The layer's elements live in one box inside one root in the marker pane. The
			// root is made transparent (matsite-point-wait) from a zoom's start until the new
			// zoom is drawn: opacity is the root's alone, where Leaflet's leaflet-zoom-hide
			// (visibility, which every element inherits) had Chromium restyle each element at
			// the zoom's start (46 ms for 594 elements at 4x CPU throttling).
			this._root = L.DomUtil.create('div', 'matsite-point-box matsite-point-root', map.getPane('markerPane'));
			this._box = L.DomUtil.create('div', 'matsite-point-box', this._root);
			this._regions = {};  // region key -> its box in this._box (point-layer-motion.js)
			// Elements of the level shown before a zoom-in, kept over the new level's until
			// its moves start.
			this._stale = [];
			// One listener on the root for every element (thousands of elements each with
			// their own would cost more to create than the elements themselves). A press on
			// a point or cluster is not the map's: no drag, no double-click zoom, no map click.
			L.DomEvent.on(this._root, 'mousedown touchstart dblclick contextmenu', this._onPress, this);
			L.DomEvent.on(this._root, 'click', this._onClick, this);
			map.on('zoomstart', this._onZoomStart, this);
			map.on('zoomanim', this._onZoomAnim, this);
			map.on('zoomend', this._onZoom, this);
			map.on('moveend', this._onMove, this);
			this._update(false);
		},

		onRemove: function (map) {
			map.off('zoomstart', this._onZoomStart, this);
			map.off('zoomanim', this._onZoomAnim, this);
			map.off('zoomend', this._onZoom, this);
			map.off('moveend', this._onMove, this);
			this._timers.forEach(clearTimeout);
			this._timers = [];
			this._clear();
			L.DomUtil.remove(this._root);
			this._root = this._box = null;
			this._regions = {};
			this._queue = null;
			this._prep = null;
			this._pre = null;
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
			return this._levels.total(this._frame);
		},

		// Resolves once the top level (the one the counts come from) is loaded.
		whenReady: function () {
			return this._load(this._levels.minZoom());
		},

		// The layer's name for people.
		title: function () {
			return String(this._def.title || this._def.id || 'Points');
		},

		// The level of a zoom, with the tiles around the view when it is tiled.
		_load: function (zoom) {
			return this._levels.load(zoom, this._map ? this._map.getBounds() : null);
		},

		_onZoomStart: function () { L.DomUtil.addClass(this._root, 'matsite-point-wait'); },

		_onZoom: function () { this._update(true); },

		// Leaflet's zoom animation (a transition the compositor runs) leaves the main thread
		// free for a few frames while the layer is hidden: the elements shown are put where
		// the new zoom puts them, and those outside what the new zoom draws go, a slice a
		// frame. The draw after the zoom then finds them in place (placing one where it
		// stands is nothing) or gone, where its own frame restyled and removed them all
		// (the zoom-in 6 -> 7 at 4x CPU throttling: 160-210 elements restyled and 430
		// removed in that one frame of 43-108 ms). A draw that comes first does the rest.
		_onZoomAnim: function (e) {
			var map = this._map;
			var d = this._level === null ? null : this._levels.data(this._level);
			this._prep = null;
			if (!map || !d || this._queue || typeof map._getNewPixelOrigin !== 'function') { return; }
			var zoom = e.zoom, origin = map._getNewPixelOrigin(e.center, zoom);
			var c = map.project(e.center, zoom), size = map.getSize(), edge = this.options.edge;
			// The bounds _draw draws in, at the new zoom, in pixels from its centre.
			var x0 = -size.x / 2 - (this._def.labeled ? edge + 160 : edge), x1 = size.x / 2 + edge, y1 = size.y / 2 + edge;
			var shown = this._shown, keys = Object.keys(shown), k = 0;
			var self = this, prep = this._prep = {};
			var step = function () {
				if (self._prep !== prep || !self._map) { return; }
				var end = Math.min(keys.length, k + self.options.perFrame * 2);
				for (; k < end; k++) {
					var el = shown[keys[k]];
					if (!el) { continue; }
					var p = map.project([d.lat[+keys[k]], d.lon[+keys[k]]], zoom)._round();
					var dx = p.x - c.x, dy = p.y - c.y;
					if (dx < x0 || dx > x1 || dy < -y1 || dy > y1) {
						L.DomUtil.remove(el);
						delete shown[keys[k]];
					} else {
						self._place(el, p._subtract(origin));
					}
				}
				if (k < keys.length) {
					L.Util.requestAnimFrame(step);
				} else {
					self._prep = null;
					self._predraw(e, prep);
				}
			};
			L.Util.requestAnimFrame(step);
		},

		// The new level drawn for the view the zoom ends at while its animation still runs,
		// once the old level is placed (_onZoomAnim), its levels are loaded (not a tiled
		// one: its tiles are fetched for the view) and nothing else was drawn since: its
		// elements are made in the animation's frames, hidden, and its moves wait for the
		// zoom's end (_update shows it). A zoom-in to 7 made 572 elements after the zoom, at
		// most 80 a frame: 7-8 frames of 35-45 ms at 4x CPU throttling.
		_predraw: function (e, prep) {
			var map = this._map, from = this._level, zoom = e.zoom;
			var z = this._levels.levelFor(zoom);
			var entry = (this._def.levels || []).filter(function (l) { return l.zoom === z; })[0];
			if (!map || from === null || z === from || !entry || entry.tiles !== undefined) { return; }
			var self = this, drawn = this._drawnCount = (this._drawnCount || 0) + 1;
			Promise.all(this._needs(z, from)).then(function () {
				// Still the same zoom under way, and no draw since.
				if (!self._map || !map._animatingZoom || self._drawnCount !== drawn || self._level !== from || self._queue) { return; }
				var view = self._viewOf(e.center, zoom);
				self._draw(z, from, view, true);
				self._pre = {z: z, zoom: zoom, origin: view.origin, queue: self._queue};
			}).catch(function () {});
		},

		_onMove: function () { this._update(false); },

		// Draws the level of the map's zoom; `zoomed` after a zoom, when a change of level
		// is animated from the level drawn before.
		_update: function (zoomed) {
			var map = this._map;
			if (!map) { return; }
			var z = this._levels.levelFor(map.getZoom());
			// A zoom's moveend follows its zoomend: the change stays animated until drawn.
			if (zoomed && this._from === undefined) { this._from = this._level; }
			var from = this._from === undefined ? this._level : this._from;
			var need = this._needs(z, from);
			var self = this;
			var ticket = this._ticket = (this._ticket || 0) + 1;
			// After a zoom the elements shown stand where the old zoom put them: they stay
			// hidden (since the zoom's start) until drawn, and the draw waits for the next
			// frame, leaving this one to Leaflet's end of the zoom.
			if (zoomed) { L.DomUtil.addClass(this._root, 'matsite-point-wait'); }
			var draw = function () {
				if (ticket !== self._ticket || !self._map) { return; }
				self._from = undefined;
				self._prep = null;
				var pre = self._pre;
				self._pre = null;
				L.DomUtil.removeClass(self._root, 'matsite-point-wait');
				// Drawn already during the zoom's animation, for the view the zoom ended at:
				// shown now, its moves free to start.
				if (pre && pre.z === z && pre.queue === self._queue && map.getZoom() === pre.zoom &&
					map.getPixelOrigin().equals(pre.origin)) {
					self._release(pre.queue);
					return;
				}
				self._draw(z, from !== null && from !== z ? from : null);
			};
			Promise.all(need).then(function (all) {
				if (ticket !== self._ticket || !self._map) { return; }
				if (self._from !== undefined) { L.Util.requestAnimFrame(draw); } else { draw(); }
			}).catch(function () {
				// A level that cannot be had leaves the layer as it was.
				if (self._root) { L.DomUtil.removeClass(self._root, 'matsite-point-wait'); }
			});
		},

		// What drawing level z after level `from` needs loaded: both levels, those between
		// (for ancestors), and the labels and popups.
		_needs: function (z, from) {
			var need = [this._load(z)];
			var lo = Math.min(z, from === null ? z : from), hi = Math.max(z, from === null ? z : from);
			for (var k = lo; k <= hi; k++) { need.push(this._load(k)); }
			if (this._def.labeled || (this._def.popup && this._def.popup.length)) { need.push(this._levels.loadProperties()); }
			return need;
		},

		// What a draw needs of the map's view: the map's own, or the one a zoom under way
		// ends at (center, zoom; Leaflet's own zoom animation works it out the same way).
		_viewOf: function (center, zoom) {
			var map = this._map, size = map.getSize();
			if (!center) {
				return {
					size: size, center: map.getCenter(),
					toLayer: function (ll) { return map.latLngToLayerPoint(ll); },
					toLatLng: function (p) { return map.containerPointToLatLng(p); }
				};
			}
			var origin = map._getNewPixelOrigin(center, zoom), corner = map.project(center, zoom).subtract(size.divideBy(2));
			return {
				size: size, center: L.latLng(center), origin: origin,
				toLayer: function (ll) { return map.project(ll, zoom)._round()._subtract(origin); },
				toLatLng: function (p) { return map.unproject(L.point(p).add(corner), zoom); }
			};
		},

		_clear: function () {
			this._switch();
			this._finishLeaving();
			var shown = this._shown;
			Object.keys(shown).forEach(function (k) { L.DomUtil.remove(shown[k]); });
			this._shown = {};
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
