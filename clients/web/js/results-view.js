// The class's results on the teacher's console (event_results, protocol/
// README.md "Class events"): for every round, each table's seats with their
// sets and places, and with the same deal how each seat position did across
// the tables; then every pupil over all rounds. A finished table links to its
// game's replay (/?replay=GAME_ID). The block prints on its own (style.css,
// @media print) with the class's name and the date on top, and "Download
// CSV" saves the server's spreadsheet under the server's file name.
// Part of the class bundle (classroom.js).

import { el } from './dom.js';

const $ = (id) => document.getElementById(id);
const signed = (x) => (x === null || x === undefined ? '–' : `${x > 0 ? '+' : x < 0 ? '−' : ''}${Math.abs(x).toFixed(2)}`);
const placeWord = (p) => (p === null || p === undefined ? '–' : ['1st', '2nd', '3rd'][p - 1] ?? `${p}th`);

// The file name of a Content-Disposition header: filename* (UTF-8) first.
export function dispositionName(header, fallback) {
  if (!header) return fallback;
  const star = header.match(/filename\*\s*=\s*UTF-8''([^;]+)/i);
  if (star) { try { return decodeURIComponent(star[1].trim()); } catch { /* the plain one */ } }
  const plain = header.match(/filename\s*=\s*"([^"]*)"/i) ?? header.match(/filename\s*=\s*([^;]+)/i);
  return plain ? plain[1].trim() : fallback;
}

export class ResultsView {
  // token(): the teacher token this browser keeps, for the CSV download.
  constructor({ token }) {
    this.token = token;
    this.results = null;
    this.code = null;
  }

  build(code) {
    this.code = code;
    const csv = el('button', { type: 'button', id: 'results-csv', text: 'Download CSV' });
    const print = el('button', { type: 'button', id: 'results-print', text: 'Print the results' });
    csv.addEventListener('click', () => this.download());
    print.addEventListener('click', () => window.print());
    return el('section', { id: 'console-results', class: 'console-results', 'aria-labelledby': 'results-title' },
      el('h3', { id: 'results-title', tabindex: '-1', text: 'Results' }),
      el('p', { id: 'results-print-head', class: 'print-only' }),
      el('div', { class: 'row no-print' }, print, csv, el('span', { id: 'results-status', role: 'status' })),
      el('div', { id: 'results-body' }, el('p', { class: 'hint', text: 'The results appear here as soon as a table finishes its game.' })));
  }

  // event_results (the reply to read_results, or pushed when a table finishes).
  update(results) {
    if (!results || !Array.isArray(results.rounds) || !$('results-body')) return;
    this.results = results;
    const date = new Date().toLocaleDateString(undefined, { year: 'numeric', month: 'long', day: 'numeric' });
    $('results-print-head').textContent = `${results.name} · class ${results.code} · ${date}`;
    const rounds = results.rounds.filter((r) => r.tables?.length);
    if (!rounds.length) {
      $('results-body').replaceChildren(el('p', { class: 'hint', text: 'The results appear here as soon as a table finishes its game.' }));
      return;
    }
    const blocks = [];
    for (const r of rounds) {
      blocks.push(el('h4', { class: 'results-round', text: `Round ${r.round}` }));
      for (const t of r.tables) blocks.push(this.tableBlock(r, t, results.same_deal));
      if (results.same_deal && r.seat_positions?.length) blocks.push(this.positionsBlock(r));
    }
    if (results.pupils?.length) blocks.push(this.pupilsBlock(results));
    $('results-body').replaceChildren(...blocks);
  }

  tableBlock(round, t, sameDeal) {
    const head = ['Seat', 'Name', 'Sets', 'Place'];
    if (sameDeal) head.push('Against the same cards');
    const caption = `Round ${round.round}, table ${t.table + 1}${t.finished ? '' : ' (still playing)'}`;
    const replay = t.finished && t.game_id
      ? el('a', { class: 'results-replay no-print', href: `/?replay=${encodeURIComponent(t.game_id)}`, target: '_blank', rel: 'noopener',
        'data-game': t.game_id, 'aria-label': `Watch the game again: round ${round.round}, table ${t.table + 1} (opens a new tab)`,
        text: 'Watch the game again' })
      // The same deal, another table still playing: the server holds this
      // game (its deck is theirs) and gives no id until the round is over.
      : t.finished && sameDeal
        ? el('p', { class: 'results-held no-print', text: 'The game can be watched again once every table of the round has finished.' })
        : null;
    const best = t.finished ? Math.min(...t.seats.map((s) => s.place ?? Infinity)) : null;
    return el('div', { class: 'results-block', 'data-round': String(round.round), 'data-table': String(t.table) },
      el('table', { class: 'results-table' },
        el('caption', { text: caption }),
        el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col', text: h })))),
        el('tbody', {}, ...t.seats.map((s) => el('tr', { class: s.place === best ? 'winner' : '', 'data-seat': String(s.seat) },
          el('td', { text: String(s.seat + 1) }),
          el('th', { scope: 'row', text: `${s.name}${s.pupil === null || s.pupil === undefined ? ' (computer)' : ''}` }),
          el('td', { class: 'results-sets', text: String(s.sets) }),
          el('td', { text: placeWord(s.place) }),
          sameDeal ? el('td', { text: signed(s.vs_seat_average) }) : null)))),
      replay);
  }

  // The same deal: each seat position across the round's tables.
  positionsBlock(round) {
    const tables = [...new Set(round.tables.map((t) => t.table))].sort((a, b) => a - b);
    return el('div', { class: 'results-block', 'data-positions': String(round.round) },
      el('table', { class: 'results-table' },
        el('caption', { text: `Round ${round.round}: the same cards at every table. Sets made from each seat's cards` }),
        el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: 'Seat' }),
          ...tables.map((t) => el('th', { scope: 'col', text: `Table ${t + 1}` })),
          el('th', { scope: 'col', text: 'Average' }))),
        el('tbody', {}, ...round.seat_positions.map((p) => el('tr', {},
          el('th', { scope: 'row', text: `Seat ${p.seat + 1}` }),
          ...tables.map((t) => el('td', { text: String(p.tables.find((x) => x.table === t)?.sets ?? '–') })),
          el('td', { text: p.average === null || p.average === undefined ? '–' : p.average.toFixed(2) }))))),
      el('p', { class: 'hint', text: 'A seat that made more sets than its average played its cards better than the others who had the same cards.' }));
  }

  pupilsBlock(results) {
    const head = ['Name', 'Games', 'Sets', 'Wins'];
    if (results.same_deal) head.push('Against the same cards');
    return el('div', { class: 'results-block', 'data-class': '' },
      el('table', { class: 'results-table' },
        el('caption', { text: 'The whole class, over all rounds' }),
        el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col', text: h })))),
        el('tbody', {}, ...results.pupils.map((p) => el('tr', { 'data-pupil': String(p.pupil) },
          el('th', { scope: 'row', text: p.name }),
          el('td', { text: String(p.games) }),
          el('td', { text: String(p.sets) }),
          el('td', { text: String(p.wins) }),
          results.same_deal ? el('td', { text: signed(p.vs_seat_average) }) : null)))));
  }

  // GET /api/events/CODE/results.csv with the teacher token; saved under the server's name.
  async download() {
    const status = $('results-status');
    status.textContent = 'Downloading…';
    let response;
    try {
      // ?room= (ignored by the server) lets a proxy send it to the class's server.
      const code = encodeURIComponent(this.code);
      response = await fetch(`/api/events/${code}/results.csv?room=${code}`,
        { headers: { Authorization: `Bearer ${this.token() ?? ''}` }, cache: 'no-store' });
    } catch {
      status.textContent = 'The download did not work: the server cannot be reached. Try again in a moment.';
      return null;
    }
    if (!response.ok) {
      status.textContent = response.status === 401
        ? 'The server did not accept this browser\'s teacher key, so it sent no results.'
        : `The download did not work (the server answered ${response.status}).`;
      return null;
    }
    const name = dispositionName(response.headers.get('Content-Disposition'), `${this.code}-results.csv`);
    const blob = await response.blob();
    const url = URL.createObjectURL(blob);
    const a = el('a', { href: url, download: name, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    status.textContent = `Saved ${name}.`;
    return name;
  }
}
