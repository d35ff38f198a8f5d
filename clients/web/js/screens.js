// Drawing the screens other than the table from the room state, the chat,
// the page's notes and questions to the person, and where focus goes when a
// screen is redrawn. Nothing here talks to the server: buttons carry data-*
// attributes that each screen's wiring handles (home-screen.js and the other
// *-screen.js, side-panel.js, top-bar.js).

import { cardFace, rankPlural } from './cards.js';
import { PRESET_LINES, presetTitle, rulesSummary, setsTitle, setsWord, tieBreakText } from './rules.js';
import { endReason, listWords, possessive, winnersText } from './narrate.js';
import { el } from './dom.js';
import { session } from './session.js';

const $ = (id) => document.getElementById(id);
const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

export function showScreen(name) {
  // Every screen, the class screens too (classroom.js adds them when first needed).
  for (const s of document.querySelectorAll('#main > .screen')) s.hidden = s.id !== `screen-${name}`;
  document.body.dataset.screen = name;
}

// A refusal is shown under the title of the screen the person is looking at, for a while.
export function showError(text) {
  const screen = document.body.dataset.screen;
  const target = { home: 'home-error', create: 'create-error', invite: 'invite-error', waiting: 'waiting-error',
    table: 'table-error', over: 'over-error' }[screen] ?? 'home-error';
  $(target).textContent = text;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => { $(target).textContent = ''; }, 8000);
}

// A yes-or-no question in the page's own dialog: resolves true for yes.
export function confirmDialog(title, text, yes, no = 'Cancel') {
  const dialog = $('confirm-dialog');
  $('confirm-title').textContent = title;
  $('confirm-text').textContent = text;
  $('confirm-yes').textContent = yes;
  $('confirm-no').textContent = no;
  dialog.returnValue = '';
  dialog.showModal();
  return new Promise((resolve) => dialog.addEventListener('close', () => resolve(dialog.returnValue === 'yes'), { once: true }));
}

export function renderPresets(presets, chosen) {
  $('preset-list').replaceChildren(...presets.map((p) => el('label', { class: 'preset' },
    el('input', { type: 'radio', name: 'preset', value: p.name, checked: p.name === chosen }),
    el('span', { class: 'preset-name', text: presetTitle(p.name) }),
    el('span', { class: 'preset-line', text: PRESET_LINES[p.name] ?? p.summary }))));
}

export function renderSeatSetup(count, levels) {
  const box = $('seat-setup');
  const old = [...box.querySelectorAll('select')].map((s) => s.value);
  const rows = [el('p', { class: 'hint', text: 'You sit in seat 1. Each other seat gets a computer player, or waits for a friend you invite.' })];
  for (let seat = 1; seat < count; seat++) {
    const select = el('select', { id: `seat-kind-${seat}`, 'data-seat': String(seat) },
      ...levels.map((level) => el('option', { value: level, text: `Computer (${level})` })),
      el('option', { value: 'person', text: 'A friend (send them the link)' }));
    select.value = old[seat - 1] ?? 'medium';
    rows.push(el('label', { class: 'field inline' }, `Seat ${seat + 1}`, select));
  }
  box.replaceChildren(...rows);
}

export function renderLobby(rooms) {
  const list = $('lobby-list');
  if (!rooms.length) {
    list.replaceChildren(el('li', { class: 'hint', text: 'No rooms are waiting right now. Start one with "Play with friends"!' }));
    return;
  }
  list.replaceChildren(...rooms.map((r) => el('li', {},
    el('span', { text: `${possessive(r.host)} room · ${presetTitle(r.preset)} · ${r.taken} of ${r.seats} seats taken` +
      (r.turn_timer_seconds ? ` · ${r.turn_timer_seconds} s per turn` : '') }),
    el('button', { type: 'button', class: 'small', 'data-join': r.code, text: `Join ${r.code}` }))));
}

export function renderWaiting(state, welcome) {
  const room = state.room;
  const you = state.you;
  const isHost = you !== null && room.host === you;
  $('waiting-code').textContent = room.code;
  $('waiting-preset').textContent = `${presetTitle(room.settings.rules.preset)}: ${PRESET_LINES[room.settings.rules.preset] ?? ''}` +
    (room.settings.rules.table_rules ? ' With table rules.' : '');
  $('invite-link').value = new URL(room.invite, location.origin).href;
  const levels = welcome?.bot_levels ?? ['easy', 'medium', 'hard'];
  const old = new Map([...$('waiting-seats').querySelectorAll('select')].map((s) => [s.id, s.value]));
  $('waiting-seats').replaceChildren(...room.seats.map((s) => {
    const tags = [];
    if (s.seat === room.host) tags.push('host');
    if (s.seat === you) tags.push('you');
    const name = s.occupant === 'empty' ? 'Empty seat' : state.nameOf(s.seat);
    const status = s.occupant === 'bot' ? `computer, ${s.bot}` : s.occupant === 'human' ? (s.connected ? 'online' : 'offline') : 'waiting for a player';
    const controls = [];
    if (isHost && s.occupant === 'empty') {
      const id = `bot-level-${s.seat}`;
      controls.push(el('label', { class: 'sr-only', for: id, text: `Level of the computer player for seat ${s.seat + 1}` }),
        el('select', { id }, ...levels.map((l) => el('option', { value: l, text: capital(l), selected: l === (old.get(id) ?? 'medium') }))),
        el('button', { type: 'button', class: 'small', 'data-add-bot': String(s.seat), 'data-focus': `add:${s.seat}`, text: 'Add a computer player' }));
    }
    if (isHost && s.occupant === 'bot') {
      controls.push(el('button', { type: 'button', class: 'small', 'data-remove-bot': String(s.seat), 'data-focus': `remove:${s.seat}`,
        text: `Remove ${name}` }));
    }
    if (isHost && s.occupant === 'human' && s.seat !== you) {
      controls.push(el('button', { type: 'button', class: 'small danger', 'data-kick': String(s.seat), 'data-focus': `kick:${s.seat}`,
        text: `Remove ${s.name}` }));
    }
    return el('li', { class: `seat-row ${s.occupant}`, 'data-seat': String(s.seat) },
      el('span', { class: 'seat-num', text: `Seat ${s.seat + 1}` }),
      el('span', { class: 'seat-name', text: name + (tags.length ? ` (${tags.join(', ')})` : '') }),
      el('span', { class: `status ${s.occupant === 'human' ? (s.connected ? 'on' : 'off') : ''}`, text: status }),
      el('span', { class: 'controls' }, ...controls));
  }));
  const empty = room.seats.filter((s) => s.occupant === 'empty').length;
  const start = $('start-game');
  start.hidden = !isHost;
  start.textContent = empty > 0 ? `Start with ${empty === 1 ? 'a computer player' : 'computer players'} in the empty ${empty === 1 ? 'seat' : 'seats'}` : 'Start the game';
  let status;
  if (empty > 0) status = isHost ? `Waiting for ${empty} more ${empty === 1 ? 'player' : 'players'}. Share the link, or start now.` : `Waiting for ${empty} more ${empty === 1 ? 'player' : 'players'}.`;
  else status = isHost ? 'Everyone is here. Start when you are ready!' : 'Everyone is here. Waiting for the host to start.';
  if (state.isSpectator) status += ' You are watching.';
  $('waiting-status').textContent = status;
}

export function renderOver(state, ui) {
  const room = state.room;
  const result = room.result;
  const rules = room.settings.rules;
  const you = state.you;
  const view = { you, nameOf: (s) => state.nameOf(s), rules };
  $('over-winners').textContent = winnersText(result.winners, view);
  $('over-reason').textContent = endReason(result, view);
  $('scores-sets').textContent = setsTitle(rules);
  $('scores').tBodies[0].replaceChildren(...result.scores.map((score, i) => {
    const name = state.nameOf(i);
    return el('tr', { class: result.winners.includes(i) ? 'winner' : '' },
      el('th', { scope: 'row', text: `${result.winners.includes(i) ? '★ ' : ''}${name}${i === you ? ' (you)' : ''}` }),
      el('td', { text: String(score) }),
      el('td', { text: String(result.hands[i].length) }),
      el('td', { text: String(state.wins[name] ?? 0) }));
  }));
  $('over-tiebreak').textContent = tieBreakExplained(result, rules, state);
  renderDaily(state, ui);
  const rematch = $('rematch');
  rematch.hidden = you === null && !ui.shared;
  const asked = you !== null && state.ready.includes(you);
  rematch.setAttribute('aria-disabled', asked ? 'true' : 'false');
  rematch.textContent = asked ? 'Waiting for the others…' : 'Play again';
  $('rematch-status').textContent = rematchStatus(state);
  renderReplay(state, ui);
}

// Today's deal: how the game compares with the day's others, once the
// server has counted it (the room's first game only: a rematch is not).
export function dailyText(d) {
  const sets = (n) => `${n} ${n === 1 ? 'set' : 'sets'}`;
  const standing = d.players === 1
    ? "Yours is the first game of today's deal."
    : `That beats ${d.percentile}% of today's ${d.players} games (a tie counts as half).`;
  return `You made ${sets(d.sets)}. ${standing} The best today: ${sets(d.best)}.`;
}

function renderDaily(state, ui) {
  const box = $('daily-result');
  const d = ui.daily;
  const show = !!d && state.room.game_number === 1 && state.you !== null;
  box.hidden = !show;
  box.textContent = show ? dailyText(d) : '';
  if (show && !ui.dailySaid) {
    ui.dailySaid = true;
    session.announcer.say(`Today's deal: ${box.textContent}`);
  }
}

function rematchStatus(state) {
  const room = state.room;
  const you = state.you;
  const parts = [];
  const left = room.seats.filter((s) => s.occupant === 'empty').map((s) => state.nameOf(s.seat));
  if (state.ready.length) {
    const names = state.ready.map((s) => (s === you ? 'you' : state.nameOf(s)));
    parts.push(`${capital(listWords(names))} ${names.length === 1 && names[0] !== 'you' ? 'wants' : 'want'} to play again.`);
  }
  const waiting = room.seats.filter((s) => s.occupant === 'human' && s.connected && !state.ready.includes(s.seat) && s.seat !== you)
    .map((s) => state.nameOf(s.seat));
  if (state.ready.length && waiting.length) parts.push(`Waiting for ${listWords(waiting)}.`);
  if (left.length) {
    const host = room.host === you;
    parts.push(`${left.length === 1 ? 'One seat is' : `${left.length} seats are`} empty now` +
      ': when the game starts again, a computer player sits there.');
  }
  return parts.join(' ');
}

function tieBreakExplained(result, rules, state) {
  const best = Math.max(...result.scores);
  const top = result.scores.map((s, i) => [s, i]).filter(([s]) => s === best).map(([, i]) => i);
  if (top.length < 2) return '';
  const names = listWords(top.map((i) => state.nameOf(i)));
  const made = `${names} each made ${best} ${setsWord(rules, best)}.`;
  if (result.winners.length > 1) return `${made} ${tieBreakText(rules)}`;
  const w = result.winners[0];
  const left = top.map((i) => `${state.nameOf(i)} ${result.hands[i].length}`).join(', ');
  return `${made} ${state.nameOf(w)} wins with the fewest cards left in hand (${left}).`;
}

export function renderReplay(state, ui) {
  const replay = ui.replay;
  const hands = $('replay-hands');
  $('download').disabled = !ui.transcript;
  // Held by the server (a shared deal still played elsewhere): its sentence
  // alone, without steps or a download that cannot work until then.
  const held = !!ui.transcriptHeld && !replay?.steps;
  for (const id of ['replay-first', 'replay-prev', 'replay-next', 'replay-last', 'download']) $(id).hidden = held;
  const result = state.room.result;
  if (!replay?.steps) {
    $('replay-pos').textContent = ui.transcriptHeld ? ui.transcriptHeld.message
      : replay === 'none' ? 'This page did not see the whole game, so here are the last hands.' : 'Loading the game record…';
    $('replay-text').textContent = '';
    hands.replaceChildren(...result.hands.map((h, i) => replayRow(state.nameOf(i), h, [])));
    for (const id of ['replay-first', 'replay-prev', 'replay-next', 'replay-last']) $(id).disabled = true;
    return;
  }
  const step = replay.steps[ui.replayStep];
  $('replay-pos').textContent = `Step ${ui.replayStep + 1} of ${replay.steps.length}`;
  $('replay-text').textContent = `${step.text} (${step.stock} ${step.stock === 1 ? 'card' : 'cards'} in the pond)`;
  hands.replaceChildren(...step.hands.map((h, i) => replayRow(state.nameOf(i), h, step.sets[i])));
  $('replay-first').disabled = $('replay-prev').disabled = ui.replayStep === 0;
  $('replay-next').disabled = $('replay-last').disabled = ui.replayStep === replay.steps.length - 1;
}

// One seat's row of a replay: the name, the cards face up, the sets made.
export function replayRow(name, cards, sets) {
  return el('div', { class: 'replay-row' },
    el('span', { class: 'replay-name', text: name }),
    el('span', { class: 'replay-cards' }, ...cards.map((c) => cardFace(c, { small: true }))),
    sets.length ? el('span', { class: 'sets', text: `Made: ${sets.map(rankPlural).join(', ')}` }) : null);
}

export function renderRules(rules) {
  $('rules-title').textContent = `How to play: ${presetTitle(rules.preset)}`;
  $('rules-line').textContent = PRESET_LINES[rules.preset] ?? '';
  $('rules-list').replaceChildren(...rulesSummary(rules).map((line) => el('li', { text: line })));
}

export function renderChat(state, ui, welcome) {
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
export function placeChat(screen) {
  const chat = $('chat');
  const home = screen === 'waiting' ? $('screen-waiting') : $('side');
  if (chat.parentElement !== home && !chat.contains(document.activeElement)) home.append(chat);
}

// Focus never falls to the page: a control that is redrawn keeps it, and a
// control that goes away hands it to the hand or the prompt. `inMain`: the
// focus was last inside the page's main part.
export function rememberFocus(inMain) {
  const a = document.activeElement;
  return { key: a?.dataset?.focus ?? null, node: a, inMain };
}

export function restoreFocus(before, changed) {
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
