/*
 * Matsite.FrameTimes: words for the frames' times. Absolute labels use
 * Intl.DateTimeFormat (12 or 24 hours as the viewer's locale has it) in the
 * manifest's time_zone, the viewer's zone, or UTC; relative labels read
 * "12 minutes ago" against a clock that moves. The newest frame says so.
 * With forecast frames (a manifest with `now` and frames of kind "forecast"), a
 * forecast frame's label says so, how far from the manifest's now it is and the
 * run it comes from ("Forecast, in 30 minutes · 11:30 AM UTC · run 10:00 AM UTC"),
 * and the newest observed frame is the one marked.
 * It draws nothing; the player passes label() to the control. Its formatters are made
 * when a label first needs one: a page's first Intl object costs 40-130 ms on a slow
 * phone, and a loop whose frames have no times ("Frame 3 of 24") needs none.
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
			now: null,
			// @option forecast: Boolean[] = null
			// Per frame, whether it is a forecast (the manifest's kind "forecast").
			forecast: null,
			// @option runs: Number[] = null
			// Per frame, the run (ms since the epoch) a forecast frame comes from, or null.
			runs: null,
			// @option issued: Number = null
			// The manifest's now (ms since the epoch): what "in 30 minutes" counts from.
			issued: null
		},

		// times: each frame's time in ms since the epoch, or null.
		initialize: function (times, options) {
			L.setOptions(this, options);
			this._times = times;
			this._mode = MODES.indexOf(this.options.mode) >= 0 ? this.options.mode : 'absolute';
			var forecast = this._forecast = times.map(function (t, i) {
				return !!(options && options.forecast && options.forecast[i]);
			});
			// The newest frame marked: with forecasts, the newest observed one.
			var newest = -1;
			times.forEach(function (t, i) {
				if (t !== null && !forecast[i] && (newest < 0 || t >= times[newest])) { newest = i; }
			});
			this._newest = newest;
			this._newestWord = forecast.indexOf(true) >= 0 ? 'newest observed' : 'newest';
			// Made on first use (_abs, _clockFormat, _rel): undefined until then, null if none can be.
			this._absolute = this._clock = this._relative = undefined;
		},

		_abs: function () {
			if (this._absolute === undefined) { this._absolute = this._makeFormatter(); }
			return this._absolute;
		},

		_clockFormat: function () {
			if (this._clock === undefined) { this._clock = this._makeFormatter(true); }
			return this._clock;
		},

		_rel: function () {
			if (this._relative === undefined) {
				try {
					this._relative = new Intl.RelativeTimeFormat(undefined, {numeric: 'auto'});
				} catch (e) {
					this._relative = null;
				}
			}
			return this._relative;
		},

		// Whether labels change as time passes (a relative part is shown).
		isLive: function () {
			return this._mode !== 'absolute' && this._newest >= 0 && !!this._rel();
		},

		newest: function () { return this._newest; },

		// The time zone absolute labels are in (resolved), for tests and titles.
		timeZone: function () {
			var f = this._abs();
			return f ? f.resolvedOptions().timeZone : undefined;
		},

		format: function (ms) {
			var f = this._abs();
			return f ? f.format(new Date(ms)) : new Date(ms).toISOString();
		},

		label: function (index) {
			var t = this._times[index];
			var n = this._times.length;
			if (t === null || t === undefined) { return 'Frame ' + (index + 1) + ' of ' + n; }
			if (this._forecast[index]) { return this._forecastLabel(index); }
			var text;
			if (this._mode === 'absolute' || !this._rel()) {
				text = this.format(t);
			} else if (this._mode === 'relative') {
				text = this.relative(t);
			} else {
				text = this.format(t) + ' (' + this.relative(t) + ')';
			}
			return index === this._newest ? text + ' \u00b7 ' + this._newestWord : text;
		},

		// Whether a frame is a forecast.
		isForecast: function (index) { return !!this._forecast[index]; },

		// "Forecast, in 30 minutes · 11:30 AM UTC · run 10:00 AM UTC": how far from the
		// manifest's now (absent without one), the time unless the labels are relative only,
		// the run when the frame names one. The times say their date only when it is not
		// the day of now (of the frame, for the run): short enough for one line of the bar.
		_forecastLabel: function (index) {
			var t = this._times[index], issued = this.options.issued;
			var parts = [];
			parts.push(this._rel() && M.isNum(issued) ? 'Forecast, ' + this.relative(t, issued) : 'Forecast');
			if (this._mode !== 'relative' || !this._rel() || !M.isNum(issued)) { parts.push(this.near(t, issued)); }
			var run = this.options.runs ? this.options.runs[index] : null;
			if (M.isNum(run)) { parts.push('run ' + this.near(run, t)); }
			return parts.join(' \u00b7 ');
		},

		// A time as the labels' zone has it: the clock ("10:00 AM UTC") when it falls on the
		// day of `ref` (ms), else with its date as other labels.
		near: function (ms, ref) {
			var clock = this._clockFormat();
			if (!clock) { return this.format(ms); }
			return M.isNum(ref) && this._day(ms) === this._day(ref) ? clock.format(new Date(ms)) : this.format(ms);
		},

		_day: function (ms) {
			var parts = this._abs().formatToParts(new Date(ms));
			return parts.filter(function (p) { return p.type === 'year' || p.type === 'month' || p.type === 'day'; })
				.map(function (p) { return p.value; }).join('-');
		},

		// "12 minutes ago", "2 hours ago", "now", "in 30 minutes"; minutes up to an hour and a
		// half. Counted from `from` (ms since the epoch) when given, else from the clock.
		relative: function (ms, from) {
			var now = M.isNum(from) ? from : this.options.now ? this.options.now() : Date.now();
			var minutes = Math.round((ms - now) / 60000);
			var r = this._rel();
			if (minutes === 0) { return r.format(0, 'second'); }
			if (Math.abs(minutes) < 90) { return r.format(minutes, 'minute'); }
			var hours = Math.round(minutes / 60);
			if (Math.abs(hours) < 48) { return r.format(hours, 'hour'); }
			return r.format(Math.round(hours / 24), 'day');
		},

		// The labels' formatter; `clockOnly`: hours and minutes with the zone, no date.
		_makeFormatter: function (clockOnly) {
			var opts = clockOnly ? {hour: 'numeric', minute: '2-digit', timeZoneName: 'short'} :
				{year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short'};
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
