// Pass and play (issue 35): three people and a computer player on one phone
// play a whole game of pairs (short) under table rules, so a person asked
// answers for themselves and the device goes to them for it. Between two
// people's turns the "Pass to NAME" screen covers the page; while it shows,
// the page holds no hand: no card in the hand's or the card picker's DOM, an
// empty hand in the page's picture, and no card of any person's hand named in
// the accessibility tree (but for cards the table has shown everyone, which
// the story names). "Stop this game", declined, brings the same pass screen
// back. The setup and the pass screen pass axe-core; docs/screenshots gets
// passplay-setup, -pass, -table (the person who took the device) and -over.
import { join } from 'node:path';
import { checkAxe } from '../lib/axe.mjs';
import { assert, clickAsk, openPage, online, screenOf, waitScreen } from '../lib/harness.mjs';

const RANK_WORD = { J: 'jack', Q: 'queen', K: 'king', A: 'ace' };
const SUIT_NAME = { C: 'clubs', D: 'diamonds', H: 'hearts', S: 'spades' };
const cardName = (c) => `${RANK_WORD[c.slice(0, -1)] ?? c.slice(0, -1)} of ${SUIT_NAME[c.slice(-1)]}`;

// Every person's hand as the engine holds it, the story's text, and what the page shows of a hand.
const inspect = (page) => page.evaluate(() => {
  const local = window.gofish.local();
  const hands = local.record.players.map((p, seat) => (p.bot ? [] : local.call('view', { game: local.game, viewer: seat }).view.hand));
  return {
    hands,
    story: window.gofish.ui.story.map((e) => e.text).join('\n'),
    shown: document.querySelectorAll('#hand .card, #hand [data-rank], #card-picker [data-card]').length,
    pictured: window.gofish.state.room?.game?.hand?.length ?? 0,
    you: window.gofish.state.you,
    to: document.getElementById('pass-to')?.textContent,
  };
});

export default async function ({ baseUrl, browser, root, log }) {
  const { page, errors } = await openPage(browser, baseUrl, { width: 390, height: 844 });
  const dir = join(root, 'docs', 'screenshots');
  await online(page);
  await waitScreen(page, 'home');
  await page.click('#go-passplay');
  await waitScreen(page, 'passplay');
  for (const [i, name] of ['Ann', 'Bob', 'Cleo'].entries()) await page.fill(`#pass-name-${i}`, name);
  await page.check('input[name=preset][value="pairs"]');
  await page.check('#table-rules');
  await page.selectOption('#pass-bots', '1');
  await page.evaluate(() => scrollTo(0, 0));
  await page.screenshot({ path: join(dir, 'passplay-setup-phone.png') });
  await checkAxe(page, 'pass and play setup, phone');
  await page.click('#pass-start');
  // The page is online, but this game is played on the device: the top bar says so, not "Connected".
  await page.waitForFunction(() => document.getElementById('conn').textContent.includes('On this device'), null, { timeout: 5000 })
    .catch(() => {});
  const badge = (await page.textContent('#conn')).trim();
  assert(badge === 'On this device', `the top bar says where the game is played, not "${badge}"`);

  let passes = 0;
  let answers = 0;   // passes to a person who was asked
  let asks = 0;
  const deadline = Date.now() + 90_000;
  while ((await screenOf(page)) !== 'over') {
    if (Date.now() > deadline) {
      const why = await page.evaluate(() => JSON.stringify({ screen: document.body.dataset.screen, you: window.gofish.state.you,
        toAct: window.gofish.state.room?.game?.to_act, choices: window.gofish.choices(), busy: window.gofish.pacer.busy,
        dialog: document.getElementById('pass-dialog')?.open, record: window.gofish.local()?.record?.you }));
      assert(false, `the game ended in time (${passes} passes, ${asks} asks; ${why}; errors: ${errors.join("; ")}; ${await page.textContent("#pass-error")} ${await page.textContent("#home-error")})`);
    }
    if (await page.isVisible('#pass-dialog[open]')) {
      const seen = await inspect(page);
      assert(seen.shown === 0 && seen.pictured === 0 && seen.you === null,
        `no hand is on the page behind "${seen.to}" (${seen.shown} cards drawn, ${seen.pictured} in the picture, you ${seen.you})`);
      const tree = await page.locator('body').ariaSnapshot();
      const named = seen.hands.flat().map(cardName).filter((n) => tree.includes(n) && !seen.story.includes(n));
      assert(named.length === 0, `the accessibility tree names no card of a hand behind "${seen.to}": ${named}`);
      if (passes === 0) {
        await page.screenshot({ path: join(dir, 'passplay-pass-phone.png') });
        await checkAxe(page, 'pass screen, phone');
      }
      if (/asked/.test(await page.textContent('#pass-note'))) answers += 1;
      passes += 1;
      if (passes === 2) {
        // "Stop this game", then "Keep playing": the same person is asked for again.
        await page.click('#pass-stop');
        await page.click('#confirm-no');
        await page.waitForSelector('#pass-dialog[open]');
        assert(await page.textContent('#pass-to') === seen.to, 'kept on, the device still goes to the same person');
      }
      await page.click('#pass-me');
      await page.waitForFunction(() => window.gofish.state.you !== null || !document.getElementById('pass-dialog')?.open);
      if (passes === 1) {
        await page.waitForFunction(() => document.querySelectorAll('#hand .card').length > 0 && !window.gofish.pacer.busy);
        await page.screenshot({ path: join(dir, 'passplay-table-phone.png') });
      }
      continue;
    }
    if ((await screenOf(page)) === 'table' && await clickAsk(page).catch(() => false)) asks += 1;
    else await page.waitForTimeout(40);
  }
  assert(passes >= 2, `the device was passed (${passes} times)`);
  const names = await page.$$eval('#scores tbody th', (ths) => ths.map((t) => t.textContent));
  assert(['Ann', 'Bob', 'Cleo'].every((n) => names.some((t) => t.includes(n))) && names.length === 4,
    `the scores name the three people and the computer player: ${names}`);
  assert(await page.isVisible('#rematch'), 'the table may play again');
  await page.screenshot({ path: join(dir, 'passplay-over-phone.png') });
  assert(errors.length === 0, `no page errors: ${errors.join('; ')}`);
  log(`three people and a computer played a game of pairs under table rules on one page: ${asks} decisions, ` +
    `the device passed ${passes} times (${answers} to answer an ask)`);
}
