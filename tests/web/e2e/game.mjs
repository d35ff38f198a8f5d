// Two people in two browsers and a bot play a whole game by clicking, see the
// game-over screen (scores, winners, replay, transcript download), then both
// ask for a rematch and the next game starts.
import { readFileSync } from 'node:fs';
import { assert, playToEnd, sentOfType, twoAtTable, waitScreen } from '../lib/harness.mjs';

export default async function ({ baseUrl, browser, log }) {
  const { host: ann, guest: bob } = await twoAtTable(browser, baseUrl);

  // The rules are one click away.
  await ann.page.click('#screen-table .rules-button');
  await ann.page.waitForSelector('#rules-dialog[open]');
  const ruleLines = await ann.page.$$eval('#rules-list li', (li) => li.length);
  assert(ruleLines >= 5, `rules dialog lists the rules (${ruleLines} lines)`);
  await ann.page.keyboard.press('Escape');
  await ann.page.waitForSelector('#rules-dialog:not([open])', { state: 'attached' });

  const asks = await playToEnd([ann.page, bob.page]);
  log(`game over after ${asks} asks by the two people`);

  for (const p of [ann.page, bob.page]) {
    const rows = await p.$$eval('#scores tbody tr', (r) => r.length);
    assert(rows === 3, `score table has three rows (${rows})`);
    const winners = await p.textContent('#over-winners');
    assert(/wins|win!|tie/i.test(winners), `winners are named: "${winners}"`);
    // Every end is explained: why this game ended, in words.
    const reason = await p.textContent('#over-reason');
    assert(/, so the game is over\.$/.test(reason), `the end is explained: "${reason}"`);
    // The full game, step by step, every hand revealed.
    await p.waitForFunction(() => /Step 1 of \d+/.test(document.getElementById('replay-pos').textContent));
    const first = await p.textContent('#replay-text');
    await p.click('#replay-next');
    const second = await p.textContent('#replay-text');
    assert(first !== second, 'the replay steps forward');
    const shown = await p.$$eval('#replay-hands .card.face', (c) => c.length);
    assert(shown >= 10, `the replay shows every hand (${shown} cards)`);
    await p.click('#replay-last');
    assert(/the game is over/.test(await p.textContent('#replay-text')), 'the replay ends with the game over');
  }
  assert((await ann.page.textContent('#latest')) !== '', 'narration is shown');

  // The transcript downloads as a file.
  const [download] = await Promise.all([ann.page.waitForEvent('download'), ann.page.click('#download')]);
  assert(/^gofish-[A-Z0-9]{5}-game1\.json$/.test(download.suggestedFilename()), `file name ${download.suggestedFilename()}`);
  const transcript = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert(transcript.format === 'gofish-transcript/1' && transcript.deck.length === 52, 'the download is a transcript');

  // Rematch: both ask, the next game starts.
  await ann.page.click('#rematch');
  await ann.page.waitForFunction(() => /Waiting for the others/.test(document.getElementById('rematch').textContent));
  // Coming back in a fresh tab (nothing kept but the seat's token) still
  // shows the ask: the snapshot's seats say who has asked.
  await ann.page.evaluate(() => sessionStorage.clear());
  await ann.page.reload();
  await waitScreen(ann.page, 'over');
  await ann.page.waitForFunction(() => /Waiting for the others/.test(document.getElementById('rematch').textContent));
  await bob.page.click('#rematch');
  await Promise.all([waitScreen(ann.page, 'table'), waitScreen(bob.page, 'table')]);
  await ann.page.waitForFunction(() => /game 2/.test(document.getElementById('table-title').textContent));
  assert(ann.errors.length === 0 && bob.errors.length === 0, `no page errors: ${[...ann.errors, ...bob.errors]}`);
  // Each decision ends with a `turn` that tells the next player what it may do: no page resumes while connected.
  // Ann's one resume is her reload's.
  for (const [p, resumes] of [[ann, 1], [bob, 0]]) {
    assert(sentOfType(p, 'resume').length === resumes, `${resumes} resume(s) sent (${sentOfType(p, 'resume').length})`);
  }
}
