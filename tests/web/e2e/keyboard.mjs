// Keyboard alone: from the home screen to a whole turn at the table, with
// Tab, Enter and Space only.
import { assert, online, openPage, waitFor, waitScreen } from '../lib/harness.mjs';

async function tabTo(page, selector, limit = 60) {
  for (let i = 0; i < limit; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

export default async function ({ baseUrl, browser, log }) {
  const ann = await openPage(browser, baseUrl);
  const page = ann.page;
  await online(page);
  await waitScreen(page, 'home');
  await tabTo(page, '#name');
  await page.keyboard.type('Kay');
  await tabTo(page, '#go-create');
  await page.keyboard.press('Enter');
  await waitScreen(page, 'create');
  await tabTo(page, '#seat-count');
  await page.keyboard.press('ArrowUp');   // 3 -> 2 seats
  await waitFor('two seats', () => page.evaluate(() => document.getElementById('seat-count').value === '2'));
  await tabTo(page, '#seat-kind-1');
  await page.keyboard.press('ArrowDown');  // a person -> an easy bot
  await waitFor('a bot', () => page.evaluate(() => document.getElementById('seat-kind-1').value === 'easy'));
  await tabTo(page, '#create-button');
  await page.keyboard.press('Enter');
  await waitScreen(page, 'waiting');
  await tabTo(page, '#start-game');
  await page.keyboard.press('Enter');
  await waitScreen(page, 'table');

  // Wait for our turn, then ask by keyboard until the turn passes.
  let turns = 0;
  let asks = 0;
  while (turns < 1) {
    await page.waitForFunction(() => !!document.querySelector('#hand .rank-group:not([disabled])') || document.body.dataset.screen === 'over', null, { timeout: 60_000 });
    if ((await page.evaluate(() => document.body.dataset.screen)) === 'over') break;
    await tabTo(page, '#hand .rank-group:not([disabled])');
    await page.keyboard.press('Space');
    await page.waitForSelector('#opponents .opponent.target');
    await tabTo(page, '#opponents .opponent.target');
    const label = await page.evaluate(() => document.activeElement.getAttribute('aria-label'));
    assert(/^Ask /.test(label), `the target says what it does: ${label}`);
    const before = await page.evaluate(() => window.gofish.state.v);
    await page.keyboard.press('Enter');
    asks += 1;
    await page.waitForFunction((v) => window.gofish.state.v > v, before);
    // The turn is over once it has passed to the bot (narrated as "It's Easy bot's turn.").
    await page.waitForFunction(() => document.body.dataset.screen === 'over' ||
      !!document.querySelector('#hand .rank-group:not([disabled])') || /Easy bot's turn/.test(document.getElementById('history').textContent));
    if (await page.evaluate(() => /Easy bot's turn/.test(document.getElementById('history').textContent) || document.body.dataset.screen === 'over')) turns += 1;
  }
  const history = await page.textContent('#history');
  assert(/You asked /.test(history), 'the asks were made');
  log(`${asks} asks by keyboard`);
}
