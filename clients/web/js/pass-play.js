// Pass and play: two to six people around one device, with computer players
// in any other seats. The setup screen (who plays, the computer players and
// the rules) and the screen that asks for the device to be passed between
// two people's turns: it covers the whole page, the table behind it holds no
// hand (local-room.js turns to the spectator's view first), and only the
// person named opens their hand, with a tap on "I'm NAME".
// A bundle of its own (clients/web/CMakeLists.txt), fetched when someone
// opens the setup or a kept shared game resumes: what it uses of the page
// comes in `page` (home-screen.js, local-play.js).

import { el } from './dom.js';

const $ = (id) => document.getElementById(id);
const kMaxSeats = 6;
const PLACEHOLDERS = ['Ann', 'Bob', 'Cleo', 'Dev', 'Eli', 'Fay'];

function buildSetup(page) {
  const names = PLACEHOLDERS.map((p, i) => el('label', { class: 'field' }, `Person ${i + 1}`,
    el('input', { id: `pass-name-${i}`, maxlength: '24', autocomplete: 'off', placeholder: i < 2 ? `e.g. ${p}` : '(nobody)' })));
  const bots = el('select', { id: 'pass-bots' }, ...[0, 1, 2, 3, 4].map((n) => el('option', { value: String(n), text: String(n) })));
  const level = el('select', { id: 'pass-level' }, ...['easy', 'medium', 'hard'].map((l) => el('option', { value: l, text: l[0].toUpperCase() + l.slice(1) })));
  level.value = 'medium';
  const back = el('button', { type: 'button', class: 'back', text: 'Back' });
  back.addEventListener('click', page.home);
  const form = el('form', { id: 'pass-form', autocomplete: 'off' },
    el('fieldset', { class: 'pass-names' }, el('legend', { text: 'Who plays? Two to six people' }), ...names),
    el('div', { class: 'row' },
      el('label', { class: 'field inline' }, 'Computer players', bots),
      el('label', { class: 'field inline' }, 'How well they play', level)),
    el('div', { id: 'pass-rules-slot' }),
    el('p', { id: 'pass-error', class: 'error', role: 'alert' }),
    el('div', { class: 'row' }, el('button', { type: 'submit', id: 'pass-start', class: 'primary big', text: 'Deal the cards' }), back));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const people = names.map((_, i) => $(`pass-name-${i}`).value.trim()).filter(Boolean);
    const computers = Number(bots.value);
    const error = people.length < 2 ? 'Type the names of at least two people.'
      : new Set(people.map((n) => n.toLowerCase())).size < people.length ? 'Each person needs a name of their own.'
        : people.length + computers > kMaxSeats ? `A table has at most ${kMaxSeats} seats: fewer computer players, please.` : '';
    $('pass-error').textContent = error;
    if (error) return;
    const players = people.map((name) => ({ name, bot: null }));
    for (let n = 1; n <= computers; n++) players.push({ name: page.botName(level.value, n), bot: level.value });
    page.start(page.rules(), players);
  });
  return el('section', { id: 'screen-passplay', class: 'screen', hidden: true, 'aria-labelledby': 'pass-title' },
    el('h2', { id: 'pass-title', tabindex: '-1', text: 'Pass and play' }),
    el('p', { class: 'hint', text: 'Everyone plays on this device. Between turns, pass it to the next person: their cards show only when they tap their name.' }),
    form);
}

// page: { showScreen, placeRulesPicker(slotId), rules(), botName(level, n), start(rules, players), home() }
export function openSetup(page) {
  if (!$('screen-passplay')) $('main').append(buildSetup(page));
  page.placeRulesPicker('pass-rules-slot');
  page.showScreen('passplay');
  $('pass-title').focus();
}

function buildPass() {
  const dialog = el('dialog', { id: 'pass-dialog', class: 'pass-dialog', 'aria-labelledby': 'pass-to' },
    el('p', { class: 'pass-fish', 'aria-hidden': 'true' }),
    el('h2', { id: 'pass-to' }),
    el('p', { id: 'pass-note', class: 'pass-note' }),
    el('button', { type: 'button', id: 'pass-me', class: 'primary big pass-me' }),
    el('button', { type: 'button', id: 'pass-stop', class: 'small pass-stop', text: 'Stop this game' }));
  // Escape does not skip the screen: only the named person opens their hand.
  dialog.addEventListener('cancel', (e) => e.preventDefault());
  document.body.append(dialog);
  return dialog;
}

// The device goes to `name`; `take()` when they tap, `stop()` to end the game instead.
export function showPass(name, why, take, stop) {
  const dialog = $('pass-dialog') ?? buildPass();
  $('pass-to').textContent = `Pass to ${name}`;
  $('pass-note').textContent = why;
  const button = $('pass-me');
  button.textContent = `I'm ${name}`;
  button.onclick = () => { dialog.close(); take(); };
  $('pass-stop').onclick = () => { dialog.close(); stop(); };
  if (!dialog.open) dialog.showModal();
  button.focus();
}

export function hidePass() { $('pass-dialog')?.close(); }
