// The screens before a room answer the person: the start page (play with the
// computer, join by code or from the list, back to a game stepped away from),
// the create screen (a room of one's own) and an invite link's screen.

import { session, settings } from './session.js';
import { renderSeatSetup, showScreen } from './screens.js';
import { enteredRoom, enterRequest, pausedBusy, refreshLobby, startPage } from './navigation.js';
import { act } from './room-screens.js';

const $ = (id) => document.getElementById(id);
const { ui } = session;

const DEFAULT_NAMES = ['Otter', 'Puffin', 'Seal', 'Turtle', 'Dolphin', 'Starfish', 'Walrus', 'Penguin'];
function nameFrom(input) {
  const name = $(input).value.trim();
  if (name) localStorage.setItem('gofish.name', name);
  return name || DEFAULT_NAMES[Math.floor(Math.random() * DEFAULT_NAMES.length)];
}

async function loadAdvanced() {
  if (session.advanced) return;
  session.advanced = await import('./advanced.js');
  session.advanced.renderAdvanced(document.querySelector('input[name=preset]:checked')?.value ?? 'classic');
}

async function join(code, as, nameInput, errorId) {
  code = code.trim().toUpperCase();
  if (!code) { $(errorId).textContent = 'Please type the room code first.'; return; }
  let name = nameFrom(nameInput);
  if (session.conn.useRoom(code)) await session.conn.whenWelcomed();
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
    rules: { preset, ...(session.advanced?.changedRules(preset) ?? {}) },
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
  const reply = await session.conn.request(msg);
  if (reply.type === 'error') {
    const words = session.advanced ? session.advanced.ruleMessage(reply.message) : reply.message;
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
  const reply = await session.conn.request({ type: 'create_room', name, seats: 3, rules: { preset: 'classic' },
    bots: [{ seat: 1, level }, { seat: 2, level }], chat: 'phrases' });
  if (reply.type === 'error') { ui.starting = false; $('home-error').textContent = reply.message; return; }
  enteredRoom({ ...reply, as: 'player' }, name);
  ui.starting = true;
  const started = await act({ type: 'start' });
  ui.starting = false;
  if (started.type === 'error') session.queueRender();
}

function wireHome() {
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
  $('join-form').addEventListener('submit', (e) => { e.preventDefault(); join($('join-code').value, 'player', 'name', 'join-error'); });
  $('watch-button').addEventListener('click', () => join($('join-code').value, 'spectator', 'name', 'join-error'));
  $('lobby-list').addEventListener('click', (e) => {
    const code = e.target.closest('[data-join]')?.dataset.join;
    if (code) join(code, 'player', 'name', 'join-error');
  });
  // The list of rooms keeps itself up to date while the start page is shown.
  setInterval(() => { if (document.body.dataset.screen === 'home' && !document.hidden) refreshLobby(); }, 5000);
}

function wireCreate() {
  $('seat-count').addEventListener('change', () => renderSeatSetup(Number($('seat-count').value), session.welcome?.bot_levels ?? ['easy', 'medium', 'hard']));
  $('preset-list').addEventListener('change', (e) => { if (e.target.name === 'preset') session.advanced?.renderAdvanced(e.target.value); });
  $('create-form').addEventListener('submit', createRoom);
}

function wireInvite() {
  $('invite-form').addEventListener('submit', (e) => { e.preventDefault(); join($('invite-code').textContent, 'player', 'invite-name', 'invite-error'); });
  $('invite-watch').addEventListener('click', () => join($('invite-code').textContent, 'spectator', 'invite-name', 'invite-error'));
}

export function wireStartScreens() {
  wireHome();
  wireCreate();
  wireInvite();
}
