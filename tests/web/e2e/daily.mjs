// Today's deal in the browser: two people, one after the other in browsers
// of their own, press "Today's deal" on the start page and play the game to
// its end against three computer players. Both games start from the same
// deck (their transcripts), the game-over screen says in words how each game
// compares with the day's (and reads it out), the second counts two games,
// and the start page says how many have played. A screenshot of the
// game-over screen is left in $GOFISH_DAILY_SHOTS (default /tmp/daily-shots).
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assert, online, openPage, playToEnd, waitFor, waitScreen } from '../lib/harness.mjs';

const shotDir = () => {
  const dir = process.env.GOFISH_DAILY_SHOTS ?? join(tmpdir(), 'daily-shots');
  mkdirSync(dir, { recursive: true });
  return dir;
};

const frameOf = (p, type) => p.frames.map((f) => { try { return JSON.parse(f.payload); } catch { return null; } })
  .find((m) => m?.type === type);

async function playDaily(browser, baseUrl, name, log) {
  const p = await openPage(browser, baseUrl);
  await online(p.page);
  await waitScreen(p.page, 'home');
  // The start page's note comes from read_daily.
  await p.page.waitForFunction(() => /played it (yet )?today/.test(document.getElementById('daily-count').textContent));
  const note = await p.page.textContent('#daily-count');
  await p.page.screenshot({ path: join(shotDir(), `daily-home-${name}.png`) });
  // What the screen reader is given, from here on.
  await p.page.evaluate(() => {
    const region = document.getElementById('announcer');
    window.__said = [];
    new MutationObserver(() => window.__said.push(region.textContent)).observe(region, { childList: true, characterData: true, subtree: true });
  });
  await p.page.fill('#name', name);
  await p.page.click('#play-daily');
  await waitScreen(p.page, 'table');
  const asks = await playToEnd([p.page], { timeout: 60_000 });
  const result = await waitFor('daily_result', () => frameOf(p, 'daily_result'), 15_000);
  await p.page.waitForSelector('#daily-result:not([hidden])');
  const shown = await p.page.textContent('#daily-result');
  const transcript = await waitFor('the transcript', () => p.page.evaluate(() => window.gofish.ui.transcript?.transcript ?? null));
  // Read out once the screen shows it: handed to the screen reader's queue
  // (announcer.js), which reads it after the game's last moves.
  const told = () => p.page.evaluate(() => [...window.__said, ...window.gofish.announcer.queue.map((i) => i.text)]
    .some((t) => /^Today's deal: You made/.test(t)));
  await waitFor('the result read out', told, 5_000).catch(async (e) => {
    log(await p.page.evaluate(() => JSON.stringify({ said: window.__said.slice(-5), queue: window.gofish.announcer.queue })));
    throw e;
  });
  log(`${name}: ${asks} asks; "${shown}"`);
  return { p, note, result, shown, transcript };
}

export default async function ({ baseUrl, browser, log }) {
  const ann = await playDaily(browser, baseUrl, 'Ann', log);
  assert(/^Nobody has played it yet today\.$/.test(ann.note), `the first visitor is told nobody played yet: "${ann.note}"`);
  assert(ann.result.players === 1 && ann.result.percentile === 50, `the first game of the day: ${JSON.stringify(ann.result)}`);
  assert(ann.shown === `You made ${ann.result.sets} ${ann.result.sets === 1 ? 'set' : 'sets'}. Yours is the first game of today's deal. ` +
    `The best today: ${ann.result.best} ${ann.result.best === 1 ? 'set' : 'sets'}.`, `Ann's result in words: "${ann.shown}"`);
  const seats = ann.transcript.seats ?? [];
  assert(seats.length === 4, `four seats: the player and three computer players (${seats.length})`);

  const ben = await playDaily(browser, baseUrl, 'Ben', log);
  assert(/^1 person has played it today\.$/.test(ben.note), `the start page counts Ann's game: "${ben.note}"`);
  assert(JSON.stringify(ben.transcript.deck) === JSON.stringify(ann.transcript.deck), 'both games start from the same deck');
  assert(ben.transcript.deck.length === 52, 'a whole deck');
  assert(ben.result.players === 2, `the second result counts two games: ${JSON.stringify(ben.result)}`);
  assert(ben.result.best === Math.max(ann.result.sets, ben.result.sets), `the best of the two: ${JSON.stringify(ben.result)}`);
  assert(ben.shown.includes(`That beats ${ben.result.percentile}% of today's 2 games (a tie counts as half).`), `Ben's result in words: "${ben.shown}"`);

  const dir = shotDir();
  await ben.p.page.screenshot({ path: join(dir, 'daily-over-desktop.png'), fullPage: false });
  await ben.p.page.setViewportSize({ width: 390, height: 844 });
  await ben.p.page.screenshot({ path: join(dir, 'daily-over-phone.png'), fullPage: false });
  log(`screenshots in ${dir}`);
  for (const x of [ann, ben]) assert(x.p.errors.length === 0, `no page errors: ${x.p.errors}`);
}
