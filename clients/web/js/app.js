// Wiring: the connection, the room state, the screens and the person's clicks.

import { Connection, seatStore, unanswered } from './connection.js';
import { RoomState } from './state.js';
import { narrate } from './narrate.js';
import { buildReplay, downloadTranscript } from './replay.js';
import { renderLobby, renderOver, renderPresets, renderReplay, renderRules, renderSeatSetup, renderTable,
  renderWaiting, showScreen } from './screens.js';
import { rankPlural } from './cards.js';

const $ = (id) => document.getElementById(id);
const state = new RoomState();
const ui = { selected: null, selectedCard: null, fresh: new Set(), pulse: new Set(), replay: null, replayStep: 0, transcript: null };
let welcome = null;
let current = null;          // { code, as, name } of the room this page is in (or is resuming)
let resyncV = -2;
let flushQueued = false;

const conn = new Connection({ onMessage, onStatus, onReady });
window.gofish = { state, ui, conn };   // for people debugging in the console, and the tests

// ---------------------------------------------------------------- connection

function onStatus(status, text) {
  const badge = $('conn');
  badge.className = `conn ${status}`;
  badge.querySelector('.conn-text').textContent = text;
  $('conn-retry').hidden = status !== 'replaced';
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

// Where a fresh page starts: an invite link, a seat this browser holds, or home.
function startPage() {
  const match = location.pathname.match(/^\/r\/([A-Za-z0-9]{5})\/?$/);
  const code = match ? match[1].toUpperCase() : null;
  if (code && seatStore.get(code)) {
    current = { code, as: 'player' };
    restoreState(code);
    reenter();
    return;
  }
  if (code) {
    $('invite-code').textContent = code;
    $('invite-name').value = savedName();
    showScreen('invite');
    return;
  }
  goHome();
}

// Back into the room after a reload or a reconnect: resume the seat (with the
// last version seen, so the server replays only what was missed) or, for a
// spectator, watch again.
async function reenter() {
  const code = current.code;
  if (current.as === 'spectator') {
    state.reset();
    const reply = await conn.request({ type: 'join', code, name: current.name, as: 'spectator' });
    if (reply.type === 'error') leftRoom(`Could not watch room ${code} again: ${reply.message}`);
    return;
  }
  const seat = seatStore.get(code);
  if (!seat) { leftRoom(`Your seat in room ${code} is gone.`); return; }
  const msg = { type: 'resume', token: seat.token };
  if (state.room?.code === code && state.v >= 0) msg.last_v = state.v;
  const reply = await conn.request(msg);
  if (reply.type === 'error') {
    if (reply.code === 'client/offline') return;   // the next connection tries again
    seatStore.forget(code);
    sessionStorage.removeItem(`gofish.state.${code}`);
    state.reset();
    current = null;
    if (location.pathname.startsWith('/r/')) {
      $('invite-code').textContent = code;
      $('invite-name').value = savedName();
      $('invite-error').textContent = `Your old seat is no longer held (${reply.message}) You can join again.`;
      showScreen('invite');
    } else {
      leftRoom(reply.message);
    }
  }
}

function onMessage(msg) {
  switch (msg.type) {
    case 'room':
      state.applySnapshot(msg);
      if (current && msg.code === current.code) { /* fine */ }
      if (msg.state === 'over' && !ui.transcript) fetchTranscript();
      queueFlush();
      break;
    case 'event': {
      if (!state.room) return;
      if (msg.v > state.v + 1 && state.v >= 0 && !state.isSpectator) {
        // A gap: ask for the missed events.
        resync(state.v);
        return;
      }
      const ev = msg.event;
      if (!state.applyEvent(msg.v, ev)) return;
      onEvent(ev);
      queueFlush();
      break;
    }
    case 'error':
      if (msg.code === 'room/kicked') leftRoom('The host removed you from the room.');
      else showError(msg.message);
      break;
    case 'closing':
      break;
    default: break;
  }
}

// ---------------------------------------------------------------- events

function onEvent(ev) {
  const view = { you: state.you, nameOf: (s) => state.nameOf(s), rules: state.rules, lastAsk: state.lastAsk };
  const text = narrate(ev, view);
  if (text) say(text, ev.type);
  const you = state.you;
  if ((ev.type === 'gave' && ev.to === you) || (ev.type === 'drew' && ev.seat === you && ev.card)) {
    for (const c of ev.cards ?? [ev.card]) ui.fresh.add(c);
  }
  if (ev.type === 'gave') { ui.pulse.add(ev.from); ui.pulse.add(ev.to); }
  if (ev.type === 'set_laid') celebrate(ev);
  if (ev.type === 'asked' || ev.type === 'game_started') { ui.selected = null; ui.selectedCard = null; }
  if (ev.type === 'game_started') { ui.transcript = null; ui.replay = null; ui.replayStep = 0; clearHistory(); }
  if (ev.type === 'game_over') fetchTranscript();
}

function say(text, kind) {
  $('latest').textContent = text;
  $('latest').dataset.kind = kind;
  const li = document.createElement('li');
  li.textContent = text;
  const history = $('history');
  history.prepend(li);
  while (history.children.length > 200) history.lastChild.remove();
  const announcer = $('announcer');
  const line = document.createElement('p');
  line.textContent = text;
  announcer.append(line);
  while (announcer.children.length > 6) announcer.firstChild.remove();
}

function clearHistory() { $('history').replaceChildren(); }

function celebrate(ev) {
  const box = $('celebrate');
  const word = state.rules?.set_size === 2 ? 'Pair' : 'Book';
  const who = ev.seat === state.you ? 'You' : state.nameOf(ev.seat);
  box.replaceChildren();
  const msg = document.createElement('div');
  msg.className = 'burst';
  msg.textContent = `★ ${word} of ${rankPlural(ev.rank)}! ${who === 'You' ? '' : `(${who})`}`;
  box.append(msg);
  box.classList.remove('show');
  void box.offsetWidth;   // restart the animation
  box.classList.add('show');
  clearTimeout(celebrate.timer);
  celebrate.timer = setTimeout(() => box.classList.remove('show'), 1600);
}

// ---------------------------------------------------------------- render

// Many events arrive in one burst: draw once after the burst.
function queueFlush() {
  if (flushQueued) return;
  flushQueued = true;
  setTimeout(() => { flushQueued = false; flush(); }, 0);
}

function flush() {
  if (!state.room) return;
  saveState();
  if (state.needsLegal() && resyncV !== state.v) resync();
  render();
  ui.fresh.clear();
  ui.pulse.clear();
}

function render() {
  const room = state.room;
  if (!room) return;
  $('room-label').textContent = `Room ${room.code}`;
  let screen;
  if (room.state === 'waiting') screen = 'waiting';
  else if (room.state === 'over') screen = 'over';
  else screen = 'table';
  const focusKey = document.activeElement?.dataset?.focus;
  const hadFocus = document.activeElement && document.activeElement !== document.body;
  if (screen === 'waiting') renderWaiting(state, welcome);
  if (room.game) {
    if (ui.selected && !(room.game.legal?.ask && room.game.hand.some((c) => c.startsWith(ui.selected) && c.length - 1 === ui.selected.length))) {
      ui.selected = null;
      ui.selectedCard = null;
    }
    renderTable(state, ui);
  }
  if (screen === 'over') {
    if (ui.transcript && !ui.replay) makeReplay();
    renderOver(state, ui);
  }
  const changed = document.body.dataset.screen !== screen;
  showScreen(screen);
  if (focusKey) {
    document.querySelector(`[data-focus="${focusKey}"]:not([disabled])`)?.focus();
  }
  // When it becomes your turn and nothing else has focus, put it on your hand.
  const g = room.game;
  if (screen === 'table' && g?.legal?.ask && !ui.selected && (!hadFocus || !document.activeElement || document.activeElement === document.body)) {
    document.querySelector('#hand .rank-group:not([disabled])')?.focus();
  }
  if (changed && screen !== 'table') $('main').focus({ preventScroll: true });
}

function makeReplay() {
  const view = { you: state.you, nameOf: (s) => state.nameOf(s), rules: state.rules, lastAsk: null };
  ui.replay = buildReplay(ui.transcript.transcript, state.gameLog, (ev) => {
    if (ev.type === 'asked') view.lastAsk = ev;
    // In the replay everyone's cards are shown, so name seats, not "you".
    return narrate(ev, { ...view, you: -1 });
  });
  ui.replayStep = 0;
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
    queueFlush();
  } else if (unanswered(reply) && attempt < 5) {
    setTimeout(() => {
      if (!ui.transcript && state.room?.state === 'over' && state.room.game_number === game) fetchTranscript(attempt + 1);
    }, 700 * (attempt + 1));
  }
}

// A fresh snapshot with this seat's legal decisions (a "resync" resume).
async function resync(lastV) {
  const seat = current && seatStore.get(current.code);
  if (!seat) return;
  resyncV = state.v;
  const msg = { type: 'resume', token: seat.token };
  if (lastV !== undefined) msg.last_v = lastV;
  const reply = await conn.request(msg);
  if (unanswered(reply)) {
    setTimeout(() => { resyncV = -2; queueFlush(); }, 700);
  }
}

function saveState() {
  if (!current || current.as !== 'player') return;
  const data = { room: state.room, v: state.v, gameLog: state.gameLog, ready: state.ready };
  try { sessionStorage.setItem(`gofish.state.${state.room.code}`, JSON.stringify(data)); } catch { /* full: fine */ }
}

function restoreState(code) {
  try {
    const data = JSON.parse(sessionStorage.getItem(`gofish.state.${code}`) ?? 'null');
    if (data?.room?.code === code) {
      state.room = data.room;
      state.v = data.v;
      state.gameLog = data.gameLog ?? [];
      state.ready = data.ready ?? [];
      if (state.room.game) state.room.game.legal = null;
    }
  } catch { /* start from a snapshot */ }
}

// ---------------------------------------------------------------- actions

function savedName() { return localStorage.getItem('gofish.name') ?? ''; }
function rememberName(name) { localStorage.setItem('gofish.name', name.trim()); }

function showError(text) {
  const screen = document.body.dataset.screen;
  const target = { home: 'home-error', create: 'create-error', invite: 'invite-error', waiting: 'waiting-error',
    table: 'table-error', over: 'over-error' }[screen] ?? 'home-error';
  $(target).textContent = text;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { $(target).textContent = ''; }, 8000);
  say(text, 'error');
}

function enteredRoom(reply, name) {
  current = { code: reply.code, as: reply.as ?? 'player', name };
  if (reply.token) seatStore.set(reply.code, { token: reply.token, seat: reply.seat, name });
  history.replaceState(null, '', reply.invite);
  for (const id of ['home-error', 'create-error', 'invite-error']) $(id).textContent = '';
}

function leftRoom(message) {
  if (current) {
    seatStore.forget(current.code);
    sessionStorage.removeItem(`gofish.state.${current.code}`);
  }
  current = null;
  state.reset();
  ui.transcript = null;
  ui.replay = null;
  clearHistory();
  $('room-label').textContent = '';
  history.replaceState(null, '', '/');
  goHome();
  if (message) $('home-error').textContent = message;
}

function goHome() {
  $('name').value = $('name').value || savedName();
  showScreen('home');
  refreshLobby();
}

async function refreshLobby() {
  const reply = await conn.request({ type: 'lobby' });
  if (reply.type === 'lobby') renderLobby(reply.rooms);
}

function nameFrom(input, errorId) {
  const name = $(input).value.trim();
  if (!name) {
    $(errorId).textContent = 'Please enter your name first.';
    $(input).focus();
    return null;
  }
  rememberName(name);
  return name;
}

async function join(code, as, nameInput, errorId) {
  const name = nameFrom(nameInput, errorId);
  if (!name) return;
  code = code.trim().toUpperCase();
  if (!code) { $(errorId).textContent = 'Please enter a room code.'; return; }
  const reply = await conn.request({ type: 'join', code, name, as });
  if (reply.type === 'error') { $(errorId).textContent = reply.message; say(reply.message, 'error'); return; }
  enteredRoom(reply, name);
}

async function createRoom(event) {
  event.preventDefault();
  const name = nameFrom('name', 'create-error');
  if (!name) { $('create-error').textContent = 'Please go back and enter your name first.'; return; }
  const seats = Number($('seat-count').value);
  const bots = [];
  for (let seat = 1; seat < seats; seat++) {
    const kind = $(`seat-kind-${seat}`).value;
    if (kind !== 'person') bots.push({ seat, level: kind });
  }
  const msg = {
    type: 'create_room', name, seats, bots,
    rules: { preset: document.querySelector('input[name=preset]:checked')?.value ?? 'classic' },
    turn_timer_seconds: Number($('turn-timer').value),
    spectators: $('allow-spectators').checked,
    listed: $('listed').checked,
  };
  if ($('table-rules').checked) msg.rules.table_rules = true;
  const reply = await conn.request(msg);
  if (reply.type === 'error') { $('create-error').textContent = reply.message; say(reply.message, 'error'); return; }
  enteredRoom({ ...reply, as: 'player' }, name);
}

async function act(msg) {
  const reply = await conn.request(msg);
  if (reply.type === 'error') showError(reply.message);
  return reply;
}

async function ask(target) {
  const g = state.room?.game;
  if (!g?.legal?.ask || !ui.selected) return;
  const msg = { type: 'ask', target };
  if (state.rules.ask_for === 'card') {
    if (!ui.selectedCard) return;
    msg.card = ui.selectedCard;
  } else {
    msg.rank = ui.selected;
  }
  g.legal = null;   // until the next snapshot, nothing more to choose
  ui.selected = null;
  ui.selectedCard = null;
  render();
  const reply = await act(msg);
  if (reply.type === 'error') { resyncV = -2; resync(); }
}

// ---------------------------------------------------------------- wiring

function wire() {
  $('go-create').addEventListener('click', () => {
    const name = nameFrom('name', 'home-error');
    if (!name) return;
    showScreen('create');
    $('create-title').focus?.();
  });
  $('seat-count').addEventListener('change', () => renderSeatSetup(Number($('seat-count').value), welcome?.bot_levels ?? ['easy', 'medium', 'hard']));
  $('create-form').addEventListener('submit', createRoom);
  $('join-form').addEventListener('submit', (e) => { e.preventDefault(); join($('join-code').value, 'player', 'name', 'home-error'); });
  $('watch-button').addEventListener('click', () => join($('join-code').value, 'spectator', 'name', 'home-error'));
  $('lobby-refresh').addEventListener('click', refreshLobby);
  $('lobby-list').addEventListener('click', (e) => {
    const code = e.target.closest('[data-join]')?.dataset.join;
    if (code) join(code, 'player', 'name', 'home-error');
  });
  $('invite-form').addEventListener('submit', (e) => { e.preventDefault(); join($('invite-code').textContent, 'player', 'invite-name', 'invite-error'); });
  $('invite-watch').addEventListener('click', () => join($('invite-code').textContent, 'spectator', 'invite-name', 'invite-error'));
  for (const b of document.querySelectorAll('.back')) b.addEventListener('click', () => { history.replaceState(null, '', '/'); goHome(); });
  $('home-link').addEventListener('click', (e) => { if (current) e.preventDefault(); });

  $('copy-invite').addEventListener('click', async () => {
    const input = $('invite-link');
    try { await navigator.clipboard.writeText(input.value); } catch {
      input.select();
      document.execCommand?.('copy');
    }
    $('copy-status').textContent = 'Copied!';
    setTimeout(() => { $('copy-status').textContent = ''; }, 3000);
  });
  $('waiting-seats').addEventListener('click', (e) => {
    const t = e.target.closest('button');
    if (!t) return;
    if (t.dataset.addBot) act({ type: 'add_bot', seat: Number(t.dataset.addBot), level: $(`bot-level-${t.dataset.addBot}`).value });
    if (t.dataset.removeBot) act({ type: 'remove_bot', seat: Number(t.dataset.removeBot) });
    if (t.dataset.kick) act({ type: 'kick', seat: Number(t.dataset.kick) });
  });
  $('start-game').addEventListener('click', () => act({ type: 'start' }));
  for (const b of document.querySelectorAll('.leave-button')) {
    b.addEventListener('click', async () => {
      const reply = await conn.request({ type: 'leave' });
      if (reply.type === 'error' && reply.code !== 'room/not_in_room') { showError(reply.message); return; }
      leftRoom();
    });
  }
  for (const b of document.querySelectorAll('.rules-button')) {
    b.addEventListener('click', () => {
      if (!state.rules) return;
      renderRules(state.rules);
      $('rules-dialog').showModal();
    });
  }

  $('hand').addEventListener('click', (e) => {
    const rank = e.target.closest('[data-rank]')?.dataset.rank;
    if (!rank) return;
    ui.selected = ui.selected === rank ? null : rank;
    ui.selectedCard = null;
    render();
    if (ui.selected) say(state.rules.ask_for === 'card' ? `You chose the ${rankPlural(rank)}. Now pick the card.`
      : `You chose the ${rankPlural(rank)}. Now pick a player to ask.`, 'choice');
  });
  $('card-picker').addEventListener('click', (e) => {
    const card = e.target.closest('[data-card]')?.dataset.card;
    if (!card) return;
    ui.selectedCard = card;
    render();
  });
  $('opponents').addEventListener('click', (e) => {
    const target = e.target.closest('[data-target]');
    if (target && !target.disabled) ask(Number(target.dataset.target));
  });
  $('decide').addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    const msg = b.dataset.answer ? { type: 'answer', give: b.dataset.answer === 'give' } : { type: 'declare', rank: b.dataset.declare };
    state.room.game.legal = null;
    render();
    act(msg).then((reply) => { if (reply.type === 'error') { resyncV = -2; resync(); } });
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && ui.selected && document.body.dataset.screen === 'table') {
      ui.selected = null;
      ui.selectedCard = null;
      render();
    }
  });

  $('rematch').addEventListener('click', () => act({ type: 'rematch' }).then(() => render()));
  $('download').addEventListener('click', () => { if (ui.transcript) downloadTranscript(ui.transcript); });
  const step = (to) => () => {
    if (!ui.replay) return;
    ui.replayStep = Math.max(0, Math.min(ui.replay.steps.length - 1, to()));
    renderReplay(state, ui);
  };
  $('replay-first').addEventListener('click', step(() => 0));
  $('replay-prev').addEventListener('click', step(() => ui.replayStep - 1));
  $('replay-next').addEventListener('click', step(() => ui.replayStep + 1));
  $('replay-last').addEventListener('click', step(() => Infinity));
  $('conn-retry').addEventListener('click', () => conn.reconnectNow());

  setInterval(() => {
    const t = state.room?.timer;
    const box = $('timer');
    if (!t || state.room.state !== 'playing') { box.textContent = ''; return; }
    const left = Math.max(0, Math.round((t.deadline_ms - Date.now()) / 1000));
    box.textContent = `${t.seat === state.you ? 'You have' : `${state.nameOf(t.seat)} has`} ${left} s`;
  }, 500);
}

wire();
$('name').value = savedName();
conn.open();
