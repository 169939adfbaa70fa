/*
 * Matsite.Player, holds and fallback: what keeps playback back although the
 * viewer asked for it (data-paused-reason), and the fallback tiles shown in
 * place of the frames when the view has left their range.
 *
 *   zoom, bounds  the view is past the frames' detail or off their area
 *                 (Matsite.ViewRange): paused on fallback tiles
 *   hidden        the page is hidden
 *   offscreen     the player is scrolled out of sight
 *
 * _update runs or stops the clock from what the viewer wants and these. A
 * mixin (Matsite.PlayerHolds) the class takes in with `includes`: load it
 * before player.js.
 */
(function (L, M) {
	'use strict';

	var isNum = M.isNum;

	// Priority when several reasons hold playback at once.
	var REASONS = ['zoom', 'bounds', 'hidden', 'offscreen'];

	var MESSAGES = {
		zoom: 'Zoomed in past the animation\u2019s detail: paused, showing this frame as map tiles. Zoom out to resume.',
		// Without fallback tiles the frame itself stays, scaled up: the words say so.
		zoomScaled: 'Zoomed in past the animation\u2019s detail: paused, showing this frame enlarged. Zoom out to resume.',
		bounds: 'The view has left the animation\u2019s area: paused. Pan back to resume.',
		hidden: '',
		offscreen: ''
	};

	M.PlayerHolds = {
		// Runs or stops the clock from what the viewer wants and what holds it back.
		_update: function () {
			if (!this._clock) { return; }
			var reason = null;
			for (var k = 0; k < REASONS.length; k++) {
				if (this._holds[REASONS[k]]) { reason = REASONS[k]; break; }
			}
			if (this._wantPlay && !reason) {
				this._clock.run();
				if (this._clock.isRunning()) { this._overlay.prepare(this._clock.nextIndex()); }
			} else {
				this._clock.stop();
			}
			var running = this._clock.isRunning();
			if (running) { this._everPlayed = true; }
			if (this._wantPlay && reason && !running) {
				this._root.setAttribute('data-paused-reason', reason);
			} else {
				this._root.removeAttribute('data-paused-reason');
			}
			// Standing still by the viewer's choice (paused, or never played, nothing holding):
			// the frame on screen is worth the screen's pixels; playing, the map's are enough.
			if (this._overlay.setStill) { this._overlay.setStill(!running && !reason); }
			this._control.update({playing: running});
			var range = this._range ? this._range.reason() : null;
			if (range === 'zoom' && !this._tilesShown) { range = 'zoomScaled'; }
			this._say(range ? MESSAGES[range] : '');
			this._setState(running ? 'playing' : (this._everPlayed || this._wantPlay ? 'paused' : 'ready'));
		},

		_hold: function (reason, on) {
			if (!!this._holds[reason] === !!on) { return; }
			if (on) { this._holds[reason] = true; } else { delete this._holds[reason]; }
			this._update();
		},

		// Zoomed past the frames' detail or panned off them: pause on fallback tiles.
		_onRange: function (e) {
			delete this._holds.zoom;
			delete this._holds.bounds;
			if (e.reason) { this._holds[e.reason] = true; }
			this._showFallback(!!e.reason);
			this._update();
		},

		_watchVisibility: function () {
			var self = this;
			this._listen(document, 'visibilitychange', function () { self._hold('hidden', document.hidden); });
			this._hold('hidden', document.hidden);
			if ('IntersectionObserver' in window) {
				var observer = new IntersectionObserver(function (entries) {
					var e = entries[entries.length - 1];
					self._hold('offscreen', !e.isIntersecting);
				}, {threshold: 0});
				observer.observe(this._root);
				this._cleanup.push(function () { observer.disconnect(); });
			}
		},

		_showFallback: function (on) {
			var fb = this._fallback;
			if (this._overlay.showFallback) {
				// Data layers: each shows its own fallback tiles, in its own pane.
				var any = this._overlay.showFallback(on);
				this._tilesShown = on && any;
				L.DomUtil[on && any ? 'addClass' : 'removeClass'](this._root, 'matsite-fallback-active');
				return;
			}
			if (on && fb && !this._fallbackLayer) {
				this._fallbackLayer = new M.TileLayer(this._fallbackUrl(this._clock.index()), this._fallbackOptions(fb)).addTo(this._map);
			} else if (!on && this._fallbackLayer) {
				this._fallbackLayer.remove();
				this._fallbackLayer = null;
			}
			// Without fallback tiles the scaled frame is still the best there is.
			this._tilesShown = !!(on && fb);
			this._overlay.setVisible(!(on && fb));
			L.DomUtil[on && fb ? 'addClass' : 'removeClass'](this._root, 'matsite-fallback-active');
		},

		_fallbackOptions: function (fb) {
			var opts = {
				maxZoom: this._map.getMaxZoom(),
				className: 'matsite-fallback',
				zIndex: 10,
				opacity: this._opacity
			};
			if (isNum(fb.min_zoom)) { opts.minNativeZoom = fb.min_zoom; }
			if (isNum(fb.max_native_zoom)) { opts.maxNativeZoom = fb.max_native_zoom; }
			if (Array.isArray(fb.subdomains) && fb.subdomains.length) { opts.subdomains = fb.subdomains; }
			// Published tiles exist only over the frames' bounds: do not ask for others.
			if (fb.published === true) { opts.bounds = this._frameBounds; }
			return opts;
		},

		// A frame's own template: published tiles sit in a folder named by their content.
		_fallbackUrl: function (index) {
			return this._resolve(String(this._fallback.templates[index] || ''));
		}
	};
}(window.L, window.Matsite = window.Matsite || {}));
