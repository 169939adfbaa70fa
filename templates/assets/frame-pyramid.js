/*
 * Matsite.FramePyramid: the frame layer for frames published as tile pyramids
 * (manifest `pyramid`, each frame's `tiles`). It is both the loader and the
 * drawing layer of such frames, so the player uses it where it would use a
 * FrameLoader and a FrameOverlay.
 *
 * Level: the one whose pixels match the screen's (map zoom + log2 of the
 * devicePixelRatio, ties to the coarser), between the coarsest and the finest
 * level, and coarser still when the tiles of every frame would not fit the
 * memory budget. Past the finest level the finest one is scaled up (the
 * player's ViewRange then pauses on fallback tiles, as for single images).
 *
 * What must be loaded: the coarsest level of every frame (composed once into
 * a small background canvas per frame, then released) and, at the chosen
 * level, the pixels under the view plus a margin, of every frame. Every tile
 * is fetched and decoded (createImageBitmap, cropped to the part needed, so
 * memory follows the view's pixels, not whole tiles) before it is ever drawn:
 * composing a frame is drawImage of decoded bitmaps only. Tiles no longer
 * needed are closed, oldest first, once the decoded bytes exceed the budget.
 *
 * Drawing: two stacked layers, each a whole rendering of one frame: its
 * background canvas over the frame's box (with the detail area cut out) and a
 * detail canvas over the needed tiles. A tile not decoded yet is drawn from
 * the finest coarser tile that is, else from the background: the layer never
 * has a hole. The crossfade is frame-overlay.js's: the incoming layer turns
 * fully opaque under the outgoing one, which then fades out, so coverage
 * 1 - (1 - a)(1 - b) stays 1 at every animation frame.
 *
 * Events:
 *   progress {loaded, total}  frames whose needed tiles are all decoded
 *   load     {}               the first time every frame is complete: playback may start
 *   hold     {on}             after load: the view needs tiles some frame lacks (on),
 *                             or every frame is complete again (off)
 *   error    {index, url, message}  once, for the first tile that failed
 *   shown    {index}          a frame is fully on top (after its fade, if any)
 */
(function (L, M) {
	'use strict';

	var TILE = 256;
	var SNAP = 64;   // the loaded area's edges snap out to this grid of level pixels

	// Whether crop a ([x0, y0, x1, y1]) holds crop b.
	function covers(a, b) { return !!a && a[0] <= b[0] && a[1] <= b[1] && a[2] >= b[2] && a[3] >= b[3]; }

	function union(a, b) { return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])]; }

	function bytesOf(crop) { return (crop[2] - crop[0]) * (crop[3] - crop[1]) * 4; }

	M.FramePyramid = L.Layer.extend({
		includes: M.Crossfade,

		options: {
			// @option pane: String = 'overlayPane'
			pane: 'overlayPane',
			// @option posterUrl: String = ''
			posterUrl: '',
			// @option alt: String = ''
			// Text alternative of the frame layers.
			alt: '',
			// @option margin: Number = 64
			// CSS pixels around the view loaded too, so a short pan shows detail at once.
			margin: 64,
			// @option budget: Number = 128 MiB
			// Decoded bytes of tiles the layer keeps (4 per pixel; only the part of a tile
			// that is needed is kept).
			budget: 128 * 1024 * 1024,
			// @option background: Number = 512
			// Longest side, in pixels, of each frame's background canvas.
			background: 512,
			// @option concurrency: Number = 6
			concurrency: 6
		},

		// manifest: the animation manifest (with pyramid); templates: each frame's resolved tile URL template.
		initialize: function (manifest, templates, options) {
			L.setOptions(this, options);
			var p = manifest.pyramid;
			this._frames = manifest.frames;
			this._templates = templates;
			this._levels = p.levels.slice().sort(function (a, b) { return a.zoom - b.zoom; });
			this._byZoom = {};
			this._levels.forEach(function (lv) { this._byZoom[lv.zoom] = lv; }, this);
			this._coarse = this._levels[0];
			this._fine = this._levels[this._levels.length - 1];
			var f = this._fine, crs = L.CRS.EPSG3857;
			this._bounds = L.latLngBounds(crs.pointToLatLng(L.point(f.x0, f.y0 + f.height), f.zoom),
				crs.pointToLatLng(L.point(f.x0 + f.width, f.y0), f.zoom));
			// The manifest's box, for the "no data" marks frame-overlay.js draws.
			var b = manifest.bounds;
			this._box = {west: b.west, south: b.south, east: b.east < b.west ? b.east + 360 : b.east, north: b.north};
			var c = this._coarse;
			this._bgScale = Math.min(1, this.options.background / Math.max(c.width, c.height));
			this._bgs = new Array(this._frames.length);      // per frame: its background canvas, once composed
			this._store = {};        // url -> {bmp, crop (its tile pixels), want (crop being fetched), used}
			this._needed = {};       // url -> frame index, for what the current view needs
			this._missing = [];      // per frame: needed tiles not decoded yet
			this._complete = 0;      // frames with nothing missing
			this._queue = [];
			this._active = 0;
			this._bytes = 0;         // decoded bytes held
			this._stamp = 0;
			this._loaded = false;
			this._held = false;
			this._failed = false;
			this._region = null;     // {z, x0, y0, x1, y1, tx0..ty1}: the level pixels the detail canvases cover
			this._frontIndex = -1;
			this._fade = null;
			this._initDom();
		},

		getBounds: function () { return this._bounds; },

		frontIndex: function () { return this._frontIndex; },

		// Loader interface (as FrameLoader).
		loaded: function () { return this._complete; },
		total: function () { return this._frames.length; },
		isComplete: function () { return this._complete === this._frames.length; },

		// The level the view uses now, or -1 before the layer is on a map.
		level: function () { return this._region ? this._region.z : -1; },

		onAdd: function () {
			this.getPane().appendChild(this._container);
			this._reset();
			this._onView();
		},

		onRemove: function () {
			this._finishFade();
			if (this._redrawFrame) { cancelAnimationFrame(this._redrawFrame); this._redrawFrame = 0; }
			L.DomUtil.remove(this._container);
			this._queue = [];
			for (var url in this._store) {
				var e = this._store[url];
				if (e.bmp) { e.bmp.close(); }
			}
			this._store = {};
			this._removed = true;
		},

		getEvents: function () {
			var events = {zoom: this._reset, viewreset: this._onReset, moveend: this._onView, resize: this._onView};
			if (this._zoomAnimated) { events.zoomanim = this._animateZoom; }
			return events;
		},

		showInitial: function (index) {
			this._frontIndex = index;
			this._front.index = index;
			this._markMissing(index);
			this._prioritize();
			this._scheduleRedraw();
			return this;
		},

		// Composes a frame into the back layer ahead of time so that show() only swaps.
		prepare: function (index) {
			if (index < 0 || this._fade || index === this._frontIndex) { return this; }
			if (this._back.index !== index || this._back.stale) { this._compose(this._back, index); }
			return this;
		},

		show: function (index, fadeMs) {
			this._finishFade();
			if (index === this._frontIndex) { return this; }
			if (this._back.index !== index || this._back.stale) { this._compose(this._back, index); }
			this._markMissing(index);
			this._swapIn(index, fadeMs);
			return this;
		},

		// ---- drawing ----

		_initDom: function () {
			var c = this._initContainer('leaflet-image-layer matsite-frames matsite-pyramid');
			this._back = this._makeLayer('matsite-back');
			this._front = this._makeLayer('matsite-front');
			this._back.el.style.opacity = '0';
			this._missingLayer = L.DomUtil.create('div', 'matsite-missing-layer', c);
		},

		_makeLayer: function (role) {
			var el = L.DomUtil.create('div', 'matsite-pyramid-frame ' + role, this._container);
			el.setAttribute('role', 'img');
			if (this.options.alt) { el.setAttribute('aria-label', this.options.alt); } else { el.setAttribute('aria-hidden', 'true'); }
			var bg = L.DomUtil.create('canvas', 'matsite-pyramid-bg', el);
			var c = this._coarse;
			bg.width = Math.max(1, Math.round(c.width * this._bgScale));
			bg.height = Math.max(1, Math.round(c.height * this._bgScale));
			var detail = L.DomUtil.create('canvas', 'matsite-pyramid-detail', el);
			detail.width = 0;
			detail.height = 0;
			return {el: el, bg: bg, detail: detail, index: -1, stale: true};
		},

		// Draws frame `index` whole into `layer`: its background, and its detail over the region.
		_compose: function (layer, index) {
			layer.index = index;
			layer.el.setAttribute('data-index', String(index));
			var r = this._region;
			var g = layer.bg.getContext('2d');
			g.clearRect(0, 0, layer.bg.width, layer.bg.height);
			var own = this._bgs[index];
			if (own) { g.drawImage(own, 0, 0); }
			var complete = !!own;
			if (r && r.px) {
				var d = layer.detail.getContext('2d');
				d.clearRect(0, 0, layer.detail.width, layer.detail.height);
				// The background stays out from under the detail (inset by a pixel: no hairline at the edge).
				var c = this._coarse, s = this._bgScale, k = Math.pow(2, c.zoom - r.z);
				var left = Math.ceil((r.x0 * k - c.x0) * s) + 1, top = Math.ceil((r.y0 * k - c.y0) * s) + 1;
				var right = Math.floor((r.x1 * k - c.x0) * s) - 1, bottom = Math.floor((r.y1 * k - c.y0) * s) - 1;
				if (right > left && bottom > top) { g.clearRect(left, top, right - left, bottom - top); }
				for (var ty = r.ty0; ty <= r.ty1; ty++) {
					for (var tx = r.tx0; tx <= r.tx1; tx++) {
						if (!this._drawTile(d, index, r, tx, ty)) { complete = false; }
					}
				}
			}
			layer.stale = !complete;
			layer.el.setAttribute('data-complete', complete ? 'true' : 'false');
		},

		// Draws one tile of the region from the best decoded source; true when that is the tile itself.
		_drawTile: function (ctx, index, r, tx, ty) {
			var dx = tx * TILE - r.x0, dy = ty * TILE - r.y0;
			var own = this._store[this._url(index, r.z, tx, ty)];
			if (own && own.bmp && covers(own.crop, this._cellCrop(r, tx, ty))) {
				own.used = ++this._stamp;
				ctx.drawImage(own.bmp, dx + own.crop[0], dy + own.crop[1]);
				return true;
			}
			for (var z = r.z - 1; z >= this._coarse.zoom; z--) {
				if (!this._byZoom[z]) { continue; }
				var shift = r.z - z;
				var ax = tx >> shift, ay = ty >> shift;
				var e = this._store[this._url(index, z, ax, ay)];
				if (!e || !e.bmp) { continue; }
				e.used = ++this._stamp;
				var part = TILE / (1 << shift);
				ctx.drawImage(e.bmp, (tx - (ax << shift)) * part - e.crop[0], (ty - (ay << shift)) * part - e.crop[1],
					part, part, dx, dy, TILE, TILE);
				return false;
			}
			var bg = this._bgs[index];
			if (bg) {
				var c = this._coarse, s = this._bgScale, k = Math.pow(2, c.zoom - r.z);
				var sx = (tx * TILE * k - c.x0) * s, sy = (ty * TILE * k - c.y0) * s, sw = TILE * k * s;
				ctx.drawImage(bg, sx, sy, sw, sw, dx, dy, TILE, TILE);
			}
			return false;
		},

		// Recomposes the front layer (and marks the back one stale) on the next animation
		// frame: tiles arriving in a burst cost one redraw.
		_scheduleRedraw: function () {
			if (this._redrawFrame || this._removed) { return; }
			var self = this;
			this._redrawFrame = requestAnimationFrame(function () {
				self._redrawFrame = 0;
				if (self._frontIndex >= 0 && !self._fade) { self._compose(self._front, self._frontIndex); }
			});
		},

		// Layers are {el, index, stale}: the crossfade moves their canvases.
		_elementOf: function (layer) { return layer.el; },

		_rolesSwapped: function () {
			if (this._front.stale) { this._scheduleRedraw(); }
			this._prioritize();
		},

		_markMissing: function (index) {
			M.FrameOverlay.prototype._markMissing.call({_missing: this._missingLayer, _frames: this._frames, _box: this._box}, index);
		},

		_onReset: function () {
			this._reset();
			this._onView();
		},

		// Places a layer's detail canvas over the region, in percent of the frame's box
		// (so Leaflet's zoom animation, which scales the box, carries it along).
		_placeDetail: function (layer) {
			var r = this._region, f = this._fine;
			var k = Math.pow(2, f.zoom - r.z);
			var s = layer.detail.style;
			s.left = ((r.x0 * k - f.x0) / f.width * 100) + '%';
			s.top = ((r.y0 * k - f.y0) / f.height * 100) + '%';
			s.width = ((r.x1 - r.x0) * k / f.width * 100) + '%';
			s.height = ((r.y1 - r.y0) * k / f.height * 100) + '%';
		},

		// ---- what the view needs ----

		// The pixels of level z under the view, widened by `margin` CSS pixels and out to a
		// 64 px grid, clipped to the level's box; and the tiles they touch.
		_range: function (z, margin, snap) {
			var map = this._map;
			var lv = this._byZoom[z];
			var pb = map.getPixelBounds();
			var k = Math.pow(2, z - map.getZoom());
			var g = snap ? SNAP : 1;
			var r = {
				z: z,
				x0: Math.max(lv.x0, Math.floor((pb.min.x - margin) * k / g) * g),
				y0: Math.max(lv.y0, Math.floor((pb.min.y - margin) * k / g) * g),
				x1: Math.min(lv.x0 + lv.width, Math.ceil((pb.max.x + margin) * k / g) * g),
				y1: Math.min(lv.y0 + lv.height, Math.ceil((pb.max.y + margin) * k / g) * g)
			};
			if (r.x1 <= r.x0 || r.y1 <= r.y0) { r.x1 = r.x0; r.y1 = r.y0; }
			r.px = (r.x1 - r.x0) * (r.y1 - r.y0);
			r.tx0 = Math.floor(r.x0 / TILE);
			r.ty0 = Math.floor(r.y0 / TILE);
			r.tx1 = r.px ? Math.floor((r.x1 - 1) / TILE) : r.tx0 - 1;
			r.ty1 = r.px ? Math.floor((r.y1 - 1) / TILE) : r.ty0 - 1;
			return r;
		},

		// The finest level (at most the screen's) whose needed pixels of every frame fit the budget.
		_chooseRegion: function () {
			var dpr = window.devicePixelRatio || 1;
			var ideal = Math.round(this._map.getZoom() + Math.log(dpr) / Math.LN2 - 0.01);
			var z = Math.max(this._coarse.zoom, Math.min(this._fine.zoom, ideal));
			var room = this.options.budget / 4 / this._frames.length;
			for (; z >= this._coarse.zoom; z--) {
				if (!this._byZoom[z]) { continue; }
				var withMargin = this._range(z, this.options.margin, true);
				if (withMargin.px <= room) { return withMargin; }
				var bare = this._range(z, 0, true);
				if (bare.px <= room) { return bare; }
			}
			return this._range(this._coarse.zoom, 0, true);
		},

		_onView: function () {
			if (!this._map || this._removed) { return; }
			var r = this._chooseRegion();
			var old = this._region;
			if (old && old.z === r.z) {
				// Still inside what is loaded: nothing changes (a short pan costs nothing).
				var v = this._range(r.z, 0, false);
				if (v.x0 >= old.x0 && v.y0 >= old.y0 && v.x1 <= old.x1 && v.y1 <= old.y1) { return; }
			}
			this._region = r;
			this._finishFade();
			[this._front, this._back].forEach(function (layer) {
				layer.detail.width = r.x1 - r.x0;
				layer.detail.height = r.y1 - r.y0;
				layer.stale = true;
				this._placeDetail(layer);
			}, this);
			this._container.setAttribute('data-level', String(r.z));
			this._need();
			// Same task as the resize above: the front never shows an empty canvas.
			if (this._frontIndex >= 0) { this._compose(this._front, this._frontIndex); }
		},

		// The part of tile tx/ty (tile pixels [x0, y0, x1, y1]) inside the region.
		_cellCrop: function (r, tx, ty) {
			return [Math.max(0, r.x0 - tx * TILE), Math.max(0, r.y0 - ty * TILE),
				Math.min(TILE, r.x1 - tx * TILE), Math.min(TILE, r.y1 - ty * TILE)];
		},

		_url: function (index, z, x, y) {
			return this._templates[index].replace('{z}', z).replace('{x}', x).replace('{y}', y);
		},

		// Rebuilds the needed set from the region and every frame's background state:
		// url -> {index, crop (the tile pixels needed), ok (decoded and covering the crop)}.
		_need: function () {
			var r = this._region, n = this._frames.length, c = this._coarse;
			var cbox = {x0: c.x0, y0: c.y0, x1: c.x0 + c.width, y1: c.y0 + c.height};
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
				if (!this._bgs[i]) { this._eachTile(c.zoom, this._levelRange(c), i, cbox, add); }
				if (r && r.px) { this._eachTile(r.z, r, i, r, add); }
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

		_levelRange: function (lv) {
			return {tx0: Math.floor(lv.x0 / TILE), ty0: Math.floor(lv.y0 / TILE),
				tx1: Math.floor((lv.x0 + lv.width - 1) / TILE), ty1: Math.floor((lv.y0 + lv.height - 1) / TILE)};
		},

		// fn(url, crop) for each tile of range r, crop: the tile's pixels inside box {x0, y0, x1, y1}.
		_eachTile: function (z, r, index, box, fn) {
			for (var ty = r.ty0; ty <= r.ty1; ty++) {
				for (var tx = r.tx0; tx <= r.tx1; tx++) {
					fn.call(this, this._url(index, z, tx, ty), this._cellCrop(box, tx, ty), z);
				}
			}
		},

		// Request order: the frame on screen first, then the frames in playing order.
		_prioritize: function () {
			var n = this._frames.length, start = Math.max(0, this._frontIndex);
			if (this._complete === n) { this._queue = []; return; }
			var byFrame = [];
			for (var url in this._needed) {
				var need = this._needed[url];
				if (need.ok || this._inFlight(url)) { continue; }
				(byFrame[need.index] = byFrame[need.index] || []).push(url);
			}
			var queue = [];
			for (var k = 0; k < n; k++) {
				var list = byFrame[(start + k) % n];
				if (list) { queue.push.apply(queue, list); }
			}
			this._queue = queue;
			this._pump();
		},

		// A request for url is running and will cover what is needed of it.
		_inFlight: function (url) {
			var e = this._store[url], need = this._needed[url];
			return !!(e && e.want && need && covers(e.want, need.crop));
		},

		_pump: function () {
			while (this._active < this.options.concurrency && this._queue.length && !this._failed && !this._removed) {
				var url = this._queue.shift();
				var need = this._needed[url];
				if (!need || need.ok || this._inFlight(url)) { continue; }
				this._fetch(url, need.crop.slice(), need.z);
			}
		},

		// Fetches a tile and decodes the part of it that is needed (crop), off the main thread.
		_fetch: function (url, crop, z) {
			var self = this;
			var entry = this._store[url] || (this._store[url] = {bmp: null, crop: null, want: null, used: 0, z: z});
			var token = entry.token = (entry.token || 0) + 1;
			entry.want = crop;
			entry.used = ++this._stamp;
			this._active++;
			fetch(url, {credentials: 'same-origin'}).then(function (res) {
				if (!res.ok) { throw new Error('HTTP ' + res.status); }
				return res.blob();
			}).then(function (blob) {
				return createImageBitmap(blob, crop[0], crop[1], crop[2] - crop[0], crop[3] - crop[1]);
			}).then(function (bmp) {
				self._active--;
				if (self._removed || self._store[url] !== entry || entry.token !== token) { bmp.close(); self._pump(); return; }
				if (entry.bmp) { self._bytes -= bytesOf(entry.crop); entry.bmp.close(); }
				entry.bmp = bmp;
				entry.crop = crop;
				entry.want = null;
				self._bytes += bytesOf(crop);
				self._arrived(url);
				self._pump();
			}).catch(function (err) {
				self._active--;
				if (self._removed || self._store[url] !== entry || entry.token !== token) { return; }
				entry.want = null;
				self._fail(url, err && err.message ? err.message : 'error');
			});
		},

		_arrived: function (url) {
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
			if (!this._bgs[i] && this._coarseDone(i)) { this._composeBackground(i); }
			if (--this._missing[i] === 0) { this._complete++; }
			if (i === this._frontIndex) { this._scheduleRedraw(); }
			if (i === this._back.index) { this._back.stale = true; }
			this._release();
			this._progressed();
		},

		_coarseDone: function (index) {
			var r = this._levelRange(this._coarse), z = this._coarse.zoom;
			for (var ty = r.ty0; ty <= r.ty1; ty++) {
				for (var tx = r.tx0; tx <= r.tx1; tx++) {
					var need = this._needed[this._url(index, z, tx, ty)];
					if (need && !need.ok) { return false; }
				}
			}
			return true;
		},

		// The frame's coarsest level, once, into a canvas of at most `background` px a side.
		_composeBackground: function (index) {
			var c = this._coarse, s = this._bgScale, z = c.zoom;
			var canvas = document.createElement('canvas');
			canvas.width = this._front.bg.width;
			canvas.height = this._front.bg.height;
			var g = canvas.getContext('2d');
			var r = this._levelRange(c);
			for (var ty = r.ty0; ty <= r.ty1; ty++) {
				for (var tx = r.tx0; tx <= r.tx1; tx++) {
					var e = this._store[this._url(index, z, tx, ty)];
					if (!e || !e.bmp) { continue; }
					var w = e.crop[2] - e.crop[0], h = e.crop[3] - e.crop[1];
					g.drawImage(e.bmp, (tx * TILE + e.crop[0] - c.x0) * s, (ty * TILE + e.crop[1] - c.y0) * s, w * s, h * s);
				}
			}
			this._bgs[index] = canvas;
			// Its tiles are needed now only as detail tiles (when the view uses the coarsest level).
			var region = this._region;
			if (!region || region.z !== z) {
				this._eachTile(z, r, index, {x0: c.x0, y0: c.y0, x1: c.x0 + c.width, y1: c.y0 + c.height}, function (url) {
					var need = this._needed[url];
					if (need && need.index === index) { delete this._needed[url]; }
				});
			}
			if (index === this._back.index) { this._back.stale = true; }
		},

		// Closes decoded tiles the view no longer needs, oldest first, while over the budget.
		// Once every frame is complete, tiles of other levels than the view's go at once:
		// they only stood in while the view's own loaded.
		_release: function () {
			var z = this._region ? this._region.z : -1;
			var settled = this._complete === this._frames.length;
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
			var n = this._frames.length;
			this._container.setAttribute('data-bytes', String(this._bytes));
			this.fire('progress', {loaded: this._complete, total: n});
			if (this._complete === n) {
				if (!this._loaded) {
					this._loaded = true;
					this.removePoster();
					this.fire('load');
				} else if (this._held) {
					this._held = false;
					this.fire('hold', {on: false});
				}
			} else if (this._loaded && !this._held) {
				this._held = true;
				this.fire('hold', {on: true});
			}
		},

		_fail: function (url, why) {
			if (this._failed) { return; }
			this._failed = true;
			var i = this._needed[url] ? this._needed[url].index : undefined;
			var n = this._frames.length;
			var where = url.replace(/^.*\/(\d+\/\d+\/\d+)\.[a-z]+$/i, '$1');
			var message = 'Frame ' + (i === undefined ? '?' : i + 1) + ' of ' + n + ': tile ' + where +
				' could not be loaded (' + why + ').';
			this.fire('error', {index: i === undefined ? -1 : i, url: url, message: message});
		}
	});

	// True when the manifest publishes levels for every frame in the agreed shape.
	M.FramePyramid.usable = function (m) {
		var p = m && m.pyramid;
		if (!p || !Array.isArray(p.levels) || !p.levels.length || (p.tile_size !== undefined && p.tile_size !== TILE)) { return false; }
		var ok = p.levels.every(function (lv) {
			return lv && [lv.zoom, lv.x0, lv.y0, lv.width, lv.height].every(function (v) { return typeof v === 'number' && isFinite(v); }) &&
				lv.width > 0 && lv.height > 0;
		});
		return ok && m.frames.every(function (f) { return typeof f.tiles === 'string' && f.tiles.indexOf('{z}') >= 0; });
	};
}(window.L, window.Matsite = window.Matsite || {}));
