/*
 * Matsite.PointLayer, draw: works out what a draw of a level shows, one part
 * per direction as Leaflet.markercluster has a method per animation: which
 * elements are kept (zooming in, zooming out, panning), where a new element
 * starts, where an element no longer shown goes; under reduced motion nothing
 * moves. point-layer-motion.js carries the draw out. Joined to the class with
 * include, after point-layer.js.
 */
(function (L, M) {
	'use strict';

	M.PointLayer.include({
		// Draws level z; `from` is the level drawn before when the change is animated.
		// Elements already shown are updated at once; new elements, and moves, go in
		// a few at a time over the next frames, nearest the view's centre first: making
		// and styling a thousand elements, or starting a thousand moves, in one frame
		// would freeze the page for a tenth of a second on a fast machine.
		// `at`: the view drawn for (_viewOf), the map's by default; `held`: the moves wait
		// for _release (a draw made while the zoom's animation runs).
		//
		// Each direction has its own part: which elements are kept (_keptZoomIn, _keptZoomOut; a pan keeps each item's
		// own), where a new element starts (_splitStart: from its ancestor, zooming in), and
		// where an element no longer shown goes (_staleZoomIn: stays under the new level
		// until its moves start; _mergeZoomOut: moves into its ancestor). Under reduced
		// motion nothing moves: elements are kept, made in place or removed.
		_draw: function (z, from, at, held) {
			this._drawnCount = (this._drawnCount || 0) + 1;
			var c = this._drawing(z, from, at || this._viewOf(null));
			this._switch();
			this._finishLeaving();
			var old = c.old = this._shown;
			c.oldLevel = this._level;
			c.oldData = c.oldLevel === null ? null : this._levels.data(c.oldLevel);
			// Zooming in, the new level is made under the level shown (its elements go in
			// first in the box), which stays until the new level's moves start: its clusters
			// cover the new members that start where they stand, so each cluster is seen to
			// split. (Zooming out, the new level is made among the old one's elements, which
			// merge away once it is made.)
			c.under = c.oldLevel !== null && c.oldLevel < z;
			var kept = !c.oldData || c.oldLevel === z ? {} : c.under ? this._keptZoomIn(c) : this._keptZoomOut(c);
			var made = this._drawItems(c, kept);
			var merging = this._leave(c, old);
			this._shown = made.shown;
			this._level = z;
			this._drawn = made.drawn;
			var jobs = made.jobs;
			jobs.forEach(function (j) { j.far = c.far(j.at); });
			jobs.sort(function (p, q) { return p.far - q.far; });
			jobs = merging.slice(0, this.options.merges).concat(jobs);
			this._run(jobs, c.d, z, c.under, held);
		},

		// What a draw of level z for view v works with: the level's data, the bounds it
		// draws in, the part of the view where elements move, and the level the moves
		// come from with its data when zooming in (none under reduced motion).
		_drawing: function (z, from, v) {
			// Only items whose element can be seen, in the view or within the largest
			// element's half (plus its shadow) of its edge; those beyond come in with a
			// pan. Every element on the page is work for each frame that adds more. A
			// point's label reaches to its right: on the left, single points of a labeled
			// layer further off (clusters have no label).
			var size = v.size, edge = this.options.edge;
			var moving = from !== null && !this.options.reducedMotion;
			var left = this._def.labeled ? edge + 160 : edge;
			var bounds = L.latLngBounds(v.toLatLng([-left, size.y + edge]), v.toLatLng([size.x + edge, -edge]));
			// Only what stands in the view moves; an element at its edge just appears.
			var lo = v.toLayer(v.toLatLng([0, 0])), hi = v.toLayer(v.toLatLng([size.x, size.y]));
			var centre = v.toLayer(v.center);
			return {
				z: z, v: v, d: this._levels.data(z), from: moving ? from : null,
				src: moving && from < z ? this._levels.data(from) : null,
				south: bounds.getSouth(), north: bounds.getNorth(), west: bounds.getWest(), east: bounds.getEast(),
				near: v.toLatLng([-edge, 0]).lng,
				seen: function (p) { return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y; },
				far: function (p) { return Math.abs(p.x - centre.x) + Math.abs(p.y - centre.y); }
			};
		},

		// An item holding the same points as an element shown (a cluster that does not
		// split at this zoom, a point alone at both) takes that element over: retagged
		// and put in its place, not made again. Equal counts say so: an item's count is
		// the sum of its descendants'.
		_same: function (c, a, i) {
			var t = this._levels.totalOf(c.d, i);
			return t > 0 && t === this._levels.totalOf(c.oldData, a);
		},

		// Zooming in: a new item takes its ancestor's element when they are the same.
		// Returns new index -> old index whose element it takes (so does _keptZoomOut).
		_keptZoomIn: function (c) {
			var kept = {}, levels = this._levels, self = this;
			this._eachIn(c.d, c.south, c.north, c.west, c.east, function (i) {
				var a = levels.ancestor(c.z, i, c.oldLevel);
				if (a >= 0 && c.old[a] && self._same(c, a, i)) { kept[i] = a; }
			});
			return kept;
		},

		// Zooming out: an element shown is taken by its ancestor when they are the same.
		_keptZoomOut: function (c) {
			var kept = {}, levels = this._levels, self = this;
			Object.keys(c.old).forEach(function (key) {
				var a = levels.ancestor(c.oldLevel, +key, c.z);
				if (a >= 0 && self._same(c, +key, a)) { kept[a] = +key; }
			});
			return kept;
		},

		// The items of the new level in the bounds: an element kept is updated and put in
		// place at once; the others become jobs for _run. Returns {shown, jobs, drawn}.
		_drawItems: function (c, kept) {
			var self = this, d = c.d, z = c.z, old = c.old;
			var made = {shown: {}, jobs: [], drawn: 0};
			this._eachIn(d, c.south, c.north, c.west, c.east, function (i) {
				var count = self._levels.countAt(d, i, self._frame);
				if (count <= 0 || (count > 1 && d.lon[i] < c.near)) { return; }
				made.drawn++;
				var was = c.oldLevel === z ? i : kept[i];
				var el = was === undefined ? null : old[was];
				var target = c.v.toLayer([d.lat[i], d.lon[i]]);
				if (el) {
					delete old[was];
					if (c.oldLevel !== z) { self._retag(el, z, i); }
					self._setCount(el, d, i, count);
					self._place(el, target);
					made.shown[i] = el;
					return;
				}
				made.jobs.push({i: i, count: count, at: target, start: c.src ? self._splitStart(c, i, target) : null});
			});
			return made;
		},

		// Zooming in, a new element starts from where its ancestor stood (when either
		// place is in the view).
		_splitStart: function (c, i, target) {
			var a = this._levels.ancestor(c.z, i, c.from);
			var start = a >= 0 ? c.v.toLayer([c.src.lat[a], c.src.lon[a]]) : null;
			return start && (c.seen(start) || c.seen(target)) ? start : null;
		},

		// What the new level no longer shows: kept under it (zooming in), merged into its
		// ancestor (zooming out), or simply gone. The merges nearest the centre move (as
		// many as may); the others go now. Returns the merges that move, nearest first.
		_leave: function (c, old) {
			var self = this, merging = [];
			Object.keys(old).forEach(function (key) {
				var gone = old[key];
				if (c.under && c.oldData && self._staleZoomIn(c, gone, +key)) { return; }
				var merge = c.from !== null && c.from > c.z && c.oldData ? self._mergeZoomOut(c, gone, +key) : null;
				if (merge) { merging.push(merge); } else { L.DomUtil.remove(gone); }
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
			return merging;
		},

		// Zooming in, an element of the level shown before that is in the view stays where
		// it stands at the new zoom until the new level replaces it (_switch).
		_staleZoomIn: function (c, el, key) {
			var at = c.v.toLayer([c.oldData.lat[key], c.oldData.lon[key]]);
			if (!c.seen(at)) { return false; }
			this._place(el, at);
			el.setAttribute('aria-hidden', 'true');
			el.tabIndex = -1;
			this._stale.push(el);
			return true;
		},

		// Zooming out, an element moves from where it stands into its ancestor (when either
		// place is in the view): a merge job, or null.
		_mergeZoomOut: function (c, el, key) {
			var a = this._levels.ancestor(c.from, key, c.z);
			var start = c.v.toLayer([c.oldData.lat[key], c.oldData.lon[key]]);
			var end = a >= 0 ? c.v.toLayer([c.d.lat[a], c.d.lon[a]]) : null;
			return end && (c.seen(start) || c.seen(end)) ? {el: el, at: end, start: start, far: c.far(start)} : null;
		},

		// Calls fn(i) for each item of level data d inside the bounds.
		_eachIn: function (d, south, north, west, east, fn) {
			var ids = d.ids, n = ids ? ids.length : d.lat.length;
			for (var k = 0; k < n; k++) {
				var i = ids ? ids[k] : k;
				var lat = d.lat[i], lon = d.lon[i];
				if (lat >= south && lat <= north && lon >= west && lon <= east) { fn(i); }
			}
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
