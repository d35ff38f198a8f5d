// No dead ends. Leaving during a game asks first, and the seat can be taken
// back from the room link, with "Go back to my game", or with the browser's
// Back button; the end of the game names everyone; the host leaving after a
// game never blocks "Play again"; a silent connection shows within 10 s with
// "Retry now"; the browser going offline shows at once.
import { assert, createRoom, joinByCode, online, openPage, playToEnd, waitFor, waitScreen } from '../lib/harness.mjs';
import { checkAxe } from '../lib/axe.mjs';
import { relay } from '../lib/relay.mjs';

const badge = (page) => page.evaluate(() => ({ cls: document.getElementById('conn').className, text: document.querySelector('#conn .conn-text').textContent }));

export default async function ({ baseUrl, browser, log }) {
  // ---- Leaving during a game, and coming back.
  const ann = await openPage(browser, baseUrl);
  const bob = await openPage(browser, baseUrl);
  const code = await createRoom(ann.page, 'Ann', { others: ['person', 'easy'] });
  await joinByCode(bob.page, 'Bob', code);
  await waitScreen(bob.page, 'waiting');
  await ann.page.click('#start-game');
  await Promise.all([waitScreen(ann.page, 'table'), waitScreen(bob.page, 'table')]);
  const hand = () => bob.page.$$eval('#hand .card.face', (c) => c.map((x) => x.getAttribute('aria-label')).sort().join());

  await bob.page.click('#screen-table .leave-button');
  await bob.page.waitForSelector('#confirm-dialog[open]');
  assert(/Leave the game/.test(await bob.page.textContent('#confirm-title')), 'Leave asks first');
  assert(await bob.page.evaluate(() => document.activeElement.id === 'confirm-no'), '"Keep playing" is the default');
  await checkAxe(bob.page, 'leave dialog');
  await bob.page.keyboard.press('Enter');
  await bob.page.waitForSelector('#confirm-dialog:not([open])', { state: 'attached' });
  assert((await bob.page.evaluate(() => document.body.dataset.screen)) === 'table', '"Keep playing" keeps playing');

  await bob.page.waitForFunction(() => !window.gofish.pacer.busy);
  const held = await hand();
  await bob.page.click('#screen-table .leave-button');
  await bob.page.click('#confirm-yes');
  await waitScreen(bob.page, 'home');
  assert(await bob.page.isVisible('#away-back'), 'the start page offers the way back');
  assert(new URL(bob.page.url()).pathname === '/', 'the address is the start page');
  await ann.page.waitForFunction(() => [...document.querySelectorAll('#seats .seat')]
    .some((s) => s.querySelector('.seat-name').textContent === 'Bob' && /offline|away/.test(s.querySelector('.badge').textContent)));

  // Back: the room again, Bob in his seat with his cards.
  await bob.page.goBack();
  await waitScreen(bob.page, 'table');
  await bob.page.waitForFunction(() => /Bob \(you\)/.test(document.getElementById('me-name').textContent));
  await bob.page.waitForFunction((h) => [...document.querySelectorAll('#hand .card.face')].map((x) => x.getAttribute('aria-label')).sort().join() === h
    || document.body.dataset.screen !== 'table', held);
  const middle = async (how) => {
    const text = (await bob.page.textContent('#latest')).trim();
    assert(text.length > 0, `after ${how} the middle of the table tells the last move (it is blank)`);
  };
  await middle('Back');

  // Away again; "Go back to my game" and the room link both bring him back.
  await bob.page.click('#screen-table .leave-button');
  await bob.page.click('#confirm-yes');
  await waitScreen(bob.page, 'home');
  await checkAxe(bob.page, 'start page after leaving a game');
  await bob.page.click('#away-back');
  await waitScreen(bob.page, 'table');
  await middle('"Go back to my game"');
  await bob.page.click('#screen-table .leave-button');
  await bob.page.click('#confirm-yes');
  await waitScreen(bob.page, 'home');
  await bob.page.goto(`${baseUrl}/r/${code}`);
  await waitScreen(bob.page, 'table');
  assert(/Bob \(you\)/.test(await bob.page.textContent('#me-name')), 'the room link takes the seat back');

  // ---- The end names everyone; the host leaving never blocks "Play again".
  await playToEnd([ann.page, bob.page]);
  for (const p of [ann.page, bob.page]) {
    const names = await p.$$eval('#scores tbody th', (th) => th.map((x) => x.textContent));
    assert(names.length === 3 && names.every((n) => /\w/.test(n)), `every row has a name: ${names}`);
  }
  await ann.page.click('#screen-over .leave-button');
  await waitScreen(ann.page, 'home');
  await bob.page.waitForFunction(() => /seat is empty/.test(document.getElementById('rematch-status').textContent));
  const rows = await bob.page.$$eval('#scores tbody th', (th) => th.map((x) => x.textContent));
  assert(rows.some((r) => /Ann/.test(r)), `Ann's row keeps her name after she left: ${rows}`);
  await checkAxe(bob.page, 'game over, a seat empty');
  await bob.page.click('#rematch');
  await waitScreen(bob.page, 'table');
  await bob.page.waitForFunction(() => /game 2/.test(document.getElementById('table-title').textContent));
  log('left and came back three ways; the host left after the game and the rematch started with a computer player');

  // ---- A room that closes under a spectator: said plainly.
  const host = await openPage(browser, baseUrl);
  const watched = await createRoom(host.page, 'Hal', { others: ['person'] });
  const zoe = await openPage(browser, baseUrl);
  await joinByCode(zoe.page, 'Zoe', watched, 'spectator');
  await waitScreen(zoe.page, 'waiting');
  await host.page.click('#screen-waiting .leave-button');
  await waitScreen(zoe.page, 'gone');
  assert(/closed/i.test(await zoe.page.textContent('#gone-title')), `the spectator is told the room closed: ${await zoe.page.textContent('#gone-title')}`);
  await host.context.close();
  await zoe.context.close();

  // ---- A connection that goes silent, and a browser that goes offline.
  const tunnel = await relay(Number(new URL(baseUrl).port));
  try {
    const kay = await openPage(browser, tunnel.url);
    await online(kay.page);
    await kay.page.click('#play-computer');
    await waitScreen(kay.page, 'table');
    tunnel.freeze();
    const t0 = Date.now();
    await kay.page.waitForFunction(() => !document.getElementById('conn').classList.contains('online'), null, { timeout: 10_000 });
    const noticed = Date.now() - t0;
    assert(noticed < 10_000, `a silent connection shows within 10 s (${noticed} ms)`);
    assert(await kay.page.isVisible('#conn-retry'), '"Retry now" is offered');
    log(`silent connection noticed after ${noticed} ms: "${(await badge(kay.page)).text}"`);
    tunnel.thaw();
    const t1 = Date.now();
    await kay.page.click('#conn-retry');
    await online(kay.page);
    await waitScreen(kay.page, 'table');
    log(`back online ${Date.now() - t1} ms after "Retry now"`);

    await kay.context.setOffline(true);
    await waitFor('the offline badge', async () => /offline/.test((await badge(kay.page)).cls), 2000);
    assert(/offline/i.test((await badge(kay.page)).text), 'the badge says the device is offline');
    await kay.context.setOffline(false);
    await online(kay.page);
    await waitScreen(kay.page, 'table');
    assert(kay.errors.filter((e) => !/ERR_INTERNET_DISCONNECTED|WebSocket/.test(e)).length === 0, `no page errors: ${kay.errors}`);
  } finally {
    tunnel.close();
  }
}
