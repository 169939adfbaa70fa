/*
 * Matsite.EmbedApi: the postMessage protocol of the embed page.
 *
 * To the player:   {"type":"matsite:play"}  {"type":"matsite:pause"}
 *                  {"type":"matsite:seek","frame":N}  {"type":"matsite:seek","time":"ISO 8601"}
 *                  {"type":"matsite:seek","frame":"now"}  (the frame now follows)
 *                  {"type":"matsite:opacity","value":0..1}
 *                  {"type":"matsite:layer","id":"radar","visible":true,"opacity":0.6}
 *                  (a data layer: id and either or both of visible, opacity)
 * From the player: {"type":"matsite:ready","frames":N}
 *                  {"type":"matsite:frame","index":N,"time":"..."}   (time only when the frame has one;
 *                  with forecast frames also "kind":"observed|forecast", and "run":"ISO" on a
 *                  forecast frame that names its run)
 *                  {"type":"matsite:state","state":"loading|ready|playing|paused"}
 *                  {"type":"matsite:layer","id":"radar","visible":true,"opacity":0.6}
 *                  (a data layer's visibility or opacity changed, by the viewer or a command)
 *
 * Safety rules:
 * - A message is honoured only when its origin is allowed by the manifest's
 *   embed.allowed_origins ("*" allows any origin, otherwise exact origins).
 * - Messages are plain objects (or JSON text of one) checked against a fixed
 *   schema: known type, only the keys that type takes, values of the right kind
 *   and range. Nothing received is ever evaluated or inserted as markup.
 * - Nothing is ever posted with targetOrigin "*". A command is answered with
 *   one state message at the sender's exact origin: the state event the command
 *   caused, when that reached the sender, else the current state. Events go to the parent page's
 *   origin as given by document.referrer when that origin is allowed, and to
 *   any allowed origin that has sent a valid command from the parent window.
 *   With no referrer and no command yet, events are not sent.
 */
(function (L, M) {
	'use strict';

	var ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
	var KEYS = {
		'matsite:play': [],
		'matsite:pause': [],
		'matsite:seek': null, // exactly one of frame, time
		'matsite:opacity': null, // exactly value, a number from 0 to 1
		'matsite:layer': null // id, and visible (boolean) and/or opacity (0 to 1)
	};

	function plainObject(v) {
		return v !== null && typeof v === 'object' && Object.prototype.toString.call(v) === '[object Object]' &&
			(Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null);
	}

	function originOf(url) {
		try {
			var o = new URL(url).origin;
			return o === 'null' ? null : o;
		} catch (e) {
			return null;
		}
	}

	M.EmbedApi = L.Class.extend({
		options: {
			// @option allowedOrigins: String[] = ['*']
			// Origins whose commands are honoured; '*' means any.
			allowedOrigins: ['*']
		},

		// player: a Matsite.Player (play/pause/seek/seekTime, events frame/state/ready).
		initialize: function (player, options) {
			L.setOptions(this, options);
			this._player = player;
			this._parent = window.parent !== window ? window.parent : null;
			this.setAllowedOrigins(this.options.allowedOrigins);
			this._onMessageBound = this._onMessage.bind(this);
			window.addEventListener('message', this._onMessageBound);
			player.on('ready', function (e) { this._broadcast({type: 'matsite:ready', frames: e.frames}); }, this);
			player.on('frame', function (e) {
				var msg = {type: 'matsite:frame', index: e.index};
				if (typeof e.time === 'string') { msg.time = e.time; }
				if (typeof e.kind === 'string') { msg.kind = e.kind; }
				if (typeof e.run === 'string') { msg.run = e.run; }
				this._broadcast(msg);
			}, this);
			player.on('layer', function (e) {
				if (typeof e.id !== 'string') { return; }
				this._broadcast({type: 'matsite:layer', id: e.id, visible: e.visible !== false,
					opacity: typeof e.opacity === 'number' ? e.opacity : 1});
			}, this);
			player.on('state', function (e) {
				this._broadcast({type: 'matsite:state', state: e.state});
				// The command being handled, if any, has had its answer with this event.
				if (this._command) { this._command.told = true; }
			}, this);
		},

		// list: origins whose commands are honoured; '*' means any.
		setAllowedOrigins: function (list) {
			list = Array.isArray(list) ? list : ['*'];
			this._any = list.indexOf('*') >= 0;
			this._allowed = list.filter(function (o) { return typeof o === 'string' && o !== '*'; });
			this._targets = [];
			var ref = document.referrer ? originOf(document.referrer) : null;
			if (this._parent && ref && this._isAllowed(ref)) { this._targets.push(ref); }
			return this;
		},

		remove: function () {
			window.removeEventListener('message', this._onMessageBound);
		},

		_isAllowed: function (origin) {
			if (typeof origin !== 'string' || origin === '') { return false; }
			return this._any || this._allowed.indexOf(origin) >= 0;
		},

		_onMessage: function (e) {
			if (!this._isAllowed(e.origin)) { return; }
			var cmd = this._check(e.data);
			if (!cmd) { return; }
			var p = this._player;
			var exact = e.origin !== 'null' ? e.origin : null;
			// A state event broadcast while the command runs reaches the parent page at its
			// origin: when that is the sender, it is the answer, not sent a second time.
			var command = this._command = {
				told: false,
				heard: !!(exact && e.source && e.source === this._parent && this._targets.indexOf(exact) >= 0)
			};
			if (cmd.type === 'matsite:play') {
				p.play();
			} else if (cmd.type === 'matsite:pause') {
				p.pause();
			} else if (cmd.type === 'matsite:opacity') {
				p.setOpacity(cmd.value);
			} else if (cmd.type === 'matsite:layer') {
				p.setLayer(cmd.id, cmd);
			} else if (cmd.frame === 'now') {
				p.seek(Math.max(0, p.nowIndex()));
			} else if ('frame' in cmd) {
				p.seek(cmd.frame);
			} else {
				p.seekTime(cmd.time);
			}
			this._command = null;
			if (exact && e.source && e.source === this._parent && this._targets.indexOf(exact) < 0) {
				this._targets.push(exact);
			}
			if (command.told && command.heard) { return; }
			if (exact && e.source && typeof e.source.postMessage === 'function') {
				e.source.postMessage({type: 'matsite:state', state: p.state()}, exact);
			}
		},

		// Returns a fresh, validated command object or null.
		_check: function (data) {
			if (typeof data === 'string') {
				if (data.length > 1024) { return null; }
				try { data = JSON.parse(data); } catch (err) { return null; }
			}
			if (!plainObject(data) || typeof data.type !== 'string' || !(data.type in KEYS) ||
				!Object.prototype.hasOwnProperty.call(KEYS, data.type)) {
				return null;
			}
			var keys = Object.keys(data);
			if (data.type === 'matsite:opacity') {
				var v = data.value;
				if (keys.length !== 2 || typeof v !== 'number' || !isFinite(v) || v < 0 || v > 1) { return null; }
				return {type: data.type, value: v};
			}
			if (data.type === 'matsite:layer') {
				return this._checkLayer(data, keys);
			}
			if (data.type !== 'matsite:seek') {
				return keys.length === 1 ? {type: data.type} : null;
			}
			if (keys.length !== 2) { return null; }
			if (keys.indexOf('frame') >= 0) {
				var n = this._player.frameCount();
				var f = data.frame;
				if (f === 'now') { return {type: data.type, frame: f}; }
				if (typeof f !== 'number' || !Number.isInteger(f) || f < 0 || (n > 0 && f >= n)) { return null; }
				return {type: data.type, frame: f};
			}
			if (keys.indexOf('time') >= 0) {
				var t = data.time;
				if (typeof t !== 'string' || t.length > 40 || !ISO.test(t) || !isFinite(Date.parse(t))) { return null; }
				return {type: data.type, time: t};
			}
			return null;
		},

		_checkLayer: function (data, keys) {
			var cmd = {type: data.type, id: data.id};
			if (typeof data.id !== 'string' || !M.LAYER_ID.test(data.id)) { return null; }
			var known = keys.every(function (k) { return k === 'type' || k === 'id' || k === 'visible' || k === 'opacity'; });
			if (!known || keys.length < 3) { return null; }
			if ('visible' in data) {
				if (typeof data.visible !== 'boolean') { return null; }
				cmd.visible = data.visible;
			}
			if ('opacity' in data) {
				var v = data.opacity;
				if (typeof v !== 'number' || !isFinite(v) || v < 0 || v > 1) { return null; }
				cmd.opacity = v;
			}
			return cmd;
		},

		_broadcast: function (msg) {
			if (!this._parent) { return; }
			var parent = this._parent;
			this._targets.forEach(function (origin) { parent.postMessage(msg, origin); });
		}
	});
}(window.L, window.Matsite = window.Matsite || {}));
