// Every room event in plain words a child can read, from the viewer's point of
// view, and one sentence for each move (an ask and everything it caused).

import { cardName, countOfRank, numberWord, rankPlural, rankOf } from './cards.js';
import { setWord } from './rules.js';

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

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
    case 'go_fish': return `${ev.seat === you ? 'You said' : `${Who(ev.seat)} said`} "Go fish!"` +
      (ev.stock_empty ? ' The pond is empty, so nobody fishes.' : '');
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
    case 'turn_passed': return ev.to === you ? "Now it's your turn." : `Now it's ${view.nameOf(ev.to)}'s turn.`;
    case 'sat_out': return `${Who(ev.seat)} ${has(ev.seat)} no cards and the pond is empty, so ${who(ev.seat)} ${ev.seat === you ? 'sit' : 'sits'} out.`;
    case 'went_out': return `${Who(ev.seat)} ${is(ev.seat)} out of the game (the ${set}s still count).`;
    case 'missed_turn': return `${Who(ev.seat)} ${ev.seat === you ? 'miss' : 'misses'} this turn (a penalty).`;
    case 'game_over': return `${endReason(ev, view)} ${winnersText(ev.winners, view)}`;
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

// One sentence for a move: its events' clauses, joined.
export function moveSentence(events, view) {
  const parts = [];
  for (const ev of events) {
    const text = clause(ev, view);
    if (text) parts.push(text);
  }
  return parts.join(' ');
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

