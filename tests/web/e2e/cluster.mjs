// The browser on a cluster: two nodes on one PostgreSQL behind HAProxy
// (scripts/cluster.sh), the pages loaded through the proxy. Ann and Bob play
// a game with a computer player. The node holding their room stops
// (SIGTERM: it releases its leases at once) and the pages carry on on the
// other node; the stopped node starts again and a spectator's join, which
// the proxy sends to the node the room's code hashes to, moves the room
// there: the players' sockets close with `moved` (4001). Measured for both
// players over the whole game:
//  - each page reconnects and resumes on its own: no new join, never the
//    start page or an error, online again within 10 s of each stop or move;
//  - after `moved` the page reconnects at once: its connection badge shows
//    "Reconnecting…", never the connection as lost;
//  - the game goes on between the moves and is played to its end, and the
//    spectator watches it end too;
//  - no page error, no message dropped for its rate.
// This test starts and ends its own cluster; only processes cluster.sh
// recorded are signalled.
import { assert, clickAsk, createRoom, joinByCode, online, openPage, playToEnd, receivedWhere, recordPage, screenOf,
  sentOfType, waitFor, waitScreen } from '../lib/harness.mjs';
import { startCluster } from '../lib/cluster.mjs';

const closings = (p, reason) => receivedWhere(p, (m) => m.type === 'closing' && m.reason === reason);

export default async function ({ browser, root, serverPath, log }) {
  const cluster = await startCluster(root, serverPath, { nodes: 2, serverFlags: ['--bot-delay-ms=0', '--lease-ttl-ms=2000'] });
  let passed = false;
  try {
    const ann = await openPage(browser, cluster.baseUrl);
    const bob = await openPage(browser, cluster.baseUrl);
    for (const p of [ann, bob]) {
      await recordPage(p.page);
      // The connection badge's states, with the time (the page's clock is this machine's).
      await p.page.evaluate(() => {
        const badge = document.getElementById('conn');
        window.__conn = [];
        new MutationObserver(() => window.__conn.push({ t: Date.now(), status: badge.className.replace('conn ', '') }))
          .observe(badge, { attributes: true, attributeFilter: ['class'] });
      });
    }
    const code = await createRoom(ann.page, 'Ann', { others: ['person', 'medium'] });
    await joinByCode(bob.page, 'Bob', code);
    await waitScreen(bob.page, 'waiting');
    await ann.page.click('#start-game');
    await Promise.all([waitScreen(ann.page, 'table'), waitScreen(bob.page, 'table')]);
    const players = [ann, bob];
    const joins = players.map((p) => sentOfType(p, 'join').length);

    // A few asks by whichever player has the turn: the game goes on.
    const play = async (asks) => {
      let done = 0;
      const deadline = Date.now() + 30_000;
      while (done < asks && Date.now() < deadline) {
        let acted = false;
        for (const p of players) {
          if ((await screenOf(p.page)) === 'table' && await clickAsk(p.page).catch(() => false)) {
            done += 1;
            acted = true;
          }
        }
        if (!acted) await new Promise((r) => setTimeout(r, 50));
        if (players.some((p) => p.page.isClosed())) break;
        if ((await Promise.all(players.map((p) => screenOf(p.page)))).includes('over')) break;
      }
      return done;
    };
    // Waits until both players are online at the table again; the time since `t0`.
    const backOnline = async (what, t0) => {
      await Promise.all(players.map((p) => online(p.page)));
      await Promise.all(players.map((p) => waitFor(`${what}: the table again`,
        async () => ['table', 'over'].includes(await screenOf(p.page)), 10_000)));
      const took = Date.now() - t0;
      assert(took <= 10_000, `${what}: both players online again within 10 s (${took} ms)`);
      return took;
    };
    // The badge's states since `t0`, per player.
    const statuses = (t0) => Promise.all(players.map((p) => p.page.evaluate((t) => window.__conn.filter((c) => c.t >= t)
      .map((c) => c.status), t0)));

    const spectators = [];
    let moves = 0;
    const times = [];
    // At most three rounds: the room comes back to a restarted node only if
    // its code hashes there (with two nodes, within two rounds).
    for (let round = 1; round <= 3 && moves === 0; round++) {
      const from = cluster.holder(code);
      assert(/^node\d+$/.test(from), `round ${round}: a node holds room ${code} (${from || 'none'})`);
      const k = Number(from.slice('node'.length));
      const stopped = Date.now();
      cluster.stopNode(k);
      await waitFor(`round ${round}: room ${code} on the other node`, async () => {
        const now = cluster.holder(code);
        return now && now !== from;
      }, 30_000);
      times.push(await backOnline(`round ${round}, after ${from} stopped`, stopped));
      const asked = await play(3);
      log(`round ${round}: ${from} stopped, the room went to ${cluster.holder(code)}; ${asked} asks there`);
      cluster.startNode(k);
      const before = players.map((p) => closings(p, 'moved'));
      const zoe = await openPage(browser, cluster.baseUrl);
      spectators.push(zoe);
      const watched = Date.now();
      await joinByCode(zoe.page, `Zoe ${round}`, code, 'spectator');
      await waitFor(`round ${round}: the spectator at the table`, async () => ['table', 'over'].includes(await screenOf(zoe.page)));
      if (round === 1) {
        // Come in mid-game: the story says so, and no empty "your last turn" bar shows.
        const look = await zoe.page.evaluate(() => ({
          story: [...document.querySelectorAll('#story li')].map((li) => li.textContent),
          bar: getComputedStyle(document.getElementById('my-result')).visibility,
        }));
        assert(look.story.at(-1) === 'Game 1 was under way when you came in.', `the spectator's story begins with the game under way: ${JSON.stringify(look.story)}`);
        assert(look.bar === 'hidden', `the spectator has no "your last turn" bar (${look.bar})`);
      }
      if (cluster.holder(code) === from) {
        // The room moved back: each player was told `moved` and came back.
        await waitFor(`round ${round}: both players told moved`,
          async () => players.every((p, i) => closings(p, 'moved') > before[i]), 10_000);
        times.push(await backOnline(`round ${round}, after the move back to ${from}`, watched));
        // `moved` is no failure: the page reconnects at once and never
        // shows the connection as lost (nor its "Retry now").
        const seen = await statuses(watched);
        assert(seen.every((list) => list.length > 0 && !list.includes('offline')),
          `round ${round}: the badge went from online to reconnecting and back, never offline (${JSON.stringify(seen)})`);
        moves += 1;
        log(`round ${round}: ${from} started again; the spectator's join moved the room back to it, and both players with it`);
      }
    }
    assert(moves === 1, 'the room moved back to a restarted node within three rounds');

    const asks = await playToEnd([ann.page, bob.page]);
    const watching = spectators.at(-1);
    await waitScreen(watching.page, 'over');
    await waitScreen(ann.page, 'over');

    for (const [name, p] of [['Ann', ann], ['Bob', bob]]) {
      const rec = await p.page.evaluate(() => window.__rec);
      const after = rec.screens.slice(rec.screens.findIndex((s) => s.screen === 'table'));
      assert(!after.some((s) => !['table', 'over'].includes(s.screen)),
        `${name}'s page stayed at the table (screens: ${after.map((s) => s.screen).join(', ')})`);
      assert(sentOfType(p, 'join').length === joins[name === 'Ann' ? 0 : 1], `${name}'s page sent no new join`);
      assert(sentOfType(p, 'resume').length >= 2, `${name}'s page resumed after the stop and after the move`);
      assert(p.errors.length === 0, `no page errors for ${name}: ${p.errors}`);
    }
    log(`both players back online ${times.map((t) => `${t} ms`).join(', ')}; the game ended after ${asks} more asks ` +
      `(${closings(ann, 'moved')} and ${closings(bob, 'moved')} moved, ${closings(ann, 'shutting_down')} and ` +
      `${closings(bob, 'shutting_down')} shutting_down)`);
    passed = true;
  } finally {
    cluster.down(!passed);
    if (!passed) log(`cluster logs kept in ${cluster.dir}`);
  }
}
