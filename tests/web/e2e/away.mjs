// A player who is away, and a player the host removes, during a game.
// (a) The host's browser goes away after a game and the guest presses "Play
// again": the next game says from its start that the computer plays the
// host's seat ("away: the computer plays", and a line in the story), and the
// guest, who is here, becomes the host.
// (b) During a game the host removes the guest with the Remove control on
// the guest's seat, after a confirmation that says what happens: the guest
// is told, and the host's table shows the computer playing that seat.
import { assert, playToEnd, twoAtTable, waitFor, waitGame, waitScreen } from '../lib/harness.mjs';

const badgeOf = (page, name) => page.evaluate((n) => [...document.querySelectorAll('#seats .seat')]
  .find((s) => s.querySelector('.seat-name').textContent === n)?.querySelector('.badge').textContent ?? null, name);
const storyHas = (page, re) => page.evaluate((src) => [...document.querySelectorAll('#story li')]
  .some((li) => new RegExp(src).test(li.textContent)), re.source);

export default async function ({ baseUrl, browser, log }) {
  // ---- (a) The host is away when the guest asks for another game.
  const { host: ann, guest: bob } = await twoAtTable(browser, baseUrl);
  // The guest has no Remove control; the host has one on Bob's seat only.
  assert(await bob.page.$$eval('#seats .seat-kick', (b) => b.every((x) => x.hidden)), 'a guest has no Remove control');
  await playToEnd([ann.page, bob.page]);
  await ann.context.close();   // Ann's browser is gone: no "Play again" from her
  await bob.page.waitForFunction(() => window.gofish.state.room.seats[0].connected === false);
  await bob.page.click('#rematch');
  await waitGame(bob.page, 2);
  await waitFor('Ann\'s seat shown as played by the computer', async () =>
    (await badgeOf(bob.page, 'Ann')) === 'away: the computer plays' || (await bob.page.evaluate(() => document.body.dataset.screen)) === 'over');
  if ((await bob.page.evaluate(() => document.body.dataset.screen)) === 'table') {
    assert((await badgeOf(bob.page, 'Ann')) === 'away: the computer plays', `Ann's badge: "${await badgeOf(bob.page, 'Ann')}"`);
  }
  assert(await bob.page.evaluate(() => window.gofish.state.room.seats[0].bot_playing), 'the page knows the computer plays Ann\'s seat');
  assert(await storyHas(bob.page, /^The computer plays for Ann until they come back\.$/), 'the story says the computer plays for Ann');
  assert(await bob.page.evaluate(() => window.gofish.state.room.host === 1), 'Bob, who is here, is the host now');
  assert(await storyHas(bob.page, /^You are the host now\.$/), 'the story tells Bob he is the host');
  assert(bob.errors.length === 0, `no page errors: ${bob.errors}`);
  await bob.context.close();
  log('the away host\'s seat was announced as played by the computer in game 2, and Bob became host');

  // ---- (b) The host removes a player during a game.
  const { host: cat, guest: dan } = await twoAtTable(browser, baseUrl, ['Cat', 'Dan']);
  // Only on the other human's seat: not on the computer's.
  const controls = await cat.page.$$eval('#seats .seat-kick:not([hidden])', (b) => b.map((x) => x.getAttribute('aria-label')));
  assert(controls.length === 1 && controls[0] === 'Remove Dan', `one Remove control, named for Dan: ${controls}`);
  const remove = cat.page.getByRole('button', { name: 'Remove Dan' });
  await remove.click();
  await cat.page.waitForSelector('#confirm-dialog[open]');
  assert((await cat.page.textContent('#confirm-title')) === 'Remove Dan?', 'the host is asked first');
  const text = await cat.page.textContent('#confirm-text');
  assert(/^The computer plays Dan's cards for the rest of this game\./.test(text), `the question says what happens: "${text}"`);
  await cat.page.click('#confirm-no');
  await cat.page.waitForSelector('#confirm-dialog:not([open])', { state: 'attached' });
  assert(await dan.page.evaluate(() => document.body.dataset.screen !== 'gone'), '"Keep Dan" keeps him');
  // By keyboard this time: the control is a real button.
  await remove.focus();
  await cat.page.keyboard.press('Enter');
  await cat.page.waitForSelector('#confirm-dialog[open]');
  await cat.page.click('#confirm-yes');
  await waitScreen(dan.page, 'gone');
  assert(/removed you/i.test(await dan.page.textContent('#gone-title')), 'Dan is told he was removed');
  await waitFor('Dan\'s seat shown as played by the computer', async () =>
    (await badgeOf(cat.page, 'Dan')) === 'removed: the computer plays' || (await cat.page.evaluate(() => document.body.dataset.screen)) === 'over');
  if ((await cat.page.evaluate(() => document.body.dataset.screen)) === 'table') {
    assert(await cat.page.$$eval('#seats .seat-kick:not([hidden])', (b) => b.length === 0), 'no Remove control left to press');
  }
  assert(await storyHas(cat.page, /^The computer plays for Dan for the rest of the game\.$/), 'the story says the computer plays for Dan');
  // The game goes on without him, to its end.
  await playToEnd([cat.page]);
  assert(cat.errors.length === 0, `no page errors: ${cat.errors}`);
  log('the host removed Dan mid-game from his seat; the computer played it to the end');
}
