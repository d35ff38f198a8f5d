// A listed room shows in the lobby of another browser by itself (the list
// keeps itself up to date), which joins it with one click; a private room
// does not show.
import { assert, createRoom, online, openPage, waitScreen } from '../lib/harness.mjs';

export default async function ({ baseUrl, browser }) {
  const bob = await openPage(browser, baseUrl);
  await online(bob.page);
  await waitScreen(bob.page, 'home');
  await bob.page.fill('#name', 'Bob');
  const ann = await openPage(browser, baseUrl);
  const listed = await createRoom(ann.page, 'Ann', { preset: 'pairs', others: ['person'], listed: true });
  const pia = await openPage(browser, baseUrl);
  const hidden = await createRoom(pia.page, 'Pia', { others: ['person'] });

  // Bob's page was open before the rooms existed: it shows the listed one by itself.
  await bob.page.waitForSelector(`[data-join="${listed}"]`, { timeout: 12_000 });
  const row = await bob.page.textContent('#lobby-list');
  assert(/Ann's room · Pairs · 1 of 2 seats taken/.test(row), `lobby row: ${row}`);
  assert(!row.includes(hidden), 'a private room is not listed');
  await bob.page.click(`[data-join="${listed}"]`);
  await waitScreen(bob.page, 'waiting');
  assert((await bob.page.textContent('#waiting-code')) === listed, 'joined the listed room');
  assert(/Pairs/.test(await bob.page.textContent('#waiting-preset')), 'the preset is named');
}
