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
		_run: function (jobs, d, z, under) {
			var self = this;
			var queue = this._queue = {};
			var shown = this._shown;
			var box = this._box;
			var k = 0;
			var motion = !this.options.reducedMotion;
			var anims = [];  // [el, start, end, kind]: kind 'split', 'merge' or 'fade'
			// How much a frame takes is learnt from the frames themselves: a frame that
			// came late (the one before took too long) makes the next slice smaller, a
			// frame on time lets it grow back, up to perFrame. A slow phone ends up with
			// small slices, never under 10 (nor over perFrame, which caps them all).
			var last = 0;
			var pace = function () {
				var t = window.performance ? performance.now() : Date.now();
				var n = self._pace || self.options.perFrame;
				if (last) {
					if (t - last > 30) { n = Math.max(Math.min(10, self.options.perFrame), Math.round(n * 0.6)); } else if (t - last < 20) { n = Math.min(self.options.perFrame, Math.round(n * 1.25)); }
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
						added.appendChild(el);
					}
				}
				if (under) { box.insertBefore(added, box.firstChild); } else { box.appendChild(added); }
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

		// The new level, made whole or not (a later draw may come first), takes the
		// place of the level shown before: what is left of that one goes.
		_switch: function () {
			var stale = this._stale;
			if (!stale || !stale.length) { return; }
			this._stale = [];
			stale.forEach(function (el) { L.DomUtil.remove(el); });
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
				keys = [{transform: 'translate(' + start.x + 'px,' + start.y + 'px)'},
					{transform: 'translate(' + end.x + 'px,' + end.y + 'px)'}];
				if (kind === 'merge') { keys[0].opacity = 1; keys[1].opacity = 0; }
			}
			el._matsiteMove = el.animate(keys, {duration: kind === 'fade' ? 250 : this.options.duration, easing: 'ease-out'});
		},

		// Sets an element's place with a 2D translate, not Leaflet's translate3d: a 3D
		// transform makes each element a compositing layer of its own, and hundreds of
		// layers (made, rastered, committed one by one) were most of what a new level cost
		// a slow device. Moves run as Web Animations, composited while they run.
		_setPos: function (el, pos) {
			el._leaflet_pos = pos;
			el.style.transform = 'translate(' + pos.x + 'px,' + pos.y + 'px)';
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
