// The class screens (protocol/README.md, "Class events"), a bundle of their
// own fetched when a page first needs them (class-loader.js):
// - "Teach a class": the form that sends create_event;
// - the teacher's console: the code, the join link and its QR code, every
//   pupil and every table at once from event_state, who needs help (away,
//   not connected, or a turn waiting long) and the teacher's commands;
// - the pupil's screens: joining by the code (the roster's names as buttons,
//   or a name field), waiting for the next round, the table's room entered
//   with the seat token of event_seat, and the teacher's messages.
// This module imports no module of the main bundle (that would make a second
// copy of it): what it needs of the page comes in init().

import qrcode from 'qrcode-generator';
import { el } from './dom.js';
import { TeacherConsole } from './teacher-console.js';
import { openReplayPage } from './replay-page.js';

const $ = (id) => document.getElementById(id);
let page = null;   // init()'s helpers: { session, seatStore, showScreen, ... }
let consoleView = null;

// Secrets kept in this browser, per event code: the teacher's token, and a
// pupil's token with their name.
const keys = {
  teacher: (code) => `gofish.teacher.${code}`,
  pupil: (code) => `gofish.pupil.${code}`,
};
const readPupil = (code) => { try { return JSON.parse(localStorage.getItem(keys.pupil(code)) ?? 'null'); } catch { return null; } };

export function init(helpers) {
  page = helpers;
  buildScreens();
  consoleView = new TeacherConsole({ send, confirmDialog: page.confirmDialog, joinLink, qrSvg, leave: goHome,
    token: (code) => localStorage.getItem(keys.teacher(code)), cardFace: page.cardFace });
}

const send = (msg) => page.session.conn.request(msg);

// /?replay=GAME_ID: a finished game of a class's table, step by step (replay-page.js).
export const openReplay = (gameId) => openReplayPage(gameId, page);
const joinLink = (code) => `${location.origin}/?event=${code}`;

// ---------------------------------------------------------------- screens

function screen(name, title, ...children) {
  return el('section', { id: `screen-${name}`, class: 'screen', hidden: true, 'aria-labelledby': `${name}-title` },
    el('h2', { id: `${name}-title`, tabindex: '-1', text: title }), ...children);
}

function select(id, options, chosen) {
  return el('select', { id }, ...options.map(([value, text]) => el('option', { value, text, selected: value === chosen })));
}

function backButton() {
  const b = el('button', { type: 'button', text: 'Back' });
  b.addEventListener('click', goHome);
  return b;
}

function goHome() {
  page.session.klass = null;
  leaveTable();
  if (location.pathname !== '/' || location.search) history.pushState(null, '', '/');
  page.goHome();
  $('home-title').focus();
}

function buildScreens() {
  const levels = page.session.welcome?.bot_levels ?? ['easy', 'medium', 'hard'];
  const teach = screen('teach', 'Teach a class',
    el('p', { class: 'hint', text: 'Your pupils join with one code. The server seats them at tables of the same size, computer players fill the empty seats, and you see every table on one page.' }),
    el('form', { id: 'teach-form', novalidate: true },
      el('label', { class: 'field' }, 'Name of the class',
        el('input', { id: 'teach-name', maxlength: '24', required: true, placeholder: 'e.g. Class 3B', autocomplete: 'off' })),
      el('div', { id: 'teach-rules' }),
      el('fieldset', {},
        el('legend', { text: 'Tables' }),
        el('label', { class: 'field inline' }, 'Seats at each table',
          select('teach-size', ['2', '3', '4', '5', '6'].map((n) => [n, n]), '4')),
        el('label', { class: 'field inline' }, 'Computer players in empty seats play',
          select('teach-bots', levels.map((l) => [l, l.charAt(0).toUpperCase() + l.slice(1)]), 'medium')),
        el('label', { class: 'field inline' }, 'Rounds',
          el('input', { id: 'teach-rounds', type: 'number', min: '1', max: '20', value: '1', inputmode: 'numeric' })),
        el('label', { class: 'check' }, el('input', { type: 'checkbox', id: 'teach-same-deal' }),
          ' The same deal at every table (compare play, not luck)')),
      el('fieldset', {},
        el('legend', { text: 'Options' }),
        el('label', { class: 'field inline' }, 'Time for each turn',
          select('teach-timer', [['0', 'No clock'], ['15', '15 seconds'], ['30', '30 seconds'], ['60', '1 minute'], ['120', '2 minutes']], '0')),
        el('label', { class: 'field inline' }, 'Chat',
          select('teach-chat', [['phrases', 'Only friendly phrases'], ['off', 'No chat'], ['free', 'Anything (typed messages)']], 'phrases')),
        el('label', { class: 'check' }, el('input', { type: 'checkbox', id: 'teach-coaching' }),
          ' Coaching: I may see my pupils\' cards (their screens say so)')),
      el('label', { class: 'field' }, 'Your pupils\' names (optional)',
        el('span', { class: 'hint', id: 'teach-roster-hint', text: 'One name a line. Pupils then tap their name to join. Leave it empty to let them type their names.' }),
        el('textarea', { id: 'teach-roster', rows: '6', 'aria-describedby': 'teach-roster-hint', spellcheck: 'false' })),
      el('p', { id: 'teach-error', class: 'error', role: 'alert' }),
      el('div', { class: 'row' }, el('button', { type: 'submit', class: 'primary', id: 'teach-create', text: 'Start the class' }), backButton())));

  const join = screen('class-join', 'Join your class',
    el('p', { id: 'class-join-code', class: 'hint' }),
    el('div', { id: 'class-roster', class: 'roster-names', role: 'group', 'aria-labelledby': 'class-roster-label', hidden: true },
      el('p', { id: 'class-roster-label', class: 'roster-label', text: 'Tap your name' })),
    el('form', { id: 'class-name-form', hidden: true, autocomplete: 'off' },
      el('label', { class: 'field' }, 'Your name', el('input', { id: 'pupil-name', maxlength: '24', autocomplete: 'nickname' })),
      el('button', { type: 'submit', class: 'primary big', id: 'pupil-join', text: 'Join the class' })),
    el('p', { id: 'class-join-error', class: 'error', role: 'alert' }),
    el('div', { class: 'row' }, backButton()));

  const leave = el('button', { type: 'button', class: 'quiet', text: 'Leave the class' });
  leave.addEventListener('click', goHome);
  const wait = screen('class-wait', 'Your teacher will start the game soon',
    el('div', { class: 'wait-box' },
      el('p', { id: 'class-wait-name', class: 'wait-name' }),
      el('p', { id: 'class-wait-event', class: 'wait-event' })),
    el('p', { id: 'class-wait-result', class: 'status-line' }),
    el('p', { id: 'class-wait-note', class: 'notice', hidden: true }),
    el('div', { id: 'class-wait-message', class: 'teacher-message', hidden: true }),
    el('p', { id: 'class-wait-error', class: 'error', role: 'alert' }),
    el('div', { class: 'row' }, leave));

  const console_ = screen('console', 'Your class');
  $('main').append(teach, join, wait, console_);

  // On the table: the coaching notice and the teacher's messages.
  const banner = el('div', { id: 'class-banner', class: 'class-banner', hidden: true },
    el('p', { id: 'class-coaching', class: 'coaching', hidden: true, text: 'Your teacher can see your cards.' }),
    el('div', { id: 'class-message', class: 'teacher-message', hidden: true }));
  $('screen-table').querySelector('.table-grid').before(banner);

  $('teach-form').addEventListener('submit', createEvent);
  $('class-name-form').addEventListener('submit', (e) => { e.preventDefault(); joinAs({ name: $('pupil-name').value.trim() }); });
  $('class-roster').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-name]');
    if (b && !b.disabled) joinAs({ name: b.dataset.name });
  });
}

// ---------------------------------------------------------------- the teacher

export async function openTeach() {
  page.placeRulesPicker('teach-rules');
  page.showScreen('teach');
  $('teach-title').focus();
  await page.loadAdvanced();
}

// The roster's names, or a sentence saying what is wrong with them.
function rosterFrom(text) {
  const names = text.split('\n').map((n) => n.trim()).filter(Boolean);
  const seen = new Map();
  for (const n of names) {
    const key = n.toLowerCase();
    if (seen.has(key)) return { error: `"${n}" is on the list of names twice. Each pupil needs a name of their own.` };
    seen.set(key, n);
  }
  if (names.length > 120) return { error: `The list has ${names.length} names; a class can have at most 120.` };
  const long = names.find((n) => [...n].length > 24);
  if (long) return { error: `"${long}" is too long for a name (at most 24 letters).` };
  return { names };
}

async function createEvent(e) {
  e.preventDefault();
  const error = $('teach-error');
  error.textContent = '';
  const name = $('teach-name').value.trim();
  if (!name) { error.textContent = 'Please give the class a name.'; $('teach-name').focus(); return; }
  const roster = rosterFrom($('teach-roster').value);
  if (roster.error) { error.textContent = roster.error; $('teach-roster').focus(); return; }
  const rounds = Number($('teach-rounds').value);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) { error.textContent = 'Rounds: a number from 1 to 20.'; $('teach-rounds').focus(); return; }
  const msg = {
    type: 'create_event', name, table_size: Number($('teach-size').value), rules: page.chosenRules(),
    bots: $('teach-bots').value, chat: $('teach-chat').value, turn_timer_seconds: Number($('teach-timer').value),
    rounds, same_deal: $('teach-same-deal').checked, coaching: $('teach-coaching').checked,
  };
  if (roster.names.length) msg.roster = roster.names;
  $('teach-create').disabled = true;
  const reply = await send(msg);
  $('teach-create').disabled = false;
  if (reply.type === 'error') { page.showRulesError(reply, 'teach-error'); return; }
  localStorage.setItem(keys.teacher(reply.code), reply.token);
  // Every later socket of the class names its code: a proxy in front of
  // several servers keeps the class, and its tables, on one of them.
  page.session.conn.useRoom(reply.code, { reconnect: false });
  history.pushState(null, '', `/?teach=${reply.code}`);
  showConsole(reply.code, reply.event);
}

// /?teach=CODE: the console again, with the teacher token this browser keeps.
export async function resumeTeacher(code) {
  const token = localStorage.getItem(keys.teacher(code));
  if (!token) {
    goHome();
    $('home-error').textContent = `This browser does not hold the teacher's key of class ${code}. Open the console on the device that started the class.`;
    return;
  }
  page.session.klass = { role: 'teacher', code, gameOver: () => null };
  page.session.conn.useRoom(code, { reconnect: false });
  const reply = await send({ type: 'resume_event', code, token });
  if (reply.type === 'error') {
    if (reply.code === 'client/offline') return;   // the next connection tries again (rejoin)
    if (['event/bad_token', 'event/not_found'].includes(reply.code)) localStorage.removeItem(keys.teacher(code));
    goHome();
    $('home-error').textContent = `Could not open the console of class ${code}: ${reply.message}`;
    return;
  }
  showConsole(code, reply.event);
}

function showConsole(code, event) {
  page.session.klass = { role: 'teacher', code, gameOver: () => null };
  $('room-label').textContent = `Class ${code}`;
  consoleView.show($('screen-console'), code, event);
  if (document.body.dataset.screen !== 'console') {
    page.showScreen('console');
    $('console-title').focus();
  }
  readResults(code);
}

// The results so far (a console opened mid-event, or again after a reload);
// later ones are pushed (event_results).
async function readResults(code) {
  const reply = await send({ type: 'read_results' });
  if (reply.type === 'event_results' && reply.code === code) consoleView.results(reply);
}

// ---------------------------------------------------------------- the pupil

// /?event=CODE, or the code typed on the start page.
export async function openPupil(code) {
  const kept = readPupil(code);
  page.session.klass = null;
  page.session.conn.useRoom(code, { reconnect: false });
  $('class-join-error').textContent = '';
  $('class-join-code').textContent = `Class code ${code}`;
  $('class-join-title').textContent = 'Join your class';
  if (kept?.token) {
    const back = await joinAs({ token: kept.token }, code);
    if (back) return;
  }
  page.showScreen('class-join');
  $('class-join-title').focus();
  await showRoster(code);
}

async function showRoster(code) {
  const roster = $('class-roster');
  const form = $('class-name-form');
  roster.dataset.code = code;
  form.dataset.code = code;
  const reply = await send({ type: 'read_roster', code });
  if (reply.type === 'error' && ['event/not_found', 'event/bad_code', 'event/closed'].includes(reply.code)) {
    roster.hidden = true;
    form.hidden = true;
    $('class-join-error').textContent = reply.code === 'event/closed'
      ? 'That class has ended. Ask your teacher for the new code.'
      : `There is no class with the code ${code}. Check the code with your teacher.`;
    return;
  }
  // A server without read_roster (an error), or a class without a list: type a name.
  const names = reply.type === 'event_roster' && reply.roster ? reply.names : null;
  if (reply.type === 'event_roster') $('class-join-title').textContent = `Join ${reply.name}`;
  roster.hidden = !names;
  form.hidden = !!names;
  if (names) {
    roster.replaceChildren($('class-roster-label') ?? el('p', { id: 'class-roster-label', class: 'roster-label', text: 'Tap your name' }),
      ...names.map((n) => el('button', { type: 'button', class: 'big name-button', 'data-name': n.name, disabled: n.claimed },
        el('span', { text: n.name }), n.claimed ? el('span', { class: 'taken', text: '(already joined)' }) : null)));
  }
}

// join_event with a name, or a token to come back. True when joined.
async function joinAs(what, code = $('class-roster').dataset.code) {
  const error = $('class-join-error');
  if (what.name !== undefined && !what.name) { error.textContent = 'Please type your name first.'; $('pupil-name').focus(); return false; }
  const reply = await send({ type: 'join_event', code, ...what });
  if (reply.type === 'error') {
    if (what.token) {
      if (reply.code !== 'client/offline') localStorage.removeItem(keys.pupil(code));
      return false;
    }
    error.textContent = {
      'event/name_taken': 'Someone has joined with that name already. If it is yours, ask your teacher to free it.',
      'event/not_on_roster': 'That name is not on your teacher\'s list. Check the spelling, or ask your teacher.',
      'event/full': 'This class is full. Ask your teacher.',
      'event/closed': 'This class has ended.',
    }[reply.code] ?? reply.message;
    if (reply.code === 'event/name_taken') showRoster(code);
    return false;
  }
  const name = reply.pupil?.name ?? what.name;
  if (reply.token) localStorage.setItem(keys.pupil(code), JSON.stringify({ token: reply.token, name }));
  if (location.search !== `?event=${code}`) history.replaceState(null, '', `/?event=${code}`);
  page.session.klass = {
    role: 'pupil', code, eventName: reply.name, name, coaching: !!reply.coaching, message: null, note: null, result: '',
    gameOver: (room) => { pupilGameOver(room); return 'class-wait'; },
  };
  $('room-label').textContent = `Class ${code}`;
  renderWait();
  // In a round, event_seat follows and takes the pupil to the table.
  if (!page.session.current) showWait();
  return true;
}

function showWait() {
  renderWait();
  if (document.body.dataset.screen !== 'class-wait') {
    page.showScreen('class-wait');
    $('class-wait-title').focus();
  }
}

function renderWait() {
  const k = page.session.klass;
  if (k?.role !== 'pupil') return;
  $('class-wait-event').textContent = `Your class: ${k.eventName}. Stay on this page: your table appears here when the game starts.`;
  $('class-wait-name').textContent = `You are ${k.name}.`;
  $('class-wait-result').textContent = k.result;
  $('class-wait-note').hidden = !k.note;
  $('class-wait-note').textContent = k.note ?? '';
  renderMessage($('class-wait-message'), k.message);
  renderBanner();
}

function renderMessage(box, text) {
  box.hidden = !text;
  box.replaceChildren(...(text ? [el('b', { text: 'Your teacher says: ' }), text] : []));
}

function renderBanner() {
  const k = page.session.klass;
  const pupil = k?.role === 'pupil';
  $('class-coaching').hidden = !(pupil && k.coaching);
  renderMessage($('class-message'), pupil ? k.message : null);
  $('class-banner').hidden = !(pupil && (k.coaching || k.message));
}

// app.js asks when the pupil's room is not at play: the game is over (or not
// begun), and the pupil waits for the next round.
function pupilGameOver(room) {
  const k = page.session.klass;
  if (room.state === 'over' && room.result) {
    const you = page.session.state.you;
    const sets = you !== null ? room.result.scores[you] : null;
    const won = you !== null && room.result.winners.includes(you);
    k.result = `Your game is over${won ? ', and you won! ' : '. '}` +
      (sets !== null ? `You made ${sets} ${room.settings.rules.set_size === 2 ? (sets === 1 ? 'pair' : 'pairs') : (sets === 1 ? 'set' : 'sets')}.` : '');
  } else {
    k.result = '';
  }
  renderWait();
}

// event_seat: sit down at the round's table with the seat token.
async function takeSeat(msg) {
  const { session, seatStore } = page;
  const k = session.klass;
  if (k?.role !== 'pupil' || msg.event !== k.code) return;
  if (typeof msg.coaching === 'boolean') k.coaching = msg.coaching;
  k.note = null;
  k.result = '';
  if (session.current && session.current.code !== msg.room) await send({ type: 'leave' });
  session.resetRoom({ code: msg.room, as: 'player', name: k.name });
  // The class's code, not the table's: the table is served where the class is.
  session.conn.useRoom(k.code, { reconnect: false });
  seatStore.set(msg.room, { token: msg.token, seat: msg.seat, name: k.name });
  renderBanner();
  const reply = await page.enterRequest({ type: 'resume', token: msg.token });
  if (reply.type === 'error' && reply.code !== 'client/offline') {
    session.resetRoom(null);
    k.note = `Could not sit down at your table: ${reply.message} Wait here; your teacher can help.`;
    showWait();
  }
  session.queueRender();
}

// Out of the table's room (the seat went to a computer player, or the class is over for this pupil).
async function leaveTable() {
  const { session } = page;
  if (!session.current) return;
  const code = session.current.code;
  session.resetRoom(null);
  page.seatStore.forget(code);
  await send({ type: 'leave' });
}

const leftWords = {
  removed: 'Your teacher took you out of this class.',
  freed: 'Your teacher let your name go, so it can be chosen again. Ask your teacher if you should join again.',
  closed: 'The class has ended. Thank you for playing!',
};
// event_unseated's reasons (protocol/README.md): "teacher", the only one today.
const unseatedWords = {
  teacher: 'Your teacher gave your seat to a computer player. Wait here: you can play again in the next round.',
};

// ---------------------------------------------------------------- messages

export function onMessage(msg) {
  const { session } = page;
  const k = session.klass;
  if (!k) return;
  switch (msg.type) {
    case 'event_state':
      if (k.role === 'teacher') consoleView.update(msg.event);
      break;
    case 'event_results':
      if (k.role === 'teacher' && msg.code === k.code) consoleView.results(msg);
      break;
    case 'table_view':
      if (k.role === 'teacher') consoleView.coach.adopt(msg);
      break;
    case 'event_seat':
      takeSeat(msg);
      break;
    case 'event_message':
      if (k.role !== 'pupil' || typeof msg.text !== 'string') break;
      k.message = msg.text;
      renderWait();
      session.announcer.say(`Your teacher says: ${msg.text}`, { first: true });
      break;
    case 'event_unseated':
      if (k.role !== 'pupil') break;
      k.note = unseatedWords[msg.reason] ?? `You are not at a table any more (${msg.reason ?? 'no reason given'}). Wait here for the next round.`;
      leaveTable().then(showWait);
      session.announcer.say(k.note, { first: true });
      break;
    case 'event_left': {
      if (k.role !== 'pupil') break;
      const text = leftWords[msg.reason] ?? `You are no longer in this class (${msg.reason ?? 'no reason given'}).`;
      localStorage.removeItem(keys.pupil(k.code));
      session.klass = null;
      leaveTable();
      renderBanner();
      history.pushState(null, '', '/');
      $('gone-title').textContent = 'You have left the class';
      $('gone-text').textContent = text;
      $('room-label').textContent = '';
      page.showScreen('gone');
      $('gone-title').focus();
      break;
    }
    default: break;
  }
}

// After a reconnection: into the event again (the teacher's console, or the
// pupil with the pupil token; a pupil at a table gets a fresh event_seat).
export async function rejoin() {
  const k = page.session.klass;
  if (!k) return;
  if (k.role === 'teacher') { await resumeTeacher(k.code); return; }
  const kept = readPupil(k.code);
  if (!kept?.token || !(await joinAs({ token: kept.token }, k.code))) {
    page.session.klass = null;
    openPupil(k.code);
  }
}

// ---------------------------------------------------------------- QR code

// The join link as a QR code: an SVG of one path, dark squares on a white
// quiet zone of four modules (what phone cameras expect).
function qrSvg(text, label) {
  const qr = qrcode(0, 'M');
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  let d = '';
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) if (qr.isDark(r, c)) d += `M${c + 4} ${r + 4}h1v1h-1z`;
  }
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${n + 8} ${n + 8}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', label);
  svg.setAttribute('class', 'qr');
  svg.dataset.modules = String(n);
  const bg = document.createElementNS(ns, 'rect');
  bg.setAttribute('width', String(n + 8));
  bg.setAttribute('height', String(n + 8));
  bg.setAttribute('fill', '#fff');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', d);
  path.setAttribute('fill', '#000');
  svg.append(bg, path);
  return svg;
}
