/*
 * Matsite.PlayerControl: the control bar (play/pause, step, timeline slider,
 * time label, speed, loop, opacity, full screen). It only renders state it is given and
 * reports what the viewer asked for; the player decides what happens.
 * With forecast frames (option forecastFrom), the timeline marks now (one element with
 * data-now, halfway between the frame now follows and the next: option nowIndex), the
 * forecast's part of the track is striped, and what is played of it filled in its own
 * colour; the time label of a forecast frame carries matsite-forecast.
 *
 * Events (what the viewer asked for):
 *   toggle {}            play/pause button
 *   step {delta}         previous/next frame buttons
 *   seek {index}         slider click or drag (an instant jump, no fade)
 *   speed {speed}        speed button (cycles 1x, 2x, 0.5x)
 *   loop {loop}          loop button
 *   fullscreen {}        full screen button
 *   opacity {value}      opacity slider (0..1), labelled "Opacity" (in words and an icon
 *                        beside it, and its aria-label)
 */
(function (L, M) {
	'use strict';

	var SPEEDS = [1, 2, 0.5];

	// 24 x 24 icon outlines; drawn as SVG so no icon font or image is needed.
	var ICONS = {
		play: 'M8 5v14l11-7z',
		pause: 'M6 5h4v14H6zM14 5h4v14h-4z',
		prev: 'M6 6h2v12H6zM9.5 12l8.5 6V6z',
		next: 'M6 18l8.5-6L6 6zM16 6h2v12h-2z',
		loop: 'M7 7h10v3l4-4-4-4v3H5v6h2zM17 17H7v-3l-4 4 4 4v-3h12v-6h-2z',
		fullscreen: 'M7 14H5v5h5v-2H7zM5 10h2V7h3V5H5zM17 17h-3v2h5v-5h-2zM14 5v2h3v3h2V5z',
		// A disc, one half solid and the other a ring (even-odd fill): see-through.
		opacity: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18zM12 5a7 7 0 0 1 0 14z'
	};
	var SVGNS = 'http://www.w3.org/2000/svg';

	function setIcon(b, name) {
		var svg = b.querySelector('svg');
		if (!svg) {
			svg = document.createElementNS(SVGNS, 'svg');
			svg.setAttribute('viewBox', '0 0 24 24');
			svg.setAttribute('width', '20');
			svg.setAttribute('height', '20');
			svg.setAttribute('aria-hidden', 'true');
			svg.setAttribute('focusable', 'false');
			svg.appendChild(document.createElementNS(SVGNS, 'path'));
			b.appendChild(svg);
		}
		svg.firstChild.setAttribute('d', ICONS[name]);
		svg.firstChild.setAttribute('fill', 'currentColor');
		svg.firstChild.setAttribute('fill-rule', 'evenodd');
	}

	function button(parent, cls, label, icon) {
		var b = L.DomUtil.create('button', 'matsite-button ' + cls, parent);
		b.type = 'button';
		b.setAttribute('aria-label', label);
		b.title = label;
		if (ICONS[icon]) {
			setIcon(b, icon);
		} else {
			var g = L.DomUtil.create('span', 'matsite-glyph', b);
			g.setAttribute('aria-hidden', 'true');
			g.textContent = icon;
		}
		return b;
	}

	function speedText(speed) {
		return (speed === 0.5 ? '\u00bd' : String(speed)) + '\u00d7';
	}

	M.PlayerControl = L.Evented.extend({
		options: {
			// @option count: Number = 1
			// Number of frames (the slider's range is 0 .. count - 1).
			count: 1,
			// @option label: Function = null
			// (index) -> String: the frame's time as words, for the label and aria-valuetext.
			label: null,
			// @option note: Function = null
			// (index) -> String: what the label adds at that frame ("Radar: no data"), or ''.
			note: null,
			// @option spare: Function = null
			// () -> String: the loop's longest label with its longest note, or ''. The label
			// keeps the height that text takes (min-height, measured in bold as the newest
			// frame's is), so a note that comes and goes does not move the bar or resize the
			// map above it.
			spare: null,
			// @option fullscreen: Boolean = true
			// Offer a full screen button when the browser allows it.
			fullscreen: true,
			// @option opacity: Number = 1
			// The animation layer's opacity the slider starts at.
			opacity: 1,
			// @option newest: Number = -1
			// Index of the newest frame, whose label is marked.
			newest: -1,
			// @option forecastFrom: Number = -1
			// Index of the first forecast frame (the ones after it are forecasts too); -1: none.
			forecastFrom: -1,
			// @option nowIndex: Number = -1
			// Index of the frame now follows (the newest observed one); -1: now comes first.
			nowIndex: -1
		},

		initialize: function (parent, options) {
			L.setOptions(this, options);
			this._index = 0;
			this._playing = false;
			this._enabled = false;
			this._build(parent);
			this.setEnabled(false);
		},

		getContainer: function () { return this._container; },

		// state: {index, playing, speed, loop, opacity, quiet}; only the keys given are updated.
		// quiet: the label changed by itself (a relative time moved on), so it is not announced.
		update: function (state) {
			if ('playing' in state && state.playing !== this._playing) {
				this._playing = state.playing;
				var label = state.playing ? 'Pause' : 'Play';
				this._play.setAttribute('aria-label', label);
				this._play.title = label;
				setIcon(this._play, state.playing ? 'pause' : 'play');
				L.DomUtil[state.playing ? 'addClass' : 'removeClass'](this._play, 'matsite-playing');
				// Announcing every frame while playing would drown a screen reader.
				this._time.setAttribute('aria-live', state.playing ? 'off' : 'polite');
			}
			if ('index' in state && !state.quiet && !this._playing) {
				this._time.setAttribute('aria-live', 'polite');
			} else if (state.quiet) {
				this._time.setAttribute('aria-live', 'off');
			}
			if ('index' in state) {
				this._index = state.index;
				var n = this.options.count;
				var text = this._labelOf(state.index);
				var note = this.options.note ? this.options.note(state.index) : '';
				this._slider.setAttribute('aria-valuenow', String(state.index));
				this._slider.setAttribute('aria-valuetext', note ? text + ' \u00b7 ' + note : text);
				var at = n > 1 ? (state.index / (n - 1)) * 100 : 100;
				this._thumb.style.left = at + '%';
				if (this._now) {
					// Observed frames in the fill's colour, the forecast played so far in its own.
					this._fill.style.width = Math.min(at, this._forecastAt) + '%';
					this._forecastFill.style.width = Math.max(0, at - this._forecastAt) + '%';
					L.DomUtil[state.index >= this.options.forecastFrom ? 'addClass' : 'removeClass'](this._time, 'matsite-forecast');
				} else {
					this._fill.style.width = at + '%';
				}
				this._reserve();
				this._time.textContent = note ? text + ' \u00b7 ' + note : text;
				L.DomUtil[this.options.newest === state.index ? 'addClass' : 'removeClass'](this._time, 'matsite-newest');
			}
			if ('opacity' in state) {
				var pct = Math.round(state.opacity * 100);
				this._opacity.value = String(pct);
				this._opacity.setAttribute('aria-valuetext', pct + '%');
			}
			if ('speed' in state) {
				this._speed.firstChild.textContent = speedText(state.speed);
				this._speedValue = state.speed;
			}
			if ('loop' in state) {
				this._loop.setAttribute('aria-pressed', state.loop ? 'true' : 'false');
			}
			return this;
		},

		// Disabled while frames load: playback cannot start before every frame decoded.
		setEnabled: function (enabled) {
			this._enabled = enabled;
			[this._play, this._prev, this._next, this._speed, this._loop].forEach(function (b) {
				b.disabled = !enabled;
			});
			this._slider.setAttribute('aria-disabled', enabled ? 'false' : 'true');
			return this;
		},

		_build: function (parent) {
			var c = this._container = L.DomUtil.create('div', 'matsite-controls', parent);
			c.setAttribute('role', 'group');
			c.setAttribute('aria-label', 'Animation controls');
			this._play = button(c, 'matsite-play', 'Play', 'play');
			this._prev = button(c, 'matsite-prev', 'Previous frame', 'prev');
			this._next = button(c, 'matsite-next', 'Next frame', 'next');

			var s = this._slider = L.DomUtil.create('div', 'matsite-slider', c);
			s.setAttribute('role', 'slider');
			s.setAttribute('tabindex', '0');
			s.setAttribute('aria-label', 'Frame');
			s.setAttribute('aria-valuemin', '0');
			s.setAttribute('aria-valuemax', String(Math.max(0, this.options.count - 1)));
			s.setAttribute('aria-valuenow', '0');
			var track = this._track = L.DomUtil.create('div', 'matsite-track', s);
			this._fill = L.DomUtil.create('div', 'matsite-fill', track);
			this._addForecast(track);
			this._thumb = L.DomUtil.create('div', 'matsite-thumb', track);

			this._time = L.DomUtil.create('span', 'matsite-time', c);
			this._time.setAttribute('aria-live', 'polite');
			this._time.setAttribute('aria-atomic', 'true');

			this._speed = button(c, 'matsite-speed', 'Playback speed', speedText(1));
			this._speedValue = 1;
			this._loop = button(c, 'matsite-loop', 'Loop', 'loop');
			this._loop.setAttribute('aria-pressed', 'true');

			// A native range: keyboard, touch and screen readers know it without help. Its icon
			// and its name stand beside it, in sight on a phone too: a bare range next to the
			// timeline reads as a second timeline.
			var box = L.DomUtil.create('label', 'matsite-opacity-control', c);
			setIcon(box, 'opacity');
			L.DomUtil.create('span', 'matsite-opacity-name', box).textContent = 'Opacity';
			var o = this._opacity = L.DomUtil.create('input', 'matsite-opacity', box);
			o.type = 'range';
			o.min = '0';
			o.max = '100';
			o.step = '5';
			o.setAttribute('aria-label', 'Opacity');
			o.title = 'Opacity';
			L.DomEvent.on(o, 'input', function () { this.fire('opacity', {value: Number(o.value) / 100}); }, this);

			var canFull = this.options.fullscreen && document.fullscreenEnabled;
			if (canFull) {
				this._full = button(c, 'matsite-fullscreen', 'Full screen', 'fullscreen');
				L.DomEvent.on(this._full, 'click', function () { this.fire('fullscreen'); }, this);
			}

			L.DomEvent.on(this._play, 'click', function () { this.fire('toggle'); }, this);
			L.DomEvent.on(this._prev, 'click', function () { this.fire('step', {delta: -1}); }, this);
			L.DomEvent.on(this._next, 'click', function () { this.fire('step', {delta: 1}); }, this);
			L.DomEvent.on(this._speed, 'click', this._cycleSpeed, this);
			L.DomEvent.on(this._loop, 'click', function () {
				this.fire('loop', {loop: this._loop.getAttribute('aria-pressed') !== 'true'});
			}, this);
			s.addEventListener('pointerdown', this._onPointerDown.bind(this));
			s.addEventListener('pointermove', this._onPointerMove.bind(this));
			s.addEventListener('pointerup', this._onPointerUp.bind(this));
			s.addEventListener('pointercancel', this._onPointerUp.bind(this));
		},

		// The forecast's part of the track and the now mark, when there are forecast frames.
		// Both sit halfway between two frames: the forecast from before its first frame (from the
		// start when every frame is one), now after the frame it follows (usually the same place;
		// not for a model's loop, whose frames are all forecasts, past ones too).
		_addForecast: function (track) {
			var from = this.options.forecastFrom, n = this.options.count;
			if (!(from >= 0 && from < n) || n < 1) { return; }
			var between = function (i) { return n > 1 ? Math.max(0, Math.min(1, (i + 0.5) / (n - 1))) * 100 : 0; };
			var at = this._forecastAt = from > 0 ? between(from - 1) : 0;
			var rest = L.DomUtil.create('div', 'matsite-forecast-track', track);
			rest.style.left = at + '%';
			this._forecastFill = L.DomUtil.create('div', 'matsite-forecast-fill', track);
			this._forecastFill.style.left = at + '%';
			var now = this._now = L.DomUtil.create('div', 'matsite-now', track);
			now.setAttribute('data-now', '');
			now.style.left = (this.options.nowIndex >= 0 ? between(this.options.nowIndex) : 0) + '%';
			// Seen, not read: the slider's aria-valuetext says which frames are forecasts.
			var word = L.DomUtil.create('span', 'matsite-now-word', now);
			word.setAttribute('aria-hidden', 'true');
			word.textContent = 'now';
			L.DomUtil.addClass(this._slider, 'matsite-has-forecast');
		},

		// Takes the bar out of the page; its listeners go with its elements.
		remove: function () {
			L.DomUtil.remove(this._container);
			this.off();
			return this;
		},

		setFullscreen: function (on) {
			if (!this._full) { return this; }
			var label = on ? 'Exit full screen' : 'Full screen';
			this._full.setAttribute('aria-label', label);
			this._full.title = label;
			return this;
		},

		_cycleSpeed: function () {
			var i = SPEEDS.indexOf(this._speedValue);
			this.fire('speed', {speed: SPEEDS[(i + 1) % SPEEDS.length]});
		},

		_onPointerDown: function (e) {
			if (!this._enabled || e.button !== 0) { return; }
			this._dragging = true;
			if (this._slider.setPointerCapture) { this._slider.setPointerCapture(e.pointerId); }
			this._slider.focus();
			this._seekTo(e.clientX);
			e.preventDefault();
		},

		_onPointerMove: function (e) {
			if (this._dragging) { this._seekTo(e.clientX); }
		},

		_onPointerUp: function (e) {
			if (!this._dragging) { return; }
			this._dragging = false;
			if (this._slider.releasePointerCapture) { this._slider.releasePointerCapture(e.pointerId); }
		},

		_seekTo: function (clientX) {
			var rect = this._track.getBoundingClientRect();
			var n = this.options.count;
			var f = rect.width > 0 ? (clientX - rect.left) / rect.width : 0;
			var index = Math.round(Math.max(0, Math.min(1, f)) * (n - 1));
			if (index !== this._index) { this.fire('seek', {index: index}); }
		},

		// The label's height kept at that of the loop's longest label and note (options.spare).
		_reserve: function () {
			var t = this._time, spare = this.options.spare ? this.options.spare() : '';
			t.style.minHeight = '';
			if (!spare) { return; }
			var bold = L.DomUtil.hasClass(t, 'matsite-newest');
			L.DomUtil.addClass(t, 'matsite-newest');
			t.textContent = spare;
			t.style.minHeight = t.getBoundingClientRect().height + 'px';
			if (!bold) { L.DomUtil.removeClass(t, 'matsite-newest'); }
		},

		_labelOf: function (index) {
			return this.options.label ? this.options.label(index)
				: 'Frame ' + (index + 1) + ' of ' + this.options.count;
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
