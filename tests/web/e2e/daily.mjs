// Today's deal in the browser: two people, one after the other in browsers
// of their own, press "Today's deal" on the start page and play the game to
// its end against three computer players. Both games start from the same
// deck (the same commitment, the same hand, dealer and first player), the
// game-over screen says in words how each game compares with the day's (and
// reads it out) and, where the replay goes, that the game's record is held
// until today's deal closes (the server refuses it: room/transcript_held),
// without asking for it again; the second counts two games,
// and the start page says how many have played. A screenshot of the
// game-over screen is left in $GOFISH_DAILY_SHOTS (default /tmp/daily-shots).
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assert, online, openPage, playToEnd, sentOfType, waitFor, waitScreen } from '../lib/harness.mjs';

const shotDir = () => {
  const dir = process.env.GOFISH_DAILY_SHOTS ?? join(tmpdir(), 'daily-shots');
  mkdirSync(dir, { recursive: true });
  return dir;
};

const framesOf = (p) => p.frames.map((f) => { try { return JSON.parse(f.payload); } catch { return null; } });
const frameOf = (p, type) => framesOf(p).find((m) => m?.type === type);

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
  // The record is held today: the replay's place says so in the server's
  // words, the download stays off, and the page does not ask again.
  const held = await waitFor('the held record', () => p.page.evaluate(() => window.gofish.ui.transcriptHeld?.message ?? null));
  await p.page.waitForFunction((m) => document.getElementById('replay-pos').textContent === m, held, { timeout: 5_000 });
  assert(await p.page.isDisabled('#download'), 'no record to download while it is held');
  assert(!framesOf(p).some((m) => m?.type === 'transcript'), 'no transcript during the day');
  const messages = framesOf(p);
  const commitment = messages.find((m) => m?.type === 'room' && m.next_deal)?.next_deal?.commitment;
  const deal = messages.find((m) => m?.type === 'event' && m.event?.type === 'deal')?.event;
  const hand = messages.find((m) => m?.type === 'event' && m.event?.type === 'hand_dealt' && m.event.seat === 0 && m.event.cards)?.event.cards;
  const seats = (await p.page.evaluate(() => window.gofish.state.players)) ?? [];
  // Read out once the screen shows it: handed to the screen reader's queue
  // (announcer.js), which reads it after the game's last moves.
  const told = () => p.page.evaluate(() => [...window.__said, ...window.gofish.announcer.queue.map((i) => i.text)]
    .some((t) => /^Today's deal: You made/.test(t)));
  await waitFor('the result read out', told, 5_000).catch(async (e) => {
    log(await p.page.evaluate(() => JSON.stringify({ said: window.__said.slice(-5), queue: window.gofish.announcer.queue })));
    throw e;
  });
  const asked = sentOfType(p, 'transcript').length;
  // At game over, and perhaps once more for a room snapshot that came
  // before the refusal: not again and again.
  assert(asked >= 1 && asked <= 2, `the held record is asked for once, not again and again: ${asked}`);
  log(`${name}: ${asks} asks; "${shown}"; "${held}"`);
  return { p, note, result, shown, held, commitment, deal, hand, seats };
}

export default async function ({ baseUrl, browser, log }) {
  const ann = await playDaily(browser, baseUrl, 'Ann', log);
  assert(/^Nobody has played it yet today\.$/.test(ann.note), `the first visitor is told nobody played yet: "${ann.note}"`);
  assert(ann.result.players === 1 && ann.result.percentile === 50, `the first game of the day: ${JSON.stringify(ann.result)}`);
  assert(ann.shown === `You made ${ann.result.sets} ${ann.result.sets === 1 ? 'set' : 'sets'}. Yours is the first game of today's deal. ` +
    `The best today: ${ann.result.best} ${ann.result.best === 1 ? 'set' : 'sets'}.`, `Ann's result in words: "${ann.shown}"`);
  assert(ann.seats.length === 4, `four seats: the player and three computer players (${ann.seats.length})`);
  assert(/after today's deal closes at 00:00 UTC\.$/.test(ann.held), `the held record says until when: "${ann.held}"`);

  const ben = await playDaily(browser, baseUrl, 'Ben', log);
  assert(/^1 person has played it today\.$/.test(ben.note), `the start page counts Ann's game: "${ben.note}"`);
  assert(ann.commitment && ben.commitment === ann.commitment, `both games are dealt from the day's seed: ${ann.commitment} ${ben.commitment}`);
  assert(ann.hand?.length === 5 && JSON.stringify(ben.hand) === JSON.stringify(ann.hand), `both are dealt the same hand: ${ann.hand} ${ben.hand}`);
  assert(ben.deal && ben.deal.dealer === ann.deal.dealer && ben.deal.first === ann.deal.first, 'the same dealer and first player');
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
