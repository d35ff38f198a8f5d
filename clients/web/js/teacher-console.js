// The teacher's console: one page that says at a glance who needs help.
// It draws event_state (protocol/README.md, "Class events"): the code, the
// join link and its QR code, every table (players, whose turn and for how
// long, sets, cards, the pond, who is away), every pupil, and the teacher's
// commands, each with the server's answer shown beside them. A pupil needs
// help when they are away (a computer plays for them), not connected, or
// their turn has waited kSlowTurnMs; the list of them is at the top, each
// table says so in its own colour, and a screen reader hears each new one.
// Part of the class bundle (classroom.js): it imports nothing of the main one.

import { el } from './dom.js';
import { ResultsView } from './results-view.js';
import { CoachingPanel } from './coaching-panel.js';

const $ = (id) => document.getElementById(id);
// A pupil's turn waiting this long is worth a look.
export const kSlowTurnMs = 45_000;

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const clock = (ms) => {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

// Each command's button words, and what the console says when the server agrees.
const DONE = {
  seat_pupils: 'The pupils are seated. Check the tables, then start the round.',
  start_round: 'The round has started at every table.',
  end_round: 'The round is over.',
  move_pupil: 'Moved.',
  free_name: 'The name is free again.',
  pause_tables: 'Every table is paused.',
  resume_tables: 'Every table plays on.',
  message_tables: 'Your message went to every table.',
  set_chat: 'The chat is changed.',
  remove_pupil: 'The pupil is out of the class.',
  seat_to_bot: 'A computer player has that seat now.',
  allow_late: 'Saved.',
};

export class TeacherConsole {
  constructor({ send, confirmDialog, joinLink, qrSvg, leave, token, cardFace }) {
    this.send = send;
    this.resultsView = new ResultsView({ token: () => token(this.code) });
    this.coach = new CoachingPanel({ send, cardFace });
    this.leave = leave;
    this.confirmDialog = confirmDialog;
    this.joinLink = joinLink;
    this.qrSvg = qrSvg;
    this.event = null;
    this.code = null;
    this.turns = new Map();     // table key -> { sig, since }: how long the table has waited on its turn
    this.helped = new Set();    // help lines already announced
    this.built = null;
    setInterval(() => this.tick(), 1000);
  }

  show(section, code, event) {
    if (this.built !== code) this.build(section, code);
    this.update(event);
    // Back after a reconnection: the server sends the table the teacher
    // watched unasked; asking again also serves a server that forgets it.
    if (this.coach.table !== null) this.coach.open(this.coach.table);
  }

  build(section, code) {
    this.built = code;
    this.code = code;
    const link = this.joinLink(code);
    const copy = el('button', { type: 'button', id: 'console-copy', text: 'Copy link' });
    copy.addEventListener('click', async () => {
      try { await navigator.clipboard.writeText(link); } catch { $('console-link').select(); document.execCommand?.('copy'); }
      $('console-copied').textContent = 'Copied!';
      setTimeout(() => { $('console-copied').textContent = ''; }, 3000);
    });
    const cmd = (id, type, text, extra = {}) => {
      const b = el('button', { type: 'button', id, 'data-command': type, 'data-focus': id, text, ...extra });
      return b;
    };
    section.replaceChildren(
      el('h2', { id: 'console-title', tabindex: '-1' }),
      el('div', { class: 'console-join' },
        el('div', { class: 'console-code-box' },
          el('p', { class: 'console-code-label', id: 'console-code-label', text: 'Class code' }),
          el('p', { class: 'console-code code', id: 'console-code', text: code }),
          el('label', { class: 'field' }, 'Join link', el('input', { id: 'console-link', readonly: true, value: link })),
          el('div', { class: 'row' }, copy, el('span', { id: 'console-copied', role: 'status' }))),
        el('figure', { class: 'console-qr' }, this.qrSvg(link, `QR code of the join link ${link}`),
          el('figcaption', { text: 'Pupils scan this to join' }))),
      el('p', { id: 'console-summary', class: 'console-summary' }),
      el('section', { id: 'console-help', class: 'console-help', 'aria-labelledby': 'console-help-title' },
        el('h3', { id: 'console-help-title', text: 'Needs help' }),
        el('ul', { id: 'console-help-list' })),
      el('div', { class: 'row console-commands' },
        cmd('console-seat', 'seat_pupils', 'Seat the pupils', { class: 'big' }),
        cmd('console-start', 'start_round', 'Start the round', { class: 'primary big' }),
        cmd('console-end', 'end_round', 'End the round', { class: 'big' }),
        cmd('console-pause', 'pause_tables', 'Pause every table', { class: 'big' }),
        el('button', { type: 'button', id: 'console-results-link', class: 'big', hidden: true, text: 'See the results' })),
      el('p', { id: 'console-status', class: 'console-status', role: 'status' }),
      el('h3', { text: 'Tables' }),
      el('ul', { id: 'console-tables', class: 'console-tables' }),
      this.coach.node,
      el('h3', { text: 'Pupils' }),
      el('div', { class: 'console-pupils-wrap' },
        el('table', { id: 'console-pupils', class: 'console-pupils' },
          el('caption', { class: 'sr-only', text: 'Pupils' }),
          el('thead', {}, el('tr', {}, ...['Name', 'Status', 'Table', 'Actions'].map((h) => el('th', { scope: 'col', text: h })))),
          el('tbody'))),
      this.resultsView.build(code),
      el('details', { class: 'console-more' },
        el('summary', { text: 'Message, chat and late pupils' }),
        el('form', { id: 'console-message-form', class: 'row', autocomplete: 'off' },
          el('label', { class: 'field' }, 'A message to every table', el('input', { id: 'console-message', maxlength: '200', placeholder: 'e.g. Five more minutes!' })),
          el('button', { type: 'submit', id: 'console-send', text: 'Send to every table' })),
        el('div', { class: 'row' },
          el('label', { class: 'field inline' }, 'Chat at the tables',
            el('select', { id: 'console-chat' }, ...[['phrases', 'Only friendly phrases'], ['off', 'No chat'], ['free', 'Anything (typed messages)']]
              .map(([value, text]) => el('option', { value, text })))),
          el('button', { type: 'button', id: 'console-chat-set', text: 'Change the chat' })),
        el('label', { class: 'check' }, el('input', { type: 'checkbox', id: 'console-late' }),
          ' Pupils who come late may take over a computer player\'s seat during a round')),
      el('div', { class: 'row' }, el('button', { type: 'button', id: 'console-leave', text: 'Close the console' })),
      el('div', { id: 'console-live', class: 'sr-only', 'aria-live': 'polite', 'aria-atomic': 'false' }));

    section.addEventListener('click', (e) => this.click(e));
    $('console-message-form').addEventListener('submit', (e) => {
      e.preventDefault();
      const text = $('console-message').value.trim();
      if (!text) { this.status('Type a message first.'); return; }
      this.command({ type: 'message_tables', text }, () => { $('console-message').value = ''; });
    });
    $('console-chat-set').addEventListener('click', () => this.command({ type: 'set_chat', chat: $('console-chat').value }));
    $('console-late').addEventListener('change', (e) => this.command({ type: 'allow_late', allow: e.target.checked }));
    $('console-leave').addEventListener('click', () => { this.coach.close(); this.leave(); });
  }

  // event_results: the results block (and its print header).
  results(msg) {
    if (!this.built) return;
    this.resultsView.update(msg);
    // Once a table has finished, the results are a click away from the top.
    $('console-results-link').hidden = !msg?.rounds?.some((r) => r.tables?.some((t) => t.finished));
  }

  // The server's answer beside the commands (and read out).
  status(text) {
    const s = $('console-status');
    s.textContent = text;
  }

  async command(msg, onDone = () => {}) {
    this.status('…');
    const reply = await this.send(msg);
    if (reply.type === 'error') {
      this.status(reply.code === 'protocol/unknown_type'
        ? 'This server cannot do that yet (it does not know the command). Everything else still works.'
        : `That did not work: ${reply.message}`);
      return reply;
    }
    this.status(DONE[msg.type] ?? 'Done.');
    onDone();
    return reply;
  }

  async click(e) {
    const b = e.target.closest('button');
    if (!b || b.disabled) return;
    const ev = this.event;
    const pupil = b.dataset.pupil !== undefined ? ev?.pupils.find((p) => p.id === Number(b.dataset.pupil)) : null;
    if (b.id === 'console-results-link') {
      $('results-title').scrollIntoView({ block: 'start' });
      $('results-title').focus({ preventScroll: true });
    } else if (b.dataset.look !== undefined) {
      this.coach.open(Number(b.dataset.look), b);
    } else if (b.dataset.command) {
      let type = b.dataset.command;
      if (type === 'pause_tables' && ev?.paused) type = 'resume_tables';
      if (type === 'end_round' && !(await this.confirmDialog('End the round?',
        'Every table stops counting this round. Games still in play may finish.', 'End the round', 'Keep playing'))) return;
      this.command({ type });
    } else if (b.dataset.move !== undefined && pupil) {
      const table = Number($(`move-${pupil.id}`).value);
      this.command({ type: 'move_pupil', pupil: pupil.id, table });
    } else if (b.dataset.free !== undefined && pupil) {
      if (await this.confirmDialog(`Free the name ${pupil.name}?`, `${pupil.name} is let go, and the name can be chosen again. ` +
        'Do this when a pupil took the wrong name.', 'Free the name', 'Keep it')) this.command({ type: 'free_name', pupil: pupil.id });
    } else if (b.dataset.remove !== undefined && pupil) {
      if (await this.confirmDialog(`Remove ${pupil.name}?`, `${pupil.name} leaves the class; a computer player takes any seat they have.`,
        `Remove ${pupil.name}`, `Keep ${pupil.name}`)) this.command({ type: 'remove_pupil', pupil: pupil.id });
    } else if (b.dataset.bot !== undefined && pupil) {
      this.command({ type: 'seat_to_bot', pupil: pupil.id });
    }
  }

  // ------------------------------------------------------------ drawing

  update(event) {
    if (!event || !this.built) return;
    this.event = event;
    const now = performance.now();
    for (const t of event.tables) {
      const key = `${event.round}:${t.table}`;
      const sig = `${t.state}|${t.turn}|${t.pond}|${t.seats.map((s) => `${s.cards}/${s.sets}`).join(',')}`;
      const had = this.turns.get(key);
      if (!had || had.sig !== sig) this.turns.set(key, { sig, since: now });
    }
    const focus = document.activeElement?.dataset?.focus ?? null;
    const moves = new Map([...document.querySelectorAll('#console-pupils select')].map((s) => [s.id, s.value]));
    this.draw();
    for (const [id, value] of moves) { const s = $(id); if (s && [...s.options].some((o) => o.value === value)) s.value = value; }
    if (focus && document.activeElement === document.body) document.querySelector(`[data-focus="${focus}"]`)?.focus({ preventScroll: true });
  }

  tick() {
    if (!this.event || document.body.dataset.screen !== 'console') return;
    for (const t of this.event.tables) {
      const node = document.querySelector(`#console-tables [data-table="${t.table}"] .turn-time`);
      if (node) node.textContent = clock(this.waited(t));
    }
    // A turn that has now waited long enough joins the help list.
    const help = this.helpLines();
    if (help.map((h) => h.text).join('\n') !== $('console-help-list').dataset.lines) this.draw();
  }

  waited(t) {
    const since = this.turns.get(`${this.event.round}:${t.table}`)?.since ?? performance.now();
    return performance.now() - since;
  }

  // Who needs help, table by table: [{ table, text }].
  helpLines() {
    const ev = this.event;
    const lines = [];
    if (ev.state !== 'playing') return lines;
    for (const t of ev.tables) {
      if (t.state !== 'playing') continue;
      for (const s of t.seats) {
        if (s.pupil === null || s.pupil === undefined) continue;
        if (s.bot_playing) lines.push({ table: t.table, text: `Table ${t.table + 1}: ${s.name} is away, a computer plays for them` });
        else if (!s.connected) lines.push({ table: t.table, text: `Table ${t.table + 1}: ${s.name} is not connected` });
      }
      const turn = t.turn !== null && t.turn !== undefined ? t.seats[t.turn] : null;
      if (turn && turn.pupil !== null && !turn.bot_playing && this.waited(t) >= kSlowTurnMs) {
        lines.push({ table: t.table, text: `Table ${t.table + 1}: ${turn.name} has waited ${Math.round(this.waited(t) / 1000)} s on their turn`, slow: true });
      }
    }
    return lines;
  }

  draw() {
    const ev = this.event;
    const between = ev.state === 'open';
    const closed = ev.state === 'closed';
    $('console-title').textContent = `${ev.name}`;
    const rounds = ev.settings?.rounds ?? 1;
    const joined = ev.pupils.filter((p) => p.claimed).length;
    const here = ev.pupils.filter((p) => p.claimed && p.connected).length;
    const allDone = ev.state === 'playing' && ev.tables.length > 0 && ev.tables.every((t) => t.state === 'over');
    const stateWords = closed ? 'The class has ended.'
      : allDone ? `Every table has finished round ${ev.round} of ${rounds}: end the round when you are ready.`
      : ev.state === 'playing' ? `Round ${ev.round} of ${rounds} is being played${ev.paused ? ' (paused)' : ''}.`
        : ev.round === 0 ? 'No round has started yet.' : `Round ${ev.round} of ${rounds} is over.`;
    $('console-summary').textContent = `${stateWords} ${plural(joined, 'pupil')} joined, ${here} connected` +
      (ev.pupils.length > joined ? `, ${ev.pupils.length - joined} on the list not here yet.` : '.');

    // Who needs help: at the top, and each new line read out once.
    const help = this.helpLines();
    const list = $('console-help-list');
    list.dataset.lines = help.map((h) => h.text).join('\n');
    list.replaceChildren(...(help.length ? help.map((h) => el('li', { text: h.text }))
      : [el('li', { class: 'none', text: ev.state === 'playing' ? 'Nobody needs help right now.' : 'Nothing to look at while no round is being played.' })]));
    $('console-help').classList.toggle('alert', help.length > 0);
    const fresh = help.filter((h) => !h.slow && !this.helped.has(h.text)).map((h) => h.text);
    const slow = help.filter((h) => h.slow && !this.helped.has(`slow:${h.table}`));
    for (const h of slow) this.helped.add(`slow:${h.table}`);
    for (const text of fresh) this.helped.add(text);
    // Forget lines that are gone, so that the same trouble later is said again.
    const current = new Set(help.map((h) => (h.slow ? `slow:${h.table}` : h.text)));
    for (const k of [...this.helped]) if (!current.has(k)) this.helped.delete(k);
    const say = [...fresh, ...slow.map((h) => h.text)];
    if (say.length) $('console-live').append(el('p', { text: `Needs help: ${say.join('. ')}.` }));
    while ($('console-live').children.length > 3) $('console-live').firstChild.remove();

    // Only the commands that make sense now are shown: fewer buttons to read.
    $('console-seat').hidden = !between || closed;
    $('console-start').hidden = !between || closed || ev.round >= rounds;
    $('console-end').hidden = ev.state !== 'playing';
    $('console-pause').hidden = ev.state !== 'playing';
    $('console-pause').textContent = ev.paused ? 'Resume every table' : 'Pause every table';
    if (ev.settings?.chat && document.activeElement !== $('console-chat')) $('console-chat').value = ev.settings.chat;
    for (const id of ['console-send', 'console-chat-set', 'console-late', 'console-message']) $(id).disabled = closed;

    this.drawTables(ev, help);
    this.drawPupils(ev, between);
  }

  drawTables(ev, help) {
    const troubled = new Set(help.map((h) => h.table));
    const list = $('console-tables');
    if (!ev.tables.length) {
      list.replaceChildren(el('li', { class: 'hint', text: 'No tables yet. When your pupils have joined, press "Seat the pupils".' }));
      return;
    }
    list.replaceChildren(...ev.tables.map((t) => {
      const planned = !t.room;
      const over = t.state === 'over';
      const stateText = planned ? 'Planned' : over ? 'Finished' : t.state === 'playing' ? 'Playing' : 'Starting';
      const turnSeat = t.state === 'playing' && t.turn !== null && t.turn !== undefined ? t.seats[t.turn] : null;
      const best = over ? Math.max(...t.seats.map((s) => s.sets)) : null;
      const head = el('div', { class: 'ct-head' },
        el('h4', { text: `Table ${t.table + 1}` }),
        el('span', { class: `ct-state ${over ? 'over' : planned ? 'planned' : 'playing'}`, text: stateText }),
        troubled.has(t.table) ? el('span', { class: 'ct-help', text: '⚠ Needs help' }) : null,
        t.room ? el('a', { class: 'ct-watch', href: `/r/${t.room}?watch`, target: '_blank', rel: 'noopener',
          'aria-label': `Watch table ${t.table + 1} (opens a new tab)`, text: 'Watch' }) : null,
        t.room && !over && ev.settings?.coaching ? el('button', { type: 'button', class: 'small ct-look', 'data-look': String(t.table),
          'data-focus': `look:${t.table}`, 'aria-label': `Look at the cards at table ${t.table + 1}`, text: 'Look at the cards' }) : null);
      const lines = [];
      if (turnSeat) {
        lines.push(el('p', { class: 'ct-turn' }, `${turnSeat.name}'s turn · `,
          el('span', { class: 'turn-time', text: clock(this.waited(t)) })));
      } else if (over) {
        const winners = t.seats.filter((s) => s.sets === best).map((s) => s.name);
        lines.push(el('p', { class: 'ct-turn', text: `Game over: ${winners.join(' and ')} made the most sets (${best}).` }));
      }
      if (!planned && !over) lines.push(el('p', { class: 'ct-pond', text: `Pond: ${plural(t.pond ?? 0, 'card')}` }));
      const seats = el('ul', { class: 'ct-seats' }, ...t.seats.map((s, i) => {
        const pupil = s.pupil !== null && s.pupil !== undefined;
        let status = '';
        let cls = '';
        if (!pupil) status = s.occupant === 'bot' || s.bot ? `computer${s.bot ? `, ${s.bot}` : ''}` : '';
        else if (planned) status = '';
        else if (s.bot_playing) { status = 'away: a computer plays'; cls = 'away'; } else if (!s.connected) { status = 'not connected'; cls = 'away'; } else status = 'here';
        const isTurn = turnSeat && i === t.turn;
        return el('li', { class: `ct-seat ${cls}${isTurn ? ' turn' : ''}${over && s.sets === best ? ' best' : ''}`, 'data-seat': String(i) },
          el('span', { class: 'ct-name', text: `${isTurn ? '▶ ' : ''}${s.name ?? 'Empty seat'}` }),
          planned ? null : el('span', { class: 'ct-counts', text: `${plural(s.cards, 'card')} · ${plural(s.sets, 'set')}` }),
          status ? el('span', { class: `ct-status ${cls}`, text: status }) : null);
      }));
      return el('li', { class: `ct ${troubled.has(t.table) ? 'needs-help' : ''} ${over ? 'over' : ''}`, 'data-table': String(t.table),
        'data-room': t.room ?? '' }, head, ...lines, seats);
    }));
  }

  drawPupils(ev, between) {
    const playing = ev.state === 'playing';
    const closed = ev.state === 'closed';
    const tables = ev.tables.length;
    const seatOf = (p) => (p.table !== null && p.seat !== null ? ev.tables[p.table]?.seats[p.seat] : null);
    $('console-pupils').tBodies[0].replaceChildren(...ev.pupils.map((p) => {
      const seat = playing ? seatOf(p) : null;
      const atTable = seat && ev.tables[p.table]?.state === 'playing';
      const away = atTable && (seat.bot_playing || !seat.connected);
      const status = !p.claimed ? 'not joined yet'
        : away ? (seat.bot_playing ? 'away from the table: a computer plays' : 'not connected to the table')
          : p.connected ? (p.table === null ? 'here, no table yet' : 'here') : 'joined, not connected';
      const actions = [];
      if (!closed && p.claimed && between && tables) {
        const id = `move-${p.id}`;
        actions.push(el('label', { class: 'sr-only', for: id, text: `Move ${p.name} to` }),
          el('select', { id }, ...[...Array(tables + 1).keys()].filter((n) => n !== p.table)
            .map((n) => el('option', { value: String(n), text: n === tables ? 'a new table' : `table ${n + 1}` }))),
          el('button', { type: 'button', class: 'small', 'data-move': '', 'data-pupil': String(p.id), 'data-focus': `move:${p.id}`,
            'aria-label': `Move ${p.name}`, text: 'Move' }));
      }
      if (!closed && p.claimed && playing && p.table !== null) {
        actions.push(el('button', { type: 'button', class: 'small', 'data-bot': '', 'data-pupil': String(p.id), 'data-focus': `bot:${p.id}`,
          'aria-label': `Let a computer play for ${p.name}`, text: 'Let a computer play' }));
      }
      if (!closed && p.claimed) {
        actions.push(el('button', { type: 'button', class: 'small quiet', 'data-free': '', 'data-pupil': String(p.id), 'data-focus': `free:${p.id}`,
          'aria-label': `Free name: ${p.name}`, text: 'Free name' }));
        actions.push(el('button', { type: 'button', class: 'small danger', 'data-remove': '', 'data-pupil': String(p.id), 'data-focus': `remove:${p.id}`,
          'aria-label': `Remove ${p.name}`, text: 'Remove' }));
      }
      return el('tr', { class: p.claimed ? (p.connected && !away ? 'here' : 'away') : 'missing', 'data-pupil-row': String(p.id) },
        el('th', { scope: 'row', text: p.name }),
        el('td', { class: 'pupil-status', text: status }),
        el('td', { text: p.table === null ? '–' : `${p.table + 1}${p.seat !== null ? `, seat ${p.seat + 1}` : ''}` }),
        el('td', { class: 'pupil-actions' }, ...actions));
    }));
  }
}
