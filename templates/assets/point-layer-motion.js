/*
 * Matsite.PointLayer, motion: carries out a draw worked out by _draw
 * (point-layer.js) over the next animation frames: elements made a slice a
 * frame, the slice sized by how late the frames come; then moves (a split
 * from the ancestor's place, a merge into it) and fades started, again a slice
 * a frame, with Web Animations the compositor runs. Joined to the class with
 * include, after point-layer.js.
 */
(function (L, M) {
	'use strict';

	M.PointLayer.include({
		// Carries out a draw's jobs (an element to make, perhaps moving from a start; an
		// element to move away and fade) in two steps. First every element is made, a
		// few at a time, one slice a frame; then, from the next frame, the moves and fades
		// start, again a slice a frame. A moving element is a layer the browser composites, and adding
		// elements to the page while hundreds of such layers exist costs several times
		// more than adding them before. A later draw drops what is left: it works out
		// its own.
		// `under`: the elements go in under those shown (a zoom-in), else over them.
		// `held`: the moves wait for _release(queue) (the layer is hidden meanwhile).
		_run: function (jobs, d, z, under, held) {
			var self = this;
			var queue = this._queue = {held: !!held};
			var shown = this._shown;
			var box = this._box;
			var k = 0;
			var motion = !this.options.reducedMotion;
			var anims = [];  // [el, start, end, kind]: kind 'split', 'merge' or 'fade'
			// How much a frame takes is learnt from the frames themselves: a frame that
			// came late (the one before took too long) makes the next slice smaller in
			// proportion, a frame early lets it grow back as fast, up to perFrame. Late means near
			// a visible gap (50 ms), not merely past one refresh: a slow device whose every
			// frame takes two refreshes can still make a good slice in each, and slices cut
			// to the bone only spread the same work over more frames.
			// Starting moves is paced on its own, as before (a frame over 30 ms cuts the
			// slice to 0.6): each move is a layer the compositor makes, and zoom-outs had
			// more gaps with larger slices of them.
			var last = 0;
			var pace = function (making) {
				var t = window.performance ? performance.now() : Date.now();
				var key = making ? '_pace' : '_movePace';
				var n = self[key] || self.options.perFrame;
				if (last) {
					// Sized for a frame of about 38 ms, at most twice the last slice: one
					// late frame (often another tab's or the machine's doing) is made up for
					// in a frame or two, not ten.
					var took = t - last;
					if (!making) {
						if (took > 30) { n = Math.max(10, Math.round(n * 0.6)); } else if (took < 20) { n = Math.round(n * 1.25); }
					} else if (took > 45 || took < 30) {
						n = Math.round(n * Math.min(2, 38 / took));
					}
					n = Math.min(self.options.perFrame, Math.max(Math.min(10, self.options.perFrame), n));
				}
				last = t;
				self[key] = n;
				return n;
			};
			var make = function () {
				if (self._queue !== queue || !self._map) { return; }
				var made = 0, most = pace(true);
				var added = {};
				while (k < jobs.length && made < most) {
					var job = jobs[k++];
					var animate = motion && anims.length < self.options.moves;
					if (job.el) {
						if (animate) { anims.push([job.el, job.start, job.at, 'merge']); } else { L.DomUtil.remove(job.el); }
					} else if (!shown[job.i]) {
						var el = self._create(d, z, job.i, job.count);
						made++;
						if (animate && job.start) {
							self._setPos(el, job.start);
							anims.push([el, job.start, job.at, 'split']);
						} else {
							self._setPos(el, job.at);
							if (animate) {
								// Out of sight until its fade starts.
								el.style.opacity = '0';
								anims.push([el, null, null, 'fade']);
							}
						}
						shown[job.i] = el;
						var key = self._regionOf(job.at);
						(added[key] = added[key] || document.createDocumentFragment()).appendChild(el);
					}
				}
				Object.keys(added).forEach(function (key) {
					var r = self._region(key);
					if (under) { r.insertBefore(added[key], r.firstChild); } else { r.appendChild(added[key]); }
				});
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
				if (queue.held) {
					queue.resume = start;
					return;
				}
				self._switch();
				var end = Math.min(anims.length, started + pace(false));
				for (; started < end; started++) {
					var a = anims[started];
					self._start(a[0], a[1], a[2], a[3]);
				}
				if (started < anims.length) {
					L.Util.requestAnimFrame(start);
					return;
				}
				self._queue = null;
				self._dropEmpty();
				if (self._leaving.length) {
					self._timers.push(setTimeout(function () { self._finishLeaving(); }, self.options.duration + 50));
				}
				self.fire('drawn', {zoom: z, shown: self._drawn});
				// The levels one zoom away, fetched and parsed now, so a zoom does not wait for them.
				var prefetch = function () {
					[z - 1, z + 1].forEach(function (n) {
						if (n >= self._levels.minZoom() && n <= self._levels.maxZoom()) { self._load(n).catch(function () {}); }
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
