// The start page answers the person: play with the computer, make a room of
// one's own (create-screen.js), join by code or from the list of rooms, or go
// back to a game stepped away from.

import { session, settings } from './session.js';
import { enteredRoom, goHome, refreshLobby, startPage } from './navigation.js';
import { act } from './room-actions.js';
import { join, nameFrom } from './join-room.js';
import { openCreate } from './create-screen.js';
import { classroom } from './class-loader.js';
import { startLocal, startShared } from './local-play.js';
import { renderPresets, showScreen } from './screens.js';
import { PRESET_LINES } from './rules.js';
import { chosenRules, loadAdvanced, placeRulesPicker } from './rules-picker.js';

const $ = (id) => document.getElementById(id);
const { ui } = session;

// The server's names for its computer players ("Medium bot", "Medium bot 2"),
// which the table turns into friendly ones (state.js).
export const botName = (level, n) => `${level[0].toUpperCase()}${level.slice(1)} bot${n > 1 ? ` ${n}` : ''}`;

// "Play with the computer": a table for three with two computer players, dealt at once.
async function playWithComputer() {
  const name = nameFrom('name');
  const level = settings.get('level', 'medium');
  ui.starting = true;
  // Without the server the same table is played on this device.
  if (!session.conn.ready) {
    startLocal({ preset: 'classic' }, [{ name, bot: null }, { name: botName(level, 1), bot: level }, { name: botName(level, 2), bot: level }], 0);
    return;
  }
  const reply = await session.conn.request({ type: 'create_room', name, seats: 3, rules: { preset: 'classic' },
    bots: [{ seat: 1, level }, { seat: 2, level }], chat: 'phrases' });
  if (reply.type === 'error') { ui.starting = false; $('home-error').textContent = reply.message; return; }
  enteredRoom({ ...reply, as: 'player' }, name);
  ui.starting = true;
  const started = await act({ type: 'start' });
  ui.starting = false;
  if (started.type === 'error') session.queueRender();
}

// "Today's deal": the day's cards, the same for everyone, against three
// computer players; the server deals at once and, after the game, says how it
// compares with the day's others (daily_result).
async function playDaily() {
  const name = nameFrom('name');
  ui.starting = true;
  const reply = await session.conn.request({ type: 'play_daily', name });
  ui.starting = false;
  if (reply.type === 'error') { $('home-error').textContent = reply.message; return; }
  enteredRoom({ ...reply, as: 'player' }, name);
  session.queueRender();
}

// "Pass and play": the setup (pass-play.js, a bundle of its own) and then a game on this device.
async function openPassPlay() {
  const { openSetup } = await import('./pass-play.js');
  // With no server yet (offline) the presets are the page's own list.
  if (!$('preset-list').children.length) renderPresets(Object.keys(PRESET_LINES).map((name) => ({ name })), 'classic');
  openSetup({ showScreen, placeRulesPicker, rules: chosenRules, botName, home: goHome,
    start: (rules, players) => startShared(rules, players) });
  loadAdvanced();
}

export function wireHome() {
  $('go-passplay').addEventListener('click', openPassPlay);
  $('play-computer').addEventListener('click', playWithComputer);
  $('play-daily').addEventListener('click', playDaily);
  $('computer-level').value = settings.get('level', 'medium');
  $('computer-level').addEventListener('change', (e) => settings.set('level', e.target.value));
  $('go-create').addEventListener('click', openCreate);
  $('go-teach').addEventListener('click', () => classroom().then((c) => c.openTeach()));
  $('class-join-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const code = $('class-code').value.trim().toUpperCase();
    if (!/^[A-Z0-9]{6}$/.test(code)) { $('join-error').textContent = 'A class code has six letters and numbers, like K7QXM2.'; return; }
    history.pushState(null, '', `/?event=${code}`);
    classroom().then((c) => c.openPupil(code));
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
