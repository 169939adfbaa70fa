/*
 * Matsite.Player: wires the pieces together for one [data-matsite-player]
 * element, and keeps its API and state. The frame layer (Matsite.frameLayer:
 * images, levels, or a stack of data layers) draws and its loader preloads,
 * FrameClock times, PlayerControl takes input, EmbedApi talks to a parent page.
 * The map is made in player-map.js; what holds playback back, and the fallback
 * tiles, are player-holds.js; the control bar, legend, layers control, keys and
 * full screen player-chrome.js (mixins, loaded before this file).
 *
 * The root element reflects the state for scripts and tests:
 *   data-state          loading | ready | playing | paused
 *   data-frame          index of the frame shown
 *   data-kind           observed | forecast: the kind of the frame shown (only
 *                       when the manifest has forecast frames)
 *   data-paused-reason  zoom | bounds | hidden | offscreen, while the
 *                       player holds back playback the viewer asked for
 *                       (frames published as levels whose tiles for a new view
 *                       are not in yet play on at coarser detail: no hold)
 *
 * Root attributes read: data-manifest (URL of manifest.json), data-poster,
 * data-embed ("true" on the embed page), data-title.
 *
 * Events: ready {frames}, frame {index, time, kind, run}, state {state}, opacity {value},
 * layer {id, visible, opacity} (an animation with data layers: layer-stack.js).
 *
 * remove() takes the player out again and leaves no listener, timer or node of
 * its own behind (document, window, observers, the map).
 */
(function (L, M) {
	'use strict';

	var isNum = M.isNum, clamp01 = M.clamp01;

	// What the player needs of a manifest: frames, and bounds in numbers.
	function validManifest(m) {
		return !!m && Array.isArray(m.frames) && m.frames.length > 0 && !!m.bounds &&
			[m.bounds.west, m.bounds.south, m.bounds.east, m.bounds.north].every(isNum);
	}

	M.Player = L.Evented.extend({
		// The map (player-map.js), what holds playback back with the fallback tiles
		// (player-holds.js), and the controls around the map (player-chrome.js).
		includes: [M.PlayerMap, M.PlayerHolds, M.PlayerChrome],

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
			// 'first', 'last', 'now' (the frame now follows, the newest observed) or an index. Default: first
			// when autoplaying, else the newest; with forecast frames, the newest observed.
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
			this._forecastFrom = -1;  // the first forecast frame's index (manifest frames of kind forecast)
			this._nowIndex = -1;      // the frame now follows (the newest observed one)
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
			// The page's still image, for a player that never starts: this one has.
			var still = this._stage.querySelector('.matsite-still');
			if (still) { L.DomUtil.remove(still); }
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
			['data-state', 'data-frame', 'data-kind', 'data-paused-reason', 'data-loaded', 'data-error'].forEach(function (a) {
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

		// The index of the first forecast frame, or -1 when the manifest has none.
		forecastFrom: function () { return this._forecastFrom; },

		// The frame the manifest's now follows: the newest observed one (with no forecast,
		// the newest), -1 when no frame is observed.
		nowIndex: function () { return this._nowIndex; },

		// What a frame is: {kind: 'observed'|'forecast', run: ISO or undefined}; {} when the
		// manifest has no forecast frames (it reads as before).
		frameKind: function (index) {
			if (this._forecastFrom < 0 || !this._manifest) { return {}; }
			var f = this._manifest.frames[index];
			if (!f || f.kind !== 'forecast') { return {kind: 'observed'}; }
			return typeof f.run === 'string' ? {kind: 'forecast', run: f.run} : {kind: 'forecast'};
		},

		getMap: function () { return this._map; },

		_setup: function (m) {
			if (!validManifest(m)) {
				this._fail('The animation\u2019s manifest is not valid.');
				return;
			}
			this._manifest = m;
			var o = this.options;
			this._readManifest(m);
			var initial = this._initial;
			// Known before loading ends, so a player off screen never starts playing first.
			this._watchVisibility();
			// One frame layer for either shape: a stack of data layers, or the animation's own frames.
			var layer = this._overlay = M.frameLayer(m, {
				resolve: this._resolve.bind(this),
				first: initial,
				posterUrl: o.posterUrl ? o.posterUrl : '',
				alt: typeof m.title === 'string' ? m.title : '',
				visible: o.layers,
				concurrency: M.fetchConcurrency(o.manifestUrl)
			});
			this._loader = layer.getLoader();
			this._watchLoader();
			// Frames first: the map below takes a while to build, and whole frames need none of it
			// (a pyramid's loader waits for the view, but for what the page preloaded).
			this._loader.start();
			// The words for times after that; their first Intl formatter, made by the controls' first
			// label (frames with times only), costs 40-130 ms on a slow phone.
			this._readTimes(m);
			this._buildMap(m);
			// The controls take their room beside the map first, so the box is fitted once, to
			// the size the map keeps (fitted before, a phone opened on empty base map with the
			// loop's bottom cut off by the legend and layers control below it).
			this._addControls(m);
			this._fitMap(m);
			layer.addTo(this._map);
			layer.setOpacity(this._opacity);
			layer.showInitial(initial);
			this._addPoints(m);
			this._listenControls();
			if (this._api) {
				this._api.setAllowedOrigins(m.embed && Array.isArray(m.embed.allowed_origins) ? m.embed.allowed_origins : ['*']);
			}
		},

		// What the player keeps of the manifest, and the options it settles: the frames'
		// times (their words: _readTimes), the crossfade, loop, autoplay, opacity and the first frame.
		_readManifest: function (m) {
			var o = this.options;
			var n = m.frames.length;
			this._dir = o.manifestUrl.replace(/[^/]*$/, '');
			this._times = m.frames.map(function (f) {
				var t = typeof f.time === 'string' ? Date.parse(f.time) : NaN;
				return isFinite(t) ? t : null;
			});
			this._crossfade = isNum(m.crossfade_ms) && m.crossfade_ms > 0 ? m.crossfade_ms : 0;
			if (o.loop === undefined) { o.loop = m.loop !== false; }
			if (o.autoplay === undefined) { o.autoplay = !o.embed; }
			this._opacity = clamp01(isNum(o.opacity) ? o.opacity : isNum(m.opacity) ? m.opacity : 1);
			var forecast = m.frames.map(function (f) { return f.kind === 'forecast'; });
			this._forecastFrom = forecast.indexOf(true);
			var issued = this._issued = typeof m.now === 'string' ? Date.parse(m.now) : NaN;
			this._forecast = forecast;
			this._nowIndex = this._findNow(forecast, issued);
			var autoplay = o.autoplay && !o.reducedMotion;
			// With forecast frames, playback starts at now: the frame now follows.
			var opening = this._forecastFrom >= 0 ? Math.max(0, this._nowIndex) : (autoplay ? 0 : n - 1);
			var initial = o.frame === 'first' ? 0 : o.frame === 'last' ? n - 1 : o.frame === 'now' ? Math.max(0, this._nowIndex) :
				isNum(o.frame) ? Math.min(n - 1, Math.max(0, o.frame)) : opening;
			this._initial = initial;
			this._showKind(initial);
		},

		// The frames' times in words (labels, legend, notes), for the controls.
		_readTimes: function (m) {
			var o = this.options, issued = this._issued;
			this._timeWords = new M.FrameTimes(this._times, {
				timeZone: typeof m.time_zone === 'string' ? m.time_zone : undefined,
				utc: o.utc,
				mode: typeof m.time_label === 'string' ? m.time_label : 'absolute',
				now: o.now,
				forecast: this._forecast,
				runs: m.frames.map(function (f) {
					var r = f.kind === 'forecast' && typeof f.run === 'string' ? Date.parse(f.run) : NaN;
					return isFinite(r) ? r : null;
				}),
				issued: isFinite(issued) ? issued : null
			});
		},

		// The frame now follows: the newest frame at or before the manifest's now (the newest
		// observed one, as forecasts come after now; a model's frames of past times are
		// forecasts too), else the newest observed frame; -1: now comes before every frame.
		// Without forecast frames, the newest frame.
		_findNow: function (forecast, issued) {
			var n = forecast.length;
			if (this._forecastFrom < 0) { return n - 1; }
			if (!isFinite(issued)) { return forecast.lastIndexOf(false, this._forecastFrom); }
			var at = -1;
			this._times.forEach(function (t, i) { if (t !== null && t <= issued) { at = i; } });
			return at;
		},

		// data-frame, and data-kind when the manifest has forecast frames.
		_showKind: function (i) {
			this._root.setAttribute('data-frame', String(i));
			if (this._forecastFrom >= 0) { this._root.setAttribute('data-kind', this.frameKind(i).kind); }
		},

		// Point layers follow the frame shown (point-layer.js).
		_addPoints: function (m) {
			if (!M.PointLayers || !Array.isArray(m.points) || !m.points.length) { return; }
			var overlay = this._overlay;
			// The range's: the frames' detail and one level past it (ViewRange's slack).
			var playZoom = function () {
				var detail = overlay.detailZoom();
				return (isNum(detail) ? detail : m.zoom) + 1;
			};
			this._points = new M.PointLayers(m.points, this._resolve.bind(this),
				{frame: this._initial, reducedMotion: this.options.reducedMotion, playZoom: playZoom}).addTo(this._map);
			this.on('frame', function (e) { this._points.setFrame(e.index); }, this);
		},

		_watchLoader: function () {
			this._loader.on('progress', function (e) {
				this._root.setAttribute('data-loaded', String(e.loaded));
				// After the first load only a pyramid reports progress, and it plays on meanwhile.
				if (!this._clock) { this._progress.textContent = e.loaded + ' / ' + e.total + ' frames'; }
			}, this);
			this._loader.on('error', function (e) { this._fail(e.message); }, this);
			this._loader.on('load', this._onLoaded, this);
			this._say('Loading frames\u2026');
		},

		// addEventListener, undone by remove().
		_listen: function (target, type, fn) {
			target.addEventListener(type, fn);
			this._cleanup.push(function () { target.removeEventListener(type, fn); });
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
			this._showKind(i);
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
			var kind = this.frameKind(i);
			this.fire('frame', {index: i, time: typeof t === 'string' ? t : undefined, kind: kind.kind, run: kind.run});
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
