// Where the hand's cards go: each kind of card keeps its place until the
// player touches the page (then the hand is sorted), and the whole hand is
// fitted in view by sliding kinds under one another.

import { RANKS } from './cards.js';

const $ = (id) => document.getElementById(id);

// The hand's order on screen: kinds of card keep their place (a kind given
// away leaves a gap, a new kind goes into a gap or at the end) until
// `ui.compact` says the player has touched the page; then it is sorted.
export function handOrder(ui, ranks) {
  const held = new Set(ranks);
  if (ui.compact || !ui.handOrder) {
    ui.compact = false;
    ui.handOrder = [...ranks];
    return ui.handOrder;
  }
  const order = ui.handOrder.map((r) => (r && held.has(r) ? r : null));
  for (const r of ranks) {
    if (order.includes(r)) continue;
    const gap = order.indexOf(null);
    if (gap >= 0) order[gap] = r; else order.push(r);
  }
  while (order.length && order[order.length - 1] === null) order.pop();
  ui.handOrder = order;
  return order;
}

// A gap, or kinds out of order: the next touch of the page tidies the hand.
export function handNeedsTidying(ui) {
  const o = ui.handOrder ?? [];
  if (o.includes(null)) return true;
  for (let i = 1; i < o.length; i++) if (RANKS.indexOf(o[i - 1]) > RANKS.indexOf(o[i])) return true;
  return false;
}

// The whole hand in view: when its kinds of card take more rows than the
// screen has room for (one on a desktop, two on a phone), each slides under
// the next (--squeeze, the least that does it), never so far that a card's
// corner (its rank) is covered. A phone keeps one row when a little squeeze
// does it (each kind still a finger wide).
let handWatch = null;
let handWidth = 0;
export function fitHand() {
  const hand = $('hand');
  if (!handWatch && typeof ResizeObserver === 'function') {
    handWatch = new ResizeObserver(() => { if (hand.clientWidth !== handWidth) fitHand(); });
    handWatch.observe(hand);
  }
  handWidth = hand.clientWidth;
  hand.style.removeProperty('--squeeze');
  const kinds = [...hand.children];
  if (kinds.length < 2 || !handWidth) return;
  const rows = () => new Set(kinds.map((k) => k.offsetTop)).size;
  if (rows() === 1) return;
  const gap = parseFloat(getComputedStyle(hand).columnGap) || 0;
  // How far each kind may slide under the next: its last card's corner stays in view.
  let limit = Infinity;
  let finger = Infinity;
  for (const k of kinds) {
    const card = k.lastElementChild;
    const corner = card?.querySelector?.('.corner');
    const keep = corner ? card.offsetLeft + corner.offsetLeft + corner.offsetWidth + 4 : k.offsetWidth / 3;
    limit = Math.min(limit, k.offsetWidth + gap - keep);
    finger = Math.min(finger, k.offsetWidth + gap - 44);
  }
  // The least squeeze up to `most` that brings the hand to `want` rows, if any.
  const squeeze = (want, most) => {
    let hi = Math.max(0, Math.floor(most));
    hand.style.setProperty('--squeeze', `${hi}px`);
    if (rows() > want) return false;
    let lo = 0;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      hand.style.setProperty('--squeeze', `${mid}px`);
      if (rows() <= want) hi = mid; else lo = mid;
    }
    hand.style.setProperty('--squeeze', `${hi}px`);
    return true;
  };
  if (matchMedia('(max-width: 560px)').matches) {
    if (squeeze(1, Math.min(limit, finger))) return;
    hand.style.removeProperty('--squeeze');
    if (rows() <= 2) return;
    squeeze(2, limit);
  } else {
    squeeze(1, limit);
  }
}
