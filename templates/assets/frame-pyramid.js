/*
 * Matsite.FramePyramid: the frame layer for frames published as tile pyramids
 * (manifest `pyramid`, each frame's `tiles`). It draws; its loader
 * (Matsite.PyramidLoader, getLoader()) fetches and keeps the decoded tiles the
 * view needs, and both take their geometry from a Matsite.PyramidGrid. Past
 * the finest level the finest one is scaled up (the player's ViewRange then
 * pauses on fallback tiles, as for single images).
 *
 * Drawing: two stacked layers, each a whole rendering of one frame: its
 * background canvas over the frame's box (with the detail area cut out) and a
 * detail canvas over the loader's region, drawn with drawImage from decoded
 * bitmaps only. A tile not decoded yet is drawn from the finest coarser tile
 * that is, else from the background: the layer never has a hole. The next
 * frame is composed into the back layer ahead of time, so a swap only changes
 * opacities; the crossfade is crossfade.js's, so coverage
 * 1 - (1 - a)(1 - b) stays 1 at every animation frame.
 *
 * Events:
 *   shown {index}   a frame is fully on top (after its fade, if any)
 */
(function (L, M) {
	'use strict';

	var TILE = M.PyramidGrid.TILE;

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
			// Decoded bytes of tiles the loader keeps (4 per pixel; only the part of a tile
			// that is needed is kept).
			budget: 128 * 1024 * 1024,
			// @option background: Number = 512
			// Longest side, in pixels, of each frame's background canvas.
			background: 512,
			// @option concurrency: Number = 6
			concurrency: 6
		},

		// source: the frames' manifest (bounds, frames, pyramid); templates: each frame's
		// resolved tile URL template; images: each frame's coarsest level as one image
		// (resolved URLs), or null. With images, a frame's background is its image whole.
		initialize: function (source, templates, options, images) {
			L.setOptions(this, options);
			var o = this.options;
			this._frames = source.frames;
			this._grid = new M.PyramidGrid(source.pyramid, templates, {background: images ? Infinity : o.background});
			this._tiles = new M.PyramidLoader(this._grid, this._frames.length,
				{margin: o.margin, budget: o.budget, concurrency: o.concurrency}, images);
			this._tiles.on('progress', this._onProgress, this);
			this._tiles.on('decoded', this._onDecoded, this);
			this._bounds = this._grid.getBounds();
			var max = source.pyramid.max_zoom;
			this._detailZoom = typeof max === 'number' && isFinite(max) ? max : source.zoom;
			this._frontIndex = -1;
			this._fade = null;
			this._initDom(source.bounds);
		},

		getBounds: function () { return this._bounds; },

		frontIndex: function () { return this._frontIndex; },

		// Whether the frame on screen stands still (paused, or never played): then the level
		// matches the screen's pixels, else the map's (pyramid-loader.js, Level).
		setStill: function (still) {
			if (!!still === !!this._still) { return this; }
			this._still = !!still;
			this._tiles.setRatio(M.detailRatio(this._still), this._still);
			this._onView(null, true);
			return this;
		},

		// What loads the frames: playback may start when it fires load.
		getLoader: function () { return this._tiles; },

		// The zoom of the frames' own pixels: the finest level's.
		detailZoom: function () { return this._detailZoom; },

		// The level pixels the detail canvases cover (PyramidGrid's region), or null.
		region: function () { return this._tiles.region(); },

		// The level the view uses now, or -1 before the layer is on a map.
		level: function () { var r = this._tiles.region(); return r ? r.z : -1; },

		onAdd: function () {
			this.getPane().appendChild(this._container);
			this._reset();
			this._onView();
		},

		onRemove: function () {
			this._finishFade();
			if (this._redrawFrame) { cancelAnimationFrame(this._redrawFrame); this._redrawFrame = 0; }
			L.DomUtil.remove(this._container);
			this._tiles.stop();
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
			this._marks.show(index);
			this._tiles.focus(index);
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
			this._marks.show(index);
			this._swapIn(index, fadeMs);
			return this;
		},

		_initDom: function (bounds) {
			var c = this._initContainer('leaflet-image-layer matsite-frames matsite-pyramid');
			this._back = this._makeLayer('matsite-back');
			this._front = this._makeLayer('matsite-front');
			this._back.el.style.opacity = '0';
			this._marks = new M.NoDataMarks(c, this._frames, bounds);
		},

		_makeLayer: function (role) {
			var el = L.DomUtil.create('div', 'matsite-pyramid-frame ' + role, this._container);
			el.setAttribute('role', 'img');
			if (this.options.alt) { el.setAttribute('aria-label', this.options.alt); } else { el.setAttribute('aria-hidden', 'true'); }
			var bg = L.DomUtil.create('canvas', 'matsite-pyramid-bg', el);
			bg.width = this._grid.bgWidth;
			bg.height = this._grid.bgHeight;
			var detail = L.DomUtil.create('canvas', 'matsite-pyramid-detail', el);
			detail.width = 0;
			detail.height = 0;
			return {el: el, bg: bg, detail: detail, index: -1, stale: true};
		},

		// Draws frame `index` whole into `layer`: its background, and its detail over the region.
		_compose: function (layer, index) {
			layer.index = index;
			layer.el.setAttribute('data-index', String(index));
			var r = this._tiles.region();
			var g = layer.bg.getContext('2d');
			g.clearRect(0, 0, layer.bg.width, layer.bg.height);
			var own = this._tiles.background(index);
			if (own) {
				// A halving of the coarsest level is drawn scaled up over the same box.
				var b = this._bgLevel(index), s0 = b.s, k0 = Math.pow(2, this._grid.coarse.zoom - b.zoom), c0 = this._grid.coarse;
				g.drawImage(own, (b.x0 * k0 - c0.x0) * s0, (b.y0 * k0 - c0.y0) * s0, b.width * k0 * s0, b.height * k0 * s0);
			}
			// The zoom of the background drawn (a test's and a reader's way to see an upgrade).
			layer.el.setAttribute('data-background', own ? String(this._bgLevel(index).zoom) : '');
			var complete = this._tiles.backgroundReady(index);
			if (r && r.px) {
				var d = layer.detail.getContext('2d');
				d.clearRect(0, 0, layer.detail.width, layer.detail.height);
				// The background stays out from under the detail (inset by a pixel: no hairline at the edge).
				var c = this._grid.coarse, s = this._grid.bgScale, k = Math.pow(2, c.zoom - r.z);
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
			var own = this._tiles.drawable(index, r.z, tx, ty, this._grid.cellCrop(r, tx, ty));
			if (own) {
				ctx.drawImage(own.bmp, dx + own.crop[0], dy + own.crop[1]);
				return true;
			}
			for (var z = r.z - 1; z >= this._grid.coarse.zoom; z--) {
				if (!this._grid.level(z)) { continue; }
				var shift = r.z - z;
				var ax = tx >> shift, ay = ty >> shift;
				var e = this._tiles.drawable(index, z, ax, ay, null);
				if (!e) { continue; }
				var part = TILE / (1 << shift);
				ctx.drawImage(e.bmp, (tx - (ax << shift)) * part - e.crop[0], (ty - (ay << shift)) * part - e.crop[1],
					part, part, dx, dy, TILE, TILE);
				return false;
			}
			var bg = this._tiles.background(index);
			if (bg) {
				var b = this._bgLevel(index), s = b.s, k = Math.pow(2, b.zoom - r.z);
				var sx = (tx * TILE * k - b.x0) * s, sy = (ty * TILE * k - b.y0) * s, sw = TILE * k * s;
				ctx.drawImage(bg, sx, sy, sw, sw, dx, dy, TILE, TILE);
			}
			return false;
		},

		// The level box a frame's background shows, and its pixels per level pixel (s): an
		// image's own level at 1, or the canvas composed from the coarsest level's tiles.
		_bgLevel: function (index) {
			var b = this._tiles.backgroundLevel(index);
			if (b) { return {zoom: b.zoom, x0: b.x0, y0: b.y0, width: b.width, height: b.height, s: 1}; }
			var c = this._grid.coarse, s = this._grid.bgScale;
			// The canvas is bgWidth x bgHeight: the level's box at that scale.
			return {zoom: c.zoom, x0: c.x0, y0: c.y0, width: this._grid.bgWidth / s, height: this._grid.bgHeight / s, s: s};
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
			this._tiles.focus(this._frontIndex);
		},

		// New pixels of a frame: the front layer is redrawn, the back one recomposed when shown.
		_onDecoded: function (e) {
			if (e.index === this._frontIndex) { this._scheduleRedraw(); }
			if (e.index === this._back.index) { this._back.stale = true; }
		},

		_onProgress: function () {
			this._container.setAttribute('data-bytes', String(this._tiles.bytes()));
		},

		_onReset: function () {
			this._reset();
			this._onView();
		},

		// Places a layer's detail canvas over the region, in percent of the frame's box
		// (so Leaflet's zoom animation, which scales the box, carries it along).
		_placeDetail: function (layer, r) {
			var f = this._grid.fine;
			var k = Math.pow(2, f.zoom - r.z);
			var s = layer.detail.style;
			s.left = ((r.x0 * k - f.x0) / f.width * 100) + '%';
			s.top = ((r.y0 * k - f.y0) / f.height * 100) + '%';
			s.width = ((r.x1 - r.x0) * k / f.width * 100) + '%';
			s.height = ((r.y1 - r.y0) * k / f.height * 100) + '%';
		},

		// The view settled: when it needs another region, the detail canvases move there and
		// the loader loads it. `renew` (standing still or playing again): the same region is
		// asked for again too, as which frames need it has changed.
		_onView: function (e, renew) {
			if (!this._map || this._removed) { return; }
			var r = this._tiles.regionFor(this._map.getPixelBounds(), this._map.getZoom());
			if (!r) {
				if (renew === true && this._tiles.region()) { this._tiles.setRegion(this._tiles.region()); }
				return;
			}
			this._finishFade();
			[this._front, this._back].forEach(function (layer) {
				layer.detail.width = r.x1 - r.x0;
				layer.detail.height = r.y1 - r.y0;
				layer.stale = true;
				this._placeDetail(layer, r);
			}, this);
			this._container.setAttribute('data-level', String(r.z));
			this._tiles.setRegion(r);
			// Same task as the resize above: the front never shows an empty canvas.
			if (this._frontIndex >= 0) { this._compose(this._front, this._frontIndex); }
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
