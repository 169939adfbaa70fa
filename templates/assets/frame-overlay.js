/*
 * Matsite.FrameOverlay: a Leaflet layer of two stacked frame images over the
 * animation's bounds, plus "no data" marks for tiles a frame is missing.
 *
 * The crossfade never uncovers the map: the next frame is decoded into the
 * back image, which turns fully opaque under the front one; then the front
 * image fades out, and the two swap roles. The composited coverage
 * 1 - (1 - a)(1 - b) therefore stays at 1 throughout, including from the last
 * frame to the first. At rest the back image is at opacity 0, so a prepared
 * next frame never shows through the transparent parts of the current one.
 *
 * Events:
 *   shown {index}   a frame is fully on top (after its fade, if any)
 */
(function (L, M) {
	'use strict';

	var R = 6378137;
	var MAX_LAT = 85.0511287798;

	// Web Mercator y for a latitude, in metres.
	function mercY(lat) {
		lat = Math.max(-MAX_LAT, Math.min(MAX_LAT, lat));
		var s = Math.sin(lat * Math.PI / 180);
		return R * Math.log((1 + s) / (1 - s)) / 2;
	}

	// The two-layer crossfade both frame layers share (this one and FramePyramid): the
	// back layer turns fully opaque under the front one, then the front one fades out
	// and the two swap roles. A layer including it has `_front`, `_back`, `_frontIndex`,
	// `_fade` and `_container`, and may override `_elementOf` (the element a layer
	// object is drawn in) and `_rolesSwapped` (its own bookkeeping after a swap).
	M.Crossfade = {
		// Hides the frames (while fallback tiles stand in) or shows them again.
		setVisible: function (visible) {
			L.DomUtil[visible ? 'removeClass' : 'addClass'](this._container, 'matsite-hidden');
			return this;
		},

		// Opacity of both frame layers together: their container is faded as one, so the
		// crossfade inside it (one layer fully opaque under the other) keeps full coverage.
		setOpacity: function (opacity) {
			this._container.style.opacity = opacity >= 1 ? '' : String(Math.max(0, opacity));
			return this;
		},

		// Drops the poster once the first frame is on top.
		removePoster: function () {
			if (this._poster) { L.DomUtil.remove(this._poster); this._poster = null; }
			return this;
		},

		// The container both layers live in, with the poster under them until frames load.
		_initContainer: function (className) {
			var c = this._container = L.DomUtil.create('div', className);
			// Always marked: Leaflet only transitions it while a zoom animation runs.
			L.DomUtil.addClass(c, 'leaflet-zoom-animated');
			if (this.options.posterUrl) {
				this._poster = L.DomUtil.create('img', 'matsite-poster', c);
				this._poster.alt = '';
				this._poster.src = this.options.posterUrl;
			}
			return c;
		},

		// The container follows Leaflet's zoom animation, and is placed over the frames' box.
		_animateZoom: function (e) {
			var scale = this._map.getZoomScale(e.zoom);
			var offset = this._map._latLngBoundsToNewLayerBounds(this._bounds, e.zoom, e.center).min;
			L.DomUtil.setTransform(this._container, offset, scale);
		},

		_reset: function () {
			var map = this._map;
			var box = L.bounds(map.latLngToLayerPoint(this._bounds.getNorthWest()),
				map.latLngToLayerPoint(this._bounds.getSouthEast()));
			var size = box.getSize();
			L.DomUtil.setPosition(this._container, box.min);
			this._container.style.width = size.x + 'px';
			this._container.style.height = size.y + 'px';
		},

		_elementOf: function (layer) { return layer; },

		_rolesSwapped: function () {},

		_swapIn: function (index, fadeMs) {
			var front = this._elementOf(this._front);
			var self = this;
			// Full opacity under the front layer first: coverage never drops.
			this._elementOf(this._back).style.opacity = '1';
			if (fadeMs > 0 && typeof front.animate === 'function' && this._frontIndex >= 0) {
				var anim = front.animate([{opacity: 1}, {opacity: 0}],
					{duration: fadeMs, easing: 'linear', fill: 'forwards'});
				this._fade = {anim: anim, index: index};
				anim.onfinish = function () {
					if (self._fade && self._fade.anim === anim) { self._finishFade(); }
				};
			} else {
				this._swapRoles(index);
			}
		},

		// Completes a running fade at once: the back layer is already fully opaque,
		// so dropping the front one to 0 does not change coverage.
		_finishFade: function () {
			var fade = this._fade;
			if (!fade) { return; }
			this._fade = null;
			this._elementOf(this._front).style.opacity = '0';
			fade.anim.onfinish = null;
			fade.anim.cancel();
			this._swapRoles(fade.index);
		},

		_swapRoles: function (index) {
			var oldFront = this._front, newFront = this._back;
			var o = this._elementOf(oldFront), n = this._elementOf(newFront);
			L.DomUtil.removeClass(n, 'matsite-back');
			L.DomUtil.addClass(n, 'matsite-front');
			L.DomUtil.removeClass(o, 'matsite-front');
			L.DomUtil.addClass(o, 'matsite-back');
			// Now under the new front; hidden until it carries the next frame in.
			o.style.opacity = '0';
			this._front = newFront;
			this._back = oldFront;
			var previous = this._frontIndex;
			this._frontIndex = index;
			this._rolesSwapped(previous);
			this.fire('shown', {index: index});
		}
	};

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
			alt: ''
		},

		// frames: manifest frame entries; urls: their resolved URLs;
		// bounds: manifest bounds object (west/south/east/north), east may be < west.
		initialize: function (frames, urls, bounds, options) {
			L.setOptions(this, options);
			this._frames = frames;
			this._urls = urls;
			this._box = {west: bounds.west, south: bounds.south,
				east: bounds.east < bounds.west ? bounds.east + 360 : bounds.east, north: bounds.north};
			this._bounds = L.latLngBounds([this._box.south, this._box.west], [this._box.north, this._box.east]);
			this._frontIndex = -1;
			this._backIndex = -1;
			this._backReady = false;
			this._token = 0;
			this._fade = null;
			this._initDom();
		},

		getBounds: function () { return this._bounds; },

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
			this._markMissing(index);
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
			this._markMissing(index);
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

		_initDom: function () {
			var c = this._initContainer('leaflet-image-layer matsite-frames');
			this._back = this._makeImage('matsite-back');
			this._front = this._makeImage('matsite-front');
			// Frames are mostly transparent: at rest the back image must not show through.
			this._back.style.opacity = '0';
			this._missing = L.DomUtil.create('div', 'matsite-missing-layer', c);
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
		},

		// Hatched boxes over the tiles this frame lacks ("no data", not "no rain").
		_markMissing: function (index) {
			var layer = this._missing;
			while (layer.firstChild) { layer.removeChild(layer.firstChild); }
			var frame = this._frames[index];
			var tiles = frame && Array.isArray(frame.missing_tiles) ? frame.missing_tiles : [];
			if (!tiles.length) { return; }
			var b = this._box;
			var x0 = b.west, xs = b.east - b.west;
			var y0 = mercY(b.north), ys = mercY(b.south) - y0;
			tiles.forEach(function (t) {
				var tb = t && t.bounds;
				if (!tb || ![tb.west, tb.south, tb.east, tb.north].every(isFinite)) { return; }
				var east = tb.east < tb.west ? tb.east + 360 : tb.east;
				var west = tb.west < b.west - 180 ? tb.west + 360 : tb.west;
				if (east < west) { east += 360; }
				var left = Math.max(0, (west - x0) / xs);
				var right = Math.min(1, (east - x0) / xs);
				var top = Math.max(0, (mercY(tb.north) - y0) / ys);
				var bottom = Math.min(1, (mercY(tb.south) - y0) / ys);
				if (right <= left || bottom <= top) { return; }
				var box = L.DomUtil.create('div', 'matsite-nodata', layer);
				box.title = 'No data';
				box.style.left = (left * 100) + '%';
				box.style.top = (top * 100) + '%';
				box.style.width = ((right - left) * 100) + '%';
				box.style.height = ((bottom - top) * 100) + '%';
			});
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
