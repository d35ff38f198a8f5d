// No page sees a card of another player's hand before the game is over: not
// in any WebSocket frame it receives, not in its DOM. Two players and a
// spectator watch a whole game; their frames and DOM samples are checked
// against the transcript. The check is then shown to catch planted leaks.
import { assert, createRoom, joinByCode, openPage, playToEnd, waitScreen } from '../lib/harness.mjs';
import { canonicalEvents, checkPage, knownCards, sampleDom, transcriptFrom } from '../lib/leaks.mjs';

export default async function ({ baseUrl, browser, log }) {
  const ann = await openPage(browser, baseUrl);
  const bob = await openPage(browser, baseUrl);
  const zoe = await openPage(browser, baseUrl);
  const code = await createRoom(ann.page, 'Ann', { others: ['person', 'hard'] });
  await joinByCode(bob.page, 'Bob', code);
  await joinByCode(zoe.page, 'Zoe', code, 'spectator');
  await Promise.all([waitScreen(bob.page, 'waiting'), waitScreen(zoe.page, 'waiting')]);
  await ann.page.click('#start-game');
  await Promise.all([ann, bob, zoe].map((p) => waitScreen(p.page, 'table')));

  const pages = [ann, bob, zoe];
  for (const p of pages) p.samples = [];
  const sampleAll = async () => {
    for (const p of pages) p.samples.push(await sampleDom(p.page));
  };
  await sampleAll();
  await playToEnd([ann.page, bob.page], { onStep: sampleAll });
  await waitScreen(zoe.page, 'over');

  // The transcript each player's page fetched after the game.
  await ann.page.waitForFunction(() => !!window.gofish.ui.transcript);
  const transcript = transcriptFrom(ann.frames, 1);
  assert(transcript, 'the transcript arrived after the game');
  const events = canonicalEvents(pages.map((p) => p.frames), 1);
  const known = knownCards(transcript, events);
  const seats = { ann: 0, bob: 1, zoe: -1 };
  let total = 0;
  for (const [name, p] of Object.entries({ ann, bob, zoe })) {
    const leaks = checkPage({ frames: p.frames, samples: p.samples, viewer: seats[name], known, end: events.end });
    assert(leaks.length === 0, `${name} saw hidden cards:\n${leaks.slice(0, 10).join('\n')}`);
    total += p.frames.length;
  }
  log(`${total} frames and ${pages.reduce((n, p) => n + p.samples.length, 0)} DOM samples checked`);
  assert(ann.samples.some((s) => s.cards.length > 0), 'the DOM samples do see cards (own hand)');
  assert(zoe.samples.every((s) => s.v >= events.end || s.cards.every((c) => known(-1, s.v).has(c))), 'spectator saw only public cards');

  // The check can fail: plant leaks and see each one caught.
  // Right after the deal (the first ask), Bob knows his hand and Ann none of it.
  const vEarly = [...events.byV].find(([v, e]) => v > events.start && e.type === 'asked')[0];
  const bobCard = [...known(1, vEarly)].find((c) => !known(0, vEarly).has(c));
  assert(bobCard, 'found a card only Bob knew');
  const planted = [
    { payload: JSON.stringify({ type: 'event', v: vEarly, event: { type: 'drew', seat: 1, cause: 'fish', card: bobCard } }) },
    { payload: JSON.stringify({ type: 'event', v: vEarly, event: { type: 'hand_dealt', seat: 1, count: 1, cards: [bobCard] } }) },
    { payload: JSON.stringify({ type: 'room', v: vEarly, game: { hand: [bobCard] } }) },
  ];
  for (const frame of planted) {
    const leaks = checkPage({ frames: [frame], viewer: 0, known, end: events.end });
    assert(leaks.length === 1, `planted frame ${frame.payload} is caught (${leaks.length})`);
  }
  const dom = checkPage({ frames: [], samples: [{ v: vEarly, over: false, cards: [bobCard] }], viewer: 0, known, end: events.end });
  assert(dom.length === 1, 'a planted card in the DOM is caught');
  // ...and it is no leak to the card's owner.
  assert(checkPage({ frames: planted, viewer: 1, known, end: events.end }).length === 0, 'the owner may see its own card');
}
