// A paused room in the browser (issue 30). This test starts a server of its
// own whose SQLite store fails on demand (the fault_fs shim: every write
// under its data directory fails as on a full disk). Ann (a desktop) plays
// classic against two computer players, Bob (a phone) plays under table
// rules, where his cards can be asked for at any time. With the disk full, a
// chat line is a write that fails, and the room pauses. Measured:
//  - within 2 s the table says so in its middle, in a child's words, and
//    stays on screen; no card can be picked and no move button is offered
//    (under table rules too); the screen reader hears it once; a chat sent
//    meanwhile (room/paused) shows no error; axe-core finds no serious or
//    critical violation, desktop and phone; the screenshots paused-desktop
//    and paused-phone;
//  - no dead end: Bob leaves the game to the start page, where "Play with
//    the computer" is refused with the server's sentence
//    (server/store_unavailable) and can be tried again; "Go back to my game"
//    brings the table back, saying the game is being saved, while the
//    room's answer is room/paused;
//  - once the disk works again the notice goes, one short announcement says
//    play goes on, the chat line held back arrives, Ann's cards follow her
//    turn again, and both games are played to their end.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { assert, createRoom, ENABLED_RANK, myTurn, online, openPage, playToEnd, receivedWhere, recordPage, waitFor,
  waitScreen } from '../lib/harness.mjs';
import { checkAxe } from '../lib/axe.mjs';
import { startServer } from '../lib/server.mjs';

const announced = (p, pattern) => p.page.evaluate((source) => window.__rec.announce
  .filter((a) => new RegExp(source, 'i').test(a.text)).length, pattern.source);

// What the table offers now: every card group's state and the move buttons.
const controls = (page) => page.evaluate(() => ({
  ranks: [...document.querySelectorAll('#hand .rank-group')].map((b) => b.getAttribute('aria-disabled')),
  buttons: [...document.querySelectorAll('#actions button, #card-picker:not([hidden]) button')].map((b) => b.textContent),
  prompt: document.getElementById('prompt').textContent,
  error: document.getElementById('table-error').textContent,
}));

const noteShown = (page) => page.evaluate(() => {
  const note = document.getElementById('pause-note');
  if (!note) return false;
  const box = note.getBoundingClientRect();
  return !note.hidden && box.height > 0 && !!note.closest('#screen-table:not([hidden]) .middle');
});

// On a phone the chat is in the "What happened" sheet.
async function sayHello(page) {
  const sheet = await page.isVisible('#story-toggle');
  if (sheet) await page.click('#story-toggle');
  await page.click('#say-toggle');
  await page.click('#chat-phrases [data-phrase="hello"]');
  if (sheet) await page.click('#story-close');
}

export default async function ({ browser, serverPath, webRoot, faultFs, root, log }) {
  const server = await startServer(serverPath, webRoot, { faultFs });
  const dir = join(root, 'docs', 'screenshots');
  mkdirSync(dir, { recursive: true });
  try {
    const ann = await openPage(browser, server.baseUrl, { width: 1280, height: 800 });
    const bob = await openPage(browser, server.baseUrl, { width: 360, height: 740 });
    await recordPage(ann.page);
    await recordPage(bob.page);
    await online(ann.page);
    await ann.page.fill('#name', 'Ann');
    await ann.page.click('#play-computer');
    await waitScreen(ann.page, 'table');
    await waitFor('Ann to play', () => myTurn(ann.page));
    await createRoom(bob.page, 'Bob', { others: ['easy', 'easy'], tableRules: true });
    await bob.page.click('#start-game');
    await waitScreen(bob.page, 'table');
    // Bob's table is live: a card to pick, or (asked by a bot under table rules) an answer to give.
    await bob.page.waitForFunction((s) => !window.gofish.pacer.busy
      && (!!document.querySelector(s) || !!document.querySelector('#actions button')), ENABLED_RANK);
    const before = await controls(ann.page);
    assert(before.ranks.includes('false'), `Ann may pick a card before the pause (${before.ranks})`);

    // ---- The disk fills up; Ann's chat line is the write that fails.
    server.fault('full');
    const t0 = Date.now();
    await sayHello(ann.page);
    await waitFor('the notice on Ann\'s table', () => noteShown(ann.page), 2000);
    const shownAfter = Date.now() - t0;
    const title = await ann.page.textContent('#pause-title');
    assert(/Saving the game failed; trying again/.test(title), `a child's sentence: "${title}"`);
    assert(await ann.page.isVisible('#seats') && await ann.page.isVisible('#hand'), 'the table stays on screen');
    await ann.page.waitForFunction(() => !window.gofish.pacer.busy);
    let now = await controls(ann.page);
    assert(now.ranks.length > 0 && now.ranks.every((d) => d === 'true'), `no card can be picked (${now.ranks})`);
    assert(now.buttons.length === 0, `no move is offered (${now.buttons})`);
    assert(/paused/.test(now.prompt), `Ann's corner says so too: "${now.prompt}"`);
    await ann.page.click('#hand .rank-group', { force: true });   // aria-disabled: Playwright would wait for it
    await new Promise((r) => { setTimeout(r, 300); });
    now = await controls(ann.page);
    assert(now.buttons.length === 0 && now.error === '', `a card clicked does nothing, and no error (${now.buttons}, "${now.error}")`);
    // Another chat line is refused (room/paused) without an error on screen.
    await sayHello(ann.page);
    await waitFor('the room/paused refusal', async () => receivedWhere(ann, (m) => m.code === 'room/paused') > 0, 5000);
    await new Promise((r) => { setTimeout(r, 200); });
    assert((await controls(ann.page)).error === '', 'room/paused is no error on screen');
    // The live region is paced to speech (announcer.js): the pause goes first, once the line before it could be spoken.
    await waitFor('the pause to be heard', async () => await announced(ann, /paused/) > 0, 15_000);
    assert(await announced(ann, /paused/) === 1, `the screen reader hears the pause once (${await announced(ann, /paused/)})`);
    assert(receivedWhere(ann, (m) => m.type === 'room_paused') === 1, 'one room_paused');
    await checkAxe(ann.page, 'paused table, desktop');
    await ann.page.screenshot({ path: join(dir, 'paused-desktop.png') });

    // Bob's table, under table rules: his cards could be asked for out of turn.
    await sayHello(bob.page);
    await waitFor('the notice on Bob\'s table', () => noteShown(bob.page), 2000);
    await bob.page.waitForFunction(() => !window.gofish.pacer.busy);
    const bobs = await controls(bob.page);
    assert(bobs.ranks.length > 0 && bobs.ranks.every((d) => d === 'true'), `table rules: no card can be picked (${bobs.ranks})`);
    assert(bobs.buttons.length === 0, `table rules: no answer or move is offered (${bobs.buttons})`);
    const width = await bob.page.evaluate(() => document.documentElement.scrollWidth);
    assert(width <= 360, `the phone does not scroll sideways (${width} px)`);
    await checkAxe(bob.page, 'paused table, phone');
    await bob.page.screenshot({ path: join(dir, 'paused-phone.png'), fullPage: true });

    // ---- No dead end: Bob leaves, cannot start a new game, goes back.
    await bob.page.click('#screen-table .leave-button');
    await bob.page.click('#confirm-yes');
    await waitScreen(bob.page, 'home');
    await bob.page.click('#play-computer');
    await bob.page.waitForFunction(() => document.getElementById('home-error').textContent !== '');
    const refused = await bob.page.textContent('#home-error');
    assert(/cannot save games just now; try again/i.test(refused), `the server's sentence on the start page: "${refused}"`);
    assert(await bob.page.isEnabled('#play-computer'), '"Play with the computer" can be tried again');
    await bob.page.click('#away-back');
    await waitScreen(bob.page, 'table');
    await waitFor('room/paused for Bob\'s resume', async () => receivedWhere(bob, (m) => m.code === 'room/paused') > 0, 5000);
    await waitFor('the notice on Bob\'s table again', () => noteShown(bob.page), 2000);
    const back = await bob.page.textContent('#pause-title');
    assert(/being saved/.test(back), `Bob is told the game is being saved: "${back}"`);

    // ---- The disk works again.
    const held = await ann.page.evaluate(() => document.getElementById('chat-log').textContent);
    assert(!/Ann: Hello!/.test(held), 'the chat line waits with the pause');
    server.fault('off');
    const t1 = Date.now();
    await ann.page.waitForSelector('#pause-note', { state: 'hidden', timeout: 10_000 });
    const goneAfter = Date.now() - t1;
    await ann.page.waitForFunction(() => /Ann: Hello!/.test(document.getElementById('chat-log').textContent));
    await waitFor('"play goes on" to be heard', async () => await announced(ann, /play goes on/) > 0, 15_000);
    assert(await announced(ann, /play goes on/) === 1, 'one announcement says play goes on');
    assert(receivedWhere(ann, (m) => m.type === 'room_resumed') === 1, 'one room_resumed');
    await waitFor('Ann\'s cards to follow her turn again', () => myTurn(ann.page), 5000);
    await bob.page.waitForSelector('#pause-note', { state: 'hidden', timeout: 10_000 });
    assert(/Bob \(you\)/.test(await bob.page.textContent('#me-name')), 'Bob is back in his seat');
    await Promise.all([playToEnd([ann.page]), playToEnd([bob.page])]);
    for (const p of [ann, bob]) {
      const errors = p.errors.filter((e) => !/WebSocket/.test(e));
      assert(errors.length === 0, `no page errors: ${errors}`);
    }
    log(`the notice showed ${shownAfter} ms after the failed write was asked for and went ${goneAfter} ms after the disk ` +
      'worked again; both games played to their end');
  } finally {
    server.fault('off');
    await server.stop();
  }
}
