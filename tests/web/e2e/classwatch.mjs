// A class on a cluster, its table watched from the console's Watch link
// (issue 34): three nodes on one PostgreSQL behind HAProxy
// (scripts/cluster.sh). A teacher and two pupils, protocol clients from
// here, make a class of one table of two through the proxy, every socket
// named by the class's code, as the clients do; the pupils sit down and hold
// their turns. A page then opens the table as the Watch link does,
// /r/<table>?watch, whose first socket names the table: the proxy may send
// it to another node, which must not take the table from its class but
// answer room/class_table, and the page connects again by the class's code.
// Then:
// - the page watches the table (the table screen, as a spectator, no page
//   error), and the table's lease is still the class's node's;
// - a pupil asks, the page sees it, and the teacher's socket is pushed the
//   class with the table after it (the console keeps hearing the table);
// - a room/class_table the page was told names the class's code.
// This test starts and ends its own cluster; only processes cluster.sh
// recorded are signalled.
import { createRequire } from 'node:module';
import { assert, openPage, waitFor, waitScreen } from '../lib/harness.mjs';
import { startCluster } from '../lib/cluster.mjs';

// Node 20 has no WebSocket of its own; playwright-core (pinned) carries `ws`.
const require = createRequire(import.meta.url);
const WebSocketClass = globalThis.WebSocket ?? require('playwright-core/lib/utilsBundle').ws;

// A protocol client: requests answered by id, every message kept.
class Client {
  constructor(url) {
    this.url = url;
    this.nextId = 1;
    this.pending = new Map();
    this.messages = [];
  }

  open() {
    return new Promise((resolve, reject) => {
      this.ws = new WebSocketClass(this.url);
      this.ws.onerror = (e) => reject(new Error(`${this.url}: ${e.message ?? e}`));
      this.ws.onmessage = (e) => this.receive(JSON.parse(String(e.data)));
      this.ws.onopen = () => this.ws.send(JSON.stringify({ type: 'hello', protocol: 1, client: 'classwatch-test' }));
      this.welcomed = resolve;
    });
  }

  request(msg) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ ...msg, id }));
    });
  }

  receive(msg) {
    this.messages.push(msg);
    if (msg.type === 'welcome') return this.welcomed();
    if (msg.id !== undefined && this.pending.has(msg.id)) {
      const resolve = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      resolve(msg);
    }
    if (msg.type === 'event_seat') {
      this.seat = msg;
      this.request({ type: 'resume', token: msg.token });
    }
    if (msg.type === 'turn') this.turn = msg;
  }

  close() { try { this.ws.close(); } catch { /* gone */ } }
}

export default async function ({ browser, root, serverPath, log }) {
  const cluster = await startCluster(root, serverPath, { nodes: 3, serverFlags: ['--bot-delay-ms=3000'] });
  const clients = [];
  let passed = false;
  try {
    const wsBase = cluster.baseUrl.replace(/^http/, 'ws');
    const open = async (code) => {
      const client = new Client(`${wsBase}/ws${code ? `?room=${code}` : ''}`);
      clients.push(client);
      await client.open();
      return client;
    };
    const maker = await open('');
    const made = await maker.request({ type: 'create_event', name: 'Watched class', table_size: 2, bots: 'easy',
      rounds: 1, rules: { preset: 'classic' } });
    assert(made.type === 'event_created', `create_event: ${JSON.stringify(made)}`);
    const { code, token } = made;
    maker.close();
    const teacher = await open(code);
    const console_ = await teacher.request({ type: 'resume_event', code, token });
    assert(console_.type === 'event_state', `resume_event: ${JSON.stringify(console_)}`);
    const pupils = [await open(code), await open(code)];
    for (const [i, pupil] of pupils.entries()) {
      const joined = await pupil.request({ type: 'join_event', code, name: `Pupil${i + 1}` });
      assert(joined.type === 'event_joined', `join_event: ${JSON.stringify(joined)}`);
    }
    assert((await teacher.request({ type: 'seat_pupils' })).type === 'ok', 'seat_pupils');
    assert((await teacher.request({ type: 'start_round' })).type === 'ok', 'start_round');
    await waitFor('both pupils seated with a turn', () => pupils.every((p) => p.seat && p.turn));
    const table = pupils[0].seat.room;
    const owner = cluster.holder(code);
    assert(owner && cluster.holder(table) === owner, `the table ${table} is not on the class's node ${owner}`);

    const watcher = await openPage(browser, cluster.baseUrl, { path: `/r/${table}?watch` });
    try {
      await waitScreen(watcher.page, 'table');
    } catch (error) {
      throw new Error(`the Watch link did not reach the table: ${error.message}; the page got:\n` +
        watcher.frames.map((f) => f.payload.slice(0, 160)).join('\n'));
    }
    assert(await watcher.page.evaluate(() => window.gofish.state.isSpectator && window.gofish.state.room.code),
      'the Watch link did not open the table as a spectator');
    assert(cluster.holder(table) === owner && cluster.holder(code) === owner,
      `watched by its own code, the table is on ${cluster.holder(table)}, the class on ${cluster.holder(code)}, not both on ${owner}`);
    const told = watcher.frames.map((f) => JSON.parse(f.payload)).find((m) => m.code === 'room/class_table');
    if (told) {
      assert(told.event === code, `room/class_table named ${told.event}, not the class ${code}`);
      log('the proxy sent the page to another node, which told it the class\'s code; it watched from the class\'s node');
    } else {
      log(`the table's code hashed to the class's node ${owner}: the page was served at once`);
    }

    // The console keeps hearing the table: a pupil's ask shows in event_state.
    const mover = pupils.find((p) => p.turn.seat === p.seat.seat && p.turn.legal?.ask);
    assert(mover, 'no pupil has an ask to make');
    const before = teacher.messages.length;
    const legal = mover.turn.legal.ask;
    const ask = { type: 'ask', target: legal.targets[0] };
    if (legal.ranks) ask.rank = legal.ranks[0];
    else ask.card = legal.cards[0];
    const answer = await mover.request(ask);
    assert(answer.type === 'ok', `the ask: ${JSON.stringify(answer)}`);
    const asked = await waitFor('the console to show the ask', () => teacher.messages.slice(before)
      .find((m) => m.type === 'event_state' && m.event.tables?.some((t) => t.room === table)), 5000);
    await waitFor('the watching page to see the ask', () => watcher.frames.some((f) => f.payload.includes('"type":"asked"')), 5000);
    assert(watcher.errors.length === 0, `page errors: ${watcher.errors.join('; ')}`);
    assert(asked.event.tables.some((t) => t.room === table), 'the console lost the table');
    log(`class ${code} and its table ${table} on ${owner}; the console heard the ask`);
    await watcher.context.close();
    passed = true;
  } finally {
    for (const client of clients) client.close();
    cluster.down(!passed);
  }
}
