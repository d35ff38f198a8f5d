// The page's loop: what the server sends goes through the pacer into the
// picture of the room (session.js), and each change is drawn in the next
// frame. The rest has a module of its own: entering and leaving rooms
// (navigation.js), what the page tells of what happens (announcements.js)
// and shows of it for the eyes (effects.js), and the clicks and keys of each
// screen (home-screen.js, create-screen.js, invite-screen.js,
// waiting-screen.js, table-screen.js, side-panel.js, over-screen.js,
// top-bar.js).

import { Connection } from './connection.js';
import { Pacer } from './pacer.js';
import { choices } from './decisions.js';
import { possessive } from './narrate.js';
import { placeChat, rememberFocus, renderChat, renderOver, renderWaiting, restoreFocus, showError,
  showScreen } from './screens.js';
import { renderMe, renderSeats } from './table.js';
import { el } from './dom.js';
import { session, settings, savedName } from './session.js';
import { addChat, addStory, onMove, tellRoomEvent } from './announcements.js';
import { celebrate, fly } from './effects.js';
import { forgetRoom, onReady, pauseRoom, renderPause, resumeRoom, resync, roomPath, showGone, startPage,
  wireNavigation } from './navigation.js';
import { wireHome } from './home-screen.js';
import { wireCreate } from './create-screen.js';
import { wireInvite } from './invite-screen.js';
import { wireWaiting } from './waiting-screen.js';
import { wireTable } from './table-screen.js';
import { wireSide } from './side-panel.js';
import { fetchTranscript, makeReplay, wireOver } from './over-screen.js';
import { contributeAgain, contributeOnce } from './contribute.js';
import { wireTopBar } from './top-bar.js';
import { classEntry, classroom } from './class-loader.js';
import { kLocalCode, resumeLocal, savedLocal, warmLocal } from './local-play.js';
import { keepForOffline } from './offline-cache.js';

const $ = (id) => document.getElementById(id);
const { state, ui, alerts, announcer } = session;

const pacer = new Pacer({
  pace: Number(settings.get('pace', '1000')),
  apply: applyItem,
  onMove,
  onChange: queueRender,
  onIdle: () => { queueRender(); },
  mine: (ev) => ev.type === 'asked' && ev.seat === state.you && state.you !== null,
});
// What the connection last said (onStatus), for the top bar's badge.
let connShown = { status: 'connecting', text: 'Connecting…' };
const conn = new Connection({ onMessage, onStatus, onReady });
Object.assign(session, { pacer, conn, render, queueRender, onMessage });
// For people debugging in the console, and the tests.
window.gofish = { state, ui, conn, pacer, announcer, render, choices: () => choices(state), local: () => session.local,
  // The over screen's deal check (fairness.js), for a transcript of one's own.
  checkDeal: async (transcript) => (await import('./fairness.js')).checkTranscript(transcript) };

// ---------------------------------------------------------------- connection

// The top bar's badge: the connection's state, or, while a game is played on
// this device (offline, or pass and play while the server is reachable), where
// it is played: that game does not depend on the server, so the badge raises
// no alarm and claims no connection for it.
function paintConn() {
  const { status, text } = connShown;
  const local = !!session.local;
  const badge = $('conn');
  badge.className = `conn ${local ? 'local' : status}`;
  badge.querySelector('.conn-text').textContent = local ? 'On this device' : text;
  const retry = $('conn-retry');
  // Offered whenever the page is not connected, except while its very first connection is made.
  retry.hidden = status === 'online' || (status === 'connecting' && !conn.everReady) || local;
  retry.textContent = status === 'replaced' ? 'Play in this window' : 'Retry now';
}
session.paintConn = paintConn;

function onStatus(status, text) {
  // The table takes the hand out of play while the connection is not online.
  if (ui.conn !== status) { ui.conn = status; queueRender(); }
  connShown = { status, text };
  paintConn();
  // No server at the first try (no network): the start page shows anyway,
  // where "Play with the computer" plays on this device.
  if (status === 'offline' && !conn.everReady && !session.shownOffline) {
    session.shownOffline = true;
    if (!session.current && !document.body.dataset.screen) startPage();
    warmLocal();
  }
}

function onMessage(msg) {
  const current = session.current;
  switch (msg.type) {
    case 'room_paused':
      pauseRoom(msg.code, msg.reason);
      break;
    case 'room_resumed':
      resumeRoom(msg.code);
      if (current?.code === msg.code && current.as === 'player') contributeAgain((m) => session.conn.request(m));
      break;
    case 'room':
      if (!current || msg.code !== current.code) return;
      // A seat's share of the next deal (docs/FAIRNESS.md), sent before anything else can start it.
      if (msg.next_deal && msg.you !== null) contributeOnce(msg.next_deal.commitment, (m) => session.conn.request(m));
      session.receivedV = msg.v;
      pacer.push({ kind: 'room', msg });
      break;
    case 'event': {
      if (!current || session.receivedV < 0) return;
      if (msg.v <= session.receivedV) return;
      if (msg.v > session.receivedV + 1 && current.as === 'player') {
        resync(session.receivedV);   // a gap: the server replays what was missed
        return;
      }
      session.receivedV = msg.v;
      if (msg.event.type === 'chat') addChat(msg.event);
      if (msg.event.type === 'deal_committed' && current.as === 'player') {
        contributeOnce(msg.event.commitment, (m) => session.conn.request(m));
      }
      pacer.push({ kind: 'event', v: msg.v, event: msg.event });
      break;
    }
    case 'turn':
      if (current && msg.v >= 0) pacer.push({ kind: 'turn', msg });
      break;
    case 'daily_result':
      // Today's deal, counted: shown (and read out) on the game-over screen.
      if (current) { ui.daily = msg; queueRender(); }
      break;
    case 'room_closed':
      if (current) {
        forgetRoom(current.code);
        showGone('This room has closed', msg.message ?? 'Everyone has left, so the room is closed. Start a new game from the start page!');
      }
      break;
    case 'error':
      if (msg.code === 'room/kicked' && current) {
        const code = current.code;
        forgetRoom(code);
        localStorage.setItem(`gofish.kicked.${code}`, '1');
        showGone('The host removed you from the room', `The host of room ${code} removed you, so you can't play there any more. ` +
          'You can start a new game from the start page!');
      } else if (msg.code !== 'room/paused') {
        showError(msg.message);
      }
      break;
    default:
      // A class's messages (event_state, event_seat, event_message ..., and the
      // coaching view's table_view) go to its screens.
      if (typeof msg.type === 'string' && (msg.type.startsWith('event_') || msg.type === 'table_view')) classroom().then((c) => c.onMessage(msg));
      break;
  }
}

// ---------------------------------------------------------------- the paced picture

function applyItem(item) {
  if (item.kind === 'room') {
    const msg = item.msg;
    state.applySnapshot(msg);
    if (msg.players?.length) state.players = msg.players;
    else if (!state.players && msg.seats) state.players = msg.seats.map((s) => ({ name: s.name, bot: s.bot }));
    // A record the server holds (a shared deal still played elsewhere) is
    // asked for again only by a later page: its sentence says when.
    if (msg.state === 'over' && !ui.transcript && ui.transcriptHeld?.game !== msg.game_number) fetchTranscript();
    // Came in during a game (watching, or a seat resumed on another device):
    // the story starts here rather than sitting empty.
    if (msg.state === 'playing' && ui.story.length === 0) {
      addStory(null, `Game ${msg.game_number} was under way when you came in.`, 'game');
    }
    // Nor does the middle of the table: it says whose turn it is until the next move.
    const g = state.room?.game;
    if (msg.state === 'playing' && !ui.move && g) {
      const whose = g.to_act === state.you ? 'your turn' : `${possessive(state.nameOf(g.to_act))} turn`;
      ui.move = { id: 'came-in', text: `Game ${msg.game_number} is under way: it's ${whose}.` };
    }
    return;
  }
  if (item.kind === 'turn') {
    // The decision's effects are complete; this seat learns its options.
    state.applyTurn(item.msg);
    ui.moveHold = 0;
    announcer.flush();
    return;
  }
  const ev = item.event;
  if (!state.applyEvent(item.v, ev)) return;
  const you = state.you;
  if ((ev.type === 'gave' && ev.to === you) || (ev.type === 'drew' && ev.seat === you && ev.card)) {
    for (const c of ev.cards ?? [ev.card]) ui.fresh.add(c);
  }
  if (ev.type === 'gave') fly(ev.from, ev.to, ev.cards.length);
  if (ev.type === 'drew') fly('pond', ev.seat, 1);
  if (ev.type === 'set_laid') celebrate(ev.seat);
  if (ev.type === 'game_started') {
    ui.transcript = null; ui.transcriptHeld = null; ui.replay = null; ui.replayStep = 0; ui.said.clear(); ui.reaction = null;
    ui.myResult = null; ui.selected = null; ui.selectedCard = null; ui.compact = true;
    addStory(null, `Game ${ev.game}`, 'game');
  }
  if (ev.type === 'game_over') fetchTranscript();
  tellRoomEvent(ev);
}

// ---------------------------------------------------------------- render

function queueRender() {
  if (session.renderQueued) return;
  session.renderQueued = true;
  requestAnimationFrame(() => { session.renderQueued = false; render(); });
  // A hidden tab gets no animation frames; draw anyway.
  setTimeout(() => { if (session.renderQueued) { session.renderQueued = false; render(); } }, 100);
}

function render() {
  const room = state.room;
  if (!room || !session.current) { renderPause(); return; }
  session.saveState();
  $('room-label').textContent = room.code === kLocalCode ? 'On this device' : `Room ${room.code}`;
  let screen = room.state === 'waiting' ? 'waiting' : room.state === 'over' ? 'over' : 'table';
  if (ui.starting && screen === 'waiting') screen = 'table-wait';
  // A class's pupil goes back to waiting for the next round when a game ends.
  if (session.klass?.role === 'pupil' && screen !== 'table') screen = session.klass.gameOver(room) ?? screen;
  const focus = rememberFocus(session.focusInMain);
  if (screen === 'waiting') renderWaiting(state, session.welcome);
  const paused = session.isPaused();
  const offer = pacer.busy || ui.sending || paused || (ui.conn !== 'online' && !session.local) ? null : choices(state);
  if (ui.selected && !offer?.ask?.ranks.includes(ui.selected) && !offer?.declare?.includes(ui.selected)) {
    ui.selected = null;
    ui.selectedCard = null;
  }
  if (room.game) {
    renderSeats(state, ui, offer);
    renderMe(state, ui, offer);
    renderLatest();
  }
  if (screen === 'over') {
    if (ui.transcript && ui.replay === null) makeReplay();
    renderOver(state, ui);
    if (paused) $('rematch').setAttribute('aria-disabled', 'true');
  }
  renderStory();
  renderChat(state, ui, session.welcome);
  turnAlert(offer);
  if (screen !== 'table-wait') {
    const changed = document.body.dataset.screen !== screen;
    showScreen(screen);
    placeChat(screen);
    restoreFocus(focus, changed);
    if (changed) scrollTo(0, 0);   // a screen opens at its top, the top bar in full
  }
  renderPause();
  // When the page starts waiting for your ask, a keyboard is already on your cards.
  const canAsk = !!offer?.ask && !offer.ask.outOfTurn && !ui.selected;
  if (canAsk && !session.hadAsk && screen === 'table') {
    const a = document.activeElement;
    if (!a || a === document.body || a === $('prompt') || $('hand').contains(a)) {
      document.querySelector('#hand .rank-group[aria-disabled="false"]')?.focus({ preventScroll: true });
    }
  }
  session.hadAsk = canAsk;
  ui.fresh.clear();
  // A move's time on screen starts once this frame is drawn, after the rest of it.
  if (session.drawnMove !== null) pacer.shown(session.drawnMove);
  session.drawnMove = null;
}

function renderLatest() {
  const latest = $('latest');
  const wait = ui.moveHold - performance.now();
  if (wait > 0) {
    setTimeout(queueRender, wait);
    return;
  }
  const text = ui.move?.text ?? '';
  if (latest.textContent !== text) latest.textContent = text;
  const id = String(ui.move?.id ?? '');
  if (latest.dataset.move !== id) {
    latest.dataset.move = id;
    if (ui.move) session.drawnMove = ui.move.id;
  }
  latest.classList.toggle('long', text.length > 100 && text.length <= 150);
  latest.classList.toggle('longer', text.length > 150);
}

function renderStory() {
  const list = $('story');
  const have = new Map([...list.children].map((n) => [n.dataset.id, n]));
  const nodes = ui.story.map((e) => {
    let n = have.get(String(e.id));
    if (!n) n = el('li', { class: `story-${e.kind}`, 'data-id': String(e.id) });
    if (n.textContent !== e.text) n.textContent = e.text;
    return n;
  });
  if (nodes.length !== list.children.length || nodes.some((n, i) => list.children[i] !== n)) list.replaceChildren(...nodes);
}

function turnAlert(offer) {
  const mine = !!(offer && (offer.ask && !offer.ask.outOfTurn || offer.answers?.length)) && state.room.state === 'playing' && !pacer.busy;
  if (mine && !session.hadTurn) alerts.yourTurn();
  if (!mine && session.hadTurn) alerts.clear();
  session.hadTurn = mine;
}

// Where focus was last (restoreFocus, screens.js).
document.addEventListener('focusin', (e) => { session.focusInMain = $('main').contains(e.target) && e.target !== $('main'); });

wireHome();
wireCreate();
wireInvite();
wireNavigation();
wireWaiting();
wireTable();
wireSide();
wireOver();
wireTopBar();
$('name').value = savedName();
// The address keeps a class's code (/?event=CODE, /?teach=CODE) for a reload,
// and a console's Watch link (/r/CODE?watch) until the page goes in to watch.
const entry = classEntry();
if (!entry.event && !entry.teach && !entry.watch && !entry.replay) history.replaceState(null, '', location.pathname);
// A finished game again (/?replay=GAME_ID, from a class's results) needs no socket.
if (entry.replay) classroom().then((c) => c.openReplay(entry.replay));
// An invite link or a reload in a room (/r/CODE): the first socket is for it.
if (roomPath()) conn.useRoom(roomPath());
// A game this device was playing when the page reloaded goes on at once,
// with or without a network (one that had ended is not shown again).
if (!roomPath() && !entry.event && !entry.teach && !entry.watch && !entry.replay && savedLocal() && !savedLocal().over) resumeLocal();
if (!entry.replay) conn.open();
keepForOffline();
