// What this seat may do now: the one place that decides, so the table never
// offers a move it should not. Strict rooms offer exactly the server's legal
// decisions (`game.legal`: from the `turn` message that ends every decision,
// or from a snapshot). Under table
// rules a real table's mistakes are the point: the page offers every ask at
// any time, both answers and laying down any kind of card, and the server
// answers mistakes with penalties (or refuses, with its reason).

import { rankOf, RANKS, SUITS } from './cards.js';

// Returns null when there is nothing to do, else
// { ask: {targets, ranks, cards|null, outOfTurn} | null, answers: [...], declare: [...], pending }
export function choices(state) {
  const room = state.room;
  const game = room?.game;
  const you = state.you;
  if (!game || room.state !== 'playing' || you === null || you === undefined) return null;
  const rules = state.rules;
  const mine = game.seats[you];
  if (rules.table_rules) {
    if (mine.status === 'out') return null;
    const others = game.seats.map((s, i) => i).filter((i) => i !== you && game.seats[i].status !== 'out');
    const held = [...new Set(game.hand.map(rankOf))];
    const pendingForMe = game.pending && game.pending.target === you;
    const myTurn = game.turn === you;
    const ownAskWaiting = game.pending && game.pending.seat === you;
    const canAsk = others.length > 0 && held.length > 0 && !ownAskWaiting;
    return {
      ask: canAsk ? {
        targets: others,
        ranks: held,
        // Card games: any card of a kind you hold (a held card is a mistake unless allowed).
        cards: rules.ask_for === 'card' ? held.flatMap((r) => SUITS.map((s) => r + s)) : null,
        outOfTurn: !myTurn,
      } : null,
      answers: pendingForMe ? ['give', 'go_fish'] : [],
      declare: myTurn && !game.pending ? held : [],
      pending: game.pending,
    };
  }
  const legal = game.legal;
  if (!legal) return null;
  const ask = legal.ask ? {
    targets: legal.ask.targets,
    ranks: legal.ask.ranks ?? [...new Set(legal.ask.cards.map(rankOf))].sort((a, b) => RANKS.indexOf(a) - RANKS.indexOf(b)),
    cards: legal.ask.cards ?? null,
    outOfTurn: false,
  } : null;
  return { ask, answers: legal.answers ?? [], declare: legal.declare ?? [], pending: game.pending };
}
