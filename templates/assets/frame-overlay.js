/*
 * Matsite.FrameOverlay: the frame layer for frames published as single images:
 * two stacked frame images over the frames' box, plus "no data" marks for tiles
 * a frame is missing. Its loader (Matsite.FrameLoader, getLoader()) fetches and
 * decodes every frame before playback; the images then hit the browser's memory
 * cache. It crossfades between them with Matsite.Crossfade (crossfade.js).
 *
 * Frames with reduced levels (each frame's `levels`) are loaded by a
 * Matsite.FrameLevels (frame-levels.js) instead: this layer tells it the
 * frames' drawn width in device pixels after every zoom and the frame on
 * screen, and draws each frame from the level it holds. When a frame's finer
 * level is decoded, an image showing that frame takes it at once: the URL is
 * decoded and in the memory cache, so the swap has no moment without pixels.
 * The container then carries data-level (the level of the frame on top:
 * `full`, `r1`, `r2`...) and data-bytes (decoded bytes the loader holds).
 *
 * Events:
 *   shown {index}   a frame is fully on top (after its fade, if any)
 */
(function (L, M) {
	'use strict';

	M.FrameOverlay = L.Layer.extend({
		includes: M.Crossfade,

		options: {
			// @option pane: String = 'overlayPane'
			pane: 'overlayPane',
			// @option posterUrl: String = ''
			// Image shown under the frames until they load.
			posterUrl: '',
			// @option alt: String = ''
			// Text alternative of the frame images.
			alt: '',
			// @option first: Number = 0
			// The frame requested first (the one the player opens on).
			first: 0,
			// @option budget: Number = 128 MiB
			// Decoded bytes of frames with levels kept drawn finer than the view needs.
			budget: 128 * 1024 * 1024,
			// @option concurrency: Number = 6
			// Finer levels fetched at once after the first load (frames with levels).
			concurrency: 6
		},

		// source: the frames' manifest (bounds: west/south/east/north, east < west across
		// the antimeridian; frames; zoom); urls: the frames' resolved URLs; levels: each
		// frame's levels (Matsite.FrameLevels.of), or null when they have none.
		initialize: function (source, urls, levels, options) {
			L.setOptions(this, options);
			var bounds = source.bounds;
			this._frames = source.frames;
			this._zoom = source.zoom;
			this._levels = !!levels;
			this._loader = levels ? new M.FrameLevels(levels, {first: this.options.first, budget: this.options.budget,
				concurrency: this.options.concurrency})
				: new M.FrameLoader(urls, {first: this.options.first});
			if (levels) { this._loader.on('level', this._onLevel, this); }
			var east = bounds.east < bounds.west ? bounds.east + 360 : bounds.east;
			this._bounds = L.latLngBounds([bounds.south, bounds.west], [bounds.north, east]);
			this._frontIndex = -1;
			this._backIndex = -1;
			this._backReady = false;
			this._token = 0;
			this._fade = null;
			this._initDom(bounds);
		},

		getBounds: function () { return this._bounds; },

		// What loads the frames: playback may start when it fires load.
		getLoader: function () { return this._loader; },

		// The zoom of the frames' own pixels.
		detailZoom: function () { return this._zoom; },

		// The frame on top, or -1 before the first one is shown.
		frontIndex: function () { return this._frontIndex; },

		// Whether the frame on screen stands still (paused, or never played): then the frames
		// are drawn at the screen's pixels, else at the map's (see _onView).
		setStill: function (still) {
			if (!!still === !!this._still) { return this; }
			this._still = !!still;
			this._onView();
			return this;
		},

		onAdd: function () {
			this.getPane().appendChild(this._container);
			this._reset();
			this._onView();
		},

		onRemove: function () {
			this._finishFade();
			L.DomUtil.remove(this._container);
			if (this._levels) { this._loader.stop(); }
		},

		getEvents: function () {
			var events = {zoom: this._reset, viewreset: this._reset};
			if (this._zoomAnimated) { events.zoomanim = this._animateZoom; }
			if (this._levels) {
				events.zoomend = this._onView;
				events.resize = this._onView;
			}
			return events;
		},

		// Shows the poster (or the first frame) while frames load; not a frame change.
		showInitial: function (index) {
			this._point(this._front, index);
			this._frontIndex = index;
			this._marks.show(index);
			this._loader.focus(index);
			this._markLevel();
			return this;
		},

		// Loads a frame into the back image ahead of time so that show() can swap at once.
		prepare: function (index) {
			if (index < 0 || this._fade) { return this; }
			this._stage(index);
			return this;
		},

		// Brings a frame to the top. fadeMs > 0 crossfades; 0 swaps instantly.
		show: function (index, fadeMs) {
			var token = ++this._token;
			this._finishFade();
			if (index === this._frontIndex) { return this; }
			this._loader.focus(index);
			this._stage(index);
			this._marks.show(index);
			var back = this._back;
			var self = this;
			if (this._backReady || (back.complete && back.naturalWidth > 0)) {
				this._swapIn(index, fadeMs);
			} else {
				var go = function () {
					if (token === self._token && self._backIndex === index) { self._swapIn(index, fadeMs); }
				};
				back.decode().then(go, go);
			}
			return this;
		},

		_initDom: function (bounds) {
			var c = this._initContainer('leaflet-image-layer matsite-frames');
			this._back = this._makeImage('matsite-back');
			this._front = this._makeImage('matsite-front');
			// Frames are mostly transparent: at rest the back image must not show through.
			this._back.style.opacity = '0';
			this._marks = new M.NoDataMarks(c, this._frames, bounds);
		},

		_makeImage: function (role) {
			var img = L.DomUtil.create('img', 'matsite-frame ' + role, this._container);
			img.alt = this.options.alt;
			img.decoding = 'sync';
			img.draggable = false;
			return img;
		},

		_stage: function (index) {
			if (this._backIndex === index) { return; }
			var back = this._back;
			this._backIndex = index;
			this._backReady = false;
			this._point(back, index);
			var self = this;
			back.decode().then(function () {
				if (self._back === back && self._backIndex === index) { self._backReady = true; }
			}, function () { /* the loader reports broken frames */ });
		},

		// The image that was on top is now the back one, holding the previous frame.
		_rolesSwapped: function (previous) {
			this._backIndex = previous;
			this._backReady = previous >= 0;
			this._markLevel();
		},

		// Points an image at the URL frame `index` is drawn from now.
		_point: function (img, index) {
			img.src = this._loader.url(index);
			img.matsiteLevel = this._loader.levelName(index);
		},

		// The frames' drawn width, for the loader to pick their level: in CSS pixels at the
		// map's zoom (the detail of the map under them, as a tile layer loads it) and, while the
		// frame on screen stands still, in device pixels for it and the frames beside it.
		_onView: function () {
			if (!this._levels || !this._map) { return; }
			var map = this._map, z = map.getZoom();
			var west = map.project(this._bounds.getNorthWest(), z), east = map.project(this._bounds.getSouthEast(), z);
			var width = Math.abs(east.x - west.x);
			this._loader.setView(width, width * M.detailRatio(this._still));
		},

		// Frame `index` has another level decoded: an image showing it takes it now, as only a
		// decoded image in the memory cache is complete at once; one that is not keeps its
		// pixels (and a back image not yet shown is readied again).
		_onLevel: function (e) {
			var i = e.index;
			var images = [[this._front, this._frontIndex], [this._back, this._backIndex]];
			for (var k = 0; k < images.length; k++) {
				var img = images[k][0];
				if (images[k][1] !== i || img.getAttribute('src') === this._loader.url(i)) { continue; }
				var src = img.getAttribute('src'), level = img.matsiteLevel;
				this._point(img, i);
				if (img.complete && img.naturalWidth > 0) { continue; }
				if (img === this._back && !this._fade) {
					this._backIndex = -1;
					this._stage(i);
				} else {
					img.src = src;
					img.matsiteLevel = level;
				}
			}
			this._markLevel();
		},

		// data-level: the level of the frame on top; data-bytes: the decoded bytes held.
		_markLevel: function () {
			if (!this._levels) { return; }
			this._container.setAttribute('data-level', this._front.matsiteLevel || '');
			this._container.setAttribute('data-bytes', String(this._loader.bytes()));
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
