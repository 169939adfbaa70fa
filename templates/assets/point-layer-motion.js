/*
 * Matsite.PointLayer, motion: carries out a draw worked out by _draw
 * (point-layer.js) over the next animation frames: elements made a slice a
 * frame (_make), the slice sized by how late the frames come (_sliceSize), each job
 * by its direction (_makeJob: a split from the ancestor's place zooming in, a
 * merge into it zooming out, a fade in on a pan, none under reduced motion);
 * then moves and fades started, again a slice a frame (_startMoves), with Web
 * Animations the compositor runs. Joined to the class with include, after
 * point-layer.js.
 */
(function (L, M) {
	'use strict';

	M.PointLayer.include({
		// Carries out a draw's jobs (an element to make, perhaps moving from a start; an
		// element to move away and fade) in two steps. First every element is made, a
		// few at a time, one slice a frame (_make); then, from the next frame, the moves and
		// fades start, again a slice a frame (_startMoves). A moving element is a layer the
		// browser composites, and adding elements to the page while hundreds of such layers
		// exist costs several times more than adding them before. A later draw drops what is
		// left: it works out its own.
		// `under`: the elements go in under those shown (a zoom-in), else over them.
		// `held`: the moves wait for _release(queue) (the layer is hidden meanwhile).
		_run: function (jobs, d, z, under, held) {
			var queue = this._queue = {
				held: !!held, jobs: jobs, d: d, z: z, under: under, shown: this._shown,
				k: 0,          // the next job to make
				anims: [],     // [el, start, end, kind]: kind 'split', 'merge' or 'fade'
				started: 0,    // the anims started
				last: 0,       // when the last slice ran (_sliceSize)
				// A small draw is done at once. A large one starts in the next frame: this one
				// has worked out the draw (and Leaflet its own zoom), and elements that merge
				// were moved to where they start.
				now: jobs.length <= this.options.perFrame / 4 && (!jobs.length || !jobs[0].el)
			};
			if (queue.now) { this._make(queue); } else { this._nextFrame(queue, this._make); }
		},

		// Calls fn(queue) in the next frame, unless another draw came first or the layer went.
		_nextFrame: function (queue, fn) {
			var self = this;
			L.Util.requestAnimFrame(function () {
				if (self._queue === queue && self._map) { fn.call(self, queue); }
			});
		},

		// How many elements to make (`making`), or moves to start, in this frame. How much a
		// frame takes is learnt from the frames themselves: a frame that came late (the one
		// before took too long) makes the next slice smaller in proportion, a frame early lets
		// it grow back as fast, up to perFrame. Late means near a visible gap (50 ms), not
		// merely past one refresh: a slow device whose every frame takes two refreshes can
		// still make a good slice in each, and slices cut to the bone only spread the same
		// work over more frames. Starting moves is paced on its own, as before (a frame over
		// 30 ms cuts the slice to 0.6): each move is a layer the compositor makes, and
		// zoom-outs had more gaps with larger slices of them.
		_sliceSize: function (queue, making) {
			var t = window.performance ? performance.now() : Date.now();
			var key = making ? '_pace' : '_movePace';
			var n = this[key] || this.options.perFrame;
			if (queue.last) {
				// Sized for a frame of about 38 ms, at most twice the last slice: one
				// late frame (often another tab's or the machine's doing) is made up for
				// in a frame or two, not ten.
				var took = t - queue.last;
				if (!making) {
					if (took > 30) { n = Math.max(10, Math.round(n * 0.6)); } else if (took < 20) { n = Math.round(n * 1.25); }
				} else if (took > 45 || took < 30) {
					n = Math.round(n * Math.min(2, 38 / took));
				}
				n = Math.min(this.options.perFrame, Math.max(Math.min(10, this.options.perFrame), n));
			}
			queue.last = t;
			this[key] = n;
			return n;
		},

		// Makes one slice of a draw's elements, each region's in one fragment.
		_make: function (queue) {
			if (this._queue !== queue || !this._map) { return; }
			var jobs = queue.jobs, made = 0, most = this._sliceSize(queue, true);
			var added = {};
			while (queue.k < jobs.length && made < most) {
				var job = jobs[queue.k++];
				var el = this._makeJob(queue, job);
				if (!el) { continue; }
				made++;
				var key = this._regionOf(job.at);
				(added[key] = added[key] || document.createDocumentFragment()).appendChild(el);
			}
			Object.keys(added).forEach(function (key) {
				var r = this._region(key);
				if (queue.under) { r.insertBefore(added[key], r.firstChild); } else { r.appendChild(added[key]); }
			}, this);
			if (queue.k < jobs.length) {
				this._nextFrame(queue, this._make);
			} else if (queue.now) {
				this._startMoves(queue);
			} else {
				this._nextFrame(queue, this._startMoves);
			}
			queue.now = false;
		},

		// One job, by its direction: a merge (zooming out) moves an element shown away; a
		// split (zooming in) makes one at its ancestor's place; a pan's fades one in where
		// it stands. Under reduced motion, or past the moves allowed, an element is made in
		// place or removed. Returns the element made, if any.
		_makeJob: function (queue, job) {
			var animate = !this.options.reducedMotion && queue.anims.length < this.options.moves;
			if (job.el) {
				if (animate) { queue.anims.push([job.el, job.start, job.at, 'merge']); } else { L.DomUtil.remove(job.el); }
				return null;
			}
			if (queue.shown[job.i]) { return null; }
			var el = this._create(queue.d, queue.z, job.i, job.count);
			if (animate && job.start) {
				this._setPos(el, job.start);
				queue.anims.push([el, job.start, job.at, 'split']);
			} else {
				this._setPos(el, job.at);
				if (animate) {
					// Out of sight until its fade starts.
					el.style.opacity = '0';
					queue.anims.push([el, null, null, 'fade']);
				}
			}
			queue.shown[job.i] = el;
			return el;
		},

		// Starts one slice of a draw's moves and fades, once its elements are made.
		_startMoves: function (queue) {
			if (this._queue !== queue || !this._map) { return; }
			if (queue.held) {
				queue.resume = this._startMoves.bind(this, queue);
				return;
			}
			this._switch();
			var anims = queue.anims;
			var end = Math.min(anims.length, queue.started + this._sliceSize(queue, false));
			for (; queue.started < end; queue.started++) {
				var a = anims[queue.started];
				this._start(a[0], a[1], a[2], a[3]);
			}
			if (queue.started < anims.length) {
				this._nextFrame(queue, this._startMoves);
				return;
			}
			this._ran(queue.z);
		},

		// A draw is carried out: empty regions go, merged elements after their moves, and the
		// levels one zoom away are fetched and parsed now, so a zoom does not wait for them.
		_ran: function (z) {
			var self = this;
			this._queue = null;
			this._dropEmpty();
			if (this._leaving.length) {
				this._timers.push(setTimeout(function () { self._finishLeaving(); }, this.options.duration + 50));
			}
			this.fire('drawn', {zoom: z, shown: this._drawn});
			var prefetch = function () {
				[z - 1, z + 1].forEach(function (n) {
					if (n >= self._levels.minZoom() && n <= self._levels.maxZoom()) { self._load(n).catch(function () {}); }
				});
			};
			if (window.requestIdleCallback) { window.requestIdleCallback(prefetch, {timeout: 2000}); } else { setTimeout(prefetch, 200); }
		},

		// Lets a held draw's moves start (in the next frame) once its elements are made. What
		// is left of the level shown before goes now, in the frame that shows the layer: it
		// covered the new level while that was made, and the new level was made hidden. (In
		// the frame that starts the moves as well, it made that frame 58 ms at 4x CPU
		// throttling, a gap over 50 ms.)
		_release: function (queue) {
			if (!queue || !queue.held) { return; }
			queue.held = false;
			this._switch();
			if (queue.resume) { L.Util.requestAnimFrame(queue.resume); }
		},

		// The new level, made whole or not (a later draw may come first), takes the
		// place of the level shown before: what is left of that one goes.
		_switch: function () {
			var stale = this._stale;
			if (!stale || !stale.length) { return; }
			this._stale = [];
			stale.forEach(function (el) { L.DomUtil.remove(el); });
		},

		// Elements go into regions of the pane, 320 px square, each a layer of its own
		// (point-layer.css): adding elements to one region has the browser redo that
		// region's layer only. With all of a level's elements in one layer, each frame that
		// added ten of them redid all of them (Chromium's layerize: 20-60 ms a frame at 4x
		// CPU throttling with 600-1,000 elements on the page), which paced the making down
		// to ten a frame. An element stays in the region it was made in.
		_regionOf: function (p) {
			return Math.floor(p.x / 320) + ',' + Math.floor(p.y / 320);
		},

		_region: function (key) {
			var regions = this._regions;
			if (!regions[key] || !regions[key].parentNode) {
				regions[key] = L.DomUtil.create('div', 'matsite-point-items matsite-point-region', this._box);
			}
			return regions[key];
		},

		// Regions left empty go (each is a layer); after a draw's elements are made.
		_dropEmpty: function () {
			var regions = this._regions;
			Object.keys(regions).forEach(function (key) {
				if (!regions[key].firstChild) {
					L.DomUtil.remove(regions[key]);
					delete regions[key];
				}
			});
		},

		_finishLeaving: function () {
			this._leaving.forEach(function (el) { L.DomUtil.remove(el); });
			this._leaving = [];
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
				this._setPos(el, end);
			}
			if (typeof el.animate !== 'function') { return; }
			var keys;
			if (kind === 'fade') {
				keys = [{opacity: 0}, {opacity: 1}];
			} else {
				// Relative to where the element stands: the end of a split, the start of a merge.
				var at = kind === 'split' ? end : start;
				keys = [{transform: 'translate(' + (start.x - at.x) + 'px,' + (start.y - at.y) + 'px)'},
					{transform: 'translate(' + (end.x - at.x) + 'px,' + (end.y - at.y) + 'px)'}];
				if (kind === 'merge') { keys[0].opacity = 1; keys[1].opacity = 0; }
			}
			el._matsiteMove = el.animate(keys, {duration: kind === 'fade' ? 250 : this.options.duration, easing: 'ease-out'});
		},

		// Sets an element's place: its --x and --y, from which the stylesheet sets its
		// margins in its region's grid cell. Not a transform: a transformed element is a
		// paint layer of its own (and with translate3d a compositing layer), hundreds of
		// which the browser goes over in every frame that adds elements. Moves run as Web
		// Animations of transform, relative to that place, composited while they run.
		_setPos: function (el, pos) {
			el._leaflet_pos = pos;
			el.style.setProperty('--x', pos.x + 'px');
			el.style.setProperty('--y', pos.y + 'px');
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
			if (!at || at.x !== pos.x || at.y !== pos.y) { this._setPos(el, pos); }
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
