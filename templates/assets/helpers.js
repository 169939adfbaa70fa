/*
 * Small helpers the player's files share, each written once here:
 *   Matsite.isNum(v)    v is a finite number
 *   Matsite.clamp01(v)  v held within 0..1
 *   Matsite.detailRatio(still)  level pixels a frame layer wants per CSS pixel of
 *                       the map: 1 while the frames play (the map's own detail, the
 *                       one its tiles and a tile-per-frame page load), the screen's
 *                       devicePixelRatio while the frame on screen stands still
 *   Matsite.beside(i, f, n)  frame i of n is frame f or one of the two beside it
 *                       (the next and the previous, round the loop)
 *   Matsite.fetchConcurrency(url)  fetches a loader keeps in flight, from the protocol
 *                       `url` (the manifest) came over: 6 over HTTP/1.1 (the browser's
 *                       connections to a host), 16 over HTTP/2 or 3, which multiplex
 * Plain functions of their input; load this before every file that uses them.
 */
(function (M) {
	'use strict';

	M.isNum = function (v) { return typeof v === 'number' && isFinite(v); };

	M.clamp01 = function (v) { return Math.max(0, Math.min(1, v)); };

	M.beside = function (i, f, n) { return i === f || i === (f + 1) % n || i === (f + n - 1) % n; };

	M.fetchConcurrency = function (url) {
		var entries = window.performance && performance.getEntriesByName ? performance.getEntriesByName(new URL(url, document.baseURI).href) : [];
		var protocol = entries.length ? entries[entries.length - 1].nextHopProtocol : '';
		return /^(h2|h3)/.test(protocol || '') ? 16 : 6;
	};

	M.detailRatio = function (still) { return still ? Math.max(1, window.devicePixelRatio || 1) : 1; };
}(window.Matsite = window.Matsite || {}));
