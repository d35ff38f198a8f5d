// The invite link joins the right room through the name prompt; in the
// waiting room the host copies the link, adds and removes bots, and kicks.
import { assert, createRoom, online, openPage, waitScreen } from '../lib/harness.mjs';
import { checkAxe } from '../lib/axe.mjs';

export default async function ({ baseUrl, browser }) {
  const ann = await openPage(browser, baseUrl);
  await ann.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  // Another room, so "the right room" means something.
  const other = await openPage(browser, baseUrl);
  const otherCode = await createRoom(other.page, 'Olga', { others: ['person'] });
  const code = await createRoom(ann.page, 'Ann', { others: ['person', 'person'] });
  assert(code !== otherCode, 'two rooms');

  const link = await ann.page.inputValue('#invite-link');
  assert(link === `${baseUrl}/r/${code}`, `invite link ${link}`);
  await ann.page.click('#copy-invite');
  await ann.page.waitForFunction(() => document.getElementById('copy-status').textContent === 'Copied!');
  assert((await ann.page.evaluate(() => navigator.clipboard.readText())) === link, 'the link is on the clipboard');

  // Bob opens the link: straight to the name prompt for that room.
  const bob = await openPage(browser, baseUrl, { path: new URL(link).pathname });
  await online(bob.page);
  await waitScreen(bob.page, 'invite');
  assert((await bob.page.textContent('#invite-code')) === code, 'the prompt names the room');
  assert(await bob.page.evaluate(() => new URL(window.gofish.conn.ws.url).searchParams.get('room')) === code,
    'the invite link\'s page connects to /ws?room=CODE');
  await checkAxe(bob.page, 'invite');
  await bob.page.fill('#invite-name', 'Bob');
  await bob.page.click('#invite-join');
  await waitScreen(bob.page, 'waiting');
  assert((await bob.page.textContent('#waiting-code')) === code, 'Bob is in the invited room');
  await ann.page.waitForFunction(() => /Bob \(/.test(document.querySelector('[data-seat="1"] .seat-name')?.textContent ?? '')
    || document.querySelector('[data-seat="1"] .seat-name')?.textContent === 'Bob');

  // The host seats a bot in the last seat, removes it, seats another.
  await ann.page.selectOption('#bot-level-2', 'hard');
  await ann.page.click('[data-add-bot="2"]');
  await ann.page.waitForSelector('[data-remove-bot="2"]');
  assert(await ann.page.evaluate(() => document.activeElement !== document.body), 'focus stays on the page after "Add a computer player"');
  await ann.page.waitForFunction(() => document.querySelector('[data-seat="2"] .status')?.textContent === 'computer, hard');
  await bob.page.waitForFunction(() => document.querySelector('[data-seat="2"] .status')?.textContent === 'computer, hard');
  assert((await ann.page.textContent('#start-game')) === 'Start the game', 'a full table starts as it is');
  await ann.page.click('[data-remove-bot="2"]');
  await ann.page.waitForSelector('[data-add-bot="2"]');
  assert(/computer player/.test(await ann.page.textContent('#start-game')), 'an empty seat will get a computer player at the start');
  assert(await bob.page.isHidden('#start-game'), 'only the host has a start button');
  // Focus does not fall to the page when the button pressed goes away.
  assert(await ann.page.evaluate(() => document.activeElement !== document.body), 'focus stays on the page after "Remove"');

  // The host removes Bob, after saying yes: he is told plainly, and stays out.
  await ann.page.click('[data-kick="1"]');
  await ann.page.waitForSelector('#confirm-dialog[open]');
  assert(/Remove Bob\?/.test(await ann.page.textContent('#confirm-title')), 'the host is asked first');
  await ann.page.click('#confirm-no');
  await ann.page.waitForSelector('#confirm-dialog:not([open])', { state: 'attached' });
  assert(await ann.page.$('[data-kick="1"]'), '"Keep Bob" keeps him');
  await ann.page.click('[data-kick="1"]');
  await ann.page.click('#confirm-yes');
  await waitScreen(bob.page, 'gone');
  assert(/removed you/i.test(await bob.page.textContent('#gone-title')), 'Bob is told why');
  await ann.page.waitForSelector('[data-add-bot="1"]');
  // A reload of the room link does not walk him back in.
  await bob.page.reload();
  await waitScreen(bob.page, 'gone');
  assert(/removed you/i.test(await bob.page.textContent('#gone-title')), 'still out after a reload');
  await checkAxe(bob.page, 'removed from the room');
}
