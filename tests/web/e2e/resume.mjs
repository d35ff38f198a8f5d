// A reload in the middle of a game resumes the seat by itself (the token is
// kept in the browser) and catches up; the others see the player come back.
import { assert, clickAsk, createRoom, joinByCode, myTurn, openPage, playToEnd, waitFor, waitScreen } from '../lib/harness.mjs';

// The room the page's WebSocket was opened for (/ws?room=CODE steers a proxy).
const socketRoom = (page) => page.evaluate(() => new URL(window.gofish.conn.ws.url).searchParams.get('room'));

const handOf = (page) => page.$$eval('#hand .card.face', (cards) => cards.map((c) => c.getAttribute('aria-label')).sort().join(', '));

export default async function ({ baseUrl, browser, log }) {
  const ann = await openPage(browser, baseUrl);
  const bob = await openPage(browser, baseUrl);
  const code = await createRoom(ann.page, 'Ann', { others: ['person', 'easy'] });
  await joinByCode(bob.page, 'Bob', code);
  await waitScreen(bob.page, 'waiting');
  assert(await socketRoom(bob.page) === code, `Bob joined by code on a socket for room ${code}: ${await socketRoom(bob.page)}`);
  assert(await ann.page.evaluate(() => window.gofish.conn.room) === code, 'Ann\'s reconnects will name the room she created');
  await ann.page.click('#start-game');
  await Promise.all([waitScreen(ann.page, 'table'), waitScreen(bob.page, 'table')]);

  // Play a little, until it is Ann's turn (so nothing moves while Bob reloads).
  let asks = 0;
  await waitFor('a few asks, then Ann to play', async () => {
    if (asks >= 3 && await myTurn(ann.page)) return true;
    if (await clickAsk(bob.page).catch(() => false)) asks += 1;
    else if (asks < 3 && await clickAsk(ann.page).catch(() => false)) asks += 1;
    return false;
  }, 60_000);
  const before = await handOf(bob.page);
  const title = await bob.page.textContent('#table-title');
  const story = await bob.page.$$eval('#story li', (li) => li.map((x) => x.textContent));
  await bob.page.waitForFunction(() => !window.gofish.pacer.busy);
  const middle = (await bob.page.textContent('#latest')).trim();
  assert(middle.length > 0, 'the middle of the table tells the last move before the reload');
  assert(story.length >= 3, `the story has moves before the reload (${story.length})`);
  log(`Bob reloads holding: ${before}`);

  await bob.page.reload();
  await waitScreen(bob.page, 'table');
  await bob.page.waitForSelector('#conn.online');
  assert(await socketRoom(bob.page) === code, `after the reload Bob's socket names the room: ${await socketRoom(bob.page)}`);
  await bob.page.waitForFunction((h) => [...document.querySelectorAll('#hand .card.face')]
    .map((c) => c.getAttribute('aria-label')).sort().join(', ') === h, before);
  assert((await bob.page.textContent('#me-name')).includes('Bob (you)'), 'Bob has his seat back');
  assert((await bob.page.textContent('#table-title')) === title, 'same room and game');
  // The middle of the table tells the last move again at once, not only after the next one.
  const again = (await bob.page.textContent('#latest')).trim();
  assert(again === middle, `after the reload the middle says what just happened: "${again}" (before: "${middle}")`);
  // "What happened" survives the reload.
  const after = await bob.page.$$eval('#story li', (li) => li.map((x) => x.textContent));
  assert(story.every((line) => after.includes(line)), `the story survives a reload (${after.length} lines, ${story.length} before)`);
  assert(new URL(bob.page.url()).pathname === `/r/${code}`, 'the address names the room');
  // Ann sees Bob online again.
  await ann.page.waitForFunction(() => [...document.querySelectorAll('#seats .seat')]
    .some((o) => o.querySelector('.seat-name').textContent === 'Bob' && o.querySelector('.badge').textContent === 'online'));

  // A dropped connection: the badge says so, and the client comes back by itself.
  await bob.page.evaluate(() => window.gofish.conn.ws.close());
  await bob.page.waitForSelector('#conn.offline, #conn.connecting', { state: 'attached' });
  await bob.page.waitForSelector('#conn.online');
  await waitScreen(bob.page, 'table');
  assert(await socketRoom(bob.page) === code, 'the reconnect names the room');

  // The game goes on to the end from the resumed seat.
  await playToEnd([ann.page, bob.page]);
  assert(bob.errors.length === 0, `no page errors: ${bob.errors}`);
}
