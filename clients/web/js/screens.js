// Drawing each screen from the room state. Nothing here talks to the server:
// buttons carry data-* attributes that app.js handles.

import { backsFan, cardFace, cardName, groupByRank, rankPlural, rankWord, rankOf, countOfRank } from './cards.js';
import { PRESET_LINES, presetTitle, rulesSummary, setWord, tieBreakText } from './rules.js';
import { listWords, winnersText } from './narrate.js';

const $ = (id) => document.getElementById(id);
const SCREENS = ['home', 'create', 'invite', 'waiting', 'table', 'over'];

export function showScreen(name) {
  for (const s of SCREENS) $(`screen-${s}`).hidden = s !== name;
  document.body.dataset.screen = name;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('data-')) node.setAttribute(k, v);
    else if (k in node && typeof v !== 'string') node[k] = v;
    else node.setAttribute(k, v === true ? '' : v);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}
export { el };

export function renderPresets(presets, chosen) {
  const list = $('preset-list');
  list.replaceChildren(...presets.map((p) => el('label', { class: 'preset' },
    el('input', { type: 'radio', name: 'preset', value: p.name, checked: p.name === chosen }),
    el('span', { class: 'preset-name', text: presetTitle(p.name) }),
    el('span', { class: 'preset-line', text: PRESET_LINES[p.name] ?? p.summary }))));
}

export function renderSeatSetup(count, levels) {
  const box = $('seat-setup');
  const old = [...box.querySelectorAll('select')].map((s) => s.value);
  const rows = [el('p', { class: 'hint', text: 'Seat 1 is you. For each other seat, wait for a person or seat a bot.' })];
  for (let seat = 1; seat < count; seat++) {
    const select = el('select', { id: `seat-kind-${seat}`, 'data-seat': String(seat) },
      el('option', { value: 'person', text: 'A person (invite them)' }),
      ...levels.map((level) => el('option', { value: level, text: `${capital(level)} bot` })));
    select.value = old[seat - 1] ?? (seat === count - 1 && count > 2 ? 'medium' : 'person');
    rows.push(el('label', { class: 'field inline' }, `Seat ${seat + 1}`, select));
  }
  box.replaceChildren(...rows);
}

export function renderLobby(rooms) {
  const list = $('lobby-list');
  if (!rooms.length) {
    list.replaceChildren(el('li', { class: 'hint', text: 'No open rooms right now. Create one!' }));
    return;
  }
  list.replaceChildren(...rooms.map((r) => el('li', {},
    el('span', { text: `${r.host}'s room · ${presetTitle(r.preset)} · ${r.taken} of ${r.seats} seats taken` +
      (r.turn_timer_seconds ? ` · ${r.turn_timer_seconds} s timer` : '') }),
    el('button', { type: 'button', class: 'small', 'data-join': r.code, text: `Join ${r.code}` }))));
}

export function renderWaiting(state, welcome) {
  const room = state.room;
  const you = state.you;
  const isHost = you !== null && room.host === you;
  $('waiting-code').textContent = room.code;
  $('waiting-preset').textContent = `${presetTitle(room.settings.rules.preset)}: ${PRESET_LINES[room.settings.rules.preset] ?? ''}`;
  $('invite-link').value = new URL(room.invite, location.origin).href;
  const levels = welcome?.bot_levels ?? ['easy', 'medium', 'hard'];
  $('waiting-seats').replaceChildren(...room.seats.map((s) => {
    const tags = [];
    if (s.seat === room.host) tags.push('host');
    if (s.seat === you) tags.push('you');
    const label = s.occupant === 'empty' ? 'Empty seat' : s.name;
    const status = s.occupant === 'bot' ? `${capital(s.bot)} bot` : s.occupant === 'human' ? (s.connected ? 'online' : 'offline') : 'waiting for a player';
    const controls = [];
    if (isHost && s.occupant === 'empty') {
      const select = el('select', { 'aria-label': `Bot level for seat ${s.seat + 1}`, id: `bot-level-${s.seat}` },
        ...levels.map((l) => el('option', { value: l, text: `${capital(l)} bot`, selected: l === 'medium' })));
      controls.push(select, el('button', { type: 'button', class: 'small', 'data-add-bot': String(s.seat), text: 'Add bot' }));
    }
    if (isHost && s.occupant === 'bot') controls.push(el('button', { type: 'button', class: 'small', 'data-remove-bot': String(s.seat), text: 'Remove bot' }));
    if (isHost && s.occupant === 'human' && s.seat !== you) controls.push(el('button', { type: 'button', class: 'small', 'data-kick': String(s.seat), text: `Remove ${s.name}` }));
    return el('li', { class: `seat-row ${s.occupant}`, 'data-seat': String(s.seat) },
      el('span', { class: 'seat-num', text: `Seat ${s.seat + 1}` }),
      el('span', { class: 'seat-name', text: label + (tags.length ? ` (${tags.join(', ')})` : '') }),
      el('span', { class: `status ${s.occupant === 'human' ? (s.connected ? 'on' : 'off') : ''}`, text: status }),
      el('span', { class: 'controls' }, ...controls));
  }));
  const empty = room.seats.filter((s) => s.occupant === 'empty').length;
  const start = $('start-game');
  start.hidden = !isHost;
  start.disabled = empty > 0;
  $('waiting-status').textContent = empty > 0
    ? `Waiting for ${empty} more ${empty === 1 ? 'player' : 'players'}${isHost ? ' (or add bots)' : ''}.`
    : isHost ? 'Everyone is here. Start when you are ready.' : 'Everyone is here. Waiting for the host to start.';
  if (state.isSpectator) $('waiting-status').textContent += ' You are watching.';
}

// The table. `ui` holds the selection and animation hints from app.js.
export function renderTable(state, ui) {
  const room = state.room;
  const game = room.game;
  const you = state.you;
  const rules = room.settings.rules;
  const set = setWord(rules);
  const legal = game.legal;
  const canAsk = !!legal?.ask && room.state === 'playing';
  $('table-title').textContent = `Room ${room.code} · ${presetTitle(rules.preset)} · game ${room.game_number}`;

  // Opponents (everyone, for a spectator), in seat order starting left of you.
  const order = [];
  for (let k = 1; k <= room.seats.length; k++) {
    const seat = ((you ?? -1) + k + room.seats.length) % room.seats.length;
    if (seat !== you) order.push(seat);
  }
  const targets = new Set(canAsk && ui.selected ? legal.ask.targets : []);
  $('opponents').replaceChildren(...order.map((seat) => {
    const s = room.seats[seat];
    const g = game.seats[seat];
    const turn = game.turn === seat && room.state === 'playing';
    const conn = connectionText(s);
    const sets = g.sets.map((x) => rankWord(x.rank)).join(', ');
    const enabled = targets.has(seat);
    const labelParts = [s.name, `${g.hand_size} ${g.hand_size === 1 ? 'card' : 'cards'}`,
      `${g.score} ${g.score === 1 ? set : set + 's'}${sets ? `: ${sets}` : ''}`, conn];
    if (turn) labelParts.push('their turn');
    if (g.status !== 'in') labelParts.push(g.status === 'out' ? 'out of the game' : 'sitting out');
    if (enabled) labelParts.unshift(`Ask ${s.name} for ${ui.selectedCard ? 'the ' + cardName(ui.selectedCard) : rankPlural(ui.selected)}:`);
    const body = [
      el('span', { class: 'opp-head' },
        el('span', { class: `dot ${conn === 'online' ? 'on' : conn === 'bot' ? 'bot' : 'off'}`, 'aria-hidden': 'true' }),
        el('span', { class: 'opp-name', text: s.name }),
        el('span', { class: 'opp-conn', text: conn })),
      backsFan(g.hand_size),
      el('span', { class: 'sets', text: `${capital(set)}s: ${g.score}${sets ? ` (${sets})` : ''}` }),
      turn ? el('span', { class: 'turn-tag', text: 'Their turn' }) : null,
      g.status !== 'in' ? el('span', { class: 'turn-tag out', text: g.status === 'out' ? 'Out' : 'Sitting out' }) : null,
    ];
    const cls = `opponent${turn ? ' turn' : ''}${enabled ? ' target' : ''}${ui.pulse?.has(seat) ? ' pulse' : ''}`;
    return el('button', { type: 'button', class: cls, disabled: !enabled, 'data-target': String(seat),
      'data-focus': `target:${seat}`, 'aria-label': labelParts.join(', ') }, ...body);
  }));

  // The stock.
  $('stock').replaceChildren(
    game.stock > 0 ? backsFan(Math.min(game.stock, 3)) : el('span', { class: 'empty-stock', text: 'No stock' }),
    el('span', { class: 'stock-count', text: `Stock: ${game.stock} ${game.stock === 1 ? 'card' : 'cards'}` }));
  $('stock').querySelector('.fan .count')?.remove();

  // Me.
  const me = $('me');
  me.hidden = false;
  if (you === null) {
    $('me-name').textContent = 'You are watching';
    $('me-sets').textContent = '';
    $('prompt').textContent = room.state === 'playing' ? `${state.nameOf(game.turn)} is playing.` : '';
    $('hand').replaceChildren();
    $('hand').hidden = true;
    $('card-picker').hidden = true;
    return;
  }
  $('hand').hidden = false;
  const mine = game.seats[you];
  const mySets = mine.sets.map((x) => rankWord(x.rank)).join(', ');
  const yourTurn = game.turn === you && room.state === 'playing';
  $('me-name').textContent = `You (${room.seats[you].name})${yourTurn ? ' · your turn' : ''}`;
  $('me-sets').textContent = `${capital(set)}s: ${mine.score}${mySets ? ` (${mySets})` : ''}`;
  me.classList.toggle('turn', yourTurn);

  const byCard = rules.ask_for === 'card';
  const askRanks = new Set(canAsk ? (byCard ? legal.ask.cards.map(rankOf) : legal.ask.ranks) : []);
  const groups = groupByRank(game.hand);
  $('hand').replaceChildren(...[...groups].map(([rank, cards]) => {
    const enabled = askRanks.has(rank);
    const pressed = ui.selected === rank;
    const label = `${countOfRank(cards.length, rank)}: ${cards.map(cardName).join(', ')}` +
      (enabled ? (pressed ? ', chosen' : `, choose to ask for ${byCard ? 'a card of this rank' : rankPlural(rank)}`) : '');
    const btn = el('button', { type: 'button', class: `rank-group${pressed ? ' selected' : ''}`, disabled: !enabled,
      'aria-pressed': pressed ? 'true' : 'false', 'data-rank': rank, 'data-focus': `rank:${rank}`, 'aria-label': label },
    ...cards.map((c) => {
      const face = cardFace(c);
      if (ui.fresh?.has(c)) face.classList.add('arrive');
      return face;
    }));
    return btn;
  }));
  if (game.hand.length === 0) $('hand').append(el('p', { class: 'hint', text: 'Your hand is empty.' }));

  // Card-asking rules: after a rank, pick the exact card.
  const picker = $('card-picker');
  if (byCard && canAsk && ui.selected) {
    const cards = legal.ask.cards.filter((c) => rankOf(c) === ui.selected);
    picker.hidden = false;
    picker.replaceChildren(el('span', { class: 'hint', text: 'Which card?' }), ...cards.map((c) => {
      const pressed = ui.selectedCard === c;
      return el('button', { type: 'button', class: `pick${pressed ? ' selected' : ''}`, 'data-card': c,
        'data-focus': `card:${c}`, 'aria-pressed': pressed ? 'true' : 'false', 'aria-label': `Ask for the ${cardName(c)}` },
      cardFace(c, { small: true }));
    }));
  } else {
    picker.hidden = true;
    picker.replaceChildren();
  }

  // Table rules: the asked player answers, and owners declare their sets.
  const decide = $('decide');
  const choices = [];
  for (const answer of legal?.answers ?? []) {
    choices.push(el('button', { type: 'button', class: answer === 'give' ? 'primary' : '', 'data-answer': answer,
      'data-focus': `answer:${answer}`, text: answer === 'give' ? 'Give the cards' : 'Say "Go fish!"' }));
  }
  for (const rank of legal?.declare ?? []) {
    choices.push(el('button', { type: 'button', 'data-declare': rank, 'data-focus': `declare:${rank}`,
      text: `Lay down the ${set} of ${rankPlural(rank)}` }));
  }
  decide.hidden = choices.length === 0;
  decide.replaceChildren(...choices);

  let prompt = '';
  if (room.state !== 'playing') prompt = '';
  else if (legal?.answers?.length) {
    const p = game.pending;
    prompt = p ? `${state.nameOf(p.seat)} asked you for ${p.card ? 'the ' + cardName(p.card) : rankPlural(p.rank)}: answer.` : 'Answer the ask.';
  }
  else if (yourTurn && canAsk) {
    if (!ui.selected) prompt = `Your turn: pick a ${byCard ? 'rank' : 'rank to ask for'} in your hand.`;
    else if (byCard && !ui.selectedCard) prompt = `Now pick which ${rankWord(ui.selected)} you want.`;
    else prompt = `Now pick a player to ask for ${ui.selectedCard ? 'the ' + cardName(ui.selectedCard) : rankPlural(ui.selected)}.`;
  } else if (yourTurn) prompt = 'Your turn…';
  else prompt = `Waiting for ${state.nameOf(game.to_act)}.`;
  $('prompt').textContent = prompt;
}

function connectionText(s) {
  if (s.occupant === 'bot') return 'bot';
  if (s.bot_playing) return 'a bot plays for them';
  return s.connected ? 'online' : 'offline';
}

export function renderOver(state, ui) {
  const room = state.room;
  const result = room.result;
  const rules = room.settings.rules;
  const set = setWord(rules);
  const you = state.you;
  const view = { you, nameOf: (s) => state.nameOf(s) };
  $('over-winners').textContent = winnersText(result.winners, view);
  $('over-reason').textContent = {
    hand_empty: 'The game ended because a hand was empty.',
    stock_out: 'The game ended because the stock ran out.',
    all_sets_down: `The game ended because every ${set} was down.`,
    no_one_can_play: 'The game ended because nobody could play on.',
  }[result.reason] ?? '';
  $('scores-sets').textContent = `${capital(set)}s`;
  $('scores').tBodies[0].replaceChildren(...room.seats.map((s, i) => el('tr', { class: result.winners.includes(i) ? 'winner' : '' },
    el('th', { scope: 'row', text: s.name + (i === you ? ' (you)' : '') }),
    el('td', { text: String(result.scores[i]) }),
    el('td', { text: String(result.hands[i].length) }),
    el('td', { text: result.winners.includes(i) ? '★ Winner' : '' }))));
  $('over-tiebreak').textContent = tieBreakExplained(result, rules, state);
  const rematch = $('rematch');
  rematch.hidden = you === null;
  const asked = you !== null && state.ready.includes(you);
  rematch.disabled = asked;
  rematch.textContent = asked ? 'Waiting for the others…' : 'Play again';
  $('rematch-status').textContent = state.ready.length
    ? `${listWords(state.ready.map((s) => (s === you ? 'you' : state.nameOf(s))))} ${state.ready.length === 1 && state.ready[0] !== you ? 'wants' : 'want'} to play again.`
    : '';
  renderReplay(state, ui);
}

function tieBreakExplained(result, rules, state) {
  const best = Math.max(...result.scores);
  const top = result.scores.map((s, i) => [s, i]).filter(([s]) => s === best).map(([, i]) => i);
  const set = setWord(rules);
  if (top.length < 2) return '';
  const names = listWords(top.map((i) => state.nameOf(i)));
  if (result.winners.length > 1) return `${names} each made ${best} ${set}s. ${tieBreakText(rules)}`;
  const w = result.winners[0];
  const left = top.map((i) => `${state.nameOf(i)} ${result.hands[i].length}`).join(', ');
  return `${names} each made ${best} ${set}s; ${state.nameOf(w)} wins the tie with the fewest cards left in hand (${left}).`;
}

export function renderReplay(state, ui) {
  const replay = ui.replay;
  const hands = $('replay-hands');
  $('download').disabled = !ui.transcript;
  if (!replay) {
    const result = state.room.result;
    $('replay-pos').textContent = ui.transcript ? 'The step-by-step replay needs the whole game seen from this page; here are the final hands.' : 'Loading the game record…';
    $('replay-text').textContent = '';
    hands.replaceChildren(...state.room.seats.map((s, i) => handRow(s.name, result.hands[i], [])));
    for (const id of ['replay-first', 'replay-prev', 'replay-next', 'replay-last']) $(id).disabled = true;
    return;
  }
  const step = replay.steps[ui.replayStep];
  $('replay-pos').textContent = `Step ${ui.replayStep + 1} of ${replay.steps.length}`;
  $('replay-text').textContent = `${step.text} (stock: ${step.stock})`;
  hands.replaceChildren(...state.room.seats.map((s, i) => handRow(s.name, step.hands[i], step.sets[i])));
  $('replay-first').disabled = $('replay-prev').disabled = ui.replayStep === 0;
  $('replay-next').disabled = $('replay-last').disabled = ui.replayStep === replay.steps.length - 1;
}

function handRow(name, cards, sets) {
  return el('div', { class: 'replay-row' },
    el('span', { class: 'opp-name', text: name }),
    el('span', { class: 'replay-cards' }, ...cards.map((c) => cardFace(c, { small: true }))),
    sets.length ? el('span', { class: 'sets', text: `Sets: ${sets.map(rankWord).join(', ')}` }) : null);
}

export function renderRules(rules) {
  $('rules-title').textContent = `Rules: ${presetTitle(rules.preset)}`;
  $('rules-line').textContent = PRESET_LINES[rules.preset] ?? '';
  $('rules-list').replaceChildren(...rulesSummary(rules).map((line) => el('li', { text: line })));
}

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
