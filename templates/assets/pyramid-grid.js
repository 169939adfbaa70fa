/*
 * Matsite.PyramidGrid: the geometry of frames published as tile pyramids (the
 * manifest's `pyramid` and each frame's `tiles`): the levels, coarsest first;
 * which level pixels and tiles a view covers; a tile's URL; the size of each
 * frame's background canvas. It holds no pixels and draws nothing: the loader
 * (pyramid-loader.js) and the layer (frame-pyramid.js) both work from it.
 *
 * A region is {z, x0, y0, x1, y1, px, tx0, ty0, tx1, ty1}: level z's pixels
 * [x0, x1) x [y0, y1) (global pixel coordinates at z, y down from the north as
 * in XYZ), px of them, in tiles tx0..tx1 x ty0..ty1. A crop is [x0, y0, x1, y1]
 * in one tile's pixels.
 */
(function (L, M) {
	'use strict';

	var TILE = 256;
	var SNAP = 64;   // a region's edges snap out to this grid of level pixels

	M.PyramidGrid = L.Class.extend({
		options: {
			// @option background: Number = 512
			// Longest side, in pixels, of each frame's background canvas.
			background: 512
		},

		// pyramid: the manifest's `pyramid`; templates: each frame's resolved tile URL template.
		initialize: function (pyramid, templates, options) {
			L.setOptions(this, options);
			this._templates = templates;
			this.levels = pyramid.levels.slice().sort(function (a, b) { return a.zoom - b.zoom; });
			this._byZoom = {};
			this.levels.forEach(function (lv) { this._byZoom[lv.zoom] = lv; }, this);
			this.coarse = this.levels[0];
			this.fine = this.levels[this.levels.length - 1];
			// Background canvases: the coarsest level, scaled down to fit `background`.
			this.bgScale = Math.min(1, this.options.background / Math.max(this.coarse.width, this.coarse.height));
			this.bgWidth = Math.max(1, Math.round(this.coarse.width * this.bgScale));
			this.bgHeight = Math.max(1, Math.round(this.coarse.height * this.bgScale));
		},

		// The frames' box, from the finest level.
		getBounds: function () {
			var f = this.fine, crs = L.CRS.EPSG3857;
			return L.latLngBounds(crs.pointToLatLng(L.point(f.x0, f.y0 + f.height), f.zoom),
				crs.pointToLatLng(L.point(f.x0 + f.width, f.y0), f.zoom));
		},

		// The level of zoom z, if published.
		level: function (z) { return this._byZoom[z]; },

		url: function (index, z, x, y) {
			return this._templates[index].replace('{z}', z).replace('{x}', x).replace('{y}', y);
		},

		// The pixels of level z under the view (pixelBounds at mapZoom), widened by `margin`
		// CSS pixels and, with `snap`, out to a 64 px grid, clipped to the level's box.
		range: function (z, pixelBounds, mapZoom, margin, snap) {
			var lv = this._byZoom[z];
			var pb = pixelBounds;
			var k = Math.pow(2, z - mapZoom);
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

		// The tiles of a whole level.
		levelRange: function (lv) {
			return {tx0: Math.floor(lv.x0 / TILE), ty0: Math.floor(lv.y0 / TILE),
				tx1: Math.floor((lv.x0 + lv.width - 1) / TILE), ty1: Math.floor((lv.y0 + lv.height - 1) / TILE)};
		},

		// A whole level as a box of its pixels.
		levelBox: function (lv) {
			return {x0: lv.x0, y0: lv.y0, x1: lv.x0 + lv.width, y1: lv.y0 + lv.height};
		},

		// The part of tile tx/ty inside box {x0, y0, x1, y1}, as a crop.
		cellCrop: function (box, tx, ty) {
			return [Math.max(0, box.x0 - tx * TILE), Math.max(0, box.y0 - ty * TILE),
				Math.min(TILE, box.x1 - tx * TILE), Math.min(TILE, box.y1 - ty * TILE)];
		},

		// fn.call(context, url, crop, z) for each tile of range r of frame `index`, crop: the
		// tile's pixels inside box.
		eachTile: function (z, r, index, box, fn, context) {
			for (var ty = r.ty0; ty <= r.ty1; ty++) {
				for (var tx = r.tx0; tx <= r.tx1; tx++) {
					fn.call(context, this.url(index, z, tx, ty), this.cellCrop(box, tx, ty), z);
				}
			}
		}
	});

	M.PyramidGrid.TILE = TILE;

	// Whether crop a holds crop b.
	M.PyramidGrid.covers = function (a, b) {
		return !!a && a[0] <= b[0] && a[1] <= b[1] && a[2] >= b[2] && a[3] >= b[3];
	};

	// The level box one zoom coarser (the build's PyramidLevel.coarser): pairs of global pixels.
	function coarser(lv) {
		var left = Math.floor(lv.x0 / 2), top = Math.floor(lv.y0 / 2);
		return {zoom: lv.zoom - 1, x0: left, y0: top,
			width: Math.floor((lv.x0 + lv.width + 1) / 2) - left, height: Math.floor((lv.y0 + lv.height + 1) / 2) - top};
	}

	// Whether a frame's `coarsest.levels` are the coarsest level's halvings `expected`
	// (coarsest first), each with a URL.
	function halvingsMatch(levels, expected) {
		return Array.isArray(levels) && levels.length === expected.length && levels.every(function (lv, k) {
			var e = expected[k];
			return !!lv && typeof lv.url === 'string' && ['zoom', 'x0', 'y0', 'width', 'height'].every(function (key) { return lv[key] === e[key]; });
		});
	}

	// Where a sheet holds an image too ({url (resolved), y}: its rows from y), or null
	// (docs/player.md "Background sheets").
	function cell(sheet, resolve) {
		var ok = !!sheet && typeof sheet.url === 'string' && typeof sheet.y === 'number' && sheet.y >= 0 && sheet.y % 1 === 0;
		return ok ? {url: resolve(sheet.url), y: sheet.y} : null;
	}

	// Each frame's coarsest level as images, coarsest first ({url (resolved), zoom, x0, y0,
	// width, height, sheet}): its halvings (`coarsest.levels`, when every frame lists the same
	// ones), then the level itself (`coarsest`), when every frame lists one of that level's
	// size; else null (a manifest from before them).
	M.PyramidGrid.images = function (m, resolve) {
		var c = m.pyramid.levels.reduce(function (a, b) { return b.zoom < a.zoom ? b : a; });
		var ok = m.frames.every(function (f) {
			var v = f.coarsest;
			return !!v && typeof v.url === 'string' && v.width === c.width && v.height === c.height;
		});
		if (!ok) { return null; }
		var first = m.frames[0].coarsest.levels, expected = [];
		for (var lv = c, k = 0; Array.isArray(first) && k < first.length && lv.zoom > 0; k++) {
			lv = coarser(lv);
			expected.unshift(lv);
		}
		var halvings = expected.length > 0 && m.frames.every(function (f) { return halvingsMatch(f.coarsest.levels, expected); });
		return m.frames.map(function (f) {
			var list = (halvings ? f.coarsest.levels : []).map(function (lv) {
				return {url: resolve(lv.url), zoom: lv.zoom, x0: lv.x0, y0: lv.y0, width: lv.width, height: lv.height, sheet: cell(lv.sheet, resolve)};
			});
			list.push({url: resolve(f.coarsest.url), zoom: c.zoom, x0: c.x0, y0: c.y0, width: c.width, height: c.height,
				sheet: halvings ? null : cell(f.coarsest.sheet, resolve)});
			return list;
		});
	};

	// True when the manifest publishes levels for every frame in the agreed shape.
	M.PyramidGrid.usable = function (m) {
		var p = m && m.pyramid;
		if (!p || !Array.isArray(p.levels) || !p.levels.length || (p.tile_size !== undefined && p.tile_size !== TILE)) { return false; }
		var ok = p.levels.every(function (lv) {
			return lv && [lv.zoom, lv.x0, lv.y0, lv.width, lv.height].every(function (v) { return typeof v === 'number' && isFinite(v); }) &&
				lv.width > 0 && lv.height > 0;
		});
		return ok && m.frames.every(function (f) { return typeof f.tiles === 'string' && f.tiles.indexOf('{z}') >= 0; });
	};
}(window.L, window.Matsite = window.Matsite || {}));
