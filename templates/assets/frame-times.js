/*
 * Matsite.FrameTimes: words for the frames' times. Absolute labels use
 * Intl.DateTimeFormat (12 or 24 hours as the viewer's locale has it) in the
 * manifest's time_zone, the viewer's zone, or UTC; relative labels read
 * "12 minutes ago" against a clock that moves. The newest frame says so.
 * It draws nothing; the player passes label() to the control.
 */
(function (L, M) {
	'use strict';

	var MODES = ['absolute', 'relative', 'both'];

	M.FrameTimes = L.Class.extend({
		options: {
			// @option timeZone: String = undefined
			// IANA zone for absolute labels; undefined: the viewer's. An unknown name falls back to the viewer's.
			timeZone: undefined,
			// @option utc: Boolean = false
			// Absolute labels in UTC (the utc=1 parameter); wins over timeZone.
			utc: false,
			// @option mode: String = 'absolute'
			// 'absolute', 'relative' or 'both'.
			mode: 'absolute',
			// @option now: Function = Date.now
			now: null
		},

		// times: each frame's time in ms since the epoch, or null.
		initialize: function (times, options) {
			L.setOptions(this, options);
			this._times = times;
			this._mode = MODES.indexOf(this.options.mode) >= 0 ? this.options.mode : 'absolute';
			var newest = -1;
			times.forEach(function (t, i) { if (t !== null && (newest < 0 || t >= times[newest])) { newest = i; } });
			this._newest = newest;
			this._absolute = this._makeFormatter();
			try {
				this._relative = new Intl.RelativeTimeFormat(undefined, {numeric: 'auto'});
			} catch (e) {
				this._relative = null;
			}
		},

		// Whether labels change as time passes (a relative part is shown).
		isLive: function () {
			return this._mode !== 'absolute' && this._newest >= 0 && !!this._relative;
		},

		newest: function () { return this._newest; },

		// The time zone absolute labels are in (resolved), for tests and titles.
		timeZone: function () {
			return this._absolute ? this._absolute.resolvedOptions().timeZone : undefined;
		},

		format: function (ms) {
			return this._absolute ? this._absolute.format(new Date(ms)) : new Date(ms).toISOString();
		},

		label: function (index) {
			var t = this._times[index];
			var n = this._times.length;
			if (t === null || t === undefined) { return 'Frame ' + (index + 1) + ' of ' + n; }
			var text;
			if (this._mode === 'absolute' || !this._relative) {
				text = this.format(t);
			} else if (this._mode === 'relative') {
				text = this.relative(t);
			} else {
				text = this.format(t) + ' (' + this.relative(t) + ')';
			}
			return index === this._newest ? text + ' \u00b7 newest' : text;
		},

		// "12 minutes ago", "2 hours ago", "now"; minutes up to an hour and a half.
		relative: function (ms) {
			var now = this.options.now ? this.options.now() : Date.now();
			var minutes = Math.round((ms - now) / 60000);
			var r = this._relative;
			if (minutes === 0) { return r.format(0, 'second'); }
			if (Math.abs(minutes) < 90) { return r.format(minutes, 'minute'); }
			var hours = Math.round(minutes / 60);
			if (Math.abs(hours) < 48) { return r.format(hours, 'hour'); }
			return r.format(Math.round(hours / 24), 'day');
		},

		_makeFormatter: function () {
			var opts = {year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit',
				timeZoneName: 'short'};
			var zones = this.options.utc ? ['UTC'] : [this.options.timeZone, undefined];
			for (var i = 0; i < zones.length; i++) {
				if (typeof zones[i] === 'string' && zones[i]) { opts.timeZone = zones[i]; } else { delete opts.timeZone; }
				try {
					return new Intl.DateTimeFormat(undefined, opts);
				} catch (e) { /* an unknown zone name: try the next */ }
			}
			return null;
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
