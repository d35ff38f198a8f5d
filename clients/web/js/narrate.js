// Every room event in plain words a child can read, from the viewer's point of
// view, and one sentence for each move (an ask and everything it caused).

import { cardName, countOfRank, numberWord, rankPlural, rankOf } from './cards.js';
import { setWord, setsWord } from './rules.js';

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
// "Ben's", "Bubbles'": the one place a name's possessive is built.
export const possessive = (name) => (/s$/i.test(name) ? `${name}'` : `${name}'s`);

// `view` gives names: { you, nameOf(seat), rules }
export function clause(ev, view) {
  const you = view.you;
  const who = (seat) => (seat === you ? 'you' : view.nameOf(seat));
  const Who = (seat) => capital(who(seat));
  const is = (seat) => (seat === you ? 'are' : 'is');
  const has = (seat) => (seat === you ? 'have' : 'has');
  const set = setWord(view.rules);
  const setOf = (rank) => (set === 'pair' ? `a pair of ${rankPlural(rank)}` : `a set of four ${rankPlural(rank)}`);
  switch (ev.type) {
    case 'seat_joined': return `${ev.name} sat down at the table.`;
    case 'seat_left': return `${ev.name} left the table.`;
    case 'bot_added': return `${view.nameOf(ev.seat)}, a computer player, sat down.`;
    case 'bot_removed': return 'A computer player left the table.';
    case 'kicked': return ev.seat === you ? 'The host removed you from the room.' : `The host removed ${ev.name} from the room.`;
    case 'connection':
      return ev.connected ? `${Who(ev.seat)} ${is(ev.seat)} back.` : `${Who(ev.seat)} lost the connection.`;
    case 'host_changed': return `${Who(ev.seat)} ${is(ev.seat)} the host now.`;
    case 'game_started': return `Game ${ev.game} begins!`;
    case 'bot_takeover': {
      if (ev.reason === 'timeout') return `Time ran out, so the computer makes this move for ${who(ev.seat)}.`;
      if (ev.reason === 'disconnected') return `The computer plays for ${who(ev.seat)} until ${ev.seat === you ? 'you come' : 'they come'} back.`;
      return `The computer plays for ${who(ev.seat)} for the rest of the game.`;
    }
    case 'rematch': return `${Who(ev.seat)} ${ev.seat === you ? 'want' : 'wants'} to play again.`;
    case 'chat': return `${ev.name} says: ${ev.text}`;
    case 'deal': {
      const pond = ev.stock > 0 ? ` ${capital(numberWord(ev.stock))} cards are left in the pond.` : '';
      return `${Who(ev.dealer)} dealt the cards.${pond} ${ev.first === you ? 'You go first.' : `${Who(ev.first)} goes first.`}`;
    }
    case 'hand_dealt': return ev.seat === you ? `You have ${numberWord(ev.count)} cards.` : '';
    case 'asked': {
      const what = ev.card ? `the ${cardName(ev.card)}` : rankPlural(ev.rank);
      return `${Who(ev.seat)} asked ${who(ev.target)} for ${what}.`;
    }
    // Under table rules the answer is told by what follows it (gave, go_fish, penalty).
    case 'answered': return '';
    case 'gave': {
      const what = ev.cards.length === 1 && view.rules?.ask_for === 'card'
        ? `the ${cardName(ev.cards[0])}` : countOfRank(ev.cards.length, rankOf(ev.cards[0]));
      return `${Who(ev.from)} gave ${who(ev.to)} ${what}.`;
    }
    case 'go_fish': {
      // No pond (Authors): nobody says "Go fish!", the answer is just no.
      if (view.rules?.deal_whole_pack) return `${Who(ev.seat)} ${ev.seat === you ? "don't" : "doesn't"} have it.`;
      // Unless the move has an `answered` (table rules), the server answered for the seat.
      const said = ev.seat !== you ? `${Who(ev.seat)} said "Go fish!"`
        : view.answered ? 'You said "Go fish!"' : 'You had none: "Go fish!"';
      return said + (ev.stock_empty ? ' The pond is empty, so nobody fishes.' : '');
    }
    case 'drew': {
      const what = ev.card ? `the ${cardName(ev.card)}` : 'a card';
      if (ev.cause === 'empty_hand') return `${Who(ev.seat)} had no cards, so ${who(ev.seat)} took ${what} from the pond.`;
      return `${Who(ev.seat)} fished ${what}.`;
    }
    case 'lucky_draw': {
      const again = view.rules?.lucky_draw === 'ask_again';
      return `Lucky: the ${cardName(ev.card)} is just what ${who(ev.seat)} asked for` +
        (again ? `, so ${who(ev.seat)} ${ev.seat === you ? 'go' : 'goes'} again!` : '!');
    }
    case 'set_laid': {
      const note = ev.outcome === 'barred' ? ' It does not count, because of a penalty.'
        : ev.outcome === 'not_shown' ? ' It was not put down in time, so it does not count.' : '';
      return `${Who(ev.seat)} made ${setOf(ev.rank)}${ev.from_deal ? ' straight from the deal' : ''}!${note}`;
    }
    case 'penalty': {
      const what = view.rules?.ask_for === 'card' ? 'that kind of card' : rankPlural(ev.rank);
      if (ev.kind === 'asked_out_of_turn') {
        return `Penalty: ${who(ev.seat)} asked when it was not ${ev.seat === you ? 'your' : 'their'} turn, ` +
          `so ${who(ev.seat)} can never score ${what} in this game.`;
      }
      if (ev.kind === 'illegal_call') {
        return `Penalty: ${who(ev.seat)} asked for something ${ev.seat === you ? 'you were' : 'they were'} not allowed to ask for, ` +
          `so ${who(ev.seat)} will miss ${ev.seat === you ? 'your' : 'their'} next turn.`;
      }
      return `Penalty: ${who(ev.seat)} said "Go fish!" but had ${what}. The cards move anyway, ` +
        `${who(ev.seat)} will miss ${ev.seat === you ? 'your' : 'their'} next turn and can never score ${what} in this game.`;
    }
    case 'turn_passed': return ev.to === you ? "Now it's your turn." : `Now it's ${possessive(view.nameOf(ev.to))} turn.`;
    case 'sat_out': return `${Who(ev.seat)} ${has(ev.seat)} no cards and the pond is empty, so ${who(ev.seat)} ${ev.seat === you ? 'sit' : 'sits'} out.`;
    case 'went_out': return `${Who(ev.seat)} ${is(ev.seat)} out of the game (the ${set}s still count).`;
    case 'missed_turn': return `${Who(ev.seat)} ${ev.seat === you ? 'miss' : 'misses'} this turn (a penalty).`;
    case 'game_over': {
      const lost = you !== null && you !== undefined && ev.scores && !ev.winners.includes(you);
      const kind = lost ? ` Well played: you made ${numberWord(ev.scores[you])} ${setsWord(view.rules, ev.scores[you])}.` : '';
      return `${endReason(ev, view)} ${winnersText(ev.winners, view)}${kind}`;
    }
    default: return '';
  }
}

// Why the game ended, naming whose hand was empty.
export function endReason(result, view) {
  const set = setWord(view.rules);
  switch (result.reason) {
    case 'hand_empty': {
      const seat = result.hands.findIndex((h) => h.length === 0);
      if (seat < 0) return 'A player has no cards left, so the game is over.';
      return seat === view.you ? 'You have no cards left, so the game is over.'
        : `${view.nameOf(seat)} has no cards left, so the game is over.`;
    }
    case 'stock_out': return 'The pond is empty, so the game is over.';
    case 'all_sets_down': return `Every ${set} has been made, so the game is over.`;
    case 'no_one_can_play': return 'Nobody can ask anybody any more, so the game is over.';
    default: return 'The game is over.';
  }
}

// One sentence for a move: its events' clauses, joined. A catch keeps the
// turn (no turn_passed follows it in the move): the sentence says so, unless
// `view.ending()` says the game ends with this move (a hand emptied or every
// set made: game_over starts a move of its own, still waiting to be shown).
export function moveSentence(events, view) {
  const v = { ...view, answered: events.some((e) => e.type === 'answered') };
  const keeps = !events.some((e) => ['turn_passed', 'went_out', 'sat_out', 'game_over'].includes(e.type)) && !view.ending?.();
  const parts = [];
  for (const ev of events) {
    let text = clause(ev, v);
    if (text && ev.type === 'gave' && keeps) {
      text = `${text.slice(0, -1)}, so ${ev.to === view.you ? 'you go' : `${view.nameOf(ev.to)} goes`} again.`;
    }
    if (text) parts.push(text);
  }
  return parts.join(' ');
}

// A few words for another player's move: "Ben asked Ann for 7s: go fish.",
// "Ben got two 7s from Ann.", "Ben made a set of 7s." Rare events (penalties,
// going out) and the turn coming to the viewer are told in full.
export function briefSentence(events, view) {
  const you = view.you;
  const who = (seat) => (seat === you ? 'you' : view.nameOf(seat));
  const parts = [];
  let ask = null;
  for (const ev of events) {
    if (ev.type === 'asked') {
      ask = `${capital(who(ev.seat))} asked ${who(ev.target)} for ${ev.card ? `the ${cardName(ev.card)}` : rankPlural(ev.rank)}`;
    } else if (ev.type === 'go_fish' && ask) {
      parts.push(`${ask}: ${view.rules?.deal_whole_pack ? 'no' : 'go fish'}.`);
      ask = null;
    } else if (ev.type === 'gave') {
      parts.push(`${capital(who(ev.to))} got ${ev.cards.length === 1 && view.rules?.ask_for === 'card'
        ? `the ${cardName(ev.cards[0])}` : countOfRank(ev.cards.length, rankOf(ev.cards[0]))} from ${who(ev.from)}.`);
      ask = null;
    } else if (ev.type === 'set_laid' && ev.outcome === 'scores') {
      parts.push(`${capital(who(ev.seat))} made a ${setWord(view.rules)} of ${rankPlural(ev.rank)}.`);
    } else if (['penalty', 'went_out', 'sat_out', 'missed_turn', 'lucky_draw'].includes(ev.type)
      || (ev.type === 'turn_passed' && ev.to === you) || (ev.type === 'set_laid' && ev.outcome !== 'scores')) {
      parts.push(clause(ev, view));
    }
  }
  if (ask) parts.unshift(`${ask}.`);
  return parts.filter(Boolean).join(' ');
}

// The words on a seat: the question it asked, the answer it gave.
export function question(ev, view) {
  const whom = ev.target === view.you ? '' : `, ${view.nameOf(ev.target)}`;
  if (ev.card) return `Do you have the ${cardName(ev.card)}${whom}?`;
  return `Do you have any ${rankPlural(ev.rank)}${whom}?`;
}

export function winnersText(winners, view) {
  const names = winners.map((s) => (s === view.you ? 'you' : view.nameOf(s)));
  if (names.length === 0) return 'Nobody wins.';
  if (names.length === 1) return names[0] === 'you' ? 'You win!' : `${names[0]} wins!`;
  return `It's a tie: ${listWords(names)} share the win.`;
}

export const listWords = (items) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

