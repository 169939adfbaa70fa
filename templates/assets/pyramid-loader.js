/*
 * Matsite.PyramidLoader: loads and keeps the decoded tiles of frames published
 * as tile pyramids, within a memory budget. It draws nothing: the layer that
 * draws them (frame-pyramid.js) asks it for what it holds. To the player it is
 * a loader as FrameLoader is (progress, load, error; loaded(), total()).
 *
 * Level: the one whose pixels match the map's (while the frames play) or the
 * screen's (while the frame on screen stands still: the layer's setRatio),
 * picked as Leaflet picks a tile zoom (map zoom + log2 of that ratio, rounded:
 * half a level goes to the finer), between the coarsest and the finest level,
 * and coarser still when the tiles of every frame would not fit the memory
 * budget.
 *
 * What must be loaded: the coarsest level of every frame (its one image when
 * the manifest lists it, `coarsest`, kept whole as the frame's background;
 * else its tiles, composed once into a small background canvas per frame,
 * then released) and, at the chosen level, the pixels under the view plus a
 * margin, of every frame (nothing more when that level is the coarsest and
 * the backgrounds are its images).
 *
 * Background images: with the coarsest level's halvings (`coarsest.levels`),
 * a view at or under the coarsest level's zoom takes the image whose zoom is
 * the level Leaflet would pick (clamped to the images'), so a phone loads the
 * halving that covers its view, not the coarsest level; a view that uses a
 * finer level's tiles keeps whatever background it has (the coarsest halving
 * to start). When the view wants a finer background, each frame's is fetched
 * in the usual order (the frame on screen, its neighbours, the rest) and
 * replaces the old one once decoded (the old bitmap is closed then): playback
 * goes on over the old one meanwhile. Every tile
 * is fetched and decoded (createImageBitmap, cropped to the part needed, so
 * memory follows the view's pixels, not whole tiles) before it is ever drawn.
 * Tiles no longer needed are closed, oldest first, once the decoded bytes
 * exceed the budget.
 *
 * Order: every frame's first background image (all at once, outside the
 * concurrency: the page may have preloaded them), then the view's tiles, then
 * finer backgrounds; in each, the frame on screen, then the next and the
 * previous one, then the rest in playing order (focus() at every frame change
 * keeps it so). Standing still, the frames away from the one on screen keep
 * the background the map's level needs. After
 * the first load nothing holds playback: a frame whose tiles for a new view
 * are not in yet is drawn from coarser ones (frame-pyramid.js) and sharpens
 * as they arrive.
 *
 * Events:

 *   progress {loaded, total}  frames whose needed tiles are all decoded
 *   load     {}               the first time every frame is complete: playback may start
 *   error    {index, url, message}  once, for the first tile that failed
 *   decoded  {index}          frame `index` has new pixels (a tile, or its background)
 */
(function (L, M) {
	'use strict';

	var covers = M.PyramidGrid.covers;

	function union(a, b) { return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])]; }

	function bytesOf(crop) { return (crop[2] - crop[0]) * (crop[3] - crop[1]) * 4; }

	function blobOf(url) {
		return fetch(url, {credentials: 'same-origin'}).then(function (res) {
			if (!res.ok) { throw new Error('HTTP ' + res.status); }
			return res.blob();
		});
	}

	M.PyramidLoader = L.Evented.extend({
		options: {
			// @option margin: Number = 64
			// CSS pixels around the view loaded too, so a short pan shows detail at once.
			margin: 64,
			// @option budget: Number = 128 MiB
			// Decoded bytes of tiles kept (4 per pixel; only the part of a tile that is
			// needed is kept).
			budget: 128 * 1024 * 1024,
			// @option concurrency: Number = 6
			// Downloads in flight (the frames' first background images aside), until their bytes are in.
			concurrency: 6
		},

		// grid: the frames' PyramidGrid; count: the number of frames; images: each frame's
		// coarsest level as images, coarsest first (PyramidGrid.images), or null to load that
		// level's tiles.
		initialize: function (grid, count, options, images) {
			L.setOptions(this, options);
			this._grid = grid;
			this._count = count;
			this._images = images || null;
			this._bgs = new Array(count);      // per frame: its background canvas (or image), once there
			this._bgLevels = new Array(count); // per frame: its background image's level, when it is one
			this._imageOf = {};                // image url -> {index, level}
			this._sheets = {};                 // sheet url -> {users, bitmap (a promise)}, while frames are cut from it
			(this._images || []).forEach(function (list, index) {
				list.forEach(function (level) { this._imageOf[level.url] = {index: index, level: level}; }, this);
			}, this);
			this._store = {};        // url -> {bmp, crop (its tile pixels), want (crop being fetched), used, z}
			this._needed = {};       // url -> {index, z, crop, ok}, for what the current view needs
			this._missing = [];      // per frame: needed tiles not decoded yet
			this._complete = 0;      // frames with nothing missing
			this._queue = [];
			this._active = 0;
			this._bytes = 0;         // decoded bytes held
			this._stamp = 0;
			this._first = -1;        // the frame on screen, loaded first
			this._loaded = false;
			this._failed = false;
			this._stopped = false;
			this._region = null;     // the level pixels the view needs (PyramidGrid's region)
			this._ratio = 1;         // level pixels per CSS pixel of the map (setRatio)
			this._near = false;      // only the frames near the one on screen need the region
		},

		// Level pixels wanted per CSS pixel of the map: 1 (the map's detail) or, with `still`
		// (the frame on screen stands still), the screen's devicePixelRatio; then only the frame
		// on screen and the two beside it need the region's tiles (memory and bytes follow what
		// is looked at), the others their background. The layer then asks for the region again
		// (regionFor).
		setRatio: function (ratio, still) {
			this._ratio = ratio > 0 ? ratio : 1;
			this._near = !!still && this._ratio > 1;
			return this;
		},

		// Before the view is known (setRegion): the frames' background images that the page
		// preloaded for this screen (`frame_preloads`, docs/player.md: its media query says the
		// view starts on them) are fetched and decoded now, while the player lays out its map and
		// controls, as the view will want them. Anything else waits for the view's region.
		start: function () {
			if (!this._images || typeof document === 'undefined' || !document.querySelectorAll) { return this; }
			var preloaded = {};
			document.querySelectorAll('link[rel="preload"][as="fetch"]').forEach(function (link) {
				if (!link.media || (window.matchMedia && window.matchMedia(link.media).matches)) { preloaded[link.href] = true; }
			});
			this._images.forEach(function (list) {
				list.forEach(function (image) {
					// A sheet's frames were preloaded as the sheet.
					var file = image.sheet ? image.sheet.url : image.url;
					if (preloaded[new URL(file, document.baseURI).href] && !this._store[image.url]) {
						this._fetch(image.url, [0, 0, image.width, image.height], image.zoom, true);
					}
				}, this);
			}, this);
			return this;
		},

		loaded: function () { return this._complete; },
		total: function () { return this._count; },
		isComplete: function () { return this._complete === this._count; },

		// Decoded bytes of tiles held.
		bytes: function () { return this._bytes; },

		region: function () { return this._region; },

		// The region a view (pixelBounds at mapZoom) needs, or null when the view is still
		// inside the region loaded, at the same level: a short pan costs nothing.
		regionFor: function (pixelBounds, mapZoom) {
			var r = this._choose(pixelBounds, mapZoom);
			var old = this._region;
			var same = old && old.z === r.z && old.bg === r.bg && old.bgPlay === r.bgPlay;
			if (same && !r.px && !old.px) { return null; }
			if (same) {
				var v = this._grid.range(r.z, pixelBounds, mapZoom, 0, false);
				if (v.x0 >= old.x0 && v.y0 >= old.y0 && v.x1 <= old.x1 && v.y1 <= old.y1) { return null; }
			}
			return r;
		},

		// Loads what region r needs, of every frame.
		setRegion: function (r) {
			this._region = r;
			this._need();
			return this;
		},

		// Frame `index` is on screen: its tiles come first, then the others in playing order.
		focus: function (index) {
			this._first = index;
			if (this._near && this._region) { this._need(); } else { this._prioritize(); }
			return this;
		},

		// Frame i needs the region's tiles: always, or while still only near the one on screen.
		_detailed: function (i) {
			return !this._near || M.beside(i, Math.max(0, this._first), this._count);
		},

		// Frame `index`'s background (a canvas, or one of the coarsest level's decoded images), once there.
		background: function (index) { return this._bgs[index]; },

		// The level box {zoom, x0, y0, width, height} frame `index`'s background image shows,
		// or undefined for a canvas composed from the coarsest level's tiles.
		backgroundLevel: function (index) { return this._bgLevels[index]; },

		// Whether frame `index`'s background is the one the view wants (not a coarser one
		// standing in while it loads).
		backgroundReady: function (index) { return !!this._bgs[index] && !(this._images && this._bgWanted(index)); },

		// The decoded tile tx/ty of level z of frame `index`, when it holds `crop` (any part
		// when crop is null); marked as used, so the budget closes it last.
		drawable: function (index, z, tx, ty, crop) {
			var e = this._store[this._grid.url(index, z, tx, ty)];
			if (!e || !e.bmp || (crop && !covers(e.crop, crop))) { return null; }
			e.used = ++this._stamp;
			return e;
		},

		// Stops loading for good and closes every decoded tile.
		stop: function () {
			this._queue = [];
			this._bgs.forEach(function (bg) { if (bg && bg.close) { bg.close(); } });
			for (var url in this._store) {
				var e = this._store[url];
				if (e.bmp) { e.bmp.close(); }
			}
			this._store = {};
			this._stopped = true;
			return this;
		},

		// The region a view needs (_chooseLevel) and, standing still, the background the frames
		// away from the shown one need: the map's level's (bgPlay, _bgWanted; -1, any, when
		// that level takes tiles finer than the images).
		_choose: function (pixelBounds, mapZoom) {
			var r = this._chooseLevel(pixelBounds, mapZoom);
			var play = Math.round(mapZoom);
			r.bgPlay = !this._images || !this._near ? r.bg : play > this._grid.coarse.zoom ? -1 : this._imageZoom(play);
			return r;
		},

		// The finest level (at most the screen's) whose needed pixels of every frame fit the
		// budget: with the margin if they fit, else without it.
		_chooseLevel: function (pixelBounds, mapZoom) {
			var g = this._grid;
			// Leaflet's rule for a tile zoom (Math.round: 4.5 takes 5), at the pixel ratio asked for.
			var ideal = Math.round(mapZoom + Math.log(this._ratio) / Math.LN2);
			var z = Math.max(g.coarse.zoom, Math.min(g.fine.zoom, ideal));
			var room = this.options.budget / 4 / this._count;
			for (; z >= g.coarse.zoom; z--) {
				if (!g.level(z)) { continue; }
				// The coarsest level's images are the backgrounds: that level needs nothing more.
				if (z === g.coarse.zoom && this._images) { return this._imagesOnly(ideal, pixelBounds, mapZoom); }
				var withMargin = g.range(z, pixelBounds, mapZoom, this.options.margin, true);
				if (withMargin.px <= room) { withMargin.bg = -1; return withMargin; }
				var bare = g.range(z, pixelBounds, mapZoom, 0, true);
				if (bare.px <= room) { bare.bg = -1; return bare; }
			}
			return this._images ? this._imagesOnly(ideal, pixelBounds, mapZoom) : g.range(g.coarse.zoom, pixelBounds, mapZoom, 0, true);
		},

		// The view drawn from the background images alone: an empty region of the coarsest
		// level, and `bg`, the zoom of the image the backgrounds need (the level Leaflet picks,
		// `ideal`, within the images'). A region with pixels has bg -1: any background does.
		_imagesOnly: function (ideal, pixelBounds, mapZoom) {
			var r = this._empty(this._grid.coarse.zoom, pixelBounds, mapZoom);
			r.bg = this._imageZoom(ideal);
			return r;
		},

		// The zoom of the background image a view drawn from the images alone needs: the level
		// Leaflet picks (`ideal`) within the images' zooms.
		_imageZoom: function (ideal) {
			var list = this._images[0];
			return Math.max(list[0].zoom, Math.min(list[list.length - 1].zoom, ideal));
		},

		// The image frame `index` needs for its background, or null when the one it has will do:
		// the region's (`bg`), or any (the coarsest image to start). Standing still, a frame
		// away from the one on screen keeps the background the map's level needs (`bgPlay`):
		// only the shown one and its neighbours take the screen's pixels.
		_bgWanted: function (index) {
			var list = this._images[index], r = this._region;
			var z = !r ? -1 : this._detailed(index) ? r.bg : r.bgPlay;
			if (this._bgs[index] && this._bgLevels[index].zoom >= z) { return null; }
			for (var k = 0; k < list.length; k++) {
				if (list[k].zoom >= z) { return list[k]; }
			}
			return list[list.length - 1];
		},

		// A region of level z with no pixels (its level is drawn from the backgrounds alone).
		_empty: function (z, pixelBounds, mapZoom) {
			var r = this._grid.range(z, pixelBounds, mapZoom, 0, false);
			r.x1 = r.x0;
			r.y1 = r.y0;
			r.px = 0;
			r.tx1 = r.tx0 - 1;
			r.ty1 = r.ty0 - 1;
			return r;
		},

		// Rebuilds the needed set from the region and every frame's background state.
		_need: function () {
			var r = this._region, n = this._count, g = this._grid, c = g.coarse;
			var cbox = g.levelBox(c);
			var needed = {}, missing = [], complete = 0;
			var stamp = ++this._stamp;
			for (var i = 0; i < n; i++) {
				var count = 0;
				var add = function (url, crop, z) {
					var need = needed[url];
					if (need) { need.crop = union(need.crop, crop); } else { need = needed[url] = {index: i, z: z, crop: crop, ok: false}; }
					var e = this._store[url];
					if (e) { e.used = stamp; }
				};
				var image = this._images && this._bgWanted(i);
				if (image) {
					add.call(this, image.url, [0, 0, image.width, image.height], image.zoom);
				} else if (!this._bgs[i] && !this._images) {
					g.eachTile(c.zoom, g.levelRange(c), i, cbox, add, this);
				}
				if (r && r.px && this._detailed(i)) { g.eachTile(r.z, r, i, r, add, this); }
				for (var url in needed) {
					var need = needed[url];
					if (need.index !== i) { continue; }
					var e = this._store[url];
					need.ok = !!(e && e.bmp && covers(e.crop, need.crop));
					if (!need.ok) { count++; }
				}
				missing.push(count);
				if (!count) { complete++; }
			}
			this._needed = needed;
			this._missing = missing;
			this._complete = complete;
			this._prioritize();
			this._progressed();
		},

		// Request order: a frame's first background image before anything else (the frames
		// are drawn from it, and it is all a phone needs to play), then the view's tiles, then
		// finer backgrounds (an upgrade never delays the tiles of the view); in each, the frame
		// on screen first, then the next and the previous, then the others in playing order.
		_prioritize: function () {
			var n = this._count, start = Math.max(0, this._first);
			if (this._complete === n) { this._queue = []; return; }
			var groups = [[], [], []];
			for (var url in this._needed) {
				var need = this._needed[url];
				if (need.ok || this._inFlight(url)) { continue; }
				var group = groups[this._firstImage(url) ? 0 : this._imageOf[url] ? 2 : 1];
				(group[need.index] = group[need.index] || []).push(url);
			}
			var queue = [];
			var order = [start, (start + 1) % n, (start + n - 1) % n];
			for (var k = 2; k < n - 1; k++) { order.push((start + k) % n); }
			groups.forEach(function (byFrame) {
				order.forEach(function (i, at) {
					var list = order.indexOf(i) === at && byFrame[i];
					if (list) { queue.push.apply(queue, list); }
				});
			});
			this._queue = queue;
			this._pump();
		},

		// url is the background image of a frame that has none yet.
		_firstImage: function (url) {
			var image = this._imageOf[url];
			return !!image && !this._bgs[image.index];
		},

		// A request for url is running and will cover what is needed of it.
		_inFlight: function (url) {
			var e = this._store[url], need = this._needed[url];
			return !!(e && e.want && need && covers(e.want, need.crop));
		},

		// Starts requests from the queue: at most `concurrency` downloads at once, except the
		// frames' first background images, asked for all at once (few and small, each frame
		// needs its own before playback, and the page may have preloaded them:
		// frame_preloads, docs/player.md).
		_pump: function () {
			while (this._queue.length && !this._failed && !this._stopped) {
				var url = this._queue[0];
				var free = this._firstImage(url);
				if (!free && this._active >= this.options.concurrency) { break; }
				this._queue.shift();
				var need = this._needed[url];
				if (!need || need.ok || this._inFlight(url)) { continue; }
				this._fetch(url, need.crop.slice(), need.z, free);
			}
		},

		// Fetches a tile and decodes the part of it that is needed (crop), off the main thread.
		// A download counts against the concurrency (unless `free`) until its bytes are in,
		// not while they are decoded.
		_fetch: function (url, crop, z, free) {
			var self = this;
			var entry = this._store[url] || (this._store[url] = {bmp: null, crop: null, want: null, used: 0, z: z});
			var token = entry.token = (entry.token || 0) + 1;
			var held = !free;
			var done = function () {
				if (held) { held = false; self._active--; }
			};
			entry.want = crop;
			entry.used = ++this._stamp;
			if (held) { this._active++; }
			this._bitmap(url, crop, function () {
				done();
				self._pump();
			}).then(function (bmp) {
				if (self._stopped || self._store[url] !== entry || entry.token !== token) { bmp.close(); self._pump(); return; }
				if (entry.bmp) { self._bytes -= bytesOf(entry.crop); entry.bmp.close(); }
				entry.bmp = bmp;
				entry.crop = crop;
				entry.want = null;
				self._bytes += bytesOf(crop);
				self._arrived(url);
				self._pump();
			}).catch(function (err) {
				done();
				if (self._stopped || self._store[url] !== entry || entry.token !== token) { return; }
				entry.want = null;
				self._fail(url, err && err.message ? err.message : 'error');
			});
		},

		// The decoded pixels `crop` of url, `arrived` called once its bytes are in: from its
		// sheet when it has one (one request and one decode for the sheet's frames, each frame
		// cut from it, the sheet closed when the last is), else from its own file.
		_bitmap: function (url, crop, arrived) {
			var image = this._imageOf[url], cell = image && image.level.sheet;
			var w = crop[2] - crop[0], h = crop[3] - crop[1];
			if (!cell) {
				return blobOf(url).then(function (blob) {
					arrived();
					return createImageBitmap(blob, crop[0], crop[1], w, h);
				});
			}
			var sheets = this._sheets, sheet = sheets[cell.url];
			if (!sheet) {
				sheet = sheets[cell.url] = {users: 0, bitmap: blobOf(cell.url).then(function (blob) { return createImageBitmap(blob); })};
			}
			sheet.users++;
			var leave = function () {
				if (--sheet.users > 0 || sheets[cell.url] !== sheet) { return; }
				delete sheets[cell.url];
				sheet.bitmap.then(function (bmp) { bmp.close(); }, function () {});
			};
			return sheet.bitmap.then(function (bmp) {
				arrived();
				return createImageBitmap(bmp, crop[0], cell.y + crop[1], w, h);
			}).then(function (bmp) {
				leave();
				return bmp;
			}, function (err) {
				arrived();
				leave();
				throw new Error((err && err.message ? err.message : 'error') + ' in ' + cell.url.replace(/^.*\//, ''));
			});
		},

		_arrived: function (url) {
			if (this._imageOf[url]) { this._imageArrived(url); return; }
			var need = this._needed[url];
			if (!need || need.ok) { this._release(); return; }
			var e = this._store[url];
			if (!covers(e.crop, need.crop)) {
				// The view moved on while it loaded: ask again for what it needs now.
				this._prioritize();
				return;
			}
			need.ok = true;
			var i = need.index;
			// (Background images arrive on their own: _imageArrived.)
			if (!this._images && !this._bgs[i] && this._coarseDone(i)) { this._composeBackground(i); }
			if (--this._missing[i] === 0) { this._complete++; }
			this.fire('decoded', {index: i});
			this._release();
			this._progressed();
		},

		// A background image is in: it leaves the tiles' store and becomes its frame's
		// background when finer than the one it has (which is closed: the layers drew it into
		// their canvases, pixels they keep), else it is closed. Whether it was needed or came
		// in after the view moved on, a finer background is never thrown away.
		_imageArrived: function (url) {
			var image = this._imageOf[url], i = image.index, e = this._store[url], need = this._needed[url];
			delete this._store[url];
			this._bytes -= bytesOf(e.crop);
			var old = this._bgs[i];
			if (old && this._bgLevels[i].zoom >= image.level.zoom) {
				e.bmp.close();
			} else {
				this._bgs[i] = e.bmp;
				this._bgLevels[i] = image.level;
				if (old) { old.close(); }
				this.fire('decoded', {index: i});
			}
			if (need && !need.ok) {
				need.ok = true;
				if (--this._missing[i] === 0) { this._complete++; }
				this._progressed();
			}
			delete this._needed[url];
			this._release();
		},

		_coarseDone: function (index) {
			var g = this._grid, r = g.levelRange(g.coarse), z = g.coarse.zoom;
			for (var ty = r.ty0; ty <= r.ty1; ty++) {
				for (var tx = r.tx0; tx <= r.tx1; tx++) {
					var need = this._needed[g.url(index, z, tx, ty)];
					if (need && !need.ok) { return false; }
				}
			}
			return true;
		},

		// The frame's coarsest level's tiles, once, into a canvas of at most `background` px a side.
		_composeBackground: function (index) {
			var g = this._grid, c = g.coarse, s = g.bgScale, z = c.zoom, TILE = M.PyramidGrid.TILE;
			var canvas = document.createElement('canvas');
			canvas.width = g.bgWidth;
			canvas.height = g.bgHeight;
			var ctx = canvas.getContext('2d');
			var r = g.levelRange(c);
			for (var ty = r.ty0; ty <= r.ty1; ty++) {
				for (var tx = r.tx0; tx <= r.tx1; tx++) {
					var e = this._store[g.url(index, z, tx, ty)];
					if (!e || !e.bmp) { continue; }
					var w = e.crop[2] - e.crop[0], h = e.crop[3] - e.crop[1];
					ctx.drawImage(e.bmp, (tx * TILE + e.crop[0] - c.x0) * s, (ty * TILE + e.crop[1] - c.y0) * s, w * s, h * s);
				}
			}
			this._bgs[index] = canvas;
			// Its tiles are needed now only as detail tiles (when the view uses the coarsest level).
			var region = this._region;
			if (!region || region.z !== z) {
				g.eachTile(z, r, index, g.levelBox(c), function (url) {
					var need = this._needed[url];
					if (need && need.index === index) { delete this._needed[url]; }
				}, this);
			}
		},

		// Closes decoded tiles the view no longer needs, oldest first, while over the budget.
		// Once every frame is complete, tiles of other levels than the view's go at once:
		// they only stood in while the view's own loaded.
		_release: function () {
			var z = this._region ? this._region.z : -1;
			var settled = this._complete === this._count;
			if (this._bytes <= this.options.budget && !settled) { return; }
			var spare = [];
			for (var url in this._store) {
				var e = this._store[url];
				if (!e.bmp || e.want || this._needed[url]) { continue; }
				if (settled && e.z !== z) {
					this._bytes -= bytesOf(e.crop);
					e.bmp.close();
					delete this._store[url];
				} else {
					spare.push([e.used, url]);
				}
			}
			spare.sort(function (a, b) { return a[0] - b[0]; });
			for (var k = 0; k < spare.length && this._bytes > this.options.budget; k++) {
				var entry = this._store[spare[k][1]];
				this._bytes -= bytesOf(entry.crop);
				entry.bmp.close();
				delete this._store[spare[k][1]];
			}
		},

		_progressed: function () {
			var n = this._count;
			this.fire('progress', {loaded: this._complete, total: n});
			if (this._complete === n && !this._loaded) {
				this._loaded = true;
				this.fire('load');
			}
		},

		_fail: function (url, why) {
			if (this._failed) { return; }
			this._failed = true;
			var i = this._needed[url] ? this._needed[url].index : this._imageOf[url] ? this._imageOf[url].index : undefined;
			var n = this._count;
			var tile = /\/(\d+\/\d+\/\d+)\.[a-z]+$/i.exec(url);
			var message = 'Frame ' + (i === undefined ? '?' : i + 1) + ' of ' + n + ': ' +
				(tile ? 'tile ' + tile[1] : 'image ' + url.replace(/^.*\//, '')) +
				' could not be loaded (' + why + ').';
			this.fire('error', {index: i === undefined ? -1 : i, url: url, message: message});
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
