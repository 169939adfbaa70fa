/*
 * Matsite.Crossfade: the two-layer crossfade every frame layer includes
 * (`includes: M.Crossfade`, as Leaflet's classes include L.Evented): the
 * image layer (frame-overlay.js) and the levels layer (frame-pyramid.js).
 *
 * The crossfade never uncovers the map: the next frame waits in the back
 * layer, which turns fully opaque under the front one; then the front one
 * fades out and the two swap roles. The composited coverage
 * 1 - (1 - a)(1 - b) therefore stays at 1 at every animation frame, including
 * from the last frame to the first. At rest the back layer is at opacity 0,
 * so a prepared next frame never shows through the transparent parts of the
 * current one.
 *
 * All its state lives on the layer that includes it, so several frame layers
 * on one map each crossfade on their own. A layer including it has:
 *   _container   the element both layers live in (made by _initContainer)
 *   _front, _back   its two layer objects
 *   _frontIndex  the frame on top (-1 before the first)
 *   _fade        null, or the fade under way
 *   _bounds      the frames' L.LatLngBounds (the container covers them)
 * and may override _elementOf (the element a layer object is drawn in) and
 * _rolesSwapped (its own bookkeeping after a swap). It fires
 *   shown {index}   a frame is fully on top (after its fade, if any)
 */
(function (L, M) {
	'use strict';

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
}(window.L, window.Matsite = window.Matsite || {}));
