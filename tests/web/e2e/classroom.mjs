// A class (issue 34, items 1, 2 and 4, in the browser): a teacher's page
// makes an event with a roster of twelve names ("Teach a class"); ten pupils
// join as protocol clients from here and two as pupil pages (one types the
// code on the start page, one opens the join link, at 360 px); the teacher
// seats them and starts a round at three tables of four. Then:
// - the pupils' clients hold their turns until every table waits on a pupil,
//   one pupil leaves the table (a computer plays for them), and the console
//   must show each table's players, whose turn it is, every seat's cards and
//   sets and the pond exactly as a fresh snapshot of the room says, and the
//   away pupil as needing help;
// - then everyone plays to the end, and the console shows every table
//   finished with the sets each seat made (the game_over the clients saw);
// - axe passes on the create form, the console, the pupil's join and
//   waiting screens, and none of them has anything cut off or overlapping at
//   360, 800 and 1280 px.
// With GOFISH_CLASS_SHOTS=DIR it leaves screenshots there (the console with
// three tables mid-round and one pupil away, the pupil's join and waiting
// screens, at 360 and 1280 px).
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assert, clickAsk, online, openPage, screenOf, waitFor, waitScreen } from '../lib/harness.mjs';
import { checkAxe } from '../lib/axe.mjs';
import { startServer } from '../lib/server.mjs';
import { layoutProblems } from './layout.mjs';

// Node 20 has no WebSocket of its own; playwright-core (pinned) carries `ws`.
const require = createRequire(import.meta.url);
const WebSocketClass = globalThis.WebSocket ?? require('playwright-core/lib/utilsBundle').ws;

const ROSTER = ['Ada', 'Ben', 'Cleo', 'Dev', 'Eli', 'Fay', 'Gus', 'Hana', 'Ivo', 'Jade', 'Kit', 'Lena'];
const PAGE_PUPILS = ['Kit', 'Lena'];

// A pupil as a plain protocol client: joins the event, sits down at its
// table on event_seat, and answers its turn with the first legal ask unless
// told to hold it.
class Pupil {
  constructor(url, name) {
    this.name = name;
    this.url = url;
    this.nextId = 1;
    this.pending = new Map();
    this.hold = true;
    this.held = null;      // the legal decisions of a turn held back
    this.room = null;      // the last snapshot
    this.seat = null;      // { room, seat, token }
    this.turnSeat = null;
    this.over = null;      // the game_over event
    this.left = false;
  }

  open() {
    return new Promise((resolve, reject) => {
      this.ws = new WebSocketClass(this.url);
      this.ws.onerror = (e) => reject(new Error(`${this.name}: ${e.message ?? e}`));
      this.ws.onmessage = (e) => this.receive(JSON.parse(String(e.data)));
      this.ws.onopen = () => this.ws.send(JSON.stringify({ type: 'hello', protocol: 1, client: 'classroom-test' }));
      this.welcomed = resolve;
    });
  }

  // At most eight requests a second, under the server's rate (ten), as a
  // well-behaved client keeps (protocol/README.md, "Message rate").
  request(msg) {
    const id = this.nextId++;
    const now = Date.now();
    const at = Math.max(now, this.nextSend ?? 0);
    this.nextSend = at + 125;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      setTimeout(() => this.ws.send(JSON.stringify({ ...msg, id })), at - now);
    });
  }

  receive(msg) {
    if (msg.type === 'welcome') { this.welcomed(); return; }
    if (msg.id !== undefined && this.pending.has(msg.id)) {
      const resolve = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      resolve(msg);
    }
    // A request over the server's rate is dropped and answered by an error
    // without an id: the oldest request waiting is the one dropped.
    if (msg.type === 'error' && msg.id === undefined && this.pending.size) {
      const [id, resolve] = this.pending.entries().next().value;
      this.pending.delete(id);
      resolve(msg);
    }
    if (msg.type === 'event_seat') {
      this.seat = msg;
      this.request({ type: 'resume', token: msg.token });
    }
    if (msg.type === 'room') this.room = msg;
    if (msg.type === 'event' && msg.event.type === 'game_over') this.over = msg.event;
    if (msg.type === 'turn') {
      this.lastTurn = msg;
      this.turnAt = Date.now();
      this.turnSeat = msg.seat;
      this.held = msg.legal?.ask ? msg.legal : null;
      if (this.held && !this.hold && !this.left) this.act();
    }
  }

  act() {
    const legal = this.held;
    if (!legal) return;
    this.held = null;
    const ask = { type: 'ask', target: legal.ask.targets[0] };
    if (legal.ask.ranks) ask.rank = legal.ask.ranks[0];
    else ask.card = legal.ask.cards[0];
    this.request(ask).then((reply) => {
      if (reply.type !== 'error') return;
      this.refused = reply;
      // Dropped for the rate: the same decision again in a moment.
      if (reply.code === 'protocol/rate_limited' && !this.held) setTimeout(() => { this.held ??= legal; this.act(); }, 300);
    });
  }

  release() {
    this.hold = false;
    this.act();
  }

  // A fresh snapshot of the room (a resync without last_v).
  async snapshot() {
    this.room = null;
    await this.request({ type: 'resume', token: this.seat.token });
    await waitFor(`${this.name}'s snapshot`, () => this.room, 10_000);
    return this.room;
  }

  close() { try { this.ws.close(); } catch { /* gone */ } }
}

// What the console shows of each table, read from its page.
const consoleTables = (page) => page.$$eval('#console-tables > li.ct', (cards) => cards.map((c) => ({
  table: Number(c.dataset.table),
  room: c.dataset.room,
  state: c.querySelector('.ct-state')?.textContent,
  help: !!c.querySelector('.ct-help'),
  turn: c.querySelector('.ct-turn')?.textContent ?? '',
  pond: c.querySelector('.ct-pond')?.textContent ?? '',
  seats: [...c.querySelectorAll('.ct-seat')].map((s) => ({
    name: s.querySelector('.ct-name').textContent.replace(/^▶ /, ''),
    counts: s.querySelector('.ct-counts')?.textContent ?? '',
    status: s.querySelector('.ct-status')?.textContent ?? '',
  })),
})));

const countsText = (cards, sets) => `${cards} ${cards === 1 ? 'card' : 'cards'} · ${sets} ${sets === 1 ? 'set' : 'sets'}`;

async function layoutAt(page, label, widths = [360, 800, 1280]) {
  const size = page.viewportSize();
  for (const width of widths) {
    await page.setViewportSize({ width, height: 800 });
    await page.waitForTimeout(50);
    const problems = await page.evaluate(layoutProblems);
    assert(problems.length === 0, `${label} at ${width} px: ${problems.join('; ')}`);
  }
  await page.setViewportSize(size);
}

// A server of its own whose computer players wait a moment before each
// move: until a pupil sits down a computer plays their seat, and without the
// wait every table's game would be over before anyone sat down.
export default async function ({ browser, serverPath, webRoot, log }) {
  const server = await startServer(serverPath, webRoot, { botDelayMs: 500 });
  try {
    await run(server.baseUrl, browser, log);
  } finally {
    await server.stop();
  }
}

async function run(baseUrl, browser, log) {
  const shots = process.env.GOFISH_CLASS_SHOTS || null;
  if (shots) mkdirSync(shots, { recursive: true });
  const shoot = async (page, name, width) => {
    if (!shots) return;
    const size = page.viewportSize();
    await page.setViewportSize({ width, height: width < 500 ? 780 : 900 });
    await page.waitForTimeout(80);
    await page.screenshot({ path: join(shots, `class-${name}-${width}.png`), fullPage: true });
    await page.setViewportSize(size);
  };

  // The teacher: "Teach a class", the form, the console.
  const teacher = await openPage(browser, baseUrl, { width: 1280, height: 900 });
  const tp = teacher.page;
  await online(tp);
  await waitScreen(tp, 'home');
  await tp.click('#go-teach');
  await waitScreen(tp, 'teach');
  await tp.waitForSelector('#teach-rules #preset-list input[value="classic"]');
  await checkAxe(tp, 'class: create form');
  await layoutAt(tp, 'the class create form');
  await shoot(tp, 'teach-form', 1280);
  await shoot(tp, 'teach-form', 360);
  await tp.fill('#teach-name', 'Class 3B');
  await tp.selectOption('#teach-bots', 'easy');
  await tp.check('#teach-same-deal');
  await tp.check('#teach-coaching');
  await tp.fill('#teach-roster', `${ROSTER.join('\n')}\n`);
  await tp.click('#teach-create');
  await waitScreen(tp, 'console');
  const code = (await tp.textContent('#console-code')).trim();
  assert(/^[A-Z0-9]{6}$/.test(code), `the console shows the event code: ${code}`);
  assert(await tp.inputValue('#console-link') === `${baseUrl}/?event=${code}`, 'the join link is the page with ?event=CODE');
  const modules = Number(await tp.getAttribute('#screen-console svg.qr', 'data-modules'));
  assert(modules >= 21, `the console draws a QR code of the link (${modules} modules)`);
  assert(new URL(tp.url()).search === `?teach=${code}`, `the console's address is /?teach=CODE: ${tp.url()}`);
  await tp.waitForFunction(() => document.querySelectorAll('#console-pupils tbody tr').length === 12);
  await checkAxe(tp, 'class: console before the round');

  // What the teacher's page sends (watch_table), recorded on its way.
  const teacherSent = [];
  await teacher.context.routeWebSocket(/\/ws/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((text) => { teacherSent.push(JSON.parse(String(text))); server.send(text); });
    server.onMessage((text) => ws.send(text));
  });
  // The teacher's console comes back after a reload (resume_event).
  await tp.reload();
  await waitScreen(tp, 'console');
  assert((await tp.textContent('#console-code')).trim() === code, 'the console is back after a reload');

  // Ten pupils from node, two as pages.
  const wsUrl = `${baseUrl.replace(/^http/, 'ws')}/ws`;
  const pupils = ROSTER.filter((n) => !PAGE_PUPILS.includes(n)).map((n) => new Pupil(wsUrl, n));
  await Promise.all(pupils.map((p) => p.open()));
  for (const p of pupils) {
    const reply = await p.request({ type: 'join_event', code, name: p.name });
    assert(reply.type === 'event_joined', `${p.name} joins: ${JSON.stringify(reply)}`);
  }
  // Kit types the code on the start page; Lena opens the link on a phone.
  const kit = await openPage(browser, baseUrl, { width: 1280, height: 900 });
  await online(kit.page);
  await waitScreen(kit.page, 'home');
  await kit.page.fill('#class-code', code.toLowerCase());
  await kit.page.click('#class-join-button');
  // Lena opens the join link on a phone; the server reads the roster out
  // (read_roster): the names the ten clients took are claimed.
  const lena = await openPage(browser, baseUrl, { width: 360, height: 780, path: `/?event=${code}` });
  const pupilPages = [kit, lena];
  for (const [p, name] of [[kit, 'Kit'], [lena, 'Lena']]) {
    await waitScreen(p.page, 'class-join');
    await p.page.waitForFunction(() => !document.getElementById('class-roster').hidden || !document.getElementById('class-name-form').hidden);
    if (name === 'Kit') await checkAxe(p.page, 'class: pupil join (the code typed on the start page)');
    if (name === 'Lena') {
      await checkAxe(p.page, 'class: pupil join');
      await layoutAt(p.page, 'the pupil join screen');
      await shoot(p.page, 'pupil-join', 360);
      await shoot(p.page, 'pupil-join', 1280);
    }
    if (name === 'Lena') {
      assert(await p.page.isVisible('#class-roster'), 'the roster\'s names are buttons');
      assert(await p.page.isDisabled('#class-roster button[data-name="Ada"]'), 'a claimed name cannot be tapped');
      assert(await p.page.isVisible('#class-name-form') === false, 'with a roster there is no name field');
    }
    if (await p.page.isVisible('#class-roster')) {
      // The server reads the roster out: the names are buttons.
      await p.page.click(`#class-roster button[data-name="${name}"]`);
    } else {
      await p.page.fill('#pupil-name', name);
      await p.page.click('#pupil-join');
    }
    await waitScreen(p.page, 'class-wait');
  }
  assert((await lena.page.textContent('#class-wait-name')).includes('Lena'), 'the waiting screen names the pupil');
  assert((await lena.page.textContent('#class-wait-event')).includes('Class 3B'), 'the waiting screen names the class');
  await checkAxe(lena.page, 'class: pupil waiting');
  await layoutAt(lena.page, 'the pupil waiting screen');
  await shoot(lena.page, 'pupil-waiting', 360);
  await shoot(lena.page, 'pupil-waiting', 1280);
  // A pupil page that reloads comes back with its token, still waiting.
  await lena.page.reload();
  await waitScreen(lena.page, 'class-wait');

  await tp.waitForFunction(() => [...document.querySelectorAll('#console-pupils tbody tr')].filter((r) => r.classList.contains('here')).length === 12);
  // Free a name (a pupil took the wrong one): it can be claimed again.
  const jade = pupils.find((p) => p.name === 'Jade');
  const row = (name) => `#console-pupils tr[data-pupil-row="${ROSTER.indexOf(name)}"]`;
  await tp.click(`${row('Jade')} button[data-free]`);
  await tp.click('#confirm-yes');
  await tp.waitForFunction((sel) => document.querySelector(sel)?.classList.contains('missing'), row('Jade'));
  await jade.close();
  const again = new Pupil(wsUrl, 'Jade');
  await again.open();
  const rejoined = await again.request({ type: 'join_event', code, name: 'Jade' });
  assert(rejoined.type === 'event_joined', `a freed name can be claimed again: ${JSON.stringify(rejoined)}`);
  pupils[pupils.indexOf(jade)] = again;
  await tp.waitForFunction((sel) => document.querySelector(sel)?.classList.contains('here'), row('Jade'));

  await tp.click('#console-seat');
  await tp.waitForFunction(() => document.querySelectorAll('#console-tables > li.ct').length === 3);
  // Move a pupil between rounds: to a new table, and back.
  const seatedAt = async (name) => (await consoleTables(tp)).find((t) => t.seats.some((s) => s.name === name))?.table;
  const home = await seatedAt('Ada');
  await tp.selectOption('#move-0', '3');
  await tp.click(`${row('Ada')} button[data-move]`);
  await tp.waitForFunction(() => document.querySelectorAll('#console-tables > li.ct').length === 4);
  assert(await seatedAt('Ada') === 3, 'Ada moved to a new table');
  await tp.selectOption('#move-0', String(home));
  await tp.click(`${row('Ada')} button[data-move]`);
  await tp.waitForFunction(() => document.querySelectorAll('#console-tables > li.ct').length === 3);
  assert(await seatedAt('Ada') === home, 'Ada moved back');
  const planned = await consoleTables(tp);
  assert(planned.every((t) => t.seats.length === 4 && t.state === 'Planned'), `three planned tables of four: ${JSON.stringify(planned)}`);
  await tp.click('#console-start');
  await tp.waitForFunction(() => [...document.querySelectorAll('#console-tables .ct-state')].filter((s) => s.textContent === 'Playing').length === 3);

  // Every pupil sits down: the clients resumed, the pages show the table.
  await waitFor('every client at its table', () => pupils.every((p) => p.room?.state === 'playing'));
  for (const p of pupilPages) await waitScreen(p.page, 'table');
  for (const p of pupilPages) assert(await p.page.isVisible('#class-coaching'), 'with coaching, the table says the teacher can see the cards');

  // One pupil leaves the table: a computer plays for them, and the console says they need help.
  const away = pupils[0];
  away.left = true;
  const leftReply = await away.request({ type: 'leave' });
  assert(leftReply.type !== 'error', `${away.name} leaves the table: ${JSON.stringify(leftReply)}`);

  // Hold until every table waits on a pupil who is here.
  const pageNames = new Set(PAGE_PUPILS);
  const tableOf = (p) => p.seat.table;
  const waitingOnPupil = () => [0, 1, 2].every((t) => {
    const at = pupils.filter((p) => tableOf(p) === t && !p.left);
    const seen = at.find((p) => p.turnSeat !== null);
    if (!seen) return false;
    const name = seen.room?.seats[seen.turnSeat]?.name;
    return at.some((p) => p.held && p.seat.seat === seen.turnSeat) || pageNames.has(name);
  });
  await waitFor('every table waiting on a pupil', waitingOnPupil, 20_000);
  const snapshots = new Map();
  for (const t of [0, 1, 2]) {
    const p = pupils.find((q) => tableOf(q) === t && !q.left);
    snapshots.set(t, await p.snapshot());
  }
  const matches = async () => {
    const shown = await consoleTables(tp);
    const wrong = [];
    for (const [t, room] of snapshots) {
      const c = shown.find((x) => x.table === t);
      const g = room.game;
      if (!c) { wrong.push(`table ${t + 1} missing`); continue; }
      if (c.room !== room.code) wrong.push(`table ${t + 1}: room ${c.room} not ${room.code}`);
      room.seats.forEach((s, i) => {
        if (c.seats[i]?.name !== s.name) wrong.push(`table ${t + 1} seat ${i + 1}: ${c.seats[i]?.name} not ${s.name}`);
        const want = countsText(g.seats[i].hand_size, g.seats[i].sets.length);
        if (c.seats[i]?.counts !== want) wrong.push(`table ${t + 1} ${s.name}: "${c.seats[i]?.counts}" not "${want}"`);
      });
      if (!c.turn.startsWith(`${room.seats[g.to_act].name}'s turn`)) wrong.push(`table ${t + 1}: "${c.turn}" is not ${room.seats[g.to_act].name}'s turn`);
      if (c.pond !== `Pond: ${g.stock} ${g.stock === 1 ? 'card' : 'cards'}`) wrong.push(`table ${t + 1}: "${c.pond}" but the pond has ${g.stock}`);
    }
    return wrong;
  };
  let wrong = [];
  await waitFor('the console to match the tables', async () => { wrong = await matches(); return wrong.length === 0; }, 5000)
    .catch(() => { throw new Error(`the console does not match the tables: ${wrong.join('; ')}`); });
  let awayTable = null;
  await waitFor(`${away.name} shown away`, async () => {
    awayTable = (await consoleTables(tp)).find((t) => t.table === tableOf(away));
    return awayTable.help;
  }, 5000).catch(() => {});
  assert(awayTable.help, `(the room says ${JSON.stringify(snapshots.get(tableOf(away)).seats[away.seat.seat])}) the away pupil's table is flagged: ${JSON.stringify(awayTable)}`);
  assert(awayTable.seats.find((s) => s.name === away.name).status.includes('away'), `${away.name} is shown away`);
  const helpText = await tp.textContent('#console-help-list');
  assert(helpText.includes(`${away.name} is away`), `the help list names ${away.name}: ${helpText}`);
  const live = await tp.textContent('#console-live');
  assert(live.includes(away.name), `a screen reader hears that ${away.name} needs help: "${live}"`);
  await checkAxe(tp, 'class: console mid-round');
  await layoutAt(tp, 'the console mid-round');
  await shoot(tp, 'console', 1280);
  await shoot(tp, 'console', 360);
  await checkCoaching(tp, teacherSent, snapshots.get(1), shoot);
  // A teacher's message (message_tables) shows on the pupil's table and is read out.
  await tp.click('.console-more summary');
  await tp.fill('#console-message', 'Five more minutes, everyone!');
  await tp.click('#console-send');
  await tp.waitForFunction(() => document.getElementById('console-message').value === '');
  await lena.page.waitForSelector('#class-message:not([hidden])');
  assert((await lena.page.textContent('#class-message')).includes('Five more minutes'), 'the table shows the teacher\'s message');
  await lena.page.waitForFunction(() => window.gofish.announcer.log.some((l) => l.text.includes('Your teacher says: Five more minutes')));
  await layoutAt(lena.page, 'the pupil table with a teacher message');
  await shoot(lena.page, 'pupil-table-message', 360);
  await shoot(lena.page, 'pupil-table-message', 1280);
  // Watch: the table's room opens as a spectator.
  const href = await tp.getAttribute('#console-tables li.ct[data-table="1"] .ct-watch', 'href');
  const watcher = await openPage(browser, baseUrl, { path: href });
  await waitScreen(watcher.page, 'table');
  assert(await watcher.page.evaluate(() => window.gofish.state.isSpectator && window.gofish.state.room.code),
    `the Watch link opens the table's room as a spectator (${href})`);
  await watcher.context.close();
  // Pause every table: the console says so, Lena's table says her teacher
  // paused it; then every table plays on.
  await tp.click('#console-pause');
  await tp.waitForFunction(() => document.getElementById('console-status').textContent === 'Every table is paused.');
  await lena.page.waitForFunction(() => document.getElementById('pause-title')?.textContent === 'Your teacher paused the game.');
  await tp.waitForFunction(() => document.getElementById('console-pause').textContent === 'Resume every table');
  await tp.click('#console-pause');
  await tp.waitForFunction(() => document.getElementById('console-status').textContent === 'Every table plays on.');
  await lena.page.waitForFunction(() => !document.getElementById('pause-title')?.offsetParent);

  // Everyone plays to the end.
  for (const p of pupils) p.release();
  // A client that sees its own turn without its decisions (it has happened
  // once in a while: a turn copy without `legal`) asks for them again with
  // a resync rather than stall its table; the log says so.
  const nudge = setInterval(() => {
    for (const p of pupils) {
      if (p.left || p.over || p.held || p.pending.size || p.turnSeat !== p.seat.seat) continue;
      if (Date.now() - (p.turnAt ?? Date.now()) < 3000) continue;
      log(`${p.name}: its turn came without its decisions (${JSON.stringify(p.lastTurn)}); resyncing`);
      p.turnAt = Date.now();
      p.request({ type: 'resume', token: p.seat.token });
    }
  }, 1000);

  const deadline = Date.now() + 40_000;
  while ((await Promise.all(pupilPages.map((p) => screenOf(p.page)))).some((s) => s === 'table')) {
    if (Date.now() > deadline) clearInterval(nudge);
    assert(Date.now() < deadline, `the pupil pages finish their games in time (clients: ${pupils.filter((p) => !p.left && !p.over)
      .map((p) => `${p.name} table ${tableOf(p) + 1} seat ${p.seat.seat} turn ${p.turnSeat} held ${!!p.held} waiting ${p.pending.size}`).join(', ')})`);
    let acted = false;
    for (const p of pupilPages) {
      if ((await screenOf(p.page)) === 'table' && await clickAsk(p.page).catch(() => false)) acted = true;
    }
    if (!acted) await new Promise((r) => setTimeout(r, 40));
  }
  for (const p of pupilPages) {
    await waitScreen(p.page, 'class-wait');
    assert((await p.page.textContent('#class-wait-result')).startsWith('Your game is over'), 'a pupil is told the game is over');
  }
  await waitFor('every client sees its game over', () => pupils.filter((p) => !p.left).every((p) => p.over), 45_000)
    .finally(() => clearInterval(nudge))
    .catch((e) => { throw new Error(`${e.message}: ${pupils.filter((p) => !p.left && !p.over).map((p) => `${p.name} (table ${tableOf(p) + 1}, seat ${p.seat.seat}, turn ${p.turnSeat}, held ${!!p.held}, refused ${JSON.stringify(p.refused ?? null)}, state ${p.room?.state}, last turn ${JSON.stringify(p.lastTurn)}, waiting ${p.pending.size})`).join(', ')}`); });
  await tp.waitForFunction(() => [...document.querySelectorAll('#console-tables .ct-state')].filter((s) => s.textContent === 'Finished').length === 3);
  const finished = await consoleTables(tp);
  for (const t of [0, 1, 2]) {
    const p = pupils.find((q) => tableOf(q) === t && !q.left);
    const c = finished.find((x) => x.table === t);
    p.over.scores.forEach((score, i) => {
      assert(c.seats[i].counts.endsWith(`· ${score} ${score === 1 ? 'set' : 'sets'}`), `table ${t + 1} seat ${i + 1} finished with ${score} sets: "${c.seats[i].counts}"`);
    });
    assert(c.turn.startsWith('Game over'), `table ${t + 1} says it is over: "${c.turn}"`);
  }
  await checkResults(tp, pupils, tableOf);
  await checkReplay(browser, baseUrl, tp, log, shoot);
  await checkAxe(tp, 'class: console results');
  await layoutAt(tp, 'the console with its results', [360, 1280]);
  await tp.evaluate(() => document.getElementById('console-results').scrollIntoView());
  await shoot(tp, 'results', 1280);
  await shoot(tp, 'results', 360);
  // Printed: the results alone, black on white, the class's name and date on top.
  await tp.emulateMedia({ media: 'print' });
  const printed = await tp.evaluate(() => ({
    head: getComputedStyle(document.getElementById('results-print-head')).display,
    buttons: [...document.querySelectorAll('#screen-console button')].filter((b) => b.offsetParent).length,
    tables: !!document.getElementById('console-tables').offsetParent,
    title: document.getElementById('results-print-head').textContent,
  }));
  assert(printed.head === 'block' && printed.buttons === 0 && !printed.tables && printed.title.startsWith('Class 3B'),
    `the printed page is the results alone, headed by the class: ${JSON.stringify(printed)}`);
  await shoot(tp, 'results-print', 1280);
  await tp.emulateMedia({ media: 'screen' });
  await tp.click('#console-end');
  await tp.click('#confirm-yes');
  await tp.waitForFunction(() => /Round 1 of 1 is over|The class has ended/.test(document.getElementById('console-summary').textContent));
  for (const p of [teacher, ...pupilPages]) assert(p.errors.length === 0, `no page errors: ${p.errors.join('; ')}`);
  for (const p of pupils) p.close();
  log(`class ${code}: 3 tables played to the end; console matched mid-round and at the end`);
}

// The coaching view (watch_table / table_view): "Look at the cards" opens the
// panel and asks the server, whose table_view shows every hand; then views
// handed to the page as if the server had sent them check the drawing: each
// seat's hand as cards, whose turn it is, the pond; a second one updates it;
// another table's is not drawn; Close sends {table: null}; and a view that
// comes unasked while the panel is closed (a resumed console's) opens it.
async function checkCoaching(tp, sent, room, shoot) {
  const look = '#console-tables li.ct[data-table="1"] .ct-look';
  assert(await tp.isVisible(look), 'with coaching, a table offers "Look at the cards"');
  await tp.click(look);
  await tp.waitForSelector('#coach-panel:not([hidden])');
  await tp.waitForFunction(() => document.getElementById('coach-error').textContent || document.querySelector('#coach-seats li'));
  const asked = sent.filter((m) => m.type === 'watch_table');
  assert(asked.length === 1 && asked[0].table === 1, `the panel asks for table 2: ${JSON.stringify(asked)}`);
  // The server's table_view (every table waits on a pupil: nothing moves):
  // each seat's hand as many cards as the room counts, the turn marked.
  const error = await tp.textContent('#coach-error');
  assert(!error, `the server shows the table's cards: "${error}"`);
  const served = await tp.$$eval('#coach-seats li', (items) => items.map((li) => ({
    turn: li.classList.contains('turn'), cards: li.querySelectorAll('.card.face').length })));
  const counts = room.game.seats.map((s) => s.hand_size);
  assert(JSON.stringify(served.map((x) => x.cards)) === JSON.stringify(counts), `every hand is shown, card for card: ${JSON.stringify(served)} against ${counts}`);
  assert(served.findIndex((x) => x.turn) === room.game.to_act, `the seat to play is marked: ${JSON.stringify(served)}`);
  const seats = room.seats.map((s, i) => ({ seat: i, name: s.name, pupil: i, cards: 2, sets: i === 0 ? ['Q'] : [],
    hand: i === 1 ? ['QH', '7C'] : ['2S', 'AD'] }));
  const view = (turn, hand1) => ({ type: 'table_view', table: 1, room: room.code, state: 'playing', turn, pond: 20,
    seats: seats.map((s) => (s.seat === 1 ? { ...s, hand: hand1, cards: hand1.length } : s)) });
  await tp.evaluate((v) => window.gofish.conn.onMessage(v), view(1, ['QH', '7C']));
  await tp.waitForFunction(() => document.querySelectorAll('#coach-seats li').length > 1);
  const shown = () => tp.$$eval('#coach-seats li', (items) => items.map((li) => ({
    turn: li.classList.contains('turn'),
    cards: [...li.querySelectorAll('.card.face')].map((c) => c.getAttribute('aria-label')),
  })));
  let seen = await shown();
  assert(seen[1].turn && !seen[0].turn, `the seat to play is marked: ${JSON.stringify(seen)}`);
  assert(JSON.stringify(seen[1].cards) === JSON.stringify(['queen of hearts', '7 of clubs']), `the hand is drawn as cards: ${JSON.stringify(seen[1].cards)}`);
  assert((await tp.textContent('#coach-turn')) === `${room.seats[1].name}'s turn.`, 'the panel says whose turn it is');
  assert((await tp.textContent('#coach-pond')) === 'Pond: 20 cards', 'the panel shows the pond');
  assert(!(await tp.textContent('#coach-error')), 'a table_view clears the refusal');
  await checkAxe(tp, 'class: coaching panel');
  await tp.evaluate(() => document.getElementById('coach-panel').scrollIntoView());
  await shoot(tp, 'coaching', 1280);
  // It updates live: the turn moves on and a card came in.
  await tp.evaluate((v) => window.gofish.conn.onMessage(v), view(2, ['QH', '7C', '7D']));
  await tp.waitForFunction(() => document.querySelectorAll('#coach-seats li')[1]?.querySelectorAll('.card.face').length === 3);
  seen = await shown();
  assert(seen[2].turn && !seen[1].turn, `the turn moved on: ${JSON.stringify(seen)}`);
  // Another table's view does not show here.
  await tp.evaluate((v) => window.gofish.conn.onMessage({ ...v, table: 0, turn: 0 }), view(0, []));
  await tp.waitForTimeout(50);
  assert((await shown())[2].turn, 'a view of another table is not drawn in the panel');
  await tp.click('#coach-close');
  await tp.waitForSelector('#coach-panel', { state: 'hidden' });
  assert(await tp.evaluate(() => document.activeElement?.dataset.focus === 'look:1'), 'closing the panel puts the focus back on its table\'s button');
  await waitFor('watch_table {table: null}', () => sent.some((m) => m.type === 'watch_table' && m.table === null), 5000);
  // A table_view the closed panel did not ask for is the table the server
  // kept for a console that came back (a reload, a restart): the panel opens
  // on it, asking nothing (the server watches it for this connection already).
  const asks = sent.filter((m) => m.type === 'watch_table').length;
  await tp.waitForFunction((v) => {
    window.gofish.conn.onMessage(v);
    return !document.getElementById('coach-panel').hidden;
  }, view(1, ['QH', '7C']), { timeout: 5000 });
  await tp.waitForFunction(() => document.querySelectorAll('#coach-seats li')[1]?.querySelectorAll('.card.face').length === 2);
  assert((await tp.textContent('#coach-title')) === 'Cards at table 2', 'an unasked table_view opens the panel on its table');
  assert(sent.filter((m) => m.type === 'watch_table').length === asks, 'the panel asks nothing for a table_view it did not ask for');
  await tp.click('#coach-close');
  await tp.waitForSelector('#coach-panel', { state: 'hidden' });
  await waitFor('a second watch_table {table: null}',
    () => sent.filter((m) => m.type === 'watch_table' && m.table === null).length === 2, 5000);
}

// The results: each finished table's sets as its players saw them at game
// over, the class's sums, and the CSV the page downloads saying the same.
async function checkResults(tp, pupils, tableOf) {
  const overAt = new Map([0, 1, 2].map((t) => [t, pupils.find((q) => tableOf(q) === t && !q.left).over]));
  await tp.waitForFunction(() => document.querySelectorAll('#console-results .results-block[data-table] a.results-replay').length === 3, null,
    { timeout: 15_000 }).catch(async () => {
    throw new Error(`the console's results do not show three finished tables: ${await tp.textContent('#console-results')}`);
  });
  await tp.click('#console-results-link');
  assert(await tp.evaluate(() => document.activeElement?.id === 'results-title'), '"See the results" takes the teacher to them');
  const shown = await tp.$$eval('#console-results .results-block[data-round="1"][data-table]', (blocks) => blocks.map((b) => ({
    table: Number(b.dataset.table),
    seats: [...b.querySelectorAll('tbody tr')].map((r) => ({ seat: Number(r.dataset.seat), sets: Number(r.querySelector('.results-sets').textContent) })),
  })));
  for (const t of [0, 1, 2]) {
    const r = shown.find((x) => x.table === t);
    const want = overAt.get(t).scores;
    assert(r && r.seats.length === want.length && r.seats.every((s) => s.sets === want[s.seat]),
      `the results of table ${t + 1} are the sets its players saw (${want}): ${JSON.stringify(r)}`);
  }
  // The same deal: each seat position's sets at the three tables, and their average.
  const positions = await tp.$$eval('#console-results [data-positions="1"] tbody tr', (rows) => rows.map((r) =>
    [...r.querySelectorAll('td')].map((td) => td.textContent)));
  assert(positions.length === 4, `a line for each of the 4 seat positions: ${JSON.stringify(positions)}`);
  positions.forEach((cells, seat) => {
    const want = [0, 1, 2].map((t) => overAt.get(t).scores[seat]);
    const average = (want.reduce((a, b) => a + b, 0) / 3).toFixed(2);
    assert(JSON.stringify(cells) === JSON.stringify([...want.map(String), average]), `seat ${seat + 1} across the tables: ${cells} (want ${want}, ${average})`);
  });
  // Each node pupil's line for the class: their seat's sets.
  const classRows = await tp.$$eval('#console-results [data-class] tbody tr', (rows) => rows.map((r) => ({
    pupil: Number(r.dataset.pupil), sets: Number(r.children[2].textContent), games: Number(r.children[1].textContent) })));
  for (const p of pupils) {
    const row = classRows.find((r) => r.pupil === ROSTER.indexOf(p.name));
    const want = overAt.get(tableOf(p)).scores[p.seat.seat];
    assert(row && row.games === 1 && row.sets === want, `${p.name}'s line for the class says 1 game and ${want} sets: ${JSON.stringify(row)}`);
  }
  // Download CSV: the page fetches it with the teacher token and saves it under the server's name.
  const [download] = await Promise.all([tp.waitForEvent('download'), tp.click('#results-csv')]);
  assert(download.suggestedFilename() === 'Class 3B-results.csv', `the CSV is saved under the server's name: ${download.suggestedFilename()}`);
  const lines = readFileSync(await download.path(), 'utf8').split('\r\n').filter(Boolean);
  const head = lines[0].split(',');
  const col = (name) => head.indexOf(name);
  const rows = lines.slice(1).map((l) => l.split(','));
  assert(rows.length === 12, `the CSV has a row for each of the 12 seats: ${rows.length}`);
  for (const r of rows) {
    const want = overAt.get(Number(r[col('table')])).scores[Number(r[col('seat')])];
    assert(r[col('round')] === '1' && Number(r[col('sets')]) === want, `CSV row ${r.join(',')} has ${want} sets`);
  }
  await tp.waitForFunction(() => document.getElementById('results-status').textContent.startsWith('Saved'));
}

// "Watch the game again": the link opens the replay page of that game. The
// steps come from the engine's WebAssembly module (the server's policy lets
// a page compile WebAssembly: 'wasm-unsafe-eval'). A web root without the
// module (GOFISH_WASM=OFF; here its requests answered 404) gets a page that
// says politely that it cannot step through the game and shows how it ended.
async function checkReplay(browser, baseUrl, tp, log, shoot) {
  const link = await tp.$eval('#console-results .results-block[data-table] a.results-replay', (a) => ({
    href: a.getAttribute('href'), names: [...a.closest('.results-block').querySelectorAll('tbody th')].map((th) => th.textContent.replace(/ \(computer\)$/, '')),
    sets: [...a.closest('.results-block').querySelectorAll('.results-sets')].map((td) => Number(td.textContent)) }));
  assert(/^\/\?replay=[A-Za-z0-9_=-]+$/.test(link.href), `the replay link is /?replay=GAME_ID: ${link.href}`);
  const open = async (withEngine) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
    if (!withEngine) await context.route('**/engine/**', (route) => route.fulfill({ status: 404, body: '' }));
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(baseUrl + link.href);
    await waitScreen(page, 'replay');
    await page.waitForFunction(() => /^Step 1 of/.test(document.getElementById('rp-pos').textContent) || document.getElementById('replay-page-error').textContent);
    const players = await page.textContent('#replay-page-players');
    assert(link.names.every((n) => players.includes(n)), `the replay names the table's players: "${players}"`);
    return { context, page, errors };
  };
  const engine = await fetch(new URL('gofish-engine.mjs', `${baseUrl}/engine/`), { method: 'HEAD' });
  const bare = await open(false);
  const said = await bare.page.textContent('#replay-page-error');
  assert(said.includes('cannot step through the game on this server'), `without the engine the page says so: "${said}"`);
  assert((await bare.page.$$('#rp-hands .replay-row')).length === link.names.length, 'and shows how the game ended, a row a seat');
  await checkAxe(bare.page, 'class: replay page without the engine');
  await bare.context.close();
  if (!engine.ok) { log('the web root has no engine module (GOFISH_WASM=OFF): the replay\'s steps are not checked'); return; }
  const { context, page, errors } = await open(true);
  assert(/^Step 1 of/.test(await page.textContent('#rp-pos')), `the page steps through the game: ${await page.textContent('#replay-page-error')}`);
  await checkAxe(page, 'class: replay page');
  const first = await page.textContent('#rp-text');
  assert(first.startsWith('The deal: every hand face up.'), `the first step is the deal: "${first}"`);
  const cards = await page.$$eval('#rp-hands .card.face', (c) => c.length);
  assert(cards >= 5 * link.names.length, `every hand is face up at the deal: ${cards} cards`);
  await page.click('#rp-next');
  assert((await page.textContent('#rp-pos')).startsWith('Step 2 of'), 'Next goes to step 2');
  await shoot(page, 'replay', 1280);
  assert((await page.textContent('#rp-text')) !== first, 'and tells the next move');
  await page.click('#rp-last');
  const made = await page.$$eval('#rp-hands .replay-row', (rows) => rows.map((r) => {
    const s = r.querySelector('.sets')?.textContent ?? '';
    return s ? s.replace(/^Made: /, '').split(', ').length : 0;
  }));
  assert(JSON.stringify(made) === JSON.stringify(link.sets), `the last step's sets are the results' (${link.sets}): ${made}`);
  assert(await page.isDisabled('#rp-next'), 'Next stops at the last step');
  assert(errors.length === 0, `no page errors on the replay: ${errors.join('; ')}`);
  log(`replay of ${link.href}: ${await page.textContent('#rp-pos')}, sets ${made}`);
  await context.close();
}
