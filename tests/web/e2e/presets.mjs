// The riskiest other rules, played to the end by clicking against bots:
// card-asking (specific-card, authors: no stock), empty hands that draw or sit
// out (keep-playing), and answering asks and laying down sets under table rules.
import { assert, createRoom, openPage, playToEnd, waitGame } from '../lib/harness.mjs';

const games = [
  { preset: 'specific-card', others: ['medium'] },
  { preset: 'authors', others: ['easy', 'medium'] },
  { preset: 'keep-playing', others: ['hard'] },
  { preset: 'classic', others: ['easy'], tableRules: true },
];

async function play(browser, baseUrl, game) {
  const t0 = Date.now();
  const p = await openPage(browser, baseUrl);
  await createRoom(p.page, 'Ann', game);
  await p.page.click('#start-game');
  await waitGame(p.page, 1);  // not the table: a bot may play a short game out first (harness.mjs)
  const asks = await playToEnd([p.page], { timeout: 100_000 });
  const winners = await p.page.textContent('#over-winners');
  assert(winners.length > 0, `${game.preset}: winners named`);
  await p.page.waitForFunction(() => /Step 1 of \d+/.test(document.getElementById('replay-pos').textContent))
    .catch(async (error) => {
      const shown = await p.page.textContent('#replay-pos').catch(() => '?');
      throw new Error(`${game.preset}: no step-by-step replay; the page shows "${shown}" (${error.message})`);
    });
  assert(p.errors.length === 0, `${game.preset}: no page errors: ${p.errors}`);
  await p.context.close();
  return `${game.preset}${game.tableRules ? ' (table rules)' : ''}: ${asks} decisions in ${((Date.now() - t0) / 1000).toFixed(1)} s, ${winners}`;
}

// The games run side by side, each in its own browser context and room.
export default async function ({ baseUrl, browser, log }) {
  const results = await Promise.all(games.map((game) => play(browser, baseUrl, game)));
  for (const line of results) log(line);
}
