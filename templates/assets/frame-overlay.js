/*
 * Matsite.FrameOverlay: the frame layer for frames published as single images:
 * two stacked frame images over the frames' box, plus "no data" marks for tiles
 * a frame is missing. Its loader (Matsite.FrameLoader, getLoader()) fetches and
 * decodes every frame before playback; the images then hit the browser's memory
 * cache. It crossfades between them with Matsite.Crossfade (crossfade.js).
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
			first: 0
		},

		// source: the frames' manifest (bounds: west/south/east/north, east < west across
		// the antimeridian; frames; zoom); urls: the frames' resolved URLs.
		initialize: function (source, urls, options) {
			L.setOptions(this, options);
			var bounds = source.bounds;
			this._frames = source.frames;
			this._urls = urls;
			this._zoom = source.zoom;
			this._loader = new M.FrameLoader(urls, {first: this.options.first});
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

		onAdd: function () {
			this.getPane().appendChild(this._container);
			this._reset();
		},

		onRemove: function () {
			this._finishFade();
			L.DomUtil.remove(this._container);
		},

		getEvents: function () {
			var events = {zoom: this._reset, viewreset: this._reset};
			if (this._zoomAnimated) { events.zoomanim = this._animateZoom; }
			return events;
		},

		// Shows the poster (or the first frame) while frames load; not a frame change.
		showInitial: function (index) {
			this._front.src = this._urls[index];
			this._frontIndex = index;
			this._marks.show(index);
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
			back.src = this._urls[index];
			var self = this;
			back.decode().then(function () {
				if (self._back === back && self._backIndex === index) { self._backReady = true; }
			}, function () { /* the loader reports broken frames */ });
		},

		// The image that was on top is now the back one, holding the previous frame.
		_rolesSwapped: function (previous) {
			this._backIndex = previous;
			this._backReady = previous >= 0;
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
