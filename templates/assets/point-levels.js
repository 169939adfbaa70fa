/*
 * Matsite.PointLevels: the published levels of one point layer (the manifest's
 * points[] entry), fetched as they are needed, and what can be read from them:
 * an item's count in a frame, its ancestor at a coarser level, its point's
 * label. It draws nothing; Matsite.PointLayer (point-layer.js) draws from it.
 *
 * Each zoom has its own level (clusters down to max_zoom, then the points
 * themselves), columns of numbers: lat, lon, parent (the item's cluster one
 * level up), and for clusters count, split (the zoom it splits at) and leaf
 * (its point, when it holds one); slots (per item: slot, count, slot,
 * count... change points) for layers published with times, keyed by slots of
 * a grid of times (the manifest entry's slots: each frame's slot), which a moved
 * window leaves where they are. A deep level too
 * large for one file is published as tiles (the manifest's level has tiles,
 * and its url names an index of them, cells of a quadtree keyed z/x/y): only
 * the tiles around the view are fetched, and their items keep their index in
 * the whole level, so parents and leaves of other levels still point at them.
 *
 * Events:
 *   tileerror {zoom, tile}   a tile of a tiled level could not be had (it is asked
 *                            for again on the next load of that level)
 */
(function (L, M) {
	'use strict';

	var isNum = M.isNum;

	// World y (0 at the north edge of Web Mercator, 1 at the south) of a latitude.
	function worldY(lat) {
		var r = Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI / 180;
		return (1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2;
	}

	M.PointLevels = L.Evented.extend({
		// def: the manifest's entry; resolve: (url relative to the manifest) -> URL.
		initialize: function (def, resolve) {
			this._def = def;
			this._resolve = resolve;
			this._levels = {};      // zoom -> promise of level data
			this._data = {};        // zoom -> level data, once loaded
			this._props = null;
			var zooms = (def.levels || []).map(function (l) { return l.zoom; }).filter(isNum);
			this._min = Math.min.apply(null, zooms);
			this._max = Math.max.apply(null, zooms);
		},

		minZoom: function () { return this._min; },

		maxZoom: function () { return this._max; },

		// The level drawn at a map zoom.
		levelFor: function (zoom) {
			return Math.max(this._min, Math.min(this._max, Math.floor(zoom + 1e-6)));
		},

		// The data of level `zoom` once loaded, else undefined.
		data: function (zoom) { return this._data[zoom]; },

		// The level of a zoom, with its tiles around `bounds` (an L.LatLngBounds, the view)
		// when it is tiled.
		load: function (zoom, bounds) {
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
			return this._levels[zoom].then(function (d) { return d.ids ? self._loadTiles(d, bounds) : d; });
		},

		// The points' labels and popup fields (the manifest entry's properties file), or null.
		loadProperties: function () {
			if (!this._propsPromise) {
				var url = this._def.properties;
				var self = this;
				this._propsPromise = (typeof url !== 'string' ? Promise.resolve(null) :
					fetch(this._resolve(url), {credentials: 'same-origin'}).then(function (res) {
						return res.ok ? res.json() : null;
					}).catch(function () { return null; })).then(function (p) {
					self._props = self._props || p;
					return p;
				});
			}
			return this._propsPromise;
		},

		// The properties once loaded, else null.
		properties: function () { return this._props; },

		// The count of item i of level data d in frame `frame`: the last change point at or
		// before the frame's slot (0 before the first); without times, its count.
		countAt: function (d, i, frame) {
			if (!this._def.timed || !d.slots || typeof d.slots !== 'object') { return d.count ? d.count[i] : 1; }
			var frames = this._def.slots && this._def.slots.frames;
			var slot = Array.isArray(frames) && isNum(frames[frame]) ? frames[frame] : -Infinity;
			var ch = d.slots[i] || [];
			var c = 0;
			for (var k = 0; k + 1 < ch.length && ch[k] <= slot; k += 2) { c = ch[k + 1]; }
			return c;
		},

		// The count of item i of level data d over all frames: equal counts of an item and
		// its ancestor mean they hold the same points.
		totalOf: function (d, i) {
			if (d.points === true) { return 1; }
			return d.count && isNum(d.count[i]) ? d.count[i] : -1;
		},

		// Points shown in frame `frame` (all of them for a layer without times).
		total: function (frame) {
			var top = this._data[this._min];
			// A tiled top level holds only the tiles seen: the manifest's count is the whole.
			if (!top || (top.ids && !this._def.timed)) { return isNum(this._def.count) ? this._def.count : 0; }
			var sum = 0;
			var ids = top.ids, n = ids ? ids.length : top.lat.length;
			for (var k = 0; k < n; k++) { sum += this.countAt(top, ids ? ids[k] : k, frame); }
			return sum;
		},

		// The ancestor of item i of level `from` at level `to` (to < from); -1 when unknown.
		ancestor: function (from, i, to) {
			for (var z = from; z > to && i >= 0; z--) {
				var d = this._data[z];
				if (!d || !d.parent || !isNum(d.parent[i])) { return -1; }
				i = d.parent[i];
			}
			return i;
		},

		// The point item i of level data d stands for (-1: a cluster of several).
		leaf: function (d, i) {
			if (d.points === true) { return i; }
			return d.leaf && isNum(d.leaf[i]) ? d.leaf[i] : -1;
		},

		// A point's label, '' when it has none (or the properties are not in yet).
		labelOf: function (leaf) {
			var p = this._props;
			if (!p || leaf < 0 || !Array.isArray(p.label)) { return ''; }
			var t = p.label[leaf];
			return typeof t === 'string' ? t : '';
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
				lat: {}, lon: {}, parent: {}, count: null, split: {}, leaf: {}, slots: this._def.timed ? {} : undefined
			};
		},

		// Fetches the level's tiles that meet the view (with a margin) and are not held yet.
		_loadTiles: function (d, view) {
			if (!view) { return Promise.resolve(d); }
			var b = view.pad(0.25);
			var x0 = (b.getWest() + 180) / 360, x1 = (b.getEast() + 180) / 360, y0 = worldY(b.getNorth()), y1 = worldY(b.getSouth());
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
				if (d.slots && Array.isArray(t.slots)) { cols.push('slots'); }
				t.index.forEach(function (i, k) {
					cols.forEach(function (c) { d[c][i] = t[c] ? t[c][k] : undefined; });
					d.ids.push(i);
				});
			}).catch(function () {
				// A tile that cannot be had is asked for again on the next move.
				delete d.requested[key];
				self.fire('tileerror', {zoom: d.zoom, tile: key});
			});
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
