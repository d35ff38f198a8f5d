// What the screen reader hears: one live region and a queue in front of it.
// Nothing put in the region is replaced before it could have been spoken at
// 15 characters a second. Other players' moves that pile up meanwhile are
// told as one short summary; the player's own moves and their turn are told
// in full unless the player has already asked again; pauses, alerts and chat
// are never dropped.

import { briefSentence, listWords } from './narrate.js';
import { numberWord, rankOf, rankPlural } from './cards.js';
import { setWord } from './rules.js';

const CPS = 15;      // characters a second: a typical screen reader's rate
const GAP = 250;     // ms of quiet between two announcements

// What a move adds to the queue under the chosen verbosity: { text, keep,
// mine, turn, who, sets, lost }. `keep`: not condensed while it is news;
// `mine`: the player's own ask; `turn`: it gives the player the turn (both
// are stale once the player has asked again); `who` (the asker), `sets`
// ([who, rank, word]) and `lost` ([taker, rank]) make a summary.
export function moveItem(events, view, mode, sentence) {
  const you = view.you;
  const first = events[0];
  if (['game_started', 'game_over'].includes(first?.type)) return { text: sentence, keep: true };
  const mine = you !== null && first?.type === 'asked' && first.seat === you;
  const turn = events.some((e) => e.type === 'turn_passed' && e.to === you);
  const involves = you !== null && events.some((e) => e.seat === you || e.target === you || e.to === you || e.from === you);
  const name = (seat) => (seat === you ? 'you' : view.nameOf(seat));
  const sets = events.filter((e) => e.type === 'set_laid' && e.outcome === 'scores').map((e) => [name(e.seat), e.rank, setWord(view.rules)]);
  const lost = events.filter((e) => e.type === 'gave' && you !== null && e.from === you).map((e) => [name(e.to), rankOf(e.cards[0])]);
  const who = mine ? 'you' : first?.type === 'asked' ? view.nameOf(first.seat) : null;
  if (mode === 'mine' || mode === 'turn') {
    const whole = mode === 'mine' ? involves : mine;
    return { keep: true, mine, turn, who: mine ? 'you' : null, sets: whole ? sets : [], lost: whole ? lost : [],
      text: whole ? sentence : turn ? "Now it's your turn." : '' };
  }
  const text = mode === 'brief' && !mine ? briefSentence(events, view) : sentence;
  return { text, keep: mine || turn, mine, turn, who, sets, lost };
}

const times = (n) => (n === 1 ? 'once' : n === 2 ? 'twice' : `${n} times`);
const Cap = (text) => text.charAt(0).toUpperCase() + text.slice(1);
// [[key, value], ...] -> Map key -> [values]
const byFirst = (pairs) => pairs.reduce((m, [k, ...v]) => m.set(k, [...(m.get(k) ?? []), v]), new Map());

// "Ben and Cy asked 3 times. Cy made 2 sets. Ben got your 5s." (A stale
// "Now it's your turn." alone says nothing: it is dropped.)
function summary(items) {
  const asks = items.filter((i) => i.who);
  const text = asks.length ? [`${Cap(listWords([...new Set(asks.map((i) => i.who))]))} asked ${times(asks.length)}.`] : [];
  for (const [who, sets] of byFirst(items.flatMap((i) => i.sets ?? []))) {
    text.push(`${Cap(who)} made ${sets.length === 1 ? `a ${sets[0][1]} of ${rankPlural(sets[0][0])}` : `${numberWord(sets.length)} ${sets[0][1]}s`}.`);
  }
  for (const [who, ranks] of byFirst(items.flatMap((i) => i.lost ?? []))) {
    text.push(`${Cap(who)} got your ${listWords([...new Set(ranks.map(([r]) => rankPlural(r)))])}.`);
  }
  return { text: text.join(' '), moves: items.reduce((n, i) => n + i.moves, 0) };
}

export class Announcer {
  constructor(region) {
    this.region = region;   // () => the live region
    this.pending = null;    // { id, item }: a move settling (its events arrive within ms)
    this.spoken = new Map(); // move id -> text already queued
    this.settle = null;
    this.queue = [];        // moveItem()s and said lines, each with `moves` (how many it tells)
    this.timer = null;
    this.freeAt = 0;        // when what the region says now has had time to be spoken
    this.log = [];          // { t, text, moves }: every announcement, for the tests
  }

  get idle() { return !this.pending && this.queue.length === 0; }
  // Nothing waits and the last announcement has had time to be spoken.
  get quiet() { return this.idle && performance.now() >= this.freeAt; }

  // A move is queued once it has settled; a part that comes later (an answer
  // under table rules) is queued on its own.
  move(id, item) {
    if (this.pending && this.pending.id !== id) this.flush();
    this.pending = { id, item };
    clearTimeout(this.settle);
    this.settle = setTimeout(() => this.flush(), 150);
  }

  flush() {
    clearTimeout(this.settle);
    const p = this.pending;
    this.pending = null;
    if (!p) return;
    const text = p.item.text;
    const before = this.spoken.get(p.id) ?? '';
    let same = 0;
    while (same < before.length && before[same] === text[same]) same += 1;
    const fresh = before ? text.slice(same).replace(/^[\s:.,]+/, '') : text;
    this.spoken.set(p.id, text);
    if (this.spoken.size > 50) this.spoken.delete(this.spoken.keys().next().value);
    if (fresh) this.enqueue({ ...p.item, text: fresh, moves: 1 });
  }

  // A pause, an alert, a chat line: never dropped; `first` goes ahead of the queue.
  say(text, { first = false } = {}) {
    const item = { text, keep: true, moves: 0 };
    if (first) this.queue.unshift(item); else this.queue.push(item);
    this.pump();
  }

  enqueue(item) {
    this.queue.push(item);
    this.pump();
  }

  pump() {
    clearTimeout(this.timer);
    this.timer = null;
    if (!this.queue.length) return;
    const now = performance.now();
    if (now < this.freeAt) {
      this.timer = setTimeout(() => this.pump(), this.freeAt - now);
      return;
    }
    // What is no longer news: others' moves waiting behind something, and
    // the player's own move or turn once they have asked again.
    const q = this.queue;
    const stale = (item, i) => (!item.keep && q.length > 1) || ((item.mine || item.turn) && q.slice(i + 1).some((later) => later.mine));
    const old = q.filter(stale);
    let item;
    if (stale(q[0], 0) && old.length >= 2) {
      this.queue = q.filter((x, i) => !stale(x, i));
      item = summary(old);
    } else {
      item = q.shift();
    }
    if (!item.text) { this.pump(); return; }
    const region = this.region();
    // A repeated sentence must still be heard: vary it invisibly.
    region.textContent = region.textContent === item.text ? `${item.text}\u00a0` : item.text;
    this.freeAt = now + (item.text.length / CPS) * 1000 + GAP;
    this.log.push({ t: now, text: item.text, moves: item.moves });
    if (this.log.length > 400) this.log.shift();
    if (this.queue.length) this.timer = setTimeout(() => this.pump(), this.freeAt - now);
  }
}
