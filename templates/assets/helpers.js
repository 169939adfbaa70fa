/*
 * Small helpers the player's files share, each written once here:
 *   Matsite.isNum(v)    v is a finite number
 *   Matsite.clamp01(v)  v held within 0..1
 * Plain functions of their input; load this before every file that uses them.
 */
(function (M) {
	'use strict';

	M.isNum = function (v) { return typeof v === 'number' && isFinite(v); };

	M.clamp01 = function (v) { return Math.max(0, Math.min(1, v)); };
}(window.Matsite = window.Matsite || {}));
