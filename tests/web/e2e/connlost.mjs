// A lost connection is unmistakable where the player is looking, and the hand
// is out of play until it is back: the table's prompt says so (not "Your
// turn! Pick a card") within 5 s, and no card can be picked. Both ways a
// connection is lost: one that goes silent (a frozen relay: nothing closes)
// and one that is dropped (every socket cut). Play goes on once it is back.
import { assert, ENABLED_RANK, myTurn, online, openPage, waitFor, waitScreen } from '../lib/harness.mjs';
import { relay } from '../lib/relay.mjs';

// What the player sees at the table: the prompt, and whether any card can be picked.
const table = (page) => page.evaluate((enabled) => ({
  prompt: document.getElementById('prompt').textContent,
  lost: document.getElementById('me').classList.contains('lost'),
  cards: document.querySelectorAll(enabled).length,
  dimmed: getComputedStyle(document.getElementById('hand')).opacity,
}), ENABLED_RANK);

async function expectLost(page, how) {
  const t0 = Date.now();
  await waitFor(`the table to say the connection is lost (${how})`, async () => {
    const t = await table(page);
    return t.lost && /connection/i.test(t.prompt) && t.cards === 0;
  }, 5000);
  const shown = Date.now() - t0;
  const t = await table(page);
  assert(!/Your turn/.test(t.prompt), `the prompt no longer offers a turn: "${t.prompt}"`);
  const name = await page.textContent('#me-name');
  assert(!/your turn/.test(name), `the player's name no longer says it is their turn: "${name}"`);
  assert(Number(t.dimmed) < 1, `the hand looks out of play (opacity ${t.dimmed})`);
  // A tap on a card does nothing while the connection is lost.
  await page.click('#hand .rank-group', { force: true }).catch(() => {});
  assert(await page.evaluate(() => window.gofish.ui.selected === null), 'a card cannot be picked while the connection is lost');
  return shown;
}

export default async function ({ baseUrl, browser, log }) {
  const tunnel = await relay(Number(new URL(baseUrl).port));
  try {
    const kay = await openPage(browser, tunnel.url);
    await online(kay.page);
    await kay.page.click('#play-computer');
    await waitScreen(kay.page, 'table');
    await waitFor('Kay\'s turn', () => myTurn(kay.page), 30_000);
    assert(/Your turn/.test((await table(kay.page)).prompt), 'the prompt offers the turn while connected');

    // Silent: nothing closes, nothing arrives.
    tunnel.freeze();
    const frozen = await expectLost(kay.page, 'silent');
    tunnel.thaw();
    await online(kay.page);
    await waitFor('the hand back in play', async () => (await table(kay.page)).cards > 0 && !(await table(kay.page)).lost, 15_000);

    // Dropped: every socket cut, and the server out of reach until it is
    // back (the page keeps trying by itself).
    tunnel.freeze();
    tunnel.drop();
    const dropped = await expectLost(kay.page, 'dropped');
    tunnel.thaw();
    await online(kay.page);
    await waitFor('the hand back in play', async () => (await table(kay.page)).cards > 0 && !(await table(kay.page)).lost, 15_000);
    log(`connection lost shown at the table after ${frozen} ms (silent) and ${dropped} ms (dropped); the hand came back both times`);
    assert(kay.errors.length === 0, `no page errors: ${kay.errors}`);
  } finally {
    tunnel.close();
  }
}
