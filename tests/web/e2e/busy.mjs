// room/busy in the browser: on a cluster (scripts/cluster.sh: two nodes, one
// PostgreSQL, HAProxy), the node holding a room is paused (SIGSTOP) while its
// lease still has seconds to run, so the room cannot move yet. A spectator's
// join through the proxy reaches the other node, which asks the paused one to
// hand the room over, gets no answer within its wait and says room/busy.
// Measured:
//  - the watching page asks again on its own, says meanwhile that the room is
//    moving ("Trying again…") right under the buttons it pressed, and reaches
//    the table once the lease has run out, with that note gone;
//  - the player, whose node was paused under her, is at the table again
//    (her page gives up on the silent node and resumes through the proxy,
//    told busy too until the lease runs out) once the paused node runs again,
//    and the game is played to its end, which the spectator sees too;
//  - no page error on either page.
// Leases: 15 s on the node that holds the room, 1 s on the one that asks
// (which then waits 2 s before room/busy). This test starts and ends its own
// cluster; only processes cluster.sh recorded are signalled.
import { assert, createRoom, online, openPage, pixelsBelow, playToEnd, receivedWhere, recordPage, screenOf, waitFor,
  waitScreen } from '../lib/harness.mjs';
import { startCluster } from '../lib/cluster.mjs';

const replies = (p, code) => receivedWhere(p, (m) => m.type === 'error' && m.code === code);

export default async function ({ browser, root, serverPath, log }) {
  const cluster = await startCluster(root, serverPath, { nodes: 2, serverFlags: ['--bot-delay-ms=0', '--lease-ttl-ms=15000'] });
  let passed = false;
  try {
    const ann = await openPage(browser, cluster.baseUrl);
    await recordPage(ann.page);
    const code = await createRoom(ann.page, 'Ann', { others: ['medium'] });
    await ann.page.click('#start-game');
    await waitScreen(ann.page, 'table');
    const node = (name) => Number(name.slice('node'.length));

    // The room goes to the node that will be paused: stop the one holding it,
    // and Ann's page resumes through the proxy on the other.
    const first = cluster.holder(code);
    assert(/^node\d+$/.test(first), `a node holds room ${code} (${first || 'none'})`);
    cluster.stopNode(node(first));
    await waitFor('the room on the other node', async () => {
      const now = cluster.holder(code);
      return /^node\d+$/.test(now) && now !== first;
    }, 30_000);
    const holder = cluster.holder(code);
    await online(ann.page);
    await waitFor('Ann at the table again', async () => ['table', 'over'].includes(await screenOf(ann.page)), 10_000);
    // The stopped node comes back with a short lease: it waits 2 s for a room, then says busy.
    cluster.startNode(node(first), ['--lease-ttl-ms=1000']);

    // Pause the holder; once HAProxy has marked it down, every request goes to the other node.
    cluster.pauseNode(node(holder));
    const paused = Date.now();
    await waitFor(`HAProxy to mark ${holder} down`, async () => cluster.seenUp(node(holder)) === false, 15_000);

    const zoe = await openPage(browser, cluster.baseUrl);
    await recordPage(zoe.page);
    await zoe.page.evaluate(() => {
      const note = document.getElementById('join-error');
      window.__notes = [];
      new MutationObserver(() => window.__notes.push(note.textContent)).observe(note, { childList: true, characterData: true, subtree: true });
    });
    await online(zoe.page);
    await waitScreen(zoe.page, 'home');
    await zoe.page.fill('#name', 'Zoe');
    await zoe.page.fill('#join-code', code);
    await zoe.page.click('#watch-button');
    await waitFor('the spectator told the room is moving', async () => replies(zoe, 'room/busy') > 0, 15_000);
    const shown = await zoe.page.textContent('#join-error');
    assert(shown === `Room ${code} is moving to another server. Trying again…`, `the watching page says the room is moving: "${shown}"`);
    assert(await zoe.page.$('#join-error.pending'), 'the note is shown as a wait, not as an error');
    const gap = await pixelsBelow(zoe.page, '#join-form', '#join-error');
    assert(gap >= -1 && gap < 24, `the note is right under the Join and Watch buttons (${Math.round(gap)} px below them)`);
    await waitScreen(zoe.page, 'table', 30_000);
    const watched = Date.now() - paused;
    assert(await zoe.page.textContent('#join-error') === '' && !(await zoe.page.$('#join-error.pending')),
      'the note is gone once the spectator is in');
    const busy = replies(zoe, 'room/busy');
    assert(cluster.holder(code) !== holder, `the room left the paused ${holder}`);

    cluster.resumeNode(node(holder));
    const resumed = Date.now();
    await online(ann.page);
    await waitFor('Ann at the table after the move', async () => ['table', 'over'].includes(await screenOf(ann.page)), 15_000);
    const back = Date.now() - resumed;
    const annBusy = replies(ann, 'room/busy');

    const asks = await playToEnd([ann.page]);
    await waitScreen(zoe.page, 'over');
    for (const [name, p] of [['Ann', ann], ['Zoe', zoe]]) assert(p.errors.length === 0, `no page errors for ${name}: ${p.errors}`);
    const notes = await zoe.page.evaluate(() => window.__notes);
    log(`${busy} room/busy replies to the spectator, who was in ${watched} ms after the pause; ${annBusy} to Ann, at ` +
      `the table ${back} ms after the paused node ran again; the game ended after ${asks} more asks (notes: ` +
      `${JSON.stringify([...new Set(notes)])})`);
    passed = true;
  } finally {
    cluster.down(!passed);
    if (!passed) log(`cluster logs kept in ${cluster.dir}`);
  }
}
