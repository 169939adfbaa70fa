/*
 * The index page's script: each card's times in the reader's words (as the player writes
 * them: the reader's locale, in the animation's time_zone or else the reader's zone), and
 * the embed code's Copy button. Without it the page still works: times in UTC, the code
 * selectable by hand.
 */
(function () {
	'use strict';

	var FULL = {year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short'};
	var DAY = {year: 'numeric', month: 'short', day: 'numeric'};
	var CLOCK = {hour: 'numeric', minute: '2-digit', timeZoneName: 'short'};

	// A formatter in `zone`, or the reader's zone when that name is unknown here.
	function formatter(zone, options) {
		var opts = {};
		for (var k in options) { opts[k] = options[k]; }
		if (zone) {
			opts.timeZone = zone;
			try { return new Intl.DateTimeFormat(undefined, opts); } catch (e) { delete opts.timeZone; }
		}
		return new Intl.DateTimeFormat(undefined, opts);
	}

	function sayTimes(meta) {
		var zone = meta.getAttribute('data-time-zone') || undefined;
		var full = formatter(zone, FULL), day = formatter(zone, DAY), clock = formatter(zone, CLOCK);
		var previous = null;
		Array.prototype.forEach.call(meta.querySelectorAll('time[datetime]'), function (el) {
			var when = new Date(el.getAttribute('datetime'));
			if (isNaN(when.getTime())) { return; }
			// The second time of one day says the time only: "Nov 25, 2026, 6:10 AM EST to 7:10 AM EST".
			el.textContent = previous && day.format(previous) === day.format(when) ? clock.format(when) : full.format(when);
			previous = when;
		});
	}

	function copy(button) {
		var code = document.getElementById(button.getAttribute('data-copy'));
		var status = button.parentNode.querySelector('.matsite-copy-status');
		if (!code) { return; }
		// Selected either way, so Ctrl+C works when the clipboard refuses.
		var range = document.createRange();
		range.selectNodeContents(code);
		var selection = window.getSelection();
		selection.removeAllRanges();
		selection.addRange(range);
		function said(ok) {
			button.textContent = ok ? 'Copied' : 'Copy';
			if (status) { status.textContent = ok ? 'Copied to the clipboard' : 'Selected: press Ctrl+C (\u2318C) to copy'; }
			clearTimeout(button.matsiteTimer);
			button.matsiteTimer = setTimeout(function () {
				button.textContent = 'Copy';
				if (status) { status.textContent = ''; }
			}, 4000);
		}
		function byCommand() {
			try { return document.execCommand('copy'); } catch (e) { return false; }
		}
		if (navigator.clipboard && navigator.clipboard.writeText) {
			navigator.clipboard.writeText(code.textContent).then(function () { said(true); }, function () { said(byCommand()); });
		} else {
			said(byCommand());
		}
	}

	Array.prototype.forEach.call(document.querySelectorAll('.matsite-card-meta'), sayTimes);
	Array.prototype.forEach.call(document.querySelectorAll('button[data-copy]'), function (button) {
		button.hidden = false;
		button.addEventListener('click', function () { copy(button); });
	});
}());
