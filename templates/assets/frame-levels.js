/*
 * Matsite.FrameLevels: the loader of single-image frames that have reduced
 * levels (each frame's `levels` in the manifest: halvings of it, coarsest
 * first; the frame's own `url` is the finest). It extends Matsite.FrameLoader
 * (frame-loader.js) and fires what it fires; what it adds is which level of
 * each frame is fetched, drawn and kept, following the view:
 *
 *   - The level a view needs: the coarsest whose width covers the frames'
 *     drawn width in CSS pixels at the map's zoom (as the map's own tiles
 *     are), which the frame layer tells with setView, else the full frame.
 *     Never coarser than the map shows. While the frame on screen stands
 *     still, it and the frames beside it need the level that covers the
 *     width in device pixels (setView's second width), fetched the same way.
 *   - First load: every frame at the level the view needs, all requested at
 *     once (the frame on screen first); load fires when every frame holds a
 *     decoded level, so playback never starts on a frame that is not there.
 *   - After it, when the view needs a finer level (zoomed in): that level is
 *     fetched for the frame on screen first, then the next, the previous and
 *     the rest in playing order, `concurrency` at a time. Nothing waits for
 *     them: a frame is drawn at the level it holds until the finer one is
 *     decoded, and `level` tells the frame layer to swap it in.
 *   - Each frame keeps one decoded level, the one it is drawn at: a finer
 *     level that arrives replaces the coarser one, whose Image is let go so
 *     the browser can free its pixels. Zooming out keeps the finer levels
 *     while the decoded bytes stay within `budget`; past it, the frames
 *     farthest from the one on screen get the level the view needs again
 *     (from the HTTP cache), which then replaces their finer one.
 *   - A finer level that fails after the first load is not asked for again:
 *     its frame plays on at the detail it has.
 *
 * Events: those of FrameLoader (progress and load count frames holding a
 * level; error names the frame), and
 *   level {index}   frame `index` is now drawn at another level (url(index))
 */
(function (L, M) {
	'use strict';

	var isNum = M.isNum;

	function usableLevel(v) {
		return !!v && typeof v.url === 'string' && isNum(v.width) && v.width > 0 && isNum(v.height) && v.height > 0;
	}

	// A frame's levels, coarsest first, ending with the frame itself: its own reduced levels
	// narrower than the full frame (size: the frame's full width and height, when known).
	function frameLevels(frame, size, resolve) {
		var own = (Array.isArray(frame.levels) ? frame.levels : []).filter(usableLevel)
			.filter(function (v) { return !size.width || v.width < size.width; })
			.sort(function (a, b) { return a.width - b.width; });
		var finest = own[own.length - 1];
		var full = {
			url: resolve(frame.url),
			width: size.width || (finest ? 2 * finest.width : 0),
			height: size.height || (finest ? 2 * finest.height : 0)
		};
		return own.map(function (v) { return {url: resolve(v.url), width: v.width, height: v.height}; }).concat([full]);
	}

	M.FrameLevels = M.FrameLoader.extend({
		options: {
			// @option first: Number = 0
			// The frame requested first (the one the player opens on).
			first: 0,
			// @option budget: Number = 128 MiB
			// Decoded bytes (4 a pixel) past which frames drawn finer than the view needs
			// are given the level it needs again, the farthest from the frame on screen first.
			budget: 128 * 1024 * 1024,
			// @option concurrency: Number = 6
			// Levels fetched at once after the first load (that one asks for every frame at once).
			concurrency: 6
		},

		// frames: per frame, its levels coarsest first, the full frame last: {url, width, height},
		// URLs resolved (Matsite.FrameLevels.of makes them from a manifest).
		initialize: function (frames, options) {
			M.FrameLoader.prototype.initialize.call(this, frames.map(function (levels) {
				return levels[levels.length - 1].url;
			}), options);
			var n = frames.length;
			this._levels = frames;
			this._held = new Array(n);     // per frame: the Image of the level it is drawn at
			this._use = fill(n, -1);       // per frame: that level, -1 before one is decoded
			this._want = fill(n, -1);      // per frame: the level the view needs
			this._busy = fill(n, -1);      // per frame: the level being fetched, -1 for none
			this._broken = frames.map(function () { return {}; });  // levels that failed after load
			this._focus = Math.max(0, Math.min(n - 1, this.options.first | 0));
			this._width = null;            // the frames' drawn width in CSS pixels
			this._still = null;            // in device pixels while the frame on screen stands still
			this._active = 0;
			this._bytes = 0;
			this._started = false;
			this._stopped = false;
		},

		// Nothing is fetched before the frame layer tells the view (setView).
		start: function () {
			if (!this._begin()) { return this; }
			this._started = true;
			this._run();
			return this;
		},

		// Lets every decoded level go and fetches nothing more (the layer left the map).
		stop: function () {
			this._stopped = true;
			this._held = new Array(this._levels.length);
			this._bytes = 0;
			return this;
		},

		// The frames are drawn `width` CSS pixels wide: each frame needs the level that covers
		// it. With `still` (device pixels, while the frame on screen stands still), the frame on
		// screen and the two beside it need the level that covers that instead: memory follows
		// what is looked at, not the loop's length.
		setView: function (width, still) {
			if (!isNum(width) || width <= 0) { return this; }
			this._width = width;
			this._still = isNum(still) && still > width ? still : null;
			this._rewant();
			this._run();
			return this;
		},

		// Frame `index` is on screen: its level comes first, then the next, the previous, the rest.
		focus: function (index) {
			if (index >= 0 && index < this._levels.length) { this._focus = index; }
			if (this._still !== null) { this._rewant(); }
			this._run();
			return this;
		},

		_rewant: function () {
			var n = this._levels.length, f = this._focus;
			for (var i = 0; i < n; i++) {
				var near = this._still !== null && M.beside(i, f, n);
				this._want[i] = this._needed(i, near ? this._still : this._width);
			}
		},

		// The URL frame `index` is drawn from: the level it holds, else the one the view needs.
		url: function (index) {
			var k = this._use[index] >= 0 ? this._use[index] : this._want[index];
			var levels = this._levels[index];
			return levels[k >= 0 ? k : levels.length - 1].url;
		},

		// The name of the level url(index) is: 'full', or 'r1', 'r2'... for a half, a quarter...
		levelName: function (index) {
			var levels = this._levels[index], url = this.url(index);
			for (var k = 0; k < levels.length; k++) {
				if (levels[k].url === url) { return k === levels.length - 1 ? 'full' : 'r' + (levels.length - 1 - k); }
			}
			return 'full';
		},

		// Decoded bytes of the levels held (4 a pixel).
		bytes: function () { return this._bytes; },

		// The coarsest level of frame i at least `width` wide (a pixel of slack for the halving's
		// rounding), else the full frame.
		_needed: function (i, width) {
			var levels = this._levels[i];
			for (var k = 0; k < levels.length - 1; k++) {
				if (levels[k].width + 1 >= width) { return k; }
			}
			return levels.length - 1;
		},

		_size: function (i, k) {
			var v = this._levels[i][k];
			return v.width * v.height * 4;
		},

		// The frames by how soon they are shown: the one on screen, the next, the previous,
		// then the rest in playing order.
		_ranked: function () {
			var n = this._levels.length, f = this._focus;
			var order = [f], seen = {};
			seen[f] = true;
			var add = function (i) { if (!seen[i]) { seen[i] = true; order.push(i); } };
			add((f + 1) % n);
			add((f - 1 + n) % n);
			for (var k = 2; k < n; k++) { add((f + k) % n); }
			return order;
		},

		// Starts what is to be fetched, up to the concurrency (all at once before the first load).
		_run: function () {
			if (!this._started || this._width === null || this._failed || this._stopped) { return; }
			var first = this._loaded < this._levels.length;
			var limit = first ? Infinity : this.options.concurrency;
			while (this._active < limit) {
				var job = first ? this._firstJob() : this._nextJob();
				if (!job) { return; }
				this._fetch(job[0], job[1]);
			}
		},

		// Before the first load: a frame that holds nothing yet, at the level the view needs.
		_firstJob: function () {
			var order = this._ranked();
			for (var k = 0; k < order.length; k++) {
				var i = order[k];
				if (this._use[i] < 0 && this._busy[i] < 0) { return [i, this._want[i]]; }
			}
			return null;
		},

		// After it: a frame drawn coarser than the view needs, soonest shown first; else, while
		// the decoded bytes exceed the budget, one drawn finer than needed, farthest first.
		_nextJob: function () {
			var order = this._ranked(), i, k;
			for (k = 0; k < order.length; k++) {
				i = order[k];
				var want = this._want[i];
				if (this._busy[i] < 0 && this._use[i] < want && !this._broken[i][want]) { return [i, want]; }
			}
			var over = this._bytes - this.options.budget;
			for (i = 0; i < order.length; i++) {
				// What the coarser levels on their way will give back.
				var b = this._busy[i];
				if (b >= 0 && b < this._use[i]) { over -= this._size(i, this._use[i]) - this._size(i, b); }
			}
			for (k = order.length - 1; k >= 0 && over > 0; k--) {
				i = order[k];
				if (this._busy[i] < 0 && this._use[i] > this._want[i] && !this._broken[i][this._want[i]]) {
					return [i, this._want[i]];
				}
			}
			return null;
		},

		_fetch: function (i, k) {
			var url = this._levels[i][k].url;
			var self = this, img;
			this._busy[i] = k;
			this._active++;
			var settle = function () {
				self._active--;
				self._busy[i] = -1;
				return !self._stopped && !self._failed;
			};
			img = this._decode(url, function () {
				if (settle()) { self._arrived(i, k, img); }
				self._run();
			}, function () {
				if (!settle()) { return; }
				if (self._use[i] < 0) {
					self._explain(i, url);
				} else {
					self._broken[i][k] = true;
					self._run();
				}
			});
		},

		// Level k of frame i is decoded: it becomes the one the frame is drawn at when it is
		// finer than the one held, or coarser but still all the view needs (then it was fetched
		// to give memory back); the level it replaces is let go.
		_arrived: function (i, k, img) {
			var use = this._use[i];
			if (use >= 0 && k < use && k < this._want[i]) { return; }
			if (use >= 0) { this._bytes -= this._size(i, use); }
			this._held[i] = img;
			this._use[i] = k;
			this._bytes += this._size(i, k);
			this.fire('level', {index: i});
			if (use < 0) { this._counted(); }
		}
	});

	function fill(n, v) {
		var a = new Array(n);
		for (var i = 0; i < n; i++) { a[i] = v; }
		return a;
	}

	// Each frame's levels (for FrameLevels), from the frames' part of a manifest (frames, and
	// width/height: the full frame's size) and resolve (URL relative to the manifest -> URL);
	// null when no frame has a usable reduced level: FrameLoader then loads the frames.
	M.FrameLevels.of = function (source, resolve) {
		var size = {width: isNum(source.width) ? source.width : 0, height: isNum(source.height) ? source.height : 0};
		var frames = source.frames.map(function (f) { return frameLevels(f, size, resolve); });
		return frames.some(function (levels) { return levels.length > 1; }) ? frames : null;
	};
}(window.L, window.Matsite = window.Matsite || {}));
