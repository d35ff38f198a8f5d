// The deal anyone can check (docs/FAIRNESS.md), in the browser: Ann plays a
// short game against a fast bot. Her page contributes to the deal by itself
// before the host's start, no frame it receives before the game is over
// carries a seed, and the over screen checks the deal (the seed against the
// commitment, the deck rebuilt, the game replayed by the WebAssembly engine)
// and says "This deal was fair: checked." The page's checker refuses the same
// transcript with two cards swapped, or with a seed that does not match the
// commitment, in the sentence that says so. A screenshot of the over screen
// is left in $GOFISH_FAIRNESS_SHOTS (default /tmp/fairness-shots).
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assert, createRoom, openPage, playToEnd, sentOfType, waitFor, waitGame } from '../lib/harness.mjs';

export default async function ({ baseUrl, browser, log }) {
  const p = await openPage(browser, baseUrl);
  await createRoom(p.page, 'Ann', { preset: 'classic', others: ['easy'], pace: 'quick' });
  await waitFor('the contribution', () => sentOfType(p, 'contribute').length === 1, 5_000);
  await p.page.click('#start-game');
  await waitGame(p.page, 1);
  await playToEnd([p.page], { timeout: 60_000 });
  await p.page.waitForFunction(() => document.getElementById('fairness-check')?.dataset.fair === 'yes', null, { timeout: 20_000 })
    .catch(async (error) => {
      const shown = await p.page.textContent('#fairness-check').catch(() => '?');
      throw new Error(`the over screen does not say the deal was fair: "${shown}" (${error.message})`);
    });
  const said = await p.page.textContent('#fairness-check');
  assert(said === 'This deal was fair: checked.', `the over screen's sentence: "${said}"`);

  // Nothing before the game's end revealed the seed.
  const messages = p.frames.map((f) => { try { return JSON.parse(f.payload); } catch { return null; } });
  const over = messages.findIndex((m) => m?.type === 'event' && m.event?.type === 'game_over');
  assert(over > 0, 'the game over event was received');
  assert(!JSON.stringify(messages.slice(0, over + 1)).includes('"seed"'), 'no seed before the game was over');
  const transcript = await p.page.evaluate(() => window.gofish.ui.transcript.transcript);
  const contribution = JSON.parse(sentOfType(p, 'contribute')[0].payload).value;
  assert(transcript.fairness.contributions[0] === contribution, 'the page\'s contribution is in the deal');

  // The page's checker on a tampered record.
  const swapped = await p.page.evaluate((t) => {
    const deck = [...t.deck];
    [deck[50], deck[51]] = [deck[51], deck[50]];
    return window.gofish.checkDeal({ ...t, deck });
  }, transcript);
  assert(!swapped.fair && swapped.sentence.startsWith('The deck is not the one the seed and the contributions give: card 51 is '),
    `a swapped card: ${JSON.stringify(swapped)}`);
  const wrongSeed = await p.page.evaluate((t) => window.gofish.checkDeal({ ...t, fairness: { ...t.fairness, seed: '00'.repeat(32) } }), transcript);
  assert(!wrongSeed.fair && wrongSeed.sentence === 'The seed does not match the commitment: this is not the seed the server committed to before the deal.',
    `a wrong seed: ${JSON.stringify(wrongSeed)}`);

  const dir = process.env.GOFISH_FAIRNESS_SHOTS ?? join(tmpdir(), 'fairness-shots');
  mkdirSync(dir, { recursive: true });
  await p.page.screenshot({ path: join(dir, 'fairness-over.png'), fullPage: true });
  assert(p.errors.length === 0, `no page errors: ${p.errors}`);
  log(`"${said}"; swapped: "${swapped.sentence}"; wrong seed refused`);
  await p.context.close();
}
