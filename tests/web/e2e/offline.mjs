// Playing with no network (issue 35): a first visit online leaves the page
// and the rules engine's module with the service worker (clients/web/sw.js);
// then the browser goes offline and reloads. The start page shows, "Play with
// the computer" plays a whole game on the device (clients/web/js/local-room.js)
// with every choice from the engine's `legal`, a second game is reloaded in
// the middle and goes on where it was, with the same hand and story, to its
// end. The start of the offline game is measured on a phone (390 x 844) with
// the CPU slowed four times (Emulation.setCPUThrottlingRate) and reported;
// the table offline is photographed (docs/screenshots/offline-table-phone.png).
import { join } from 'node:path';
import { assert, openPage, online, playToEnd, waitScreen, waitGame, clickAsk } from '../lib/harness.mjs';

// The page and the module are kept once the service worker has installed.
async function keptForOffline(page) {
  await page.waitForFunction(async () => {
    const reg = await navigator.serviceWorker?.getRegistration();
    if (reg?.active?.state !== 'activated' || !navigator.serviceWorker.controller) return false;
    const cache = await caches.open('gofish-page');
    const keys = (await cache.keys()).map((r) => new URL(r.url).pathname);
    const engine = '/engine/';
    return ['/', '/js/app.js', '/style.css', `${engine}gofish-engine.mjs`, `${engine}gofish-engine.wasm`].every((p) => keys.includes(p));
  }, null, { timeout: 30_000, polling: 200 });
}

const picture = (page) => page.evaluate(() => {
  const { state, ui } = window.gofish;
  return { v: state.v, hand: state.room?.game?.hand ?? null, story: ui.story.map((e) => e.text), screen: document.body.dataset.screen,
    game: state.room?.game_number };
});

export default async function ({ baseUrl, browser, root, log }) {
  const { page, context, errors } = await openPage(browser, baseUrl, { width: 390, height: 844 });
  await online(page);
  await waitScreen(page, 'home');
  await keptForOffline(page);

  await context.setOffline(true);
  // Now and then (about 1 run in 4 here) Chromium's offline emulation fails
  // the first navigation before the service worker, whose cache holds the
  // page (checked above), sees it (ERR_INTERNET_DISCONNECTED), and once in a
  // while the next one as well (ERR_FAILED); a later one is served from the
  // cache. Up to four tries, each told; a page the worker cannot serve
  // offline fails all four.
  const failures = [];
  for (let attempt = 0; attempt < 4; attempt++) {
    const go = attempt === 0 ? page.reload() : page.goto(`${baseUrl}/`);
    const error = await go.then(() => null, (e) => e.message.split('\n')[0]);
    if (!error) break;
    assert(/ERR_INTERNET_DISCONNECTED|ERR_FAILED/.test(error), `the page offline: ${error}`);
    failures.push(error);
    await page.waitForTimeout(500);
  }
  assert(failures.length < 4, `the page was never served offline: ${failures.join('; ')}`);
  if (failures.length) log(`offline navigations that failed in the emulation before one was served: ${failures.join('; ')}`);
  await waitScreen(page, 'home');
  assert(await page.evaluate(() => !window.gofish.conn.ready), 'the page has no server');
  await page.fill('#name', 'Maya');

  // The start, timed on a phone with the CPU four times slower.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const t0 = Date.now();
  await page.click('#play-computer');
  await page.waitForFunction(() => ['table', 'over'].includes(document.body.dataset.screen) && document.querySelectorAll('#hand .card').length > 0);
  const startMs = Date.now() - t0;
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  log(`an offline game started in ${startMs} ms (phone, CPU slowed 4x)`);
  await page.waitForFunction(() => !window.gofish.pacer.busy && document.getElementById('conn').textContent.includes('On this device'));
  await page.screenshot({ path: join(root, 'docs', 'screenshots', 'offline-table-phone.png') });
  assert(await page.textContent('#room-label') === 'On this device', 'the top bar says where the game is');

  // A whole game, the page's choices coming from the engine.
  const asks = await playToEnd([page], { timeout: 90_000 });
  await page.waitForSelector('#over-title');
  const transcript = await page.waitForFunction(() => window.gofish.ui.transcript?.transcript?.format ?? null);
  assert(await transcript.jsonValue() === 'gofish-transcript/1', 'the game\'s record is there to download');
  log(`game 1 over after ${asks} asks`);

  // Game 2, reloaded in the middle: the same game goes on.
  await page.click('#rematch');
  await waitGame(page, 2);
  let mine = 0;
  while (mine < 3 && (await page.evaluate(() => document.body.dataset.screen)) === 'table') {
    if (await clickAsk(page)) mine += 1; else await page.waitForTimeout(40);
  }
  await page.waitForFunction(() => !window.gofish.pacer.busy);
  // The page keeps its story (sessionStorage) when it draws: a frame first.
  await page.evaluate(() => new Promise((resolve) => { requestAnimationFrame(() => setTimeout(resolve, 50)); }));
  const before = await picture(page);
  await page.reload();
  await page.waitForFunction((v) => window.gofish?.state?.room?.game_number === 2 && window.gofish.state.v >= v, before.v);
  const after = await picture(page);
  assert(after.game === 2, 'the reload came back to game 2');
  if (before.screen === 'table' && after.v === before.v) {
    assert(JSON.stringify(after.hand) === JSON.stringify(before.hand), `the hand is the same after the reload: ${before.hand} / ${after.hand}`);
  }
  // (The page keeps the newest 80 lines of its story across a reload, session.js.)
  const lost = before.story.slice(0, 80).filter((line) => !after.story.includes(line));
  assert(lost.length === 0, `the story is the same after the reload: lost ${JSON.stringify(lost)}; after: ${JSON.stringify(after.story.slice(0, 5))}`);
  await playToEnd([page], { timeout: 90_000 });
  assert(await page.evaluate(() => window.gofish.state.room.game_number) === 2, 'game 2 ended on the device');
  // The socket's tries to reach the server are the only errors expected (and
  // after a retried navigation, the test's own init script on the error page).
  const unexpected = errors.filter((e) => !/WebSocket connection .* failed/.test(e) &&
    !(failures.length > 0 && /Failed to read the 'localStorage' property/.test(e)));
  assert(unexpected.length === 0, `no page errors: ${unexpected.join('; ')}`);
  log(`game 2 reloaded at v ${before.v} (${mine} asks in) and played to its end`);
}
