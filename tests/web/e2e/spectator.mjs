// A spectator, joined by code, sees the table with every seat's card backs
// and no hand: not a single face-up card until the game is over. One who
// comes in mid-game is told whose turn it is.
import { assert, createRoom, joinByCode, myTurn, openPage, playToEnd, waitFor, waitScreen } from '../lib/harness.mjs';
import { checkAxe } from '../lib/axe.mjs';

export default async function ({ baseUrl, browser }) {
  const ann = await openPage(browser, baseUrl);
  const zoe = await openPage(browser, baseUrl);
  const code = await createRoom(ann.page, 'Ann', { others: ['medium'] });
  await joinByCode(zoe.page, 'Zoe', code, 'spectator');
  await waitScreen(zoe.page, 'waiting');
  await ann.page.click('#start-game');
  await Promise.all([waitScreen(ann.page, 'table'), waitScreen(zoe.page, 'table')]);

  const look = () => zoe.page.evaluate(() => ({
    faces: document.querySelectorAll('#screen-table .card.face').length,
    hand: document.querySelectorAll('#hand .rank-group').length,
    opponents: document.querySelectorAll('#seats .seat').length,
    // Per seat: the card backs drawn and the hand size written beside them.
    seats: [...document.querySelectorAll('#seats .seat')].map((seat) => ({
      backs: seat.querySelectorAll('.card.back').length,
      count: parseInt(seat.querySelector('.fan .count')?.textContent ?? '', 10),
    })),
    me: document.getElementById('me-name').textContent,
    over: document.body.dataset.screen === 'over',
  }));
  const first = await look();
  assert(first.me === 'You are watching', `spectator label: ${first.me}`);
  // The medium bot may already have played when the page is first read, so the
  // backs are checked against each seat's hand size rather than the deal's 7.
  const backsMatch = (seat) => seat.count > 0 && seat.backs === Math.min(seat.count, 12);
  assert(first.opponents === 2 && first.seats.every(backsMatch),
    `both seats shown with card backs for their hand sizes (${JSON.stringify(first.seats)})`);
  await checkAxe(zoe.page, 'table, watching');

  // A second spectator comes in while the game waits for Ann: nothing has
  // happened since, yet the middle of the table says where the game stands.
  await waitFor("Ann's turn", () => myTurn(ann.page));
  const yan = await openPage(browser, baseUrl);
  await joinByCode(yan.page, 'Yan', code, 'spectator');
  await waitScreen(yan.page, 'table');
  const middle = await yan.page.textContent('#latest');
  assert(middle === "Game 1 is under way: it's Ann's turn.", `the late spectator's middle says whose turn it is: "${middle}"`);
  await yan.context.close();
  let samples = 0;
  await playToEnd([ann.page], {
    onStep: async () => {
      const now = await look();
      if (now.over) return;
      samples += 1;
      assert(now.faces === 0 && now.hand === 0, `spectator sees no card faces (${now.faces}) and no hand (${now.hand})`);
    },
  });
  assert(samples > 0, 'sampled the spectator during the game');
  await waitScreen(zoe.page, 'over');
  assert(await zoe.page.isHidden('#rematch'), 'a spectator has no rematch button');
}
