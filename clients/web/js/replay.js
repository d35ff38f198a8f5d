// The finished game step by step with every hand revealed. The transcript
// gives the deck; the events this client saw give what happened. Dealing
// goes one card at a time clockwise from the dealer's left, and every draw
// takes the next card of the stock (docs/TRANSCRIPT.md, "The deck, the deal
// and the stock"), so each hidden card can be named.

import { cardOrder } from './cards.js';

// Returns { steps: [{ text, event, hands, stock, sets }], complete } or null
// when the events do not cover the whole game.
export function buildReplay(transcript, gameLog, narrateFn) {
  const events = gameLog.map((e) => e.event);
  const start = events.findIndex((e) => e.type === 'deal');
  const end = events.findIndex((e) => e.type === 'game_over');
  if (start < 0 || end < 0) return null;
  const players = transcript.players;
  const deck = transcript.deck;
  const counts = new Array(players).fill(0);
  for (const e of events) if (e.type === 'hand_dealt') counts[e.seat] = e.count;
  const dealer = transcript.dealer;
  const hands = Array.from({ length: players }, () => []);
  const total = counts.reduce((a, b) => a + b, 0);
  let next = 0;
  for (let round = 0; next < total; round++) {
    for (let k = 1; k <= players && next < total; k++) {
      const seat = (dealer + k) % players;
      if (hands[seat].length < counts[seat]) hands[seat].push(deck[next++]);
    }
    if (round > 52) return null;
  }
  const sets = Array.from({ length: players }, () => []);
  const snap = (text, event) => ({
    text, event, stock: deck.length - next,
    hands: hands.map((h) => [...h].sort(cardOrder)), sets: sets.map((s) => [...s]),
  });
  const steps = [snap('The deal: every hand face up.', events[start])];
  for (const ev of events.slice(start + 1, end + 1)) {
    switch (ev.type) {
      case 'gave':
        for (const c of ev.cards) remove(hands[ev.from], c);
        hands[ev.to].push(...ev.cards);
        break;
      case 'drew': {
        const card = deck[next++];
        if (!card) return null;
        hands[ev.seat].push(card);
        break;
      }
      case 'set_laid':
        for (const c of ev.cards) remove(hands[ev.seat], c);
        sets[ev.seat].push(ev.rank);
        break;
      default: break;
    }
    if (ev.type === 'hand_dealt') continue;
    const text = narrateFn(ev);
    if (text) steps.push(snap(text, ev));
  }
  const final = events[end].hands;
  const matches = final.every((h, i) => [...h].sort(cardOrder).join() === [...hands[i]].sort(cardOrder).join());
  return matches ? { steps, complete: true } : null;
}

function remove(hand, card) {
  const i = hand.indexOf(card);
  if (i >= 0) hand.splice(i, 1);
}

export function downloadTranscript(msg) {
  const name = `gofish-${msg.code}-game${msg.game}.json`;
  const blob = new Blob([JSON.stringify(msg.transcript) + '\n'], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return name;
}
