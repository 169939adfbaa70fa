/*
 * Matsite.FrameClock: decides which frame is due and when. It draws nothing.
 *
 * Frame changes happen inside requestAnimationFrame callbacks, so a change is
 * never more than one display frame late. Due times are accumulated from the
 * previous due time, not from "now", so rounding to display frames does not
 * drift across a loop.
 *
 * Events:
 *   frame {index, previous, auto}  auto is true for a timed advance (crossfade),
 *                                  false for a seek or a step (instant swap)
 *   run   {}                       the clock started ticking
 *   stop  {ended}                  the clock stopped; ended when a non-looping run
 *                                  reached its last frame
 */
(function (L, M) {
	'use strict';

	var raf = window.requestAnimationFrame.bind(window);
	var caf = window.cancelAnimationFrame.bind(window);

	M.FrameClock = L.Evented.extend({
		options: {
			// @option speed: Number = 1
			// Playback rate: 0.5, 1 or 2 (other positive numbers work too).
			speed: 1,
			// @option loop: Boolean = true
			// Whether the last frame is followed by the first.
			loop: true,
			// @option index: Number = 0
			// The frame shown before the first tick.
			index: 0
		},

		// durations: milliseconds each frame stays on screen at speed 1
		// (the last one already includes the hold).
		initialize: function (durations, options) {
			L.setOptions(this, options);
			this._durations = durations.map(function (d) {
				return (typeof d === 'number' && d > 0 && isFinite(d)) ? d : 500;
			});
			this._index = this._clamp(this.options.index);
			this._running = false;
			this._due = 0;
			this._rafId = null;
			this._tickBound = this._tick.bind(this);
		},

		count: function () { return this._durations.length; },

		index: function () { return this._index; },

		isRunning: function () { return this._running; },

		speed: function () { return this.options.speed; },

		loop: function () { return this.options.loop; },

		// Starts ticking from the current frame, which gets its full duration.
		run: function () {
			if (this._running || this._durations.length < 2) { return this; }
			if (!this.options.loop && this._index === this._durations.length - 1) {
				// A finished non-looping run starts over, as a media player does.
				this._set(0, false);
			}
			this._running = true;
			this._due = performance.now() + this._durationOf(this._index);
			this._rafId = raf(this._tickBound);
			this.fire('run');
			return this;
		},

		stop: function (ended) {
			if (!this._running) { return this; }
			this._running = false;
			if (this._rafId !== null) { caf(this._rafId); this._rafId = null; }
			this.fire('stop', {ended: !!ended});
			return this;
		},

		// Jumps to a frame at once; a running clock gives it its full duration.
		seek: function (index) {
			index = this._clamp(index);
			if (this._running) { this._due = performance.now() + this._durationOf(index); }
			if (index !== this._index) { this._set(index, false); }
			return this;
		},

		step: function (delta) {
			var n = this._durations.length;
			return this.seek(((this._index + delta) % n + n) % n);
		},

		// The frame a timed advance would show next, or -1 at the end of a non-looping run.
		nextIndex: function () {
			var next = this._index + 1;
			if (next < this._durations.length) { return next; }
			return this.options.loop ? 0 : -1;
		},

		setSpeed: function (speed) {
			speed = Number(speed);
			if (!(speed > 0) || !isFinite(speed)) { return this; }
			var old = this.options.speed;
			this.options.speed = speed;
			if (this._running) {
				// Keep the fraction of the current frame already shown.
				var now = performance.now();
				this._due = now + Math.max(0, this._due - now) * old / speed;
			}
			this.fire('speed', {speed: speed});
			return this;
		},

		setLoop: function (loop) {
			this.options.loop = !!loop;
			this.fire('loop', {loop: this.options.loop});
			return this;
		},

		_tick: function (now) {
			this._rafId = null;
			if (!this._running) { return; }
			// rAF timestamps are the frame's start; performance.now() may be a little later.
			now = Math.max(now, performance.now() - 1);
			if (now >= this._due - 1) {
				var next = this.nextIndex();
				if (next < 0) {
					this.stop(true);
					return;
				}
				this._due += this._durationOf(next);
				// After a long stall (background tab, debugger) do not race to catch up.
				if (this._due < now) { this._due = now + this._durationOf(next); }
				this._set(next, true);
				if (!this._running) { return; }
			}
			this._rafId = raf(this._tickBound);
		},

		_set: function (index, auto) {
			var previous = this._index;
			this._index = index;
			this.fire('frame', {index: index, previous: previous, auto: auto});
		},

		_durationOf: function (index) {
			return this._durations[index] / this.options.speed;
		},

		_clamp: function (index) {
			index = Math.round(Number(index));
			if (!isFinite(index)) { index = 0; }
			return Math.max(0, Math.min(this._durations.length - 1, index));
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
