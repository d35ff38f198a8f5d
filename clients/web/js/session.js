// The page's one session: the room it is in, its picture of that room, what
// the screens show of it, and what the page keeps between visits. app.js,
// navigation.js, announcements.js and the screens' wiring keep no variables
// of their own: what they change lives here.

import { RoomState } from './state.js';
import { Alerts } from './alerts.js';
import { Announcer } from './announcer.js';

// The person's choices, kept in this browser (localStorage, "gofish.*").
export const settings = {
  get: (key, fallback) => localStorage.getItem(`gofish.${key}`) ?? fallback,
  set: (key, value) => localStorage.setItem(`gofish.${key}`, String(value)),
};
export const savedName = () => localStorage.getItem('gofish.name') ?? '';

export class Session {
  constructor() {
    this.state = new RoomState();
    this.ui = {
      selected: null, selectedCard: null, fresh: new Set(), replay: null, replayStep: 0, transcript: null,
      transcriptHeld: null,   // { game, message }: the server holds this game's record (a shared deal still played)
      said: new Map(), reaction: null, myResult: null, story: [], chat: [], move: null, handOrder: null, compact: true,
      paused: null,   // { code, reason } until room_resumed
      moveHold: 0,    // until then (performance.now()) the player's own move, still arriving, is not drawn
      conn: 'connecting',   // the connection's status (connection.js): only 'online' lets the player play
    };
    this.welcome = null;
    this.current = null;       // { code, as, name } of the room this page is in (or is resuming)
    this.receivedV = -1;       // the last room version received (the picture may be behind it)
    // The render loop's own (app.js).
    this.renderQueued = false;
    this.drawnMove = null;     // the move renderLatest() put up in this frame, if any
    this.hadTurn = false;
    this.hadAsk = false;
    this.focusInMain = false;
    // Modules imported when first needed (in the built page, from its bundle).
    this.advanced = null;      // advanced.js, once the create screen has opened
    this.pauseView = null;     // pause.js, once a room has paused
    // The page's helpers. The pacer and the connection call into the other
    // modules, so app.js makes them; until then they are null.
    this.alerts = new Alerts(settings);
    this.announcer = new Announcer(() => document.getElementById('announcer'));
    this.pacer = null;
    this.conn = null;
    this.local = null;         // a game on this device (local-room.js), which answers the page instead of the server
    this.onMessage = () => {}; // app.js's: where the server's messages (or a local game's) go
    // app.js's render loop: draw now, or in the next frame.
    this.render = () => {};
    this.queueRender = () => {};
  }

  // A request about the room goes to the server, or to the game on this device.
  request(msg) { return (this.local ?? this.conn).request(msg); }

  isPaused() { return !!this.current && this.ui.paused?.code === this.current.code; }

  forgetPause() {
    this.ui.paused = null;
    this.conn.paused = false;
  }

  // Nothing of the room's picture is left: no queued moves, no snapshot, no
  // version (a spectator watching again starts from a new snapshot).
  clearPicture() {
    this.pacer.clear();
    this.state.reset();
    this.receivedV = -1;
  }

  // The page is now in `room` ({ code, as, name }), or in none (null): the
  // picture, the story, the chat, the choices and the alerts of the room
  // before are gone. A room_paused may come before a join's answer (held by
  // the pause), so a pause of the room being entered is kept.
  resetRoom(room) {
    this.clearPicture();
    Object.assign(this.ui, { story: [], chat: [], said: new Map(), reaction: null, myResult: null, move: null, transcript: null,
      transcriptHeld: null, daily: null, dailySaid: false, replay: null, selected: null, selectedCard: null, handOrder: null, compact: true });
    if (!room || this.ui.paused?.code !== room.code) this.forgetPause();
    this.current = room;
    this.alerts.clear();
  }

  // A player's picture outlives a reload of the page (sessionStorage).
  saveState() {
    const { state, ui } = this;
    if (!this.current || this.current.as !== 'player' || !state.room) return;
    const data = { room: state.room, v: state.v, gameLog: state.gameLog, ready: state.ready, players: state.players,
      wins: state.wins, story: ui.story.slice(0, 80), chat: ui.chat, said: [...ui.said], myResult: ui.myResult,
      move: ui.move };
    try { sessionStorage.setItem(`gofish.state.${state.room.code}`, JSON.stringify(data)); } catch { /* full: fine */ }
  }

  restoreState(code) {
    const { state, ui } = this;
    try {
      const data = JSON.parse(sessionStorage.getItem(`gofish.state.${code}`) ?? 'null');
      if (data?.room?.code !== code) return;
      Object.assign(state, { room: data.room, v: data.v, gameLog: data.gameLog ?? [], ready: data.ready ?? [],
        players: data.players ?? null, wins: data.wins ?? {} });
      if (state.room.game) Object.assign(state.room.game, { legal: null, improper: null });
      this.receivedV = data.v;
      ui.story = data.story ?? [];
      ui.chat = data.chat ?? [];
      ui.said = new Map(data.said ?? []);
      ui.myResult = data.myResult ?? null;
      // The middle of the table says what just happened, not nothing, until the next move.
      ui.move = data.move ?? null;
    } catch { /* start from a snapshot */ }
  }

  forgetStoredState(code) { sessionStorage.removeItem(`gofish.state.${code}`); }
}

export const session = new Session();
