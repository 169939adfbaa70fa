/*
 * Matsite.Player: wires the pieces together for one [data-matsite-player]
 * element. The frame layer (Matsite.frameLayer: images or levels) draws and its
 * loader preloads, FrameClock times, PlayerControl takes input, EmbedApi talks
 * to a parent page.
 *
 * The root element reflects the state for scripts and tests:
 *   data-state          loading | ready | playing | paused
 *   data-frame          index of the frame shown
 *   data-paused-reason  zoom | bounds | tiles | hidden | offscreen, while the
 *                       player holds back playback the viewer asked for
 *                       (tiles: frames published as levels lack tiles the
 *                       view needs; playback resumes once every frame has them)
 *
 * Root attributes read: data-manifest (URL of manifest.json), data-poster,
 * data-embed ("true" on the embed page), data-title.
 *
 * Events: ready {frames}, frame {index, time}, state {state}, opacity {value},
 * layer {id, visible, opacity} (an animation with data layers: layer-stack.js).
 *
 * remove() takes the player out again and leaves no listener, timer or node of
 * its own behind (document, window, observers, the map).
 */
(function (L, M) {
	'use strict';

	// Priority when several reasons hold playback at once.
	var REASONS = ['zoom', 'bounds', 'tiles', 'hidden', 'offscreen'];

	var MESSAGES = {
		zoom: 'Zoomed in past the animation\u2019s detail: paused, showing this frame as map tiles. Zoom out to resume.',
		bounds: 'The view has left the animation\u2019s area: paused. Pan back to resume.',
		tiles: 'Loading the detail of this view for every frame: playback resumes when it is in.',
		hidden: '',
		offscreen: ''
	};

	var isNum = M.isNum, clamp01 = M.clamp01;

	M.Player = L.Evented.extend({
		options: {
			// @option manifestUrl: String = 'manifest.json'
			manifestUrl: 'manifest.json',
			// @option posterUrl: String = ''
			posterUrl: '',
			// @option embed: Boolean = false
			// Embed page: starts paused unless autoplay, enables the postMessage API.
			embed: false,
			// @option autoplay: Boolean = undefined
			// Play once every frame decoded. Default: true on the full page, false embedded.
			autoplay: undefined,
			// @option loop: Boolean = undefined
			// Default: the manifest's loop (true when absent).
			loop: undefined,
			// @option speed: Number = 1
			speed: 1,
			// @option frame: String|Number = undefined
			// 'first', 'last' or an index. Default: first when autoplaying, else the newest.
			frame: undefined,
			// @option controls: Boolean = true
			controls: true,
			// @option utc: Boolean = false
			// Show frame times in UTC instead of the manifest's or the viewer's time zone.
			utc: false,
			// @option opacity: Number = undefined
			// The animation layer's opacity, 0..1. Default: the manifest's opacity, else 1.
			opacity: undefined,
			// @option layers: String[] = undefined
			// Ids of the data layers shown at first (an animation with `layers`). Default: all.
			layers: undefined,
			// @option reducedMotion: Boolean = undefined
			// Default: the prefers-reduced-motion media query.
			reducedMotion: undefined,
			// @option now: Function = undefined
			// The clock relative time labels count from (default Date.now).
			now: undefined
		},

		initialize: function (root, options) {
			L.setOptions(this, options);
			this._root = root;
			this._state = '';
			this._wantPlay = false;  // what the viewer (or autoplay) asked for
			this._everPlayed = false;
			this._holds = {};        // reasons holding playback back: zoom, bounds, hidden, offscreen
			this._manifest = null;
			this._pending = {};      // commands received before the frames were ready
			this._cleanup = [];      // undoes every listener, observer and timer this player set up
			if (this.options.reducedMotion === undefined) {
				this.options.reducedMotion = !!(window.matchMedia &&
					window.matchMedia('(prefers-reduced-motion: reduce)').matches);
			}
			L.DomUtil.addClass(root, 'matsite-player');
			if (!this.options.controls) { L.DomUtil.addClass(root, 'matsite-no-controls'); }
			this._stage = root.querySelector('.matsite-stage') || L.DomUtil.create('div', 'matsite-stage', root);
			this._mapEl = this._stage.querySelector('.matsite-map') || L.DomUtil.create('div', 'matsite-map', this._stage);
			this._status = L.DomUtil.create('div', 'matsite-status', this._stage);
			this._status.setAttribute('role', 'status');
			this._status.setAttribute('aria-live', 'polite');
			this._progress = L.DomUtil.create('span', 'matsite-progress', this._status);
			this._message = L.DomUtil.create('span', 'matsite-message', this._status);
			this._setState('loading');
			if (this.options.embed) {
				// Nothing is allowed until the manifest says which origins may command the player.
				this._api = new M.EmbedApi(this, {allowedOrigins: []});
			}
		},

		// Fetches the manifest and starts preloading every frame. A failed fetch or a
		// manifest that does not parse is asked for twice more (0.5 s, then 1.5 s later,
		// past the browser's cache): a file server being deployed to can hand out a
		// manifest half written, and a phone's link drops a request now and then.
		start: function () {
			var self = this, waits = [500, 1500];
			this._say('Loading\u2026');
			var attempt = function (n) {
				fetch(self.options.manifestUrl, {credentials: 'same-origin', cache: n ? 'reload' : 'default'}).then(function (res) {
					if (!res.ok) { throw new Error('HTTP ' + res.status); }
					return res.json();
				}).then(function (m) {
					if (!self._removed) { self._setup(m); }
				}).catch(function (err) {
					if (self._removed) { return; }
					if (n < waits.length) {
						setTimeout(function () { if (!self._removed) { attempt(n + 1); } }, waits[n]);
						return;
					}
					self._fail('The animation could not be loaded (' + self.options.manifestUrl + ': ' +
						(err && err.message ? err.message : 'error') + ').');
				});
			};
			attempt(0);
			return this;
		},

		// Takes the player out of its root element: stops playback and every
		// listener, observer and timer it set up, and removes what it drew.
		remove: function () {
			if (this._removed) { return this; }
			this._removed = true;
			if (this._clock) { this._clock.stop(); this._clock.off(); }
			if (this._loader) { this._loader.off(); }
			if (this._api) { this._api.remove(); }
			this._cleanup.forEach(function (undo) { undo(); });
			this._cleanup = [];
			if (this._legend) { this._legend.remove(); }
			if (this._layersControl) { this._layersControl.remove(); }
			if (this._control) { this._control.remove(); }
			if (this._map) { this._map.remove(); }
			L.DomUtil.remove(this._status);
			['data-state', 'data-frame', 'data-paused-reason', 'data-loaded', 'data-error'].forEach(function (a) {
				this._root.removeAttribute(a);
			}, this);
			L.DomUtil.removeClass(this._root, 'matsite-failed');
			L.DomUtil.removeClass(this._root, 'matsite-fallback-active');
			L.DomUtil.removeClass(this._root, 'matsite-has-layers');
			if (this._root._matsitePlayer === this) { delete this._root._matsitePlayer; }
			var i = M.players.indexOf(this);
			if (i >= 0) { M.players.splice(i, 1); }
			this.fire('remove');
			this.off();
			this._clock = this._loader = this._overlay = this._control = this._map = this._range = this._points = this._layersControl = null;
			return this;
		},

		// Public commands, also used by the postMessage API.
		play: function () {
			if (!this._clock) { this._pending.play = true; return this; }
			this._wantPlay = true;
			// Out of range, the viewer insists: the stitched frames play until the view changes range.
			if (this._range) { this._range.override(); }
			this._update();
			return this;
		},

		pause: function () {
			if (!this._clock) { this._pending.play = false; return this; }
			this._wantPlay = false;
			this._update();
			return this;
		},

		// Pauses what plays (or waits to play); plays, or overrides a zoom/bounds pause, otherwise.
		toggle: function () {
			return this._wantPlay && !(this._range && this._range.reason()) ? this.pause() : this.play();
		},

		seek: function (index) {
			if (!this._clock) { this._pending.frame = index; return this; }
			this._clock.seek(index);
			return this;
		},

		// Seeks to the frame whose time is nearest to an ISO 8601 time.
		seekTime: function (iso) {
			var t = Date.parse(iso);
			if (!isFinite(t) || !this._times) { return this; }
			var best = -1, bestD = Infinity;
			this._times.forEach(function (ft, i) {
				if (ft === null) { return; }
				var d = Math.abs(ft - t);
				if (d < bestD) { bestD = d; best = i; }
			});
			if (best >= 0) { this.seek(best); }
			return this;
		},

		// Opacity of the animation layer, 0..1: both frame images (and fallback tiles) together,
		// so the crossfade between them keeps full coverage at any opacity.
		setOpacity: function (value) {
			if (!isNum(value)) { return this; }
			this._opacity = clamp01(value);
			if (this._overlay) { this._overlay.setOpacity(this._opacity); }
			if (this._fallbackLayer) { this._fallbackLayer.setOpacity(this._opacity); }
			if (this._control) { this._control.update({opacity: this._opacity}); }
			this.fire('opacity', {value: this._opacity});
			return this;
		},

		getOpacity: function () { return this._opacity; },

		// Shows or hides a data layer and/or sets its opacity (0..1), by its id: options
		// {visible, opacity}, either or both. Only for an animation with data layers.
		setLayer: function (id, options) {
			var o = options || {};
			if (this._overlay && this._overlay.setLayer) { this._overlay.setLayer(id, o.visible, o.opacity); }
			return this;
		},

		// The data layers, bottom to top: {id, title, visible, opacity, ...}; [] without any.
		layers: function () { return this._overlay && this._overlay.layers ? this._overlay.layers() : []; },

		state: function () { return this._state; },

		frameCount: function () { return this._manifest ? this._manifest.frames.length : 0; },

		index: function () { return this._clock ? this._clock.index() : this._initial; },

		getMap: function () { return this._map; },

		_setup: function (m) {
			if (!m || !Array.isArray(m.frames) || !m.frames.length || !m.bounds ||
				![m.bounds.west, m.bounds.south, m.bounds.east, m.bounds.north].every(isNum)) {
				this._fail('The animation\u2019s manifest is not valid.');
				return;
			}
			this._manifest = m;
			var o = this.options;
			var n = m.frames.length;
			this._dir = o.manifestUrl.replace(/[^/]*$/, '');
			var self = this;
			this._times = m.frames.map(function (f) {
				var t = typeof f.time === 'string' ? Date.parse(f.time) : NaN;
				return isFinite(t) ? t : null;
			});
			this._crossfade = isNum(m.crossfade_ms) && m.crossfade_ms > 0 ? m.crossfade_ms : 0;
			if (o.loop === undefined) { o.loop = m.loop !== false; }
			if (o.autoplay === undefined) { o.autoplay = !o.embed; }
			this._opacity = clamp01(isNum(o.opacity) ? o.opacity : isNum(m.opacity) ? m.opacity : 1);
			var autoplay = o.autoplay && !o.reducedMotion;
			var initial = o.frame === 'first' ? 0 : o.frame === 'last' ? n - 1 :
				isNum(o.frame) ? Math.min(n - 1, Math.max(0, o.frame)) : (autoplay ? 0 : n - 1);
			this._initial = initial;
			this._timeWords = new M.FrameTimes(this._times, {
				timeZone: typeof m.time_zone === 'string' ? m.time_zone : undefined,
				utc: o.utc,
				mode: typeof m.time_label === 'string' ? m.time_label : 'absolute',
				now: o.now
			});
			this._root.setAttribute('data-frame', String(initial));

			// Known before loading ends, so a player off screen never starts playing first.
			this._watchVisibility();
			var layer = this._overlay = M.LayerStack.usable(m) ? new M.LayerStack(m, this._resolve.bind(this), {
				first: initial,
				posterUrl: o.posterUrl ? o.posterUrl : '',
				visible: o.layers
			}) : M.frameLayer(m, {
				resolve: this._resolve.bind(this),
				first: initial,
				posterUrl: o.posterUrl ? o.posterUrl : '',
				alt: typeof m.title === 'string' ? m.title : ''
			});
			this._loader = layer.getLoader();
			this._watchLoader();
			// Only a loader whose tiles follow the view holds playback back after the first load.
			this._loader.on('hold', function (e) {
				this._progress.textContent = e.on ? this._loader.loaded() + ' / ' + this._loader.total() + ' frames' : '';
				this._hold('tiles', e.on);
			}, this);
			// Frames first: the map below takes a while to build, and whole frames need none of it
			// (a pyramid's loader waits for the view).
			this._loader.start();
			this._buildMap(m);
			this._fitMap(m);
			layer.addTo(this._map);
			layer.setOpacity(this._opacity);
			layer.showInitial(initial);

			this._control = new M.PlayerControl(this._root, {
				count: n,
				label: this._label.bind(this),
				fullscreen: true,
				newest: this._timeWords.newest()
			});
			this._legend = new M.Legend(m.legend, m.skipped, this._timeWords.format.bind(this._timeWords), this._resolve.bind(this))
				.addTo(this._root, this._control.getContainer());
			if (layer.setLayer) {
				// Each layer has its own opacity there; the bar's one would read as a third.
				L.DomUtil.addClass(this._root, 'matsite-has-layers');
				this._addLayersControl(layer, initial);
			}
			this._control.update({index: initial, playing: false, speed: o.speed, loop: o.loop, opacity: this._opacity});
			if (M.PointLayers && Array.isArray(m.points) && m.points.length) {
				// Point layers follow the frame shown (point-layer.js).
				this._points = new M.PointLayers(m.points, this._resolve.bind(this), {frame: initial, reducedMotion: o.reducedMotion})
					.addTo(this._map);
				this.on('frame', function (e) { this._points.setFrame(e.index); }, this);
			}
			this._control.on('toggle', this.toggle, this);
			this._control.on('step', function (e) { if (this._clock) { this._clock.step(e.delta); } }, this);
			this._control.on('seek', function (e) { this.seek(e.index); }, this);
			this._control.on('speed', function (e) { if (this._clock) { this._clock.setSpeed(e.speed); } }, this);
			this._control.on('loop', function (e) { if (this._clock) { this._clock.setLoop(e.loop); } }, this);
			this._control.on('opacity', function (e) { this.setOpacity(e.value); }, this);
			this._control.on('fullscreen', this._toggleFullscreen, this);
			this._listen(this._root, 'keydown', this._onKey.bind(this));
			this._listen(document, 'fullscreenchange', function () {
				self._control.setFullscreen(document.fullscreenElement === self._root);
				self._map.invalidateSize();
			});
			if (this._timeWords.isLive()) {
				// Relative labels ("12 minutes ago") move on by themselves, without being announced.
				var timer = setInterval(function () {
					if (self._control) { self._control.update({index: self.index(), quiet: true}); }
				}, 15000);
				this._cleanup.push(function () { clearInterval(timer); });
			}

			if (this._api) {
				this._api.setAllowedOrigins(m.embed && Array.isArray(m.embed.allowed_origins) ? m.embed.allowed_origins : ['*']);
			}
		},

		// The layers control of an animation with data layers, over the legend strip.
		_addLayersControl: function (stack, initial) {
			var control = this._layersControl = new M.LayersControl(stack.layers(),
				this._timeWords.format.bind(this._timeWords), this._resolve.bind(this))
				.addTo(this._root, this._legend.getContainer() || this._control.getContainer());
			var noData = function (i) {
				control.setNoData(stack.noData(i).map(function (l) { return l.id; }));
			};
			control.on('layer', function (e) { this.setLayer(e.id, e); }, this);
			stack.on('layer', function (e) {
				control.update(e.id, e);
				noData(this.index());
				// The time label names the shown layers without data.
				this._control.update({index: this.index(), quiet: true});
				this.fire('layer', e);
			}, this);
			this.on('frame', function (e) { noData(e.index); });
			noData(initial);
		},

		// A step's time, and which shown layers have no data then ("Satellite: no data").
		_label: function (i) {
			var text = this._timeWords.label(i);
			var none = this._overlay.noData ? this._overlay.noData(i) : [];
			return none.length ? text + ' \u00b7 ' + none.map(function (l) { return l.title + ': no data'; }).join(', ') : text;
		},

		_watchLoader: function () {
			this._loader.on('progress', function (e) {
				this._root.setAttribute('data-loaded', String(e.loaded));
				// After the first load only a pyramid reports progress, and only a hold shows it.
				if (!this._clock || this._holds.tiles) { this._progress.textContent = e.loaded + ' / ' + e.total + ' frames'; }
			}, this);
			this._loader.on('error', function (e) { this._fail(e.message); }, this);
			this._loader.on('load', this._onLoaded, this);
			this._say('Loading frames\u2026');
		},

		_fitMap: function (m) {
			this._frameBounds = this._overlay.getBounds();
			// Small frames in a large page would otherwise open already "too deep".
			this._map.fitBounds(this._frameBounds, {animate: false, maxZoom: m.zoom + 1});
			this._map.setMinZoom(Math.max(0, this._map.getZoom() - 3));
		},

		// addEventListener, undone by remove().
		_listen: function (target, type, fn) {
			target.addEventListener(type, fn);
			this._cleanup.push(function () { target.removeEventListener(type, fn); });
		},

		_buildMap: function (m) {
			var base = m.base_map && typeof m.base_map.url === 'string' ? m.base_map : null;
			var fb = m.fallback && Array.isArray(m.fallback.templates) ? m.fallback : null;
			// Two levels past the deepest fallback tiles, the animation's or a data layer's.
			var fallbacks = [fb].concat(Array.isArray(m.layers) ? m.layers.map(function (l) { return l && l.fallback; }) : []);
			var deepest = fallbacks.reduce(function (z, f) {
				return f && isNum(f.max_native_zoom) ? Math.max(z, f.max_native_zoom + 2) : z;
			}, m.zoom + 4);
			if (base && isNum(base.max_zoom)) { deepest = Math.max(deepest, Math.min(base.max_zoom, m.zoom + 6)); }
			deepest = Math.min(22, deepest);
			// On a touch screen one finger scrolls the page, as everywhere else on it; two fingers
			// move and zoom the map. A map that took every swipe would trap the page's scrolling.
			var touch = !!(window.matchMedia && window.matchMedia('(pointer: coarse)').matches);
			var map = this._map = L.map(this._mapEl, {
				keyboard: false, // Left/Right belong to the frame stepping
				zoomSnap: 0.5,
				maxZoom: deepest,
				worldCopyJump: false,
				dragging: !touch,
				tap: false,
				attributionControl: true
			});
			map.attributionControl.setPrefix('<a href="https://leafletjs.com" rel="noopener noreferrer" target="_blank">Leaflet</a>');
			var attribution = typeof m.attribution_html === 'string' ? M.safeAttribution(m.attribution_html)
				: typeof m.attribution === 'string' && m.attribution ? M.escapeText(m.attribution) : '';
			if (attribution) { map.attributionControl.addAttribution(attribution); }
			if (base) {
				var opts = {
					maxZoom: deepest,
					maxNativeZoom: isNum(base.max_native_zoom) ? base.max_native_zoom : isNum(base.max_zoom) ? base.max_zoom : 19,
					attribution: M.safeAttribution(base.attribution_html || '') || undefined,
					className: 'matsite-basemap'
				};
				if (Array.isArray(base.subdomains) && base.subdomains.length) { opts.subdomains = base.subdomains; }
				new M.TileLayer(this._resolve(base.url), opts).addTo(map);
				// The demo base map is drawn deeper around the animation only: those tiles go
				// over the world's coarser ones there, and nothing is asked for elsewhere.
				var d = base.detail;
				if (d && isNum(d.min_zoom) && isNum(d.max_native_zoom) && Array.isArray(d.bounds) && d.bounds.length === 4) {
					var detail = L.extend({}, opts, {minZoom: d.min_zoom, maxNativeZoom: d.max_native_zoom, attribution: undefined});
					if (d.bounds[0] < d.bounds[2]) { detail.bounds = [[d.bounds[1], d.bounds[0]], [d.bounds[3], d.bounds[2]]]; }
					new M.TileLayer(this._resolve(base.url), detail).addTo(map);
				}
			}
			this._fallback = fb;
		},

		_onLoaded: function () {
			var o = this.options;
			var m = this._manifest;
			this._overlay.removePoster();
			var durations = m.frames.map(function (f) { return f.duration_ms; });
			var clock = this._clock = new M.FrameClock(durations, {speed: o.speed, loop: o.loop, index: this._initial});
			clock.on('frame', this._onFrame, this);
			clock.on('stop', function (e) { if (e.ended) { this._wantPlay = false; this._update(); } }, this);
			clock.on('speed', function (e) { this._control.update({speed: e.speed}); }, this);
			clock.on('loop', function (e) { this._control.update({loop: e.loop}); }, this);
			this._overlay.on('shown', function () {
				if (this._clock.isRunning()) { this._overlay.prepare(this._clock.nextIndex()); }
			}, this);
			this._control.setEnabled(true);
			this._progress.textContent = '';
			this._say('');
			if ('frame' in this._pending) { clock.seek(this._pending.frame); }
			var autoplay = o.autoplay && !o.reducedMotion;
			if ('play' in this._pending) { autoplay = this._pending.play; }
			this._wantPlay = !!autoplay;
			// The frames' own detail (a zoom counting 256 px tiles, as the map's does).
			var detail = this._overlay.detailZoom();
			this._range = new M.ViewRange(this._frameBounds, {zoom: isNum(detail) ? detail : m.zoom, slack: 1});
			this._range.on('change', this._onRange, this);
			this._range.addTo(this._map);
			this._update();
			this.fire('ready', {frames: m.frames.length});
			this._overlay.prepare(clock.nextIndex());
		},

		_onFrame: function (e) {
			var i = e.index;
			this._root.setAttribute('data-frame', String(i));
			var fade = 0;
			if (e.auto && !this.options.reducedMotion && this._crossfade > 0) {
				// Never let a fade outlast half of the frame it reveals.
				var shown = this._manifest.frames[i].duration_ms / this._clock.speed();
				fade = Math.min(this._crossfade, shown / 2);
			}
			this._overlay.show(i, fade);
			this._control.update({index: i});
			if (this._fallbackLayer) { this._fallbackLayer.setUrl(this._fallbackUrl(i)); }
			var t = this._manifest.frames[i].time;
			this.fire('frame', {index: i, time: typeof t === 'string' ? t : undefined});
		},

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
			this._control.update({playing: running});
			var range = this._range ? this._range.reason() : null;
			this._say(range ? MESSAGES[range] : this._holds.tiles && this._wantPlay ? MESSAGES.tiles : '');
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
				L.DomUtil[on && any ? 'addClass' : 'removeClass'](this._root, 'matsite-fallback-active');
				return;
			}
			if (on && fb && !this._fallbackLayer) {
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
				this._fallbackLayer = new M.TileLayer(this._fallbackUrl(this._clock.index()), opts).addTo(this._map);
			} else if (!on && this._fallbackLayer) {
				this._fallbackLayer.remove();
				this._fallbackLayer = null;
			}
			// Without fallback tiles the scaled frame is still the best there is.
			this._overlay.setVisible(!(on && fb));
			L.DomUtil[on && fb ? 'addClass' : 'removeClass'](this._root, 'matsite-fallback-active');
		},

		// A frame's own template: published tiles sit in a folder named by their content.
		_fallbackUrl: function (index) {
			return this._resolve(String(this._fallback.templates[index] || ''));
		},

		_onKey: function (e) {
			if (!this._clock || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) { return; }
			var t = e.target;
			var tag = t && t.tagName;
			if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') { return; }
			var n = this._manifest.frames.length;
			switch (e.key) {
			case ' ':
			case 'Spacebar':
				// A focused button handles Space itself (click).
				if (tag === 'BUTTON') { return; }
				this.toggle();
				break;
			case 'ArrowLeft':
			case 'Left':
				this._clock.step(-1);
				break;
			case 'ArrowRight':
			case 'Right':
				this._clock.step(1);
				break;
			case 'Home':
				this._clock.seek(0);
				break;
			case 'End':
				this._clock.seek(n - 1);
				break;
			default:
				return;
			}
			e.preventDefault();
		},

		_toggleFullscreen: function () {
			if (document.fullscreenElement) {
				document.exitFullscreen();
			} else if (this._root.requestFullscreen) {
				this._root.requestFullscreen().catch(function () { /* refused by the browser */ });
			}
		},

		_resolve: function (url) {
			url = String(url);
			if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.charAt(0) === '/') { return url; }
			return this._dir + url;
		},

		_setState: function (state) {
			if (state === this._state) { return; }
			this._state = state;
			this._root.setAttribute('data-state', state);
			this.fire('state', {state: state});
		},

		_say: function (text) {
			this._message.textContent = text;
			L.DomUtil[text || this._progress.textContent ? 'addClass' : 'removeClass'](this._status, 'matsite-status-on');
		},

		_fail: function (message) {
			L.DomUtil.addClass(this._root, 'matsite-failed');
			this._root.setAttribute('data-error', message);
			this._say(message);
		}
	});

	M.players = [];

	// Starts a player on every [data-matsite-player] element of the page.
	M.boot = function () {
		var params = M.parseParams(window.location.search);
		document.querySelectorAll('[data-matsite-player]').forEach(function (root) {
			if (root._matsitePlayer) { return; }
			var opts = L.extend({
				manifestUrl: root.getAttribute('data-manifest') || 'manifest.json',
				posterUrl: root.getAttribute('data-poster') || '',
				embed: root.getAttribute('data-embed') === 'true'
			}, params);
			var player = root._matsitePlayer = new M.Player(root, opts);
			M.players.push(player);
			player.start();
		});
	};

	if (document.readyState === 'loading') {
		document.addEventListener('DOMContentLoaded', M.boot, {once: true});
	} else {
		M.boot();
	}
}(window.L, window.Matsite = window.Matsite || {}));
