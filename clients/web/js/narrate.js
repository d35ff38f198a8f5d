// Every room event in plain words, from the viewer's point of view.

import { aRank, cardName, countOfRank, numberWord, rankPlural, rankWord, rankOf } from './cards.js';
import { setWord } from './rules.js';

// `view` gives names: { you, nameOf(seat), rules, lastAsk }
export function narrate(ev, view) {
  const you = view.you;
  const who = (seat) => (seat === you ? 'you' : view.nameOf(seat));
  const Who = (seat) => capital(who(seat));
  const set = setWord(view.rules);
  switch (ev.type) {
    case 'seat_joined': return `${ev.name} sat down in seat ${ev.seat + 1}.`;
    case 'seat_left': return `${ev.name} left the table.`;
    case 'bot_added': return `${ev.name} joined the table.`;
    case 'bot_removed': return `The bot in seat ${ev.seat + 1} was removed.`;
    case 'kicked': return ev.seat === you ? 'The host removed you from the room.' : `The host removed ${ev.name}.`;
    case 'connection':
      return ev.connected ? `${Who(ev.seat)} ${ev.seat === you ? 'are' : 'is'} back online.`
        : `${Who(ev.seat)} lost the connection.`;
    case 'spectators':
      return ev.count === 0 ? 'Nobody is watching now.'
        : `${capital(numberWord(ev.count))} ${ev.count === 1 ? 'person is' : 'people are'} watching.`;
    case 'host_changed': return `${Who(ev.seat)} ${ev.seat === you ? 'are' : 'is'} the host now.`;
    case 'game_started': return `Game ${ev.game} begins!`;
    case 'bot_takeover': {
      const why = { disconnected: 'while they are away', timeout: 'for this move: time ran out',
        left: 'for the rest of the game', kicked: 'for the rest of the game' }[ev.reason] ?? '';
      return ev.seat === you ? `A bot plays for you ${why.replace('they are', 'you are')}.` : `A bot plays for ${who(ev.seat)} ${why}.`;
    }
    case 'turn_timer': return ev.seat === you ? `You have ${ev.seconds} seconds to ask.` : '';
    case 'rematch': return `${Who(ev.seat)} ${ev.seat === you ? 'want' : 'wants'} a rematch.`;
    case 'chat': return `${ev.name}: ${ev.text}`;
    case 'deal':
      return `${Who(ev.dealer)} dealt the cards. ${ev.stock} left in the stock. ` +
        (ev.first === you ? 'You go first.' : `${Who(ev.first)} goes first.`);
    case 'hand_dealt':
      return ev.seat === you ? `You got ${numberWord(ev.count)} cards.` : '';
    case 'asked': {
      const what = ev.card ? `the ${cardName(ev.card)}` : rankPlural(ev.rank);
      return `${Who(ev.seat)} asked ${who(ev.target)} for ${what}.`;
    }
    case 'answered': return `${Who(ev.seat)} said ${ev.give ? '"Here you go"' : '"Go fish!"'}.`;
    case 'gave': {
      const rank = rankOf(ev.cards[0]);
      const what = ev.cards.length === 1 && view.rules?.ask_for === 'card'
        ? `the ${cardName(ev.cards[0])}` : countOfRank(ev.cards.length, rank);
      return `${Who(ev.from)} gave ${who(ev.to)} ${what}.`;
    }
    case 'go_fish': {
      const ask = view.lastAsk;
      const none = ask ? (ask.card ? ` ${capital(who(ev.seat))} ${ev.seat === you ? "don't" : "doesn't"} have the ${cardName(ask.card)}.`
        : ` ${capital(who(ev.seat))} ${ev.seat === you ? 'have' : 'has'} no ${rankPlural(ask.rank)}.`) : '';
      return `Go fish!${none}` + (ev.stock_empty ? ' The stock is empty, so nobody draws.' : '');
    }
    case 'drew': {
      const because = ev.cause === 'empty_hand' ? ' (an empty hand draws)' : '';
      if (ev.seat === you) return ev.card ? `You drew the ${cardName(ev.card)}${because}.` : `You drew a card${because}.`;
      return `${Who(ev.seat)} drew a card${because}.`;
    }
    case 'lucky_draw': {
      const asked = view.rules?.ask_for === 'card' ? `the ${cardName(ev.card)}` : `the ${rankWord(rankOf(ev.card))}`;
      const again = view.rules?.lucky_draw === 'ask_again';
      return ev.seat === you
        ? `You drew ${asked} you asked for${again ? ', go again' : ''}!`
        : `${Who(ev.seat)} drew ${asked} they asked for (the ${cardName(ev.card)})${again ? ' and asks again' : ''}.`;
    }
    case 'set_laid': {
      const of = set === 'pair' ? `a pair of ${rankPlural(ev.rank)}` : `a book of ${rankPlural(ev.rank)}`;
      const note = ev.outcome === 'barred' ? ' It does not score.' : ev.outcome === 'not_shown' ? ' It was laid face down.' : '';
      return `${Who(ev.seat)} made ${of}${ev.from_deal ? ' straight from the deal' : ''}!${note}`;
    }
    case 'penalty': return `${Who(ev.seat)} got a penalty (${ev.kind.replaceAll('_', ' ')}).`;
    case 'turn_passed': return ev.to === you ? "It's your turn." : `It's ${view.nameOf(ev.to)}'s turn.`;
    case 'sat_out': return `${Who(ev.seat)} ${ev.seat === you ? 'have' : 'has'} no cards and no stock to draw from, and sit${ev.seat === you ? '' : 's'} out.`;
    case 'went_out': return `${Who(ev.seat)} ${ev.seat === you ? 'are' : 'is'} out of the game (the ${set}s still count).`;
    case 'missed_turn': return `${Who(ev.seat)} ${ev.seat === you ? 'miss' : 'misses'} a turn.`;
    case 'game_over': return `Game over! ${winnersText(ev.winners, view)}`;
    default: return '';
  }
}

export function winnersText(winners, view) {
  const names = winners.map((s) => (s === view.you ? 'you' : view.nameOf(s)));
  if (names.length === 0) return 'Nobody wins.';
  if (names.length === 1) return names[0] === 'you' ? 'You win!' : `${names[0]} wins!`;
  return `A tie: ${listWords(names)} share the win.`;
}

export const listWords = (items) =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
export { aRank };
