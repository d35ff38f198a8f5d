// What the page shows of a move for the eyes alone: cards flying across the
// table and a set that glows where it was laid. Nothing here is told: the
// words are announcements.js.

import { session } from './session.js';
import { el } from './dom.js';

const $ = (id) => document.getElementById(id);
const { state } = session;

function seatBox(seat) {
  if (seat === 'pond') return $('pond');
  if (seat === state.you) return $('hand');
  return document.querySelector(`#seats [data-seat="${seat}"] .seat-cards`);
}

// A card (or a few) travels across the table; transforms only, so nothing
// else moves, and nothing at all for people who ask for less motion.
export function fly(from, to, count) {
  const pace = session.pacer.pace;
  if (matchMedia('(prefers-reduced-motion: reduce)').matches || document.body.dataset.screen !== 'table' || pace === 0) return;
  const a = seatBox(from)?.getBoundingClientRect();
  const b = seatBox(to)?.getBoundingClientRect();
  if (!a || !b || !a.width || !b.width) return;
  const card = el('span', { class: 'flyer', 'aria-hidden': 'true', text: count > 1 ? `×${count}` : '' });
  card.style.left = `${a.left + a.width / 2 - 20}px`;
  card.style.top = `${a.top + a.height / 2 - 28}px`;
  document.body.append(card);
  const dx = b.left + b.width / 2 - (a.left + a.width / 2);
  const dy = b.top + b.height / 2 - (a.top + a.height / 2);
  card.animate([{ transform: 'translate(0,0) scale(1)', opacity: 1 }, { transform: `translate(${dx}px,${dy}px) scale(0.8)`, opacity: 0.2 }],
    { duration: Math.min(600, pace * 0.6), easing: 'ease-in-out' }).finished.then(() => card.remove(), () => card.remove());
}

export function celebrate(seat) {
  const box = seat === state.you ? $('me-sets') : document.querySelector(`#seats [data-seat="${seat}"] .seat-sets`);
  if (!box) return;
  box.classList.remove('new-set');
  void box.offsetWidth;   // restart the animation
  box.classList.add('new-set');
}
