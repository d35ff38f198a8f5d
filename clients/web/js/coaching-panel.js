// The coaching view on the teacher's console: "Look at the cards" at a table
// (only in an event created with coaching) sends watch_table {table}, and the
// server answers table_view at once and with every change there: each seat's
// name, cards in hand (with coaching, the cards themselves), sets, whose turn
// it is and the pond. The panel draws the hands as the table screen draws
// cards, and closing it sends watch_table {table: null}. A server that does
// not know watch_table answers an error, which the panel says politely. The
// server keeps the table watched: a console that comes back (a reload, a
// restart) is sent its table_view unasked, and the panel opens on it.
// Part of the class bundle (classroom.js); the card faces come from the page
// (cardFace, handed over in init()).

import { el } from './dom.js';

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export class CoachingPanel {
  // send(msg) -> Promise<reply>; cardFace(card, {small}) -> element.
  constructor({ send, cardFace }) {
    this.send = send;
    this.cardFace = cardFace;
    this.table = null;       // the table watched, or null
    this.view = null;        // the last table_view
    this.closing = false;    // a watch_table {table: null} is on its way
    this.node = el('section', { id: 'coach-panel', class: 'coach-panel', hidden: true, 'aria-labelledby': 'coach-title' },
      el('div', { class: 'coach-head' },
        el('h3', { id: 'coach-title', tabindex: '-1', text: 'Cards at the table' }),
        el('button', { type: 'button', id: 'coach-close', text: 'Close' })),
      el('p', { id: 'coach-note', class: 'hint', text: 'Only you see these cards. The pupils know that you can.' }),
      el('p', { id: 'coach-turn', class: 'coach-turn', 'aria-live': 'polite' }),
      el('p', { id: 'coach-pond', class: 'ct-pond' }),
      el('p', { id: 'coach-error', class: 'error', role: 'alert' }),
      el('ul', { id: 'coach-seats', class: 'coach-seats' }));
    this.node.querySelector('#coach-close').addEventListener('click', () => this.close());
    this.node.addEventListener('keydown', (e) => { if (e.key === 'Escape') this.close(); });
  }

  part(id) { return this.node.querySelector(`#${id}`); }

  // Opens the panel on a table (its number, from 0) and asks the server for
  // it; `from` (the button pressed) moves the focus into the panel.
  async open(table, from = null) {
    this.showTable(table);
    if (from) this.part('coach-title').focus();
    const reply = await this.send({ type: 'watch_table', table });
    if (this.table !== table) return reply;
    if (reply.type === 'table_view') this.update(reply);
    else if (reply.type === 'error') this.refused(reply);
    return reply;
  }

  // The panel, empty, on `table`.
  showTable(table) {
    this.table = table;
    this.view = null;
    this.node.hidden = false;
    this.part('coach-title').textContent = `Cards at table ${table + 1}`;
    this.part('coach-error').textContent = '';
    this.part('coach-turn').textContent = 'Asking the table for its cards…';
    this.part('coach-pond').textContent = '';
    this.part('coach-seats').replaceChildren();
  }

  // Every table_view that comes. One the panel did not ask for, while it is
  // closed, is the table the teacher watched before this console connected
  // (a reload, a server restart: the server keeps the choice and sends it
  // to a resumed console), so the panel opens on it. None reopens it while
  // a Close is on its way to the server.
  adopt(view) {
    if (view && this.table === null && !this.closing && Number.isInteger(view.table)) this.showTable(view.table);
    this.update(view);
  }

  refused(reply) {
    this.part('coach-turn').textContent = '';
    this.part('coach-error').textContent = reply.code === 'protocol/unknown_type'
      ? 'This server cannot show a table\'s cards yet. Use "Watch" to see the table as the pupils see it.'
      : `The cards cannot be shown: ${reply.message ?? reply.code}`;
  }

  async close() {
    if (this.table === null) return;
    const table = this.table;
    this.table = null;
    this.view = null;
    this.node.hidden = true;
    // Back to the table's button (drawn again since, so found by its data-focus).
    document.querySelector(`[data-focus="look:${table}"]`)?.focus({ preventScroll: true });
    this.closing = true;
    try {
      await this.send({ type: 'watch_table', table: null });
    } finally {
      this.closing = false;
    }
  }

  // table_view: drawn when it is the table watched.
  update(view) {
    if (!view || view.table !== this.table) return;
    this.view = view;
    this.part('coach-error').textContent = '';
    const turn = view.turn !== null && view.turn !== undefined ? view.seats.find((s) => s.seat === view.turn) : null;
    this.part('coach-turn').textContent = view.state === 'over' ? 'The game is over.'
      : turn ? `${turn.name}'s turn.` : view.state === 'playing' ? '' : 'The game has not started.';
    this.part('coach-pond').textContent = view.pond === null || view.pond === undefined ? '' : `Pond: ${plural(view.pond, 'card')}`;
    this.part('coach-seats').replaceChildren(...view.seats.map((s) => {
      const hand = Array.isArray(s.hand) ? s.hand : null;
      const mine = s.seat === view.turn;
      return el('li', { class: `coach-seat${mine ? ' turn' : ''}`, 'data-seat': String(s.seat) },
        el('p', { class: 'coach-name' },
          el('b', { text: `${mine ? '▶ ' : ''}${s.name}` }),
          s.pupil === null || s.pupil === undefined ? ' (computer)' : '',
          ` · ${plural(s.cards, 'card')} · ${plural(s.sets?.length ?? 0, 'set')}`,
          s.sets?.length ? ` (${s.sets.join(', ')})` : ''),
        hand
          ? el('div', { class: 'coach-hand', role: 'group', 'aria-label': `${s.name}'s cards` },
            ...(hand.length ? hand.map((c) => this.cardFace(c, { small: true })) : [el('span', { class: 'hint', text: 'No cards' })]))
          : el('p', { class: 'hint', text: 'The cards are not shown.' }));
    }));
  }
}
