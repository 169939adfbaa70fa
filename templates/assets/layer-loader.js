/*
 * Matsite.LayerLoader: the loaders of every data layer of an animation
 * (manifest `layers`) seen as one, so the player waits for all of them as it
 * waits for one. It fetches nothing itself: each layer's frame layer has its
 * own loader (a FrameLoader, or a PyramidLoader for frames published as
 * levels), and this one sums them.
 *
 * Events (what a frame layer's loader fires, for all layers together):
 *   progress {loaded, total}   frames decoded so far, over every layer's frames
 *   load     {}                the first time every layer's frames are all in:
 *                              playback may start
 *   error    {index, url, message}  once, for the first frame that failed,
 *                              the message led by the layer's title
 */
(function (L, M) {
	'use strict';

	M.LayerLoader = L.Evented.extend({
		// loaders: each layer's loader, bottom to top; titles: the layers' titles, for messages.
		initialize: function (loaders, titles) {
			this._loaders = loaders;
			this._titles = titles;
			this._done = loaders.map(function () { return false; });  // fired load once
			this._loaded = false;
			this._failed = false;
			loaders.forEach(function (loader, k) {
				loader.on('progress', this._progress, this);
				loader.on('load', function () { this._done[k] = true; this._settle(); }, this);
				loader.on('error', function (e) { this._fail(k, e); }, this);
			}, this);
		},

		start: function () {
			this._loaders.forEach(function (loader) { loader.start(); });
			return this;
		},

		loaded: function () {
			return this._loaders.reduce(function (sum, l) { return sum + l.loaded(); }, 0);
		},

		total: function () {
			return this._loaders.reduce(function (sum, l) { return sum + l.total(); }, 0);
		},

		isComplete: function () {
			return !this._failed && this._loaders.every(function (l) { return l.isComplete(); });
		},

		_progress: function () {
			this.fire('progress', {loaded: this.loaded(), total: this.total()});
		},

		// Load once every layer has loaded.
		_settle: function () {
			if (this._failed || this._loaded || !this._done.every(Boolean)) { return; }
			this._loaded = true;
			this.fire('load');
		},

		_fail: function (k, e) {
			if (this._failed) { return; }
			this._failed = true;
			this.fire('error', {index: e.index, url: e.url, message: this._titles[k] + ': ' + e.message});
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
