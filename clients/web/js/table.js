// The table: the other seats, the pond, the move being told, and your own
// corner (prompt, choices, hand). Elements are updated in place, so focus
// stays where it was and nothing jumps: every box keeps its size while its
// text changes, and the hand keeps each kind of card where it was until you
// next touch the page (hand-layout.js).

import { backsFan, cardFace, cardName, countOfRank, rankOf, rankPlural, rankWord, RANKS } from './cards.js';
import { presetTitle, setsTitle, setsWord, setWord } from './rules.js';
import { el } from './dom.js';
import { fitHand, handOrder } from './hand-layout.js';

const $ = (id) => document.getElementById(id);

// Seats in play order starting left of `you` (everyone, for a spectator).
export function seatOrder(count, you) {
  const order = [];
  for (let k = 1; k <= count; k++) {
    const seat = ((you ?? -1) + k + count) % count;
    if (seat !== you) order.push(seat);
  }
  return order;
}

function seatStatus(state, seat) {
  const s = state.room.seats[seat];
  const level = s.occupant === 'bot' ? s.bot : null;
  if (level) return level;   // the fish avatar says "computer" (and the words for screen readers)
  if (s.occupant === 'empty') return 'left';
  if (s.bot_playing) return s.kicked ? 'removed: the computer plays' : 'away: the computer plays';
  return s.connected ? 'online' : 'offline';
}

// A seat's sets in few letters, for a phone's narrow seat: "2 sets: Q 10",
// or only how many when the kinds would not fit on its one line.
function setsShort(g, rules, status) {
  if (!g.sets.length) return `No ${setsWord(rules)} yet${status}`;
  const n = `${g.sets.length} ${setsWord(rules, g.sets.length)}`;
  const kinds = `${n}: ${g.sets.map((x) => x.rank).join(' ')}${status}`;
  return kinds.length <= 22 ? kinds : `${n}${status}`;
}

// The viewer's own sets in few letters, for a phone's one line: "7 pairs: 3 2 5 Q K 8 J",
// or only the count when the ranks would not fit.
function mySetsShort(g, rules, status) {
  if (!g.sets.length) return `No ${setsWord(rules)} yet${status}`;
  const n = `${g.sets.length} ${setsWord(rules, g.sets.length)}`;
  const kinds = `${n}: ${g.sets.map((x) => x.rank).join(' ')}${status}`;
  return kinds.length <= 34 ? kinds : `${n}${status}`;
}

function setMySets(long, short) {
  setText($('me-sets').querySelector('.long'), long);
  setText($('me-sets').querySelector('.short'), short);
}

function setsText(g) {
  if (!g.sets.length) return 'none yet';
  return g.sets.map((x) => `${rankPlural(x.rank)}${x.scores ? '' : ' (no score)'}`).join(', ');
}

export function renderSeats(state, ui, offer) {
  const room = state.room;
  const game = room.game;
  const list = $('seats');
  const order = seatOrder(room.seats.length, state.you);
  const targets = new Set(offer?.ask && ui.selected ? offer.ask.targets : []);
  const rules = state.rules;
  if (list.dataset.order !== order.join()) {
    list.replaceChildren(...order.map((seat) => el('li', { class: 'seat', 'data-seat': String(seat) },
      el('div', { class: 'seat-top' },
        el('span', { class: 'avatar', 'aria-hidden': 'true' }),
        el('span', { class: 'seat-name' }),
        el('span', { class: 'sr-only kind' }),
        el('span', { class: 'badge' }),
        // The host removes a player mid-game (app.js asks first); named in full for screen readers.
        el('button', { type: 'button', class: 'small danger seat-kick', 'data-kick': String(seat), 'data-focus': `seat-kick:${seat}`, hidden: true, text: 'Remove' })),
      el('p', { class: 'bubble' }),
      el('div', { class: 'seat-cards' }),
      el('p', { class: 'seat-sets' }, el('span', { class: 'long' }), el('span', { class: 'short', 'aria-hidden': 'true' })),
      el('span', { class: 'flag', 'aria-hidden': 'true' }),
      el('span', { class: 'reaction', 'aria-hidden': 'true' }))));
    list.dataset.order = order.join();
  }
  for (const li of list.children) {
    const seat = Number(li.dataset.seat);
    const s = room.seats[seat];
    const g = game.seats[seat];
    const name = state.nameOf(seat);
    const level = state.botLevel(seat);
    const turn = room.state === 'playing' && game.turn === seat;
    const reaction = ui.reaction?.seat === seat ? ui.reaction.text : '';
    // A reaction ("Go fish!") is what the seat says now: it takes the place of the question.
    li.className = `seat${turn ? ' turn' : ''}${reaction ? ' reacting' : ''}${targets.has(seat) ? ' target' : ''}${level ? ' bot' : ''}` +
      `${g.status !== 'in' ? ' out' : ''}${s.occupant === 'human' && !s.connected && !s.bot_playing ? ' offline' : ''}`;
    setText(li.querySelector('.seat-name'), name);
    setText(li.querySelector('.badge'), seatStatus(state, seat));
    const kick = li.querySelector('.seat-kick');
    // (Around one device nobody is removed: whoever leaves ends the game there.)
    kick.hidden = !(room.state === 'playing' && !ui.local && state.you !== null && state.you === room.host && seat !== state.you &&
      s.occupant === 'human' && !s.kicked);
    if (kick.getAttribute('aria-label') !== `Remove ${name}`) kick.setAttribute('aria-label', `Remove ${name}`);
    li.querySelector('.avatar').dataset.initial = level ? '' : name.charAt(0).toUpperCase();
    setText(li.querySelector('.kind'), level ? ', a computer player:' : ':');
    const said = ui.said.get(seat) ?? '';
    setText(li.querySelector('.bubble'), said);
    li.querySelector('.bubble').classList.toggle('empty', !said);
    const cards = li.querySelector('.seat-cards');
    if (cards.dataset.count !== String(g.hand_size)) {
      cards.replaceChildren(backsFan(g.hand_size));
      cards.dataset.count = String(g.hand_size);
    }
    const status = (g.status === 'out' ? ' · out of the game' : g.status === 'sitting_out' ? ' · sitting out' : '') +
      (g.misses_next_turn ? ' · misses a turn' : '');
    setText(li.querySelector('.seat-sets .long'), `${rules.set_size === 2 ? 'Pairs' : 'Sets'}: ${setsText(g)}${status}`);
    setText(li.querySelector('.seat-sets .short'), setsShort(g, rules, status.replace(' of the game', '')));
    fitSets(li.querySelector('.seat-sets'));
    setText(li.querySelector('.flag'), turn ? (room.game.phase === 'answer' && game.to_act !== seat ? 'Asking' : 'Their turn') : '');
    setText(li.querySelector('.reaction'), reaction);
    li.querySelector('.reaction').classList.toggle('show', !!reaction);
    li.querySelector('.reaction').classList.toggle('fish', reaction === 'Go fish!');
  }
}

// A seat's sets in words when they fit its line, else in few letters ("13
// pairs"); the words stay for screen readers either way.
function fitSets(box) {
  box.classList.remove('compact');
  if (box.scrollWidth > box.clientWidth + 1) box.classList.add('compact');
}

function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

const kPausedPrompt = 'Wait: play is paused until the game is saved.';
// Said where the player is looking, in place of the turn, while the connection is not online.
const kLostPrompt = {
  replaced: 'This game is open in another window. Choose "Play in this window" at the top to play here.',
  lost: 'Connection lost! Reconnecting… Your cards wait until it is back.',
};
const lostPrompt = (ui) => (ui.conn === 'online' || ui.local ? null : kLostPrompt[ui.conn === 'replaced' ? 'replaced' : 'lost']);

export function renderMe(state, ui, offer) {
  const paused = !!ui.paused;   // room_paused: nothing can be played
  const room = state.room;
  const game = room.game;
  const you = state.you;
  const rules = state.rules;
  const set = setWord(rules);
  $('table-title').textContent = `${presetTitle(rules.preset)} · game ${room.game_number}`;
  $('pond-count').textContent = game.stock > 0 || !rules.deal_whole_pack
    ? `${game.stock} ${game.stock === 1 ? 'card' : 'cards'} in the pond` : 'No pond in this game';
  $('pond').dataset.fish = String(Math.min(5, Math.ceil(game.stock / 8)));
  const me = $('me');
  const lost = room.state === 'playing' ? lostPrompt(ui) : null;
  me.classList.toggle('lost', !!lost);
  if (you === null) {
    setText($('me-name'), 'You are watching');
    setMySets('', '');
    setText($('prompt'), room.state !== 'playing' ? '' : lost ?? (paused ? kPausedPrompt : `${state.nameOf(game.to_act)} is playing.`));
    setText($('my-result'), '');
    $('my-result').classList.add('empty');
    $('hand').replaceChildren();
    $('actions').replaceChildren();
    $('card-picker').hidden = true;
    me.classList.add('watching');
    return;
  }
  me.classList.remove('watching');
  const mine = game.seats[you];
  const yourTurn = room.state === 'playing' && game.turn === you;
  const playable = yourTurn && !paused && !lost;
  setText($('me-name'), `${room.seats[you]?.name || state.nameOf(you)} (you)${playable ? ' · your turn!' : ''}`);
  setMySets(`${setsTitle(rules)}: ${setsText(mine)}${mine.misses_next_turn ? ' · you miss your next turn' : ''}`,
    mySetsShort(mine, rules, mine.misses_next_turn ? ' · miss next turn' : ''));
  me.classList.toggle('turn', playable);
  // Shown when the move told in the middle is another one.
  const result = ui.myResult && ui.myResult.id !== ui.move?.id ? `Last turn: ${ui.myResult.text}` : '';
  setText($('my-result'), result);
  $('my-result').classList.toggle('empty', !result);

  // The hand, one button per kind of card.
  const byCard = rules.ask_for === 'card';
  const askable = new Set(offer?.ask ? offer.ask.ranks : []);
  const groups = new Map();
  for (const c of game.hand) {
    const r = rankOf(c);
    if (!groups.has(r)) groups.set(r, []);
    groups.get(r).push(c);
  }
  const order = handOrder(ui, [...groups.keys()].sort((a, b) => RANKS.indexOf(a) - RANKS.indexOf(b)));
  const hand = $('hand');
  const existing = new Map([...hand.children].map((n) => [n.dataset.slot, n]));
  const wanted = order.map((r, i) => (r === null ? `gap${i}` : r));
  const nodes = wanted.map((key, i) => {
    const rank = order[i];
    let node = existing.get(key);
    if (rank === null) return node ?? el('span', { class: 'rank-gap', 'data-slot': key, 'aria-hidden': 'true' });
    const cards = groups.get(rank);
    const sig = cards.join();
    if (!node) {
      node = el('button', { type: 'button', class: 'rank-group', 'data-slot': rank, 'data-rank': rank, 'data-focus': `rank:${rank}` });
    }
    if (node.dataset.cards !== sig) {
      node.replaceChildren(el('span', { class: 'sr-only', text: `${countOfRank(cards.length, rank)}: ` }),
        ...cards.map((c) => {
          const face = cardFace(c);
          if (ui.fresh.has(c)) face.classList.add('arrive');
          return face;
        }));
      node.dataset.cards = sig;
      node.dataset.count = String(cards.length);
    }
    // aria-disabled, not disabled: a focused button must keep its focus when the turn moves on.
    const enabled = askable.has(rank) || !!offer?.declare?.includes(rank);
    node.setAttribute('aria-disabled', enabled ? 'false' : 'true');
    node.classList.toggle('selected', ui.selected === rank);
    node.setAttribute('aria-pressed', ui.selected === rank ? 'true' : 'false');
    return node;
  });
  // Reorder only when needed: moving a focused button would drop its focus.
  const same = nodes.length === hand.children.length && nodes.every((n, i) => hand.children[i] === n);
  if (!same) hand.replaceChildren(...nodes);
  hand.classList.toggle('empty', game.hand.length === 0);
  fitHand();
  hand.dataset.empty = game.hand.length === 0 ? (room.state === 'playing' ? 'You have no cards right now.' : '') : '';

  // Card games: after the kind, which exact card.
  const picker = $('card-picker');
  if (byCard && offer?.ask && ui.selected) {
    const cards = (offer.ask.cards ?? []).filter((c) => rankOf(c) === ui.selected);
    picker.hidden = false;
    const sig = `${cards.join()}|${ui.selectedCard ?? ''}`;
    if (picker.dataset.sig !== sig) {
      picker.replaceChildren(...cards.map((c) => el('button', { type: 'button', class: `pick${ui.selectedCard === c ? ' selected' : ''}`,
        'data-card': c, 'data-focus': `card:${c}`, 'aria-pressed': ui.selectedCard === c ? 'true' : 'false' },
      cardFace(c, { small: true }))));
      picker.dataset.sig = sig;
    }
  } else {
    picker.hidden = true;
    picker.dataset.sig = '';
    picker.replaceChildren();
  }

  // The choices: whom to ask, how to answer, laying down a set.
  const choices = [];
  let prompt = '';
  const p = game.pending;
  if (room.state !== 'playing') prompt = '';
  else if (lost) prompt = lost;
  else if (paused) prompt = kPausedPrompt;
  else if (offer?.ask && ui.selected) {
    const what = ui.selectedCard ? `the ${cardName(ui.selectedCard)}` : rankPlural(ui.selected);
    if (byCard && !ui.selectedCard) prompt = `Which ${rankWord(ui.selected)} do you want to ask for?`;
    else prompt = `Who do you want to ask for ${what}?`;
    if (offer.ask.outOfTurn) prompt = `It is not your turn! Asking now costs a penalty. ${prompt}`;
    if (!byCard || ui.selectedCard) {
      for (const seat of seatOrder(room.seats.length, you)) {
        if (!offer.ask.targets.includes(seat)) continue;
        choices.push(el('button', { type: 'button', class: 'ask', 'data-target': String(seat), 'data-focus': `target:${seat}`,
          text: `Ask ${state.nameOf(seat)}` }));
      }
    }
    if (offer.declare?.includes(ui.selected)) {
      choices.push(el('button', { type: 'button', 'data-declare': ui.selected, 'data-focus': `declare:${ui.selected}`,
        text: `Put down my ${rankPlural(ui.selected)}` }));
    }
    choices.push(el('button', { type: 'button', class: 'quiet', 'data-cancel': '1', 'data-focus': 'cancel', text: 'Pick another card' }));
  } else if (offer?.answers?.length && p) {
    const what = p.card ? `the ${cardName(p.card)}` : rankPlural(p.rank);
    prompt = `${state.nameOf(p.seat)} asked you for ${what}. What do you say?`;
    choices.push(el('button', { type: 'button', class: 'primary', 'data-answer': 'give', 'data-focus': 'answer:give',
      text: p.card ? 'Give it' : `Give my ${rankPlural(p.rank)}` }));
    choices.push(el('button', { type: 'button', class: 'fish-button', 'data-answer': 'go_fish', 'data-focus': 'answer:go_fish', text: 'Go fish!' }));
  } else if (offer?.ask && !offer.ask.outOfTurn) {
    prompt = `Your turn! Pick a card to ask for.`;
  } else if (offer?.declare?.length && yourTurn) {
    prompt = `Your turn! Pick cards to put down as a ${set}.`;
  } else if (yourTurn && game.phase === 'answer' && p) {
    prompt = `Waiting for ${state.nameOf(p.target)} to answer.`;
  } else if (yourTurn) {
    prompt = 'Your turn…';
  } else {
    const who = game.phase === 'answer' && p ? p.target : game.to_act;
    prompt = `${state.nameOf(who)} is playing.` + (offer?.ask?.outOfTurn ? ' (Table rules: you may ask now, but out of turn is a penalty.)' : '');
  }
  setText($('prompt'), prompt);
  const actions = $('actions');
  $('my-result').classList.toggle('covered', choices.length > 0);   // the choices stand in its place
  const sig = choices.map((b) => `${b.dataset.focus}:${b.textContent}`).join('|');
  if (actions.dataset.sig !== sig) {
    actions.replaceChildren(...choices);
    actions.dataset.sig = sig;
  }
}
