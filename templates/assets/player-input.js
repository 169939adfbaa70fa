/*
 * What reaches the player from outside its own code, checked before use:
 *   Matsite.parseParams(search)   the page's URL parameters -> player options
 *   Matsite.safeAttribution(html) attribution HTML -> text and http(s) links only
 *   Matsite.escapeText(s)         plain text -> HTML text
 *   Matsite.safeColor(s)          a legend colour (#rgb, #rrggbb, #rrggbbaa) or null
 * Nothing here touches the player; each is a plain function of its input.
 */
(function (M) {
	'use strict';

	// What a layer id (an animation's, a data layer's) can be.
	M.LAYER_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

	// Parses the URL parameters of the contract into player options.
	// autoplay=0|1, loop=0|1, speed=0.5|1|2, frame=first|last|now|N, controls=0|1, utc=0|1,
	// opacity=0..1, layers=ID,ID. Invalid values are left out, so the defaults stand.
	M.parseParams = function (search) {
		var p = new URLSearchParams(search || '');
		var o = {};
		var bool = function (k) {
			if (!p.has(k)) { return undefined; }
			var v = p.get(k);
			if (v === '1' || v === 'true' || v === '') { return true; }
			if (v === '0' || v === 'false') { return false; }
			return undefined;
		};
		var v;
		if ((v = bool('autoplay')) !== undefined) { o.autoplay = v; }
		if ((v = bool('loop')) !== undefined) { o.loop = v; }
		if ((v = bool('controls')) !== undefined) { o.controls = v; }
		if ((v = bool('utc')) !== undefined) { o.utc = v; }
		if (p.has('speed') && ['0.5', '1', '2'].indexOf(p.get('speed')) >= 0) { o.speed = Number(p.get('speed')); }
		if (p.has('frame')) {
			var f = p.get('frame');
			if (f === 'first' || f === 'last' || f === 'now') { o.frame = f; } else if (/^\d{1,6}$/.test(f)) { o.frame = Number(f); }
		}
		if (p.has('opacity') && /^(0(\.\d{1,4})?|1(\.0{1,4})?|\.\d{1,4})$/.test(p.get('opacity'))) {
			o.opacity = Number(p.get('opacity'));
		}
		if (p.has('layers')) {
			// The data layers shown; empty: none. Ids that cannot be layer ids are left out.
			o.layers = p.get('layers').split(',').filter(function (id) { return M.LAYER_ID.test(id); });
		}
		return o;
	};

	// Keeps only text and <a href="http(s)://..."> from attribution HTML. The build
	// already sanitizes it; this second pass means a hand-edited manifest cannot
	// inject markup either. It is a plain scan rather than DOMParser, which would
	// raise CSP reports for any handler attribute it merely parses.
	M.safeAttribution = function (html) {
		if (typeof html !== 'string' || !html) { return ''; }
		var text = function (s) {
			return s.replace(/&(?!(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z][a-z0-9]{1,31});)/gi, '&amp;')
				.replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
		};
		var attr = function (s) {
			return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
				.replace(/</g, '&lt;').replace(/>/g, '&gt;');
		};
		var out = '';
		var open = 0;
		var last = 0;
		var re = /<[^>]*>?/g;
		var m;
		while ((m = re.exec(html)) !== null) {
			out += text(html.slice(last, m.index));
			last = re.lastIndex;
			var a = /^<a\s(?:[^>]*?\s)?href\s*=\s*(?:"([^"<>]*)"|'([^'<>]*)')[^>]*>$/i.exec(m[0]);
			if (a) {
				var href = (a[1] !== undefined ? a[1] : a[2]).replace(/&quot;/g, '"').replace(/&#39;/g, '\'')
					.replace(/&amp;/g, '&');
				if (/^https?:\/\/[^\s"'<>`]+$/i.test(href)) {
					out += '<a href="' + attr(href) + '" rel="noopener noreferrer" target="_blank">';
					open++;
				}
			} else if (/^<\/a\s*>$/i.test(m[0]) && open > 0) {
				out += '</a>';
				open--;
			}
		}
		out += text(html.slice(last));
		while (open-- > 0) { out += '</a>'; }
		return out;
	};

	M.escapeText = function (s) {
		return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
			.replace(/"/g, '&quot;').replace(/'/g, '&#39;');
	};

	M.safeColor = function (s) {
		return typeof s === 'string' && /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(s) ? s : null;
	};
}(window.Matsite = window.Matsite || {}));
