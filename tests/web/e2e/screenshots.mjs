// Screenshots for the README and for people to look at: the start page, the
// table at desktop (1280x800) and phone (360x740) sizes, "What happened" on
// the phone, and the end of a game. The phone layout must not scroll
// sideways, nothing may stick out of a card, and every button must be a
// finger's size (44 px).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { assert, clickAsk, createRoom, ENABLED_RANK, joinByCode, layoutShift, myTurn, openPage, playToEnd, recordPage, waitFor, waitScreen } from '../lib/harness.mjs';
import { checkAxe } from '../lib/axe.mjs';

// Layout checks on the page as it is now.
const problems = (page, width) => page.evaluate((w) => {
  const out = [];
  if (document.documentElement.scrollWidth > w) out.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  for (const card of document.querySelectorAll('.card.face')) {
    const box = card.getBoundingClientRect();
    if (!box.width) continue;
    for (const part of card.children) {
      const r = part.getBoundingClientRect();
      if (!r.width) continue;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
        out.push(`${card.getAttribute('aria-label')}: "${part.textContent}" sticks out of the card`);
      }
    }
  }
  for (const b of document.querySelectorAll('button, select, input, summary')) {
    const r = b.getBoundingClientRect();
    if (!r.width || b.closest('[hidden], dialog:not([open])') || getComputedStyle(b).visibility === 'hidden') continue;
    if (b.type === 'checkbox' || b.type === 'radio') continue;
    if (r.height < 43.5 || r.width < 43.5) out.push(`${b.id || b.textContent.trim().slice(0, 30)} is ${Math.round(r.width)}x${Math.round(r.height)} px`);
  }
  return out;
}, width);

export default async function ({ baseUrl, browser, root, log }) {
  const dir = join(root, 'docs', 'screenshots');
  mkdirSync(dir, { recursive: true });
  const shot = (page, name, full = false) => page.screenshot({ path: join(dir, `${name}.png`), fullPage: full });

  const ann = await openPage(browser, baseUrl, { width: 1280, height: 800 });
  const bob = await openPage(browser, baseUrl, { width: 360, height: 740 });
  await recordPage(bob.page);
  await waitScreen(bob.page, 'home');
  await shot(bob.page, 'home-phone', true);
  const home = await problems(bob.page, 360);
  assert(home.length === 0, `the start page on a phone: ${home.join('; ')}`);
  await checkAxe(bob.page, 'start page, phone');

  const code = await createRoom(ann.page, 'Ann', { others: ['person', 'medium', 'hard'] });
  await joinByCode(bob.page, 'Bob', code);
  await waitScreen(bob.page, 'waiting');
  await ann.page.click('#start-game');
  await Promise.all([waitScreen(ann.page, 'table'), waitScreen(bob.page, 'table')]);
  // A few asks so the table has a story to tell, then stop on a person's turn
  // with a card chosen, so the choices show. Ann and Bob ask each other:
  // where the player asked goes next (classic), asking a bot can leave a
  // person waiting while the bots play the game out.
  let asks = 0;
  await waitFor('a few asks', async () => {
    for (const [p, other] of [[ann.page, 1], [bob.page, 0]]) if (await clickAsk(p, { target: other }).catch(() => false)) asks += 1;
    return asks >= 5 || (await ann.page.evaluate(() => document.body.dataset.screen)) === 'over';
  }, 60_000);
  // Ann's turn (the desktop shows her choices), Bob asking her until then.
  const turn = await waitFor('Ann to play', async () => {
    if (await myTurn(ann.page)) return ann;
    if ((await ann.page.evaluate(() => document.body.dataset.screen)) === 'over') throw new Error('the game ended first');
    await clickAsk(bob.page, { target: 0 }).catch(() => false);
    return null;
  });
  await turn.page.click(ENABLED_RANK);
  await turn.page.waitForSelector('#actions [data-target]');
  for (const p of [ann, bob]) await p.page.waitForFunction(() => !window.gofish.pacer.busy);
  await shot(ann.page, 'table-desktop');
  await shot(bob.page, 'table-phone', true);
  for (const [p, width] of [[ann.page, 1280], [bob.page, 360]]) {
    const found = await problems(p, width);
    assert(found.length === 0, `the table at ${width} px: ${found.join('; ')}`);
  }
  await checkAxe(bob.page, 'table, phone');
  const cardWidth = await bob.page.$eval('#hand .card.face', (c) => c.getBoundingClientRect().width).catch(() => 0);
  assert(cardWidth >= 40, `cards are readable on the phone (${cardWidth} px wide)`);
  // "What happened" is one tap away on the phone.
  assert(await bob.page.isHidden('#story'), 'the story is folded away on the phone');
  await bob.page.click('#story-toggle');
  assert(await bob.page.isVisible('#story'), 'one tap shows the story');
  await shot(bob.page, 'story-phone');
  await checkAxe(bob.page, '"What happened", phone');
  await bob.page.click('#story-toggle');
  assert(await ann.page.isVisible('#story'), 'the story is always shown on a desktop');

  await playToEnd([ann.page, bob.page]);
  await ann.page.waitForFunction(() => /Step 1 of/.test(document.getElementById('replay-pos').textContent));
  await shot(ann.page, 'over-desktop');
  await checkAxe(bob.page, 'game over, phone');
  // The phone's layout over the whole game (played at once: a pace of 0).
  const { shift, worst } = layoutShift(await bob.page.evaluate(() => window.__rec));
  assert(shift < 0.1, `layout shift on the phone ${shift.toFixed(3)} (worst: ${worst.join('; ')})`);
  log(`wrote docs/screenshots: home-phone, table-desktop, table-phone, story-phone, over-desktop (${asks} asks before the table shots); ` +
    `layout shift on the phone over the game ${shift.toFixed(4)}`);
}
