// Wiring: the connection, the paced picture of the room, the screens and the
// person's clicks and keys.

import { Connection, seatStore, unanswered } from './connection.js';
import { RoomState } from './state.js';
import { Pacer } from './pacer.js';
import { choices } from './decisions.js';
import { clause, moveSentence, possessive, question } from './narrate.js';
import { renderLobby, renderOver, renderPresets, renderReplay, renderRules, renderSeatSetup,
  renderWaiting, showScreen } from './screens.js';
import { handNeedsTidying, renderMe, renderSeats } from './table.js';
import { el } from './dom.js';
import { cardName, rankOf, rankPlural } from './cards.js';
import { Alerts } from './alerts.js';
import { Announcer, moveItem } from './announcer.js';

const $ = (id) => document.getElementById(id);
const settings = {
  get: (key, fallback) => localStorage.getItem(`gofish.${key}`) ?? fallback,
  set: (key, value) => localStorage.setItem(`gofish.${key}`, String(value)),
};
const state = new RoomState();
const ui = {
  selected: null, selectedCard: null, fresh: new Set(), replay: null, replayStep: 0, transcript: null,
  said: new Map(), reaction: null, myResult: null, story: [], chat: [], move: null, handOrder: null, compact: true,
  paused: null,   // { code, reason } until room_resumed
  moveHold: 0,    // until then (performance.now()) the player's own move, still arriving, is not drawn
  conn: 'connecting',   // the connection's status (connection.js): only 'online' lets the player play
};
let welcome = null;
let current = null;          // { code, as, name } of the room this page is in (or is resuming)
let receivedV = -1;          // the last room version received (the picture may be behind it)
let renderQueued = false;
// The move renderLatest() put up in this frame, if any.
let drawnMove = null;
let hadTurn = false;
let advanced = null;         // advanced.js, once the create screen has opened

async function loadAdvanced() {
  if (advanced) return;
  advanced = await import('./advanced.js');
  advanced.renderAdvanced(document.querySelector('input[name=preset]:checked')?.value ?? 'classic');
}
let hadAsk = false;

const pacer = new Pacer({
  pace: Number(settings.get('pace', '1000')),
  apply: applyItem,
  onMove,
  onChange: queueRender,
  onIdle: () => { queueRender(); },
  mine: (ev) => ev.type === 'asked' && ev.seat === state.you && state.you !== null,
});
const conn = new Connection({ onMessage, onStatus, onReady });
const alerts = new Alerts(settings);
// For people debugging in the console, and the tests.
window.gofish = { state, ui, conn, pacer, announcer: null, choices: () => choices(state) };

// ---------------------------------------------------------------- announcements

// One live region, paced to what can be spoken (announcer.js).
const announcer = new Announcer(() => $('announcer'));
const verbosity = () => settings.get('verbosity', 'brief');

window.gofish.announcer = announcer;

// ---------------------------------------------------------------- connection

function onStatus(status, text) {
  // The table takes the hand out of play while the connection is not online.
  if (ui.conn !== status) { ui.conn = status; queueRender(); }
  const badge = $('conn');
  badge.className = `conn ${status}`;
  badge.querySelector('.conn-text').textContent = text;
  const retry = $('conn-retry');
  // Offered whenever the page is not connected, except while its very first connection is made.
  retry.hidden = status === 'online' || (status === 'connecting' && !conn.everReady);
  retry.textContent = status === 'replaced' ? 'Play in this window' : 'Retry now';
}

async function onReady(w, isReconnect) {
  welcome = w;
  renderPresets(w.presets, document.querySelector('input[name=preset]:checked')?.value ?? 'classic');
  renderSeatSetup(Number($('seat-count').value), w.bot_levels);
  if (current) {
    await reenter();
  } else if (!isReconnect) {
    startPage();
  }
}

const roomPath = () => location.pathname.match(/^\/r\/([A-Za-z0-9]{5})\/?$/)?.[1]?.toUpperCase() ?? null;

// Where a page starts (a load, or Back and Forward): an invite link, a seat
// this browser holds, or home.
function startPage() {
  const code = roomPath();
  if (code && localStorage.getItem(`gofish.kicked.${code}`)) {
    showGone('The host removed you from this room', `You can't go back into room ${code}. Start a new game from the start page!`);
    return;
  }
  if (code && seatStore.get(code)) {
    enterRoom({ code, as: 'player' });
    restoreState(code);
    queueRender();
    // A socket opened for another room is replaced, and the welcome on the
    // new one resumes the seat (onReady); otherwise resume now.
    if (!conn.useRoom(code)) reenter();
    return;
  }
  if (code) {
    conn.useRoom(code);
    $('invite-code').textContent = code;
    $('invite-name').value = savedName();
    showScreen('invite');
    return;
  }
  goHome();
}

// A join or resume answered room/busy (the room is moving between servers)
// or room/paused (its game is being saved again) is asked again in a moment,
// as after a reconnection: a join for about 30 s, a resume of this page's
// seat until let in. onBusy(reply) tells the person meanwhile.
async function enterRequest(msg, onBusy = () => {}, attempts = 40) {
  for (let attempt = 1; ; attempt++) {
    const reply = await conn.request(msg);
    if ((reply.code !== 'room/busy' && reply.code !== 'room/paused') || attempt >= attempts) return reply;
    onBusy(reply);
    await new Promise((resolve) => { setTimeout(resolve, 750); });
  }
}

// The room is paused, not moving.
const pausedBusy = (reply) => reply.code === 'room/paused';
// A resume or watch told the room is paused: the table says so.
const busyEntering = (code) => (reply) => { if (pausedBusy(reply) && ui.paused?.code !== code) pauseRoom(code, 'busy'); };

// Back into the room after a reload or a reconnect: resume the seat (with the
// last version received, so the server replays only what was missed) or, for a
// spectator, watch again.
async function reenter() {
  const code = current.code;
  if (current.as === 'spectator') {
    pacer.clear();
    state.reset();
    receivedV = -1;
    const reply = await enterRequest({ type: 'join', code, name: current.name, as: 'spectator' }, busyEntering(code), Infinity);
    if (reply.type !== 'error') resumeRoom(code);
    if (reply.type === 'error' && reply.code !== 'client/offline') leftRoom(`Could not watch room ${code} again: ${reply.message}`);
    return;
  }
  const seat = seatStore.get(code);
  if (!seat) { leftRoom(`Your seat in room ${code} is gone.`); return; }
  const msg = { type: 'resume', token: seat.token };
  if (state.room?.code === code && receivedV >= 0) msg.last_v = receivedV;
  const reply = await enterRequest(msg, busyEntering(code), Infinity);
  if (reply.type !== 'error') {
    if (settings.get('away', '') === code) localStorage.removeItem('gofish.away');
    resumeRoom(code);   // let in: not paused (any more)
    return;
  }
  if (reply.code === 'client/offline' || unanswered(reply)) return;   // the next connection tries again
  forgetRoom(code);
  if (reply.code === 'room/kicked') {
    localStorage.setItem(`gofish.kicked.${code}`, '1');
    showGone('The host removed you from this room', `You can't go back into room ${code}. Start a new game from the start page!`);
    return;
  }
  showGone('That game is not there any more', `Your seat in room ${code} is no longer kept for you (${reply.message}) ` +
    'You can start a new game from the start page.');
}

let pauseView = null;   // pause.js, once a room has paused
const isPaused = () => !!current && ui.paused?.code === current.code;

// Until room_resumed nothing is offered and held replies are awaited.
async function pauseRoom(code, reason) {
  const fresh = ui.paused?.code !== code;
  ui.paused = { code, reason };
  conn.paused = true;
  queueRender();
  pauseView ??= await import('./pause.js');
  if (fresh && current?.code === code && ui.paused?.code === code) {
    addStory(null, pauseView.storyLine, 'room');
    announcer.flush();
    announcer.say(pauseView.spoken(reason), { first: true });
  }
  queueRender();
}

// What the pause held back has come; the controls follow the turn again.
function resumeRoom(code) {
  if (ui.paused?.code !== code) return;
  forgetPause();
  if (current?.code === code) {
    addStory(null, 'The game is saved. Play goes on.', 'room');
    announcer.say('The game is saved. Play goes on.');
  }
  queueRender();
}

function forgetPause() {
  ui.paused = null;
  conn.paused = false;
}

const renderPause = () => pauseView?.renderPause(isPaused() ? ui.paused.reason : null);

function onMessage(msg) {
  switch (msg.type) {
    case 'room_paused':
      pauseRoom(msg.code, msg.reason);
      break;
    case 'room_resumed':
      resumeRoom(msg.code);
      break;
    case 'room':
      if (!current || msg.code !== current.code) return;
      receivedV = msg.v;
      pacer.push({ kind: 'room', msg });
      break;
    case 'event': {
      if (!current || receivedV < 0) return;
      if (msg.v <= receivedV) return;
      if (msg.v > receivedV + 1 && current.as === 'player') {
        resync(receivedV);   // a gap: the server replays what was missed
        return;
      }
      receivedV = msg.v;
      if (msg.event.type === 'chat') addChat(msg.event);
      pacer.push({ kind: 'event', v: msg.v, event: msg.event });
      break;
    }
    case 'turn':
      if (current && msg.v >= 0) pacer.push({ kind: 'turn', msg });
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
    default: break;
  }
}

// ---------------------------------------------------------------- the paced picture

function applyItem(item) {
  if (item.kind === 'room') {
    const msg = item.msg;
    state.applySnapshot(msg);
    if (msg.players?.length) state.players = msg.players;
    else if (!state.players && msg.seats) state.players = msg.seats.map((s) => ({ name: s.name, bot: s.bot }));
    if (msg.state === 'over' && !ui.transcript) fetchTranscript();
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
    // The decision's effects are complete; the seat to act learns its options.
    const g = state.room?.game;
    if (g && item.msg.v === state.v) g.legal = item.msg.seat === state.you && state.you !== null ? item.msg.legal ?? null : null;
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
    ui.transcript = null; ui.replay = null; ui.replayStep = 0; ui.said.clear(); ui.reaction = null;
    ui.myResult = null; ui.selected = null; ui.selectedCard = null; ui.compact = true;
    addStory(null, `Game ${ev.game}`, 'game');
  }
  if (ev.type === 'game_over') fetchTranscript();
  // Room events worth a line in the story and a word to screen readers.
  if (['seat_joined', 'seat_left', 'kicked', 'host_changed', 'bot_takeover', 'rematch', 'bot_added', 'bot_removed'].includes(ev.type)) {
    const text = clause(ev, view());
    if (text && !(ev.type === 'bot_takeover' && ev.reason === 'timeout')) {
      addStory(null, text, 'room');
      announcer.say(text);
    }
  }
}

const view = () => ({ you: state.you, nameOf: (s) => state.nameOf(s), rules: state.rules, ending: gameEnding });

// The game ends with the move being told (its game_over still waits in the
// pacer's queue): a hand is empty where that ends the game, or every set is made.
function gameEnding() {
  const g = state.room?.game;
  const rules = state.rules;
  if (!g || !rules) return false;
  if (g.seats.reduce((n, s) => n + s.sets.length, 0) * rules.set_size >= 52) return true;
  return rules.empty_hand === 'ends_game' && g.seats.some((s) => s.hand_size === 0 && s.status === 'in');
}

function onMove(move, fresh) {
  const first = move.events[0];
  const v = view();
  if (fresh) {
    ui.reaction = null;
    if (first?.type === 'asked') {
      ui.said.set(first.seat, question(first, v));
      if (first.seat === state.you) { ui.selected = null; ui.selectedCard = null; }
    }
  }
  for (const ev of move.events) {
    if (ev.type === 'go_fish') ui.reaction = { seat: ev.seat, text: 'Go fish!' };
    if (ev.type === 'gave') ui.reaction = { seat: ev.from, text: ev.cards.length === 1 ? 'Here you go!' : `Here: ${ev.cards.length}!` };
  }
  const sentence = moveSentence(move.events, v);
  ui.move = { id: move.id, text: sentence };
  // The player's own move is shown once, whole: its events come in several
  // messages, the last within milliseconds, and the decision's `turn` ends
  // them. Until then (at most kHoldMs) the middle keeps the move before.
  if (fresh && first?.type === 'asked' && first.seat === state.you && state.you !== null) ui.moveHold = performance.now() + kHoldMs;
  // Your own last ask and what came of it stays in your corner until you ask again.
  if (state.you !== null && first?.type === 'asked' && first.seat === state.you) ui.myResult = { id: move.id, text: sentence };
  if (sentence) {
    addStory(move.id, sentence, first?.type === 'game_over' ? 'end' : 'move');
    announcer.move(move.id, moveItem(move.events, v, verbosity(), sentence));
  }
  queueRender();
}

function addStory(id, text, kind) {
  const entry = id === null ? null : ui.story.find((e) => e.id === id);
  if (entry) entry.text = text;
  else ui.story.unshift({ id: id ?? `r${Date.now()}${Math.random()}`, text, kind });
  if (ui.story.length > 150) ui.story.length = 150;
}

function addChat(ev) {
  ui.chat.push({ name: ev.name, text: ev.text, seat: ev.seat });
  if (ui.chat.length > 60) ui.chat.shift();
  if (ev.seat !== state.you || ev.seat === null) announcer.say(`${ev.name} says: ${ev.text}`);
  renderChat();
}

// ---------------------------------------------------------------- render

function queueRender() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => { renderQueued = false; render(); });
  // A hidden tab gets no animation frames; draw anyway.
  setTimeout(() => { if (renderQueued) { renderQueued = false; render(); } }, 100);
}

function render() {
  const room = state.room;
  if (!room || !current) { renderPause(); return; }
  saveState();
  $('room-label').textContent = `Room ${room.code}`;
  let screen = room.state === 'waiting' ? 'waiting' : room.state === 'over' ? 'over' : 'table';
  if (ui.starting && screen === 'waiting') screen = 'table-wait';
  const focus = rememberFocus();
  if (screen === 'waiting') renderWaiting(state, welcome);
  const paused = isPaused();
  const offer = pacer.busy || ui.sending || paused || ui.conn !== 'online' ? null : choices(state);
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
  renderChat();
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
  if (canAsk && !hadAsk && screen === 'table') {
    const a = document.activeElement;
    if (!a || a === document.body || a === $('prompt') || $('hand').contains(a)) {
      document.querySelector('#hand .rank-group[aria-disabled="false"]')?.focus({ preventScroll: true });
    }
  }
  hadAsk = canAsk;
  ui.fresh.clear();
  // A move's time on screen starts once this frame is drawn, after the rest of it.
  if (drawnMove !== null) pacer.shown(drawnMove);
  drawnMove = null;
}

const kHoldMs = 300;

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
    if (ui.move) drawnMove = ui.move.id;
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

function renderChat() {
  const mode = state.room?.settings?.chat ?? 'off';
  $('chat').hidden = mode === 'off' || !state.room;
  const log = $('chat-log');
  if (log.children.length !== ui.chat.length || log.dataset.last !== JSON.stringify(ui.chat.at(-1) ?? null)) {
    log.replaceChildren(...ui.chat.map((c) => el('li', {}, el('b', { text: `${c.name}: ` }), c.text)));
    log.dataset.last = JSON.stringify(ui.chat.at(-1) ?? null);
    log.scrollTop = log.scrollHeight;
  }
  $('chat-form').hidden = mode !== 'free';
  $('say-toggle').hidden = mode === 'off';
  const phrases = $('chat-phrases');
  if (phrases.dataset.mode !== mode) {
    phrases.dataset.mode = mode;
    phrases.replaceChildren(...(mode === 'off' ? [] : (welcome?.phrases ?? []).map((p) => el('button', { type: 'button', class: 'small phrase',
      'data-phrase': p.id, text: p.text }))));
  }
}

// The chat lives in the waiting room before a game and beside the table after.
function placeChat(screen) {
  const chat = $('chat');
  const home = screen === 'waiting' ? $('screen-waiting') : $('side');
  if (chat.parentElement !== home && !chat.contains(document.activeElement)) home.append(chat);
}

function turnAlert(offer) {
  const mine = !!(offer && (offer.ask && !offer.ask.outOfTurn || offer.answers?.length)) && state.room.state === 'playing' && !pacer.busy;
  if (mine && !hadTurn) alerts.yourTurn();
  if (!mine && hadTurn) alerts.clear();
  hadTurn = mine;
}

// Focus never falls to the page: a control that is redrawn keeps it, and a
// control that goes away hands it to the hand or the prompt.
let focusInMain = false;
document.addEventListener('focusin', (e) => { focusInMain = $('main').contains(e.target) && e.target !== $('main'); });

function rememberFocus() {
  const a = document.activeElement;
  return { key: a?.dataset?.focus ?? null, node: a, inMain: focusInMain };
}

function restoreFocus(before, changed) {
  const a = document.activeElement;
  const lost = !a || a === document.body || !a.isConnected || a.closest('[hidden]');
  if (!lost) {
    if (before.node === a && !changed) return;
  }
  if (!lost && !changed) return;
  if (lost && before.key) {
    const same = document.querySelector(`[data-focus="${before.key}"]:not([disabled])`);
    if (same && !same.closest('[hidden]')) { same.focus(); return; }
  }
  if (!before.inMain && !changed) return;
  const screen = document.body.dataset.screen;
  const target = {
    table: () => document.querySelector('#actions button') ?? document.querySelector('#hand .rank-group[aria-disabled="false"]') ?? $('prompt'),
    waiting: () => (!$('start-game').hidden ? $('start-game') : $('waiting-title')),
    over: () => (!$('rematch').hidden ? $('rematch') : $('over-title')),
    home: () => $('home-title'),
    create: () => $('create-title'),
    invite: () => $('invite-name'),
    gone: () => $('gone-title'),
  }[screen]?.();
  target?.focus({ preventScroll: true });
}

// The replay and the transcript download come with the first game over
// (replay.js is not part of the first load).
async function makeReplay() {
  const transcript = ui.transcript;
  ui.replay = false;   // being made
  const { buildReplay } = await import('./replay.js');
  if (ui.transcript !== transcript) return;
  if (!state.players && transcript.transcript?.seats) state.players = transcript.transcript.seats;
  const v = { you: -1, nameOf: (s) => state.nameOf(s), rules: state.rules };
  // 'none' when this page did not see the whole game (it shows the last hands).
  ui.replay = buildReplay(transcript.transcript, state.gameLog, (ev) => clause(ev, v)) ?? 'none';
  ui.replayStep = 0;
  queueRender();
}

// Asked for at game over; a request the server did not answer (too fast,
// timed out) is asked again, so the record never stays "Loading".
async function fetchTranscript(attempt = 0) {
  if (state.isSpectator === null) return;
  const game = state.room?.game_number;
  const reply = await conn.request({ type: 'transcript' });
  if (reply.type === 'transcript') {
    ui.transcript = reply;
    ui.replay = null;
    queueRender();
  } else if (unanswered(reply) && attempt < 5) {
    setTimeout(() => {
      if (!ui.transcript && state.room?.state === 'over' && state.room.game_number === game) fetchTranscript(attempt + 1);
    }, 700 * (attempt + 1));
  }
}

// The events after `lastV`, when a version was skipped (a "resync" resume):
// the only resume a page sends while its connection lasts. Every decision
// ends with a `turn`, which tells the seat to act what it may do.
async function resync(lastV) {
  const seat = current && seatStore.get(current.code);
  if (!seat) return;
  const reply = await enterRequest({ type: 'resume', token: seat.token, last_v: lastV });
  if (unanswered(reply)) setTimeout(() => resync(lastV), 700);
}

function saveState() {
  if (!current || current.as !== 'player' || !state.room) return;
  const data = { room: state.room, v: state.v, gameLog: state.gameLog, ready: state.ready, players: state.players,
    wins: state.wins, story: ui.story.slice(0, 80), chat: ui.chat, said: [...ui.said], myResult: ui.myResult,
    move: ui.move };
  try { sessionStorage.setItem(`gofish.state.${state.room.code}`, JSON.stringify(data)); } catch { /* full: fine */ }
}

function restoreState(code) {
  try {
    const data = JSON.parse(sessionStorage.getItem(`gofish.state.${code}`) ?? 'null');
    if (data?.room?.code !== code) return;
    Object.assign(state, { room: data.room, v: data.v, gameLog: data.gameLog ?? [], ready: data.ready ?? [],
      players: data.players ?? null, wins: data.wins ?? {} });
    if (state.room.game) state.room.game.legal = null;
    receivedV = data.v;
    ui.story = data.story ?? [];
    ui.chat = data.chat ?? [];
    ui.said = new Map(data.said ?? []);
    ui.myResult = data.myResult ?? null;
    // The middle of the table says what just happened, not nothing, until the next move.
    ui.move = data.move ?? null;
  } catch { /* start from a snapshot */ }
}

// ---------------------------------------------------------------- flying cards and sets

function seatBox(seat) {
  if (seat === 'pond') return $('pond');
  if (seat === state.you) return $('hand');
  return document.querySelector(`#seats [data-seat="${seat}"] .seat-cards`);
}

// A card (or a few) travels across the table; transforms only, so nothing
// else moves, and nothing at all for people who ask for less motion.
function fly(from, to, count) {
  if (matchMedia('(prefers-reduced-motion: reduce)').matches || document.body.dataset.screen !== 'table' || pacer.pace === 0) return;
  const a = seatBox(from)?.getBoundingClientRect();
  const b = seatBox(to)?.getBoundingClientRect();
  if (!a || !b || !a.width || !b.width) return;
  const card = el('span', { class: 'flyer', 'aria-hidden': 'true', text: count > 1 ? `×${count}` : '' });
  card.style.left = `${a.left + a.width / 2 - 20}px`;
  card.style.top = `${a.top + a.height / 2 - 28}px`;
  document.body.append(card);
  const dx = b.left + b.width / 2 - (a.left + a.width / 2);
  const dy = b.top + b.height / 2 - (a.top + a.height / 2);
  card.animate([{ transform: 'translate(0,0) scale(1)', opacity: 1 }, { transform: `translate(${dx}px,${dy}px) scale(0.8)`, opacity: 0.2 }],
    { duration: Math.min(600, pacer.pace * 0.6), easing: 'ease-in-out' }).finished.then(() => card.remove(), () => card.remove());
}

function celebrate(seat) {
  const box = seat === state.you ? $('me-sets') : document.querySelector(`#seats [data-seat="${seat}"] .seat-sets`);
  if (!box) return;
  box.classList.remove('new-set');
  void box.offsetWidth;   // restart the animation
  box.classList.add('new-set');
}

// ---------------------------------------------------------------- rooms and screens

const DEFAULT_NAMES = ['Otter', 'Puffin', 'Seal', 'Turtle', 'Dolphin', 'Starfish', 'Walrus', 'Penguin'];
function savedName() { return localStorage.getItem('gofish.name') ?? ''; }
function nameFrom(input) {
  const name = $(input).value.trim();
  if (name) localStorage.setItem('gofish.name', name);
  return name || DEFAULT_NAMES[Math.floor(Math.random() * DEFAULT_NAMES.length)];
}

function showError(text) {
  const screen = document.body.dataset.screen;
  const target = { home: 'home-error', create: 'create-error', invite: 'invite-error', waiting: 'waiting-error',
    table: 'table-error', over: 'over-error' }[screen] ?? 'home-error';
  $(target).textContent = text;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { $(target).textContent = ''; }, 8000);
}

function enterRoom(room) {
  pacer.clear();
  state.reset();
  receivedV = -1;
  Object.assign(ui, { story: [], chat: [], said: new Map(), reaction: null, myResult: null, move: null, transcript: null,
    replay: null, selected: null, selectedCard: null, handOrder: null, compact: true });
  // A room_paused may come before the join's answer (held by the pause).
  if (ui.paused?.code !== room.code) forgetPause();
  current = room;
  alerts.clear();
}

function enteredRoom(reply, name) {
  enterRoom({ code: reply.code, as: reply.as ?? 'player', name });
  // This socket is on the room's server already (it created or joined it).
  conn.useRoom(reply.code, { reconnect: false });
  receivedV = -1;
  if (reply.token) seatStore.set(reply.code, { token: reply.token, seat: reply.seat, name });
  localStorage.removeItem(`gofish.kicked.${reply.code}`);
  if (location.pathname !== reply.invite) history.pushState(null, '', reply.invite);
  for (const id of ['home-error', 'join-error', 'create-error', 'invite-error']) $(id).textContent = '';
}

function forgetRoom(code) {
  seatStore.forget(code);
  sessionStorage.removeItem(`gofish.state.${code}`);
  if (settings.get('away', '') === code) localStorage.removeItem('gofish.away');
  clearTable();
}

// Out of the room on this page: no table, no pause notice, no pending sentences.
function clearTable() {
  forgetPause();
  pacer.clear();
  state.reset();
  current = null;
  receivedV = -1;
  alerts.clear();
  $('room-label').textContent = '';
}

function leftRoom(message) {
  if (current) forgetRoom(current.code);
  if (location.pathname !== '/') history.pushState(null, '', '/');
  goHome();
  if (message) $('home-error').textContent = message;
}

function showGone(title, text) {
  $('gone-title').textContent = title;
  $('gone-text').textContent = text;
  $('room-label').textContent = '';
  showScreen('gone');
  $('gone-title').focus();
}

function goHome() {
  $('name').value = $('name').value || savedName();
  const away = settings.get('away', '');
  $('away-box').hidden = !(away && seatStore.get(away));
  $('join-error').textContent = '';  // about an earlier try, not this visit
  if (away) {
    $('away-text').textContent = `You stepped away from your game in room ${away}. ${settings.get('awayNote', '') === 'paused'
      ? 'Your seat is kept for you for a while.' : 'A computer player takes your turns until you come back.'}`;
  }
  showScreen('home');
  refreshLobby();
}

async function refreshLobby() {
  if (!conn.ready) return;
  const reply = await conn.request({ type: 'lobby' });
  if (reply.type === 'lobby') renderLobby(reply.rooms);
}

async function join(code, as, nameInput, errorId) {
  code = code.trim().toUpperCase();
  if (!code) { $(errorId).textContent = 'Please type the room code first.'; return; }
  let name = nameFrom(nameInput);
  if (conn.useRoom(code)) await conn.whenWelcomed();
  const note = $(errorId);
  // Set once, not at each retry: the note is a live region (role=alert), and
  // the same words written again would be read out again every 750 ms.
  const moving = (busy) => {
    const text = `Room ${code} is ${pausedBusy(busy) ? 'busy saving its game' : 'moving to another server'}. Trying again…`;
    note.classList.add('pending');
    if (note.textContent !== text) note.textContent = text;
  };
  let reply = await enterRequest({ type: 'join', code, name, as }, moving);
  // A made-up name that someone in the room already has: make up another.
  if (reply.code === 'room/name_taken' && !$(nameInput).value.trim()) {
    name = `${name} ${Math.floor(Math.random() * 90) + 10}`;
    reply = await enterRequest({ type: 'join', code, name, as }, moving);
  }
  note.classList.remove('pending');
  if (reply.type === 'error') { note.textContent = reply.message; return; }
  note.textContent = '';
  enteredRoom(reply, name);
}

function createMessage(name) {
  const seats = Number($('seat-count').value);
  const bots = [];
  for (let seat = 1; seat < seats; seat++) {
    const kind = $(`seat-kind-${seat}`).value;
    if (kind !== 'person') bots.push({ seat, level: kind });
  }
  const preset = document.querySelector('input[name=preset]:checked')?.value ?? 'classic';
  const msg = {
    type: 'create_room', name, seats, bots,
    rules: { preset, ...(advanced?.changedRules(preset) ?? {}) },
    turn_timer_seconds: Number($('turn-timer').value),
    spectators: $('allow-spectators').checked,
    listed: $('listed').checked,
    chat: $('chat-mode').value,
    bot_pace: $('bot-pace').value,
  };
  if ($('table-rules').checked) msg.rules.table_rules = true;
  return msg;
}

async function createRoom(event) {
  event.preventDefault();
  for (const e of document.querySelectorAll('.field-error')) e.textContent = '';
  const name = nameFrom('name');
  const msg = createMessage(name);
  const reply = await conn.request(msg);
  if (reply.type === 'error') {
    const words = advanced ? advanced.ruleMessage(reply.message) : reply.message;
    $('create-error').textContent = words;
    const field = reply.field && $(`rule-${reply.field}`);
    if (field) {
      $('advanced').open = true;
      $(`rule-${reply.field}-error`).textContent = words;
      field.focus();
    }
    return;
  }
  enteredRoom({ ...reply, as: 'player' }, name);
}

// "Play with the computer": a table for three with two computer players, dealt at once.
async function playWithComputer() {
  const name = nameFrom('name');
  const level = settings.get('level', 'medium');
  ui.starting = true;
  const reply = await conn.request({ type: 'create_room', name, seats: 3, rules: { preset: 'classic' },
    bots: [{ seat: 1, level }, { seat: 2, level }], chat: 'phrases' });
  if (reply.type === 'error') { ui.starting = false; $('home-error').textContent = reply.message; return; }
  enteredRoom({ ...reply, as: 'player' }, name);
  ui.starting = true;
  const started = await act({ type: 'start' });
  ui.starting = false;
  if (started.type === 'error') queueRender();
}

// A refusal is shown where the person looks (a pause by its notice).
async function act(msg) {
  const reply = await conn.request(msg);
  if (reply.type === 'error' && reply.code !== 'room/paused') showError(reply.message);
  return reply;
}

// The host removes a player, after saying yes: in the waiting room the seat
// is freed; during a game the computer plays it to the end (protocol `kick`).
async function removePlayer(seat) {
  const name = state.nameOf(seat);
  const text = state.room?.state === 'playing'
    ? `The computer plays ${name}'s cards for the rest of this game. ${name} cannot come back into this room.`
    : `${name} will have to leave this room and cannot come back into it.`;
  if (await confirmDialog(`Remove ${name}?`, text, `Remove ${name}`, `Keep ${name}`)) act({ type: 'kick', seat });
}

function confirmDialog(title, text, yes, no = 'Cancel') {
  const dialog = $('confirm-dialog');
  $('confirm-title').textContent = title;
  $('confirm-text').textContent = text;
  $('confirm-yes').textContent = yes;
  $('confirm-no').textContent = no;
  dialog.returnValue = '';
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true }));
}

// Leaving: between games the seat is given up; during a game the page steps
// away (the seat stays yours, and the room link brings you back to it until
// the game is over). A paused room lets nobody leave (room/paused).
async function leave() {
  const room = state.room;
  const playing = room?.state === 'playing' && current?.as === 'player';
  if (playing) {
    const ok = await confirmDialog('Leave the game?',
      'A computer player will take your turns. You can come back to your seat with the room link until the game is over.',
      'Leave the game', 'Keep playing');
    if (!ok) return;
    stepAway('game');
    return;
  }
  const reply = await conn.request({ type: 'leave' });
  if (reply.code === 'room/paused') {
    if (await leavePaused()) leave();
    return;
  }
  if (reply.type === 'error' && !['room/not_in_room', 'client/offline'].includes(reply.code)) { showError(reply.message); return; }
  leftRoom();
}

// Leaving a paused room: a spectator goes; a player may go, keeping the seat.
// True when the room went on meanwhile.
async function leavePaused() {
  if (current.as === 'spectator') {
    leftRoom();
    conn.restart();
    return false;
  }
  pauseView ??= await import('./pause.js');
  const ok = await confirmDialog(...pauseView.leaveQuestion);
  if (!ok || !current) return false;
  if (!isPaused()) return true;
  stepAway('paused');
  return false;
}

// To the start page, keeping the seat.
function stepAway(why) {
  settings.set('away', current.code);
  settings.set('awayNote', why);
  clearTable();
  conn.restart();
  history.pushState(null, '', '/');
  goHome();
}

async function ask(target) {
  if (isPaused()) return;
  const offer = choices(state);
  if (!offer?.ask || !ui.selected) return;
  const msg = { type: 'ask', target };
  if (state.rules.ask_for === 'card') {
    if (!ui.selectedCard) return;
    msg.card = ui.selectedCard;
  } else {
    msg.rank = ui.selected;
  }
  // Under table rules an ask out of turn is a real mistake with a lasting
  // cost; a stray tap on a card and then on "Ask …" must not make it. It
  // takes a third, deliberate step that says what it costs.
  if (offer.ask.outOfTurn) {
    const name = state.nameOf(target);
    const what = msg.card ? `the ${cardName(msg.card)}` : rankPlural(msg.rank);
    const ok = await confirmDialog('Ask out of turn?',
      `It is not your turn. If you ask ${name} for ${what} now, that is a penalty: ` +
      `you can never score ${rankPlural(msg.rank ?? rankOf(msg.card))} in this game.`, 'Ask anyway', 'Wait for my turn');
    if (!ok || !choices(state)?.ask) return;
  }
  await request(msg);
}

// A decision goes out; nothing more is offered until its answer (the
// events and their `turn`, or a refusal, which changes nothing).
async function request(msg) {
  ui.selected = null;
  ui.selectedCard = null;
  ui.sending = true;
  render();
  const reply = await act(msg);
  ui.sending = false;
  queueRender();
  return reply;
}

async function decide(msg) {
  await request(msg);
}

function chooseRank(rank) {
  if (isPaused()) return;
  const offer = pacer.busy || ui.sending ? null : choices(state);
  const enabled = offer?.ask?.ranks.includes(rank) || offer?.declare?.includes(rank);
  if (!enabled) {
    showError(state.room.state === 'playing' ? 'Wait for your turn to pick a card.' : '');
    return;
  }
  ui.selected = ui.selected === rank ? null : rank;
  ui.selectedCard = null;
  render();
  // The chosen kind of card reaches a player in one or two key presses.
  document.querySelector('#card-picker button, #actions button')?.focus();
}

// ---------------------------------------------------------------- wiring

function wire() {
  $('play-computer').addEventListener('click', playWithComputer);
  $('computer-level').value = settings.get('level', 'medium');
  $('computer-level').addEventListener('change', (e) => settings.set('level', e.target.value));
  $('go-create').addEventListener('click', async () => {
    showScreen('create');
    $('create-title').focus();
    await loadAdvanced();
  });
  $('away-back').addEventListener('click', () => {
    const code = settings.get('away', '');
    if (!code) return;
    history.pushState(null, '', `/r/${code}`);
    startPage();
  });
  $('seat-count').addEventListener('change', () => renderSeatSetup(Number($('seat-count').value), welcome?.bot_levels ?? ['easy', 'medium', 'hard']));
  $('preset-list').addEventListener('change', (e) => { if (e.target.name === 'preset') advanced?.renderAdvanced(e.target.value); });
  $('create-form').addEventListener('submit', createRoom);
  $('join-form').addEventListener('submit', (e) => { e.preventDefault(); join($('join-code').value, 'player', 'name', 'join-error'); });
  $('watch-button').addEventListener('click', () => join($('join-code').value, 'spectator', 'name', 'join-error'));
  $('lobby-list').addEventListener('click', (e) => {
    const code = e.target.closest('[data-join]')?.dataset.join;
    if (code) join(code, 'player', 'name', 'join-error');
  });
  $('invite-form').addEventListener('submit', (e) => { e.preventDefault(); join($('invite-code').textContent, 'player', 'invite-name', 'invite-error'); });
  $('invite-watch').addEventListener('click', () => join($('invite-code').textContent, 'spectator', 'invite-name', 'invite-error'));
  for (const b of document.querySelectorAll('.back')) {
    b.addEventListener('click', () => {
      if (location.pathname !== '/') history.pushState(null, '', '/');
      goHome();
      $('home-title').focus();
    });
  }
  $('home-link').addEventListener('click', (e) => { if (current) e.preventDefault(); });
  addEventListener('popstate', async () => {
    const code = roomPath();
    if (current && code === current.code) return;
    if (current) {
      // Back out of a room: the same as "Leave" (a game asks first).
      const playing = state.room?.state === 'playing' && current.as === 'player';
      history.pushState(null, '', `/r/${current.code}`);
      if (playing) { leave(); return; }
      await leave();
      return;
    }
    startPage();
  });

  $('copy-invite').addEventListener('click', async () => {
    const input = $('invite-link');
    try { await navigator.clipboard.writeText(input.value); } catch {
      input.select();
      document.execCommand?.('copy');
    }
    $('copy-status').textContent = 'Copied!';
    setTimeout(() => { $('copy-status').textContent = ''; }, 3000);
  });
  $('waiting-seats').addEventListener('click', async (e) => {
    const t = e.target.closest('button');
    if (!t || isPaused()) return;
    if (t.dataset.addBot) act({ type: 'add_bot', seat: Number(t.dataset.addBot), level: $(`bot-level-${t.dataset.addBot}`).value });
    if (t.dataset.removeBot) act({ type: 'remove_bot', seat: Number(t.dataset.removeBot) });
    if (t.dataset.kick) removePlayer(Number(t.dataset.kick));
  });
  $('start-game').addEventListener('click', startGame);
  for (const b of document.querySelectorAll('.leave-button')) b.addEventListener('click', leave);
  for (const b of document.querySelectorAll('.rules-button')) {
    b.addEventListener('click', () => {
      if (!state.rules) return;
      renderRules(state.rules);
      $('rules-dialog').showModal();
    });
  }

  $('hand').addEventListener('click', (e) => {
    const rank = e.target.closest('[data-rank]')?.dataset.rank;
    if (rank) chooseRank(rank);
  });
  $('card-picker').addEventListener('click', (e) => {
    const card = e.target.closest('[data-card]')?.dataset.card;
    if (!card) return;
    ui.selectedCard = card;
    render();
    document.querySelector('#actions button')?.focus();
  });
  $('actions').addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    if (b.dataset.target) ask(Number(b.dataset.target));
    else if (b.dataset.answer) decide({ type: 'answer', give: b.dataset.answer === 'give' });
    else if (b.dataset.declare) decide({ type: 'declare', rank: b.dataset.declare });
    else if (b.dataset.cancel) { ui.selected = null; ui.selectedCard = null; render(); }
  });
  // A tap on a seat asks that player, like its "Ask" button.
  $('seats').addEventListener('click', (e) => {
    const kick = e.target.closest('[data-kick]');
    if (kick) { if (!isPaused()) removePlayer(Number(kick.dataset.kick)); return; }
    const seat = e.target.closest('.seat.target')?.dataset.seat;
    if (seat !== undefined) document.querySelector(`#actions [data-target="${seat}"]`)?.click();
  });
  // Arrow keys move between the choices and between the cards, round and round.
  for (const id of ['actions', 'hand', 'card-picker']) {
    $(id).addEventListener('keydown', (e) => {
      if (!['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'].includes(e.key)) return;
      const buttons = [...$(id).querySelectorAll('button')];
      const i = buttons.indexOf(document.activeElement);
      if (i < 0) return;
      e.preventDefault();
      const step = e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? -1 : 1;
      buttons[(i + step + buttons.length) % buttons.length].focus();
    });
  }
  // The hand is tidied (sorted, gaps closed) just after the player clicks or
  // presses a key, so cards never move by themselves, nor under a finger.
  const tidy = () => setTimeout(() => {
    if (document.body.dataset.screen === 'table' && handNeedsTidying(ui)) {
      ui.compact = true;
      render();
    }
  }, 0);
  document.addEventListener('click', tidy);
  document.addEventListener('keyup', tidy);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && ui.selected && document.body.dataset.screen === 'table') {
      ui.selected = null;
      ui.selectedCard = null;
      render();
      document.querySelector('#hand .rank-group[aria-disabled="false"]')?.focus();
    }
  });

  $('chat-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = $('chat-text').value.trim();
    if (!text) return;
    const reply = await act({ type: 'chat', text });
    if (reply.type !== 'error') $('chat-text').value = '';
  });
  $('chat-phrases').addEventListener('click', (e) => {
    const phrase = e.target.closest('[data-phrase]')?.dataset.phrase;
    if (!phrase) return;
    act({ type: 'chat', phrase });
    $('chat-phrases').hidden = true;
    $('say-toggle').setAttribute('aria-expanded', 'false');
    $('say-toggle').focus();
  });
  $('say-toggle').addEventListener('click', () => {
    const open = $('chat-phrases').hidden;
    $('chat-phrases').hidden = !open;
    $('say-toggle').setAttribute('aria-expanded', String(open));
    if (open) $('chat-phrases').querySelector('button')?.focus();
  });
  const storySheet = (open) => {
    $('story-toggle').setAttribute('aria-expanded', String(open));
    $('side').classList.toggle('open', open);
    (open ? $('story') : $('story-toggle')).focus();
  };
  $('story-toggle').addEventListener('click', () => storySheet($('story-toggle').getAttribute('aria-expanded') !== 'true'));
  $('story-close').addEventListener('click', () => storySheet(false));

  $('rematch').addEventListener('click', rematch);
  $('download').addEventListener('click', async () => {
    if (ui.transcript) (await import('./replay.js')).downloadTranscript(ui.transcript);
  });
  const step = (to) => () => {
    if (!ui.replay?.steps) return;
    ui.replayStep = Math.max(0, Math.min(ui.replay.steps.length - 1, to()));
    renderReplay(state, ui);
  };
  $('replay-first').addEventListener('click', step(() => 0));
  $('replay-prev').addEventListener('click', step(() => ui.replayStep - 1));
  $('replay-next').addEventListener('click', step(() => ui.replayStep + 1));
  $('replay-last').addEventListener('click', step(() => Infinity));
  $('conn-retry').addEventListener('click', () => conn.reconnectNow());

  // Settings.
  $('settings-button').addEventListener('click', () => {
    for (const r of document.querySelectorAll('input[name=verbosity]')) r.checked = r.value === verbosity();
    for (const r of document.querySelectorAll('input[name=pace]')) r.checked = r.value === String(pacer.pace);
    $('set-sound').checked = settings.get('sound', '0') === '1';
    $('set-vibrate').checked = settings.get('vibrate', '1') === '1';
    $('settings-dialog').showModal();
  });
  $('settings-dialog').addEventListener('change', (e) => {
    const t = e.target;
    if (t.name === 'verbosity') settings.set('verbosity', t.value);
    if (t.name === 'pace') { settings.set('pace', t.value); pacer.pace = Number(t.value); }
    if (t.id === 'set-sound') { settings.set('sound', t.checked ? '1' : '0'); if (t.checked) alerts.beep(); }
    if (t.id === 'set-vibrate') settings.set('vibrate', t.checked ? '1' : '0');
  });

  setInterval(() => {
    const t = state.room?.timer;
    const box = $('timer');
    if (!t || state.room.state !== 'playing' || isPaused()) { box.textContent = ''; return; }
    const left = Math.max(0, Math.round((t.deadline_ms - Date.now()) / 1000));
    box.textContent = `${t.seat === state.you ? 'You have' : `${state.nameOf(t.seat)} has`} ${left} s`;
  }, 500);
  // The list of rooms keeps itself up to date while the start page is shown.
  setInterval(() => { if (document.body.dataset.screen === 'home' && !document.hidden) refreshLobby(); }, 5000);
}

// The host starts; empty seats get computer players first.
async function startGame() {
  const room = state.room;
  if (!room || isPaused()) return;
  for (const s of room.seats) {
    if (s.occupant !== 'empty') continue;
    const reply = await act({ type: 'add_bot', seat: s.seat, level: $(`bot-level-${s.seat}`)?.value ?? 'medium' });
    if (reply.type === 'error') return;
  }
  act({ type: 'start' });
}

// "Play again" (the server gives a seat emptied since the game to a computer player).
async function rematch() {
  if ($('rematch').getAttribute('aria-disabled') === 'true') return;
  await act({ type: 'rematch' });
  render();
}

wire();
$('name').value = savedName();
history.replaceState(null, '', location.pathname);
// An invite link or a reload in a room (/r/CODE): the first socket is for it.
if (roomPath()) conn.useRoom(roomPath());
conn.open();
