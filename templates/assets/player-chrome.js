/*
 * Matsite.Player, chrome: what surrounds the map: the control bar
 * (Matsite.PlayerControl) and what its buttons command, the legend, the layers
 * control of an animation with data layers, the time label, the keys (Space,
 * Left/Right, Home/End) and full screen.
 *
 * A mixin (Matsite.PlayerChrome) the class takes in with `includes`: load it
 * before player.js.
 */
(function (L, M) {
	'use strict';

	M.PlayerChrome = {
		// The control bar, the legend over it and, for data layers, the layers control.
		_addControls: function (m) {
			var o = this.options, initial = this._initial;
			this._control = new M.PlayerControl(this._root, {
				count: m.frames.length,
				label: this._timeWords.label.bind(this._timeWords),
				note: this._note.bind(this),
				spare: this._spareNote.bind(this),
				fullscreen: true,
				newest: this._timeWords.newest(),
				forecastFrom: this._forecastFrom,
				nowIndex: this._nowIndex
			});
			this._legend = new M.Legend(m.legend, m.skipped, this._timeWords.format.bind(this._timeWords), this._resolve.bind(this))
				.addTo(this._root, this._control.getContainer());
			this._addLayersControl(this._overlay, initial);
			this._control.update({index: initial, playing: false, speed: o.speed, loop: o.loop, opacity: this._opacity});
		},

		// The control bar's commands, the keys, full screen, and relative time labels kept current.
		_listenControls: function () {
			var self = this;
			this._control.on('toggle', this.toggle, this);
			this._control.on('step', function (e) { if (this._clock) { this._clock.step(e.delta); } }, this);
			this._control.on('seek', function (e) { this.seek(e.index); }, this);
			this._control.on('speed', function (e) { if (this._clock) { this._clock.setSpeed(e.speed); } }, this);
			this._control.on('loop', function (e) { if (this._clock) { this._clock.setLoop(e.loop); } }, this);
			this._control.on('opacity', function (e) { this.setOpacity(e.value); }, this);
			this._control.on('fullscreen', this._toggleFullscreen, this);
			this._listen(this._root, 'keydown', this._onKey.bind(this));
			this._listen(document, 'fullscreenchange', function () {
				self._control.setFullscreen(document.fullscreenElement === self._root);
				self._map.invalidateSize();
			});
			if (this._timeWords.isLive()) {
				// Relative labels ("12 minutes ago") move on by themselves, without being announced.
				var timer = setInterval(function () {
					if (self._control) { self._control.update({index: self.index(), quiet: true}); }
				}, 15000);
				this._cleanup.push(function () { clearInterval(timer); });
			}
		},

		// The layers control of an animation with data layers, over the legend strip; none
		// for an animation of one source (its frame layer has no setLayer).
		_addLayersControl: function (stack, initial) {
			if (!stack.setLayer) { return; }
			// Each layer has its own opacity there; the bar's one would read as a third.
			L.DomUtil.addClass(this._root, 'matsite-has-layers');
			var control = this._layersControl = new M.LayersControl(stack.layers(),
				this._timeWords.format.bind(this._timeWords), this._resolve.bind(this))
				.addTo(this._root, this._legend.getContainer() || this._control.getContainer());
			var noData = function (i) {
				control.setNoData(stack.noData(i).map(function (l) { return l.id; }));
			};
			control.on('layer', function (e) { this.setLayer(e.id, e); }, this);
			stack.on('layer', function (e) {
				control.update(e.id, e);
				noData(this.index());
				// The time label names the shown layers without data.
				this._control.update({index: this.index(), quiet: true});
				this.fire('layer', e);
			}, this);
			this.on('frame', function (e) { noData(e.index); });
			noData(initial);
		},

		// Which shown layers have no data at step i ("Satellite: no data"), or ''.
		_note: function (i) {
			var none = this._overlay.noData ? this._overlay.noData(i) : [];
			return none.map(function (l) { return l.title + ': no data'; }).join(', ');
		},

		// The loop's longest time label with its longest note, or '' when no step has one: the
		// time label keeps that room at every step, so a layer whose newest frames are late
		// says so without the bar growing and the map shrinking under it at those steps (a
		// blink at every loop on a phone).
		_spareNote: function () {
			var label = '', note = '';
			for (var i = 0; this._overlay.noData && i < this._manifest.frames.length; i++) {
				var l = this._timeWords.label(i), n = this._note(i);
				if (l.length > label.length) { label = l; }
				if (n.length > note.length) { note = n; }
			}
			return note ? label + ' \u00b7 ' + note : '';
		},

		_onKey: function (e) {
			if (!this._clock || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) { return; }
			var t = e.target;
			var tag = t && t.tagName;
			if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') { return; }
			var n = this._manifest.frames.length;
			switch (e.key) {
			case ' ':
			case 'Spacebar':
				// A focused button handles Space itself (click).
				if (tag === 'BUTTON') { return; }
				this.toggle();
				break;
			case 'ArrowLeft':
			case 'Left':
				this._clock.step(-1);
				break;
			case 'ArrowRight':
			case 'Right':
				this._clock.step(1);
				break;
			case 'Home':
				this._clock.seek(0);
				break;
			case 'End':
				this._clock.seek(n - 1);
				break;
			default:
				return;
			}
			e.preventDefault();
		},

		_toggleFullscreen: function () {
			if (document.fullscreenElement) {
				document.exitFullscreen();
			} else if (this._root.requestFullscreen) {
				this._root.requestFullscreen().catch(function () { /* refused by the browser */ });
			}
		}
	};
}(window.L, window.Matsite = window.Matsite || {}));
