// Screenshots of the table at desktop and phone sizes, for the README; the
// phone layout must not scroll sideways.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { assert, clickAsk, createRoom, joinByCode, openPage, waitFor, waitScreen } from '../lib/harness.mjs';

export default async function ({ baseUrl, browser, root, log }) {
  const ann = await openPage(browser, baseUrl, { width: 1280, height: 800 });
  const bob = await openPage(browser, baseUrl, { width: 375, height: 812 });
  const code = await createRoom(ann.page, 'Ann', { others: ['person', 'medium', 'hard'] });
  await joinByCode(bob.page, 'Bob', code);
  await waitScreen(bob.page, 'waiting');
  await ann.page.click('#start-game');
  await Promise.all([waitScreen(ann.page, 'table'), waitScreen(bob.page, 'table')]);
  // A few asks so the table has a story to tell, then stop on a person's turn.
  let asks = 0;
  await waitFor('a few asks', async () => {
    for (const p of [ann.page, bob.page]) if (await clickAsk(p).catch(() => false)) asks += 1;
    return asks >= 4 || (await ann.page.evaluate(() => document.body.dataset.screen)) === 'over';
  }, 60_000);
  await waitFor('a calm table', async () => (await ann.page.evaluate(() => document.body.dataset.screen)) !== 'table'
    || !!(await ann.page.$('#hand .rank-group:not([disabled])')) || !!(await bob.page.$('#hand .rank-group:not([disabled])')));
  for (const p of [ann.page, bob.page]) await p.evaluate(() => document.getElementById('celebrate').classList.remove('show'));

  const dir = join(root, 'docs', 'screenshots');
  mkdirSync(dir, { recursive: true });
  await ann.page.screenshot({ path: join(dir, 'table-desktop.png') });
  await bob.page.screenshot({ path: join(dir, 'table-phone.png'), fullPage: true });
  const wide = await bob.page.evaluate(() => document.documentElement.scrollWidth);
  assert(wide <= 375, `the phone layout fits 375 px (scroll width ${wide})`);
  const cardWidth = await bob.page.$eval('#hand .card.face', (c) => c.getBoundingClientRect().width).catch(() => 0);
  assert(cardWidth >= 40, `cards are readable on the phone (${cardWidth} px wide)`);
  log(`wrote ${join('docs', 'screenshots', 'table-desktop.png')} and table-phone.png`);
}
