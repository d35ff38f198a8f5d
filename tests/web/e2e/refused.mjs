// Refused actions show the server's message: a room that does not exist, a
// name that is taken, rules that cannot be played at that table size.
import { assert, createRoom, joinByCode, openPage, pixelsBelow, waitFor, waitScreen } from '../lib/harness.mjs';

export default async function ({ baseUrl, browser }) {
  const ann = await openPage(browser, baseUrl);
  const code = await createRoom(ann.page, 'Ann', { others: ['person'] });

  const bob = await openPage(browser, baseUrl);
  const missing = code === '22222' ? '33333' : '22222';
  await joinByCode(bob.page, 'Bob', missing);
  await bob.page.waitForFunction(() => document.getElementById('join-error').textContent.length > 0);
  const notFound = await bob.page.textContent('#join-error');
  assert(/no room/i.test(notFound), `not found: "${notFound}"`);
  assert(await bob.page.isVisible('#join-error'), 'the message is on screen');
  assert((await bob.page.getAttribute('#join-error', 'role')) === 'alert', 'and announced');
  const gap = await pixelsBelow(bob.page, '#join-form', '#join-error');
  assert(gap >= -1 && gap < 24, `the message is right under the Join button (${Math.round(gap)} px below it)`);

  await bob.page.fill('#name', 'ann');
  await bob.page.fill('#join-code', code);
  await bob.page.click('#join-button');
  await waitFor('name taken message', async () => /name/i.test(await bob.page.textContent('#join-error')) &&
    (await bob.page.textContent('#join-error')) !== notFound);
  assert((await bob.page.evaluate(() => document.body.dataset.screen)) === 'home', 'still at home');

  // Authors needs three or more players.
  await bob.page.fill('#name', 'Bob');
  await bob.page.click('#go-create');
  await waitScreen(bob.page, 'create');
  await bob.page.check('input[name=preset][value="authors"]');
  await bob.page.selectOption('#seat-count', '2');
  await bob.page.click('#create-button');
  await bob.page.waitForFunction(() => document.getElementById('create-error').textContent.length > 0);
  const badRules = await bob.page.textContent('#create-error');
  assert(/player/i.test(badRules), `bad rules: "${badRules}"`);
  assert((await bob.page.evaluate(() => document.body.dataset.screen)) === 'create', 'still on the create screen');
}
