// Keyboard alone: from the start page through a whole game against two
// computer players, and into the next one, with Tab, Enter and arrow keys.
// After every move focus is on the hand or the prompt (never the page), and
// a chosen kind of card reaches a player in at most two key presses.
import { assert, online, openPage, waitScreen } from '../lib/harness.mjs';
import { checkAxe } from '../lib/axe.mjs';

async function tabTo(page, selector, limit = 60) {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

const where = (page) => page.evaluate(() => {
  const a = document.activeElement;
  if (!a || a === document.body) return 'body';
  if (a.closest('#hand')) return 'hand';
  if (a.closest('#actions')) return 'actions';
  return a.id ? `#${a.id}` : a.tagName;
});

export default async function ({ baseUrl, browser, log }) {
  const { page, errors } = await openPage(browser, baseUrl);
  await online(page);
  await waitScreen(page, 'home');
  // Settings, by keyboard: its dialog, then back.
  await tabTo(page, '#settings-button');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#settings-dialog[open]');
  await checkAxe(page, 'settings');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#settings-dialog:not([open])', { state: 'attached' });
  await tabTo(page, '#name');
  await page.keyboard.type('Kay');
  await tabTo(page, '#play-computer');
  await page.keyboard.press('Enter');
  await waitScreen(page, 'table');

  let asks = 0;
  let arrows = 0;
  const places = new Map();
  for (;;) {
    // Our turn, as the page shows it: the hand offers a card (the model's
    // choices() alone can be ahead of the drawing, e.g. while the answer to
    // our last ask is still on its way), and focus is in the hand.
    await page.waitForFunction(() => document.body.dataset.screen === 'over' ||
      (!!window.gofish.choices()?.ask && !window.gofish.pacer.busy && !!document.activeElement?.closest('#hand') &&
        !!document.querySelector('#hand .rank-group[aria-disabled="false"]')), null, { timeout: 60_000 });
    if ((await page.evaluate(() => document.body.dataset.screen)) === 'over') break;
    // The event that gave us the turn put focus on a card we may ask for.
    const focused = await page.evaluate(() => {
      const a = document.activeElement;
      return { enabled: a.getAttribute('aria-disabled') === 'false', rank: a.dataset.rank ?? a.tagName,
        offered: [...document.querySelectorAll('#hand .rank-group[aria-disabled="false"]')].map((n) => n.dataset.rank),
        sending: window.gofish.ui.sending, v: window.gofish.state.v };
    });
    assert(focused.enabled, `focus is on a card you may ask for (${JSON.stringify(focused)})`);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#actions [data-target]');
    // Press 0: the first player is focused. Press 1 (every other time): the next one.
    assert(await page.evaluate(() => document.activeElement.matches('#actions [data-target]')), 'the first player to ask has focus');
    if (asks % 2 === 1) {
      await page.keyboard.press('ArrowRight');
      arrows += 1;
      assert(await page.evaluate(() => document.activeElement.matches('#actions [data-target]')), 'an arrow reaches the other player');
    }
    const label = await page.evaluate(() => document.activeElement.textContent);
    assert(/^Ask /.test(label), `the button says what it does: ${label}`);
    const before = await page.evaluate(() => window.gofish.state.v);
    await page.keyboard.press('Enter');
    asks += 1;
    await page.waitForFunction((v) => window.gofish.state.v > v, before);
    // Whatever happens next, focus is on the hand or the prompt.
    await page.waitForFunction(() => !window.gofish.pacer.busy);
    const place = await where(page);
    places.set(place, (places.get(place) ?? 0) + 1);
    assert(['hand', '#prompt', 'actions'].includes(place) || (await page.evaluate(() => document.body.dataset.screen)) === 'over',
      `after an ask focus is on the hand or the prompt, not ${place}`);
  }
  // Game over: "Play again" by keyboard.
  assert((await where(page)) === '#rematch', `at game over focus is on "Play again" (${await where(page)})`);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /game 2/.test(document.getElementById('table-title').textContent));
  const story = await page.textContent('#story');
  assert(/You asked /.test(story), 'the asks were made');
  assert(errors.length === 0, `no page errors: ${errors}`);
  log(`a whole game in ${asks} asks by keyboard (${arrows} with an arrow key); focus after an ask: ${JSON.stringify([...places])}`);
}
