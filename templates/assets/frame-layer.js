/*
 * Matsite.frameLayer(source, options): the frame layer for one set of frames,
 * the one place the player gets a frame layer from. An animation with usable
 * data layers (`layers`) gets a Matsite.LayerStack (layer-stack.js), which makes
 * one frame layer per data layer here in turn; frames published as tile
 * pyramids (a usable `pyramid`, each frame's `tiles`) get a Matsite.FramePyramid,
 * frames published as single images a Matsite.FrameOverlay (whose loader is a
 * Matsite.FrameLevels when the frames have reduced `levels`).
 *
 * source: what the manifest says of the frames: bounds, zoom, width and height
 * (the full frame's size), frames (each with url, its reduced levels when it has
 * them, and tiles with a pyramid), pyramid when published, layers when stacked. An
 * animation's manifest is one; so is a data layer's entry with the animation's
 * bounds.
 *
 * options: resolve ((URL relative to the manifest) -> URL), first (the frame
 * the player opens on), and the layers' own options (posterUrl, alt, pane,
 * visible: the ids of the data layers shown at first...).
 *
 * Every frame layer is a Leaflet layer that offers the same:
 *   getLoader()      an L.Evented with start(), loaded(), total(), isComplete(),
 *                    firing progress {loaded, total}, load (every frame ready:
 *                    playback may start) and error {index, url, message}
 *   getBounds()      the frames' box (L.LatLngBounds)
 *   detailZoom()     the zoom of the frames' own pixels
 *   showInitial(i)   shows frame i (or the poster) while loading: not a frame change
 *   prepare(i)       readies frame i behind the one shown, so show(i) only swaps
 *   show(i, fadeMs)  brings frame i to the top, crossfading over fadeMs (0: at once)
 *   setOpacity(o), setVisible(v), removePoster(), frontIndex()
 *   shown {index}    fired when a frame is fully on top
 */
(function (L, M) {
	'use strict';

	function same(url) { return url; }

	M.frameLayer = function (source, options) {
		var opts = L.extend({}, options);
		var resolve = opts.resolve || same;
		delete opts.resolve;
		if (M.LayerStack.usable(source)) {
			return new M.LayerStack(source, resolve, opts);
		}
		if (M.PyramidGrid.usable(source)) {
			return new M.FramePyramid(source, source.frames.map(function (f) { return resolve(f.tiles); }), opts,
				M.PyramidGrid.images(source, resolve));
		}
		return new M.FrameOverlay(source, source.frames.map(function (f) { return resolve(f.url); }),
			M.FrameLevels.of(source, resolve), opts);
	};
}(window.L, window.Matsite = window.Matsite || {}));
