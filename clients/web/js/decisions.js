// What this seat may do now: the one place that decides, so the table never
// offers a move it should not. It holds no rule of its own: every choice
// comes from the server, through the `turn` that ends every decision (or a
// snapshot): `game.legal`, the proper decisions of the seat to act, and under
// table rules `game.improper`, this seat's decisions that the server accepts
// with a penalty (an ask out of turn, an illegal call, a false "Go fish"),
// whoever is to act. A real table's mistakes are the point of table rules,
// so both are offered; the page warns before an ask out of turn.

import { rankOf, RANKS, SUITS } from './cards.js';

const byRank = (a, b) => RANKS.indexOf(a) - RANKS.indexOf(b);
const byCard = (a, b) => byRank(rankOf(a), rankOf(b)) || SUITS.indexOf(a.slice(-1)) - SUITS.indexOf(b.slice(-1));
const union = (...lists) => [...new Set(lists.flatMap((l) => l ?? []))];

// Returns null when there is nothing to do, else
// { ask: {targets, ranks, cards|null, outOfTurn} | null, answers: [...], declare: [...], pending }
export function choices(state) {
  const room = state.room;
  const game = room?.game;
  const you = state.you;
  if (!game || room.state !== 'playing' || you === null || you === undefined) return null;
  const legal = game.legal ?? null;
  const improper = game.improper ?? null;
  if (!legal && !improper) return null;
  const proper = legal?.ask ?? null;
  const mistaken = improper?.ask ?? null;
  let ask = null;
  if (proper || mistaken) {
    const byCards = !!(proper?.cards || mistaken?.cards);
    const cards = byCards ? union(proper?.cards, mistaken?.cards).sort(byCard) : null;
    ask = {
      targets: union(proper?.targets, mistaken?.targets).sort((a, b) => a - b),
      ranks: byCards ? union(cards.map(rankOf)).sort(byRank) : union(proper?.ranks, mistaken?.ranks).sort(byRank),
      cards,
      // Every ask this seat may make now costs the penalty for asking out of turn.
      outOfTurn: !proper && improper?.penalty?.ask === 'asked_out_of_turn',
    };
  }
  const answers = union(legal?.answers, improper?.answers);
  // Asked, a player answers first: while an answer is owed the page offers
  // no ask (under table rules the server would take one out of turn, with its
  // penalty, but a card picked then hid the answer the table waits for).
  const owed = answers.length > 0 && !!game.pending;
  return {
    ask: owed ? null : ask,
    answers: ['give', 'go_fish'].filter((a) => answers.includes(a)),
    declare: legal?.declare ?? [],
    pending: game.pending,
  };
}
