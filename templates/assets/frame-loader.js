/*
 * Matsite.FrameLoader: fetches and decodes every frame of an animation before
 * playback may start. It knows nothing about drawing; the player listens to it.
 *
 * Each frame is loaded through its own HTMLImageElement, kept for the page's
 * lifetime, so the frame layers that later set the same URL hit the browser's
 * in-memory image cache and never go back to the network.
 *
 * Frames with reduced levels have Matsite.FrameLevels (frame-levels.js), which
 * extends this class: which level a frame is drawn at follows the view there.
 * Here a frame is only ever its one URL, and the calls the frame layer makes
 * of either (url, levelName, setView, focus) ask nothing.
 *
 * Events:
 *   progress {loaded, total}   after each frame that decoded
 *   error    {index, url, message}   once, for the first frame that failed
 *   load     {}                every frame decoded: playback may start
 */
(function (L, M) {
	'use strict';

	M.FrameLoader = L.Evented.extend({
		options: {
			// @option first: Number = 0
			// Index of the frame to request first (the one the player opens on).
			first: 0
		},

		// urls: frame URLs, already resolved against the manifest.
		initialize: function (urls, options) {
			L.setOptions(this, options);
			this._urls = urls.slice();
			this._images = new Array(urls.length);
			this._loaded = 0;
			this._failed = false;
		},

		// Starts every request at once; the browser queues them per host.
		start: function () {
			if (!this._begin()) { return this; }
			this._order().forEach(this._loadOne, this);
			return this;
		},

		loaded: function () { return this._loaded; },

		total: function () { return this._urls.length; },

		isComplete: function () { return !this._failed && this._loaded === this._urls.length; },

		// The URL frame `index` is drawn from: its only one.
		url: function (index) { return this._urls[index]; },

		// The name of the level frame `index` is drawn at: '' (frames without levels).
		levelName: function () { return ''; },

		// The frame layer tells the frames' drawn width in device pixels, and the frame on
		// screen: neither changes what a frame without levels needs.
		setView: function () { return this; },

		focus: function () { return this; },

		// Reports the start; false when there is nothing to load (an error is fired).
		_begin: function () {
			var n = this._urls.length;
			this.fire('progress', {loaded: 0, total: n});
			if (n === 0) {
				this._fail(-1, '', 'This animation has no frames.');
				return false;
			}
			return true;
		},

		// The frames' indices, the one the player opens on first.
		_order: function () {
			var n = this._urls.length;
			var first = Math.max(0, Math.min(n - 1, this.options.first | 0));
			var order = [first];
			for (var i = 0; i < n; i++) {
				if (i !== first) { order.push(i); }
			}
			return order;
		},

		_loadOne: function (index) {
			var url = this._urls[index];
			var self = this;
			this._images[index] = this._decode(url, function () { self._counted(); }, function () { self._explain(index, url); });
		},

		// Requests url through an Image of its own and calls ok once it is decoded, failed
		// when it cannot be; returns the Image (whoever keeps it keeps the pixels cached).
		_decode: function (url, ok, failed) {
			var img = new Image();
			img.decoding = 'async';
			img.src = url;
			if (typeof img.decode === 'function') {
				img.decode().then(ok, failed);
			} else {
				img.onload = ok;
				img.onerror = failed;
			}
			return img;
		},

		// One more frame decoded: progress, and load with the last one.
		_counted: function () {
			if (this._failed) { return; }
			this._loaded++;
			this.fire('progress', {loaded: this._loaded, total: this._urls.length});
			if (this._loaded === this._urls.length) { this.fire('load'); }
		},

		// An <img> does not say why it failed: ask the server once for a status
		// so the message can say "HTTP 404" rather than only "failed".
		_explain: function (index, url) {
			if (this._failed) { return; }
			var self = this;
			var label = 'Frame ' + (index + 1) + ' of ' + this._urls.length;
			fetch(url, {method: 'HEAD', cache: 'no-store'}).then(function (res) {
				var why = res.ok ? 'is not a readable image' : 'could not be loaded (HTTP ' + res.status + ')';
				self._fail(index, url, label + ' ' + why + '.');
			}, function () {
				self._fail(index, url, label + ' could not be loaded (network error).');
			});
		},

		_fail: function (index, url, message) {
			if (this._failed) { return; }
			this._failed = true;
			this.fire('error', {index: index, url: url, message: message});
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
