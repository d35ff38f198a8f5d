// The page does what the server does: chat in the room's mode (free text,
// phrases as buttons, none), every rule a host may change (each preset's
// values as the server has them; a refusal shown at its field), table rules
// where mistakes really happen and are explained, the turn alert in the tab
// title, and a running score across rematches.
import { assert, clickAsk, createRoom, joinByCode, openPage, playToEnd, recordPage, routeSourceModules, sentOfType, waitFor, waitGame, waitScreen } from '../lib/harness.mjs';
import { checkAxe } from '../lib/axe.mjs';
import { startServer } from '../lib/server.mjs';

export default async function ({ baseUrl, browser, serverPath, webRoot, log }) {
  // ---- Chat in each mode.
  const ann = await openPage(browser, baseUrl);
  const bob = await openPage(browser, baseUrl);
  const code = await createRoom(ann.page, 'Ann', { others: ['person'], chat: 'free' });
  await joinByCode(bob.page, 'Bob', code);
  await waitScreen(bob.page, 'waiting');
  await ann.page.fill('#chat-text', 'hello Bob');
  await ann.page.click('#chat-form button');
  await bob.page.waitForFunction(() => /Ann: hello Bob/.test(document.getElementById('chat-log').textContent));
  await bob.page.click('#say-toggle');
  await bob.page.click('#chat-phrases [data-phrase="good_luck"]');
  await ann.page.waitForFunction(() => /Bob: Good luck!/.test(document.getElementById('chat-log').textContent));
  // Read out once what was said before it has had time to be spoken (announcer.js).
  await ann.page.waitForFunction(() => /Bob says: Good luck!/.test(document.getElementById('announcer').textContent));
  await checkAxe(ann.page, 'waiting room with chat');

  const cleo = await openPage(browser, baseUrl);
  await createRoom(cleo.page, 'Cleo', { others: ['easy'], chat: 'phrases' });
  assert(await cleo.page.isHidden('#chat-form') && await cleo.page.isVisible('#say-toggle'), 'phrases only: buttons, no typing');
  await cleo.page.click('#say-toggle');
  await cleo.page.click('#chat-phrases [data-phrase="have_fun"]');
  await cleo.page.waitForFunction(() => /Cleo: Have fun!/.test(document.getElementById('chat-log').textContent));
  const dan = await openPage(browser, baseUrl);
  await createRoom(dan.page, 'Dan', { others: ['easy'], chat: 'off', pace: 'relaxed' });
  assert(await dan.page.isHidden('#chat'), 'chat off: no chat at all');
  const pace = await dan.page.evaluate(() => window.gofish.state.room?.settings?.bot_pace);
  assert(pace === 'relaxed', `the bot pace chosen reaches the room (it says ${pace})`);
  for (const p of [bob, cleo, dan]) await p.context.close();

  // ---- Advanced: the page's values of every preset are the server's.
  const eve = await openPage(browser, baseUrl);
  await eve.page.waitForSelector('#conn.online');
  await routeSourceModules(eve.page);
  const presets = await eve.page.evaluate(async () => (await import('/src/advanced.js')).PRESET_RULES);
  for (const [preset, rules] of Object.entries(presets)) {
    const seats = preset === 'authors' ? 3 : 2;
    const room = await eve.page.evaluate(async ({ preset: p, seats: n }) => {
      const reply = await window.gofish.conn.request({ type: 'create_room', name: 'Probe', seats: n, rules: { preset: p } });
      if (reply.type === 'error') return reply;
      const snapshot = await new Promise((resolve) => {
        const ws = window.gofish.conn.ws;
        ws.addEventListener('message', function once(e) {
          const m = JSON.parse(e.data);
          if (m.type === 'room') { ws.removeEventListener('message', once); resolve(m); }
        });
      });
      await window.gofish.conn.request({ type: 'leave' });
      return snapshot;
    }, { preset, seats });
    assert(room.type === 'room', `${preset}: a room (${JSON.stringify(room)})`);
    const server = room.settings.rules;
    for (const [field, value] of Object.entries(rules)) {
      assert(server[field] === value, `${preset}.${field}: the page says ${value}, the server ${server[field]}`);
    }
  }
  await eve.page.reload();
  // A changed field reaches the room; a refused one is explained at the field.
  await eve.page.waitForSelector('#conn.online');
  await eve.page.fill('#name', 'Eve');
  await eve.page.click('#go-create');
  await eve.page.click('#advanced summary');
  await eve.page.selectOption('#rule-give', 'named');
  await eve.page.click('#create-button');
  await eve.page.waitForFunction(() => document.getElementById('rule-give-error').textContent.length > 0);
  const why = await eve.page.textContent('#rule-give-error');
  assert(/specific card|rank/i.test(why), `the server's reason is shown at the field: "${why}"`);
  assert(await eve.page.evaluate(() => document.activeElement.id === 'rule-give'), 'focus goes to the field at fault');
  await checkAxe(eve.page, 'create, advanced, with a refusal');
  await eve.page.selectOption('#rule-give', 'all');
  await eve.page.fill('#rule-cards_dealt', '6');
  await eve.page.selectOption('#seat-count', '3');
  await eve.page.click('#create-button');
  await waitScreen(eve.page, 'waiting');
  assert(await eve.page.evaluate(() => window.gofish.state.rules.cards_dealt === 6), 'the changed rule is the room\'s');
  await eve.page.click('#screen-waiting .rules-button');
  assert(/six cards/.test(await eve.page.textContent('#rules-list')), 'the rules say so in words');
  await checkAxe(eve.page, 'rules dialog');
  await eve.page.keyboard.press('Escape');
  await eve.context.close();

  // ---- Table rules: both answers and any ask are offered; mistakes cost penalties, explained.
  // On a server of its own whose bots take a moment: an ask out of turn is
  // offered while two bots play each other (not while Tia is asked: she
  // answers first), and bots that play at once leave no such moment.
  const slow = await startServer(serverPath, webRoot, { botDelayMs: 400 });
  try {
    await tableRules(browser, slow.baseUrl, log);
  } finally {
    await slow.stop();
  }

  // ---- A running score across rematches.
  const uma = await openPage(browser, baseUrl);
  await recordPage(uma.page);
  // Screen reader verbosity: "only my turn".
  await uma.page.waitForSelector('#conn.online');
  await uma.page.click('#settings-button');
  await uma.page.check('input[name=verbosity][value=turn]');
  await uma.page.click('#settings-dialog button[type=submit]');
  await createRoom(uma.page, 'Uma', { preset: 'pairs', others: ['easy'] });
  await uma.page.click('#start-game');
  await waitGame(uma.page, 1);
  const t0 = Date.now();
  await playToEnd([uma.page]);
  const wins = () => uma.page.$$eval('#scores tbody tr', (rows) => rows.map((r) => Number(r.lastElementChild.textContent)));
  const first = await wins();
  await uma.page.waitForFunction(() => window.gofish.announcer.idle);
  const heard = (await uma.page.evaluate(() => window.__rec.announce)).map((a) => a.text.trim()).filter(Boolean);
  // Uma created the room, so she sits in seat 0; the bot's asks must go unspoken. (Counting
  // announcements against all asks was flaky: in a short game the bot may hardly ask at all.)
  const asks = uma.frames.filter((f) => /"type":"asked"/.test(f.payload));
  const botAsks = asks.filter((f) => !/"type":"asked","seat":0,/.test(f.payload)).length;
  const others = heard.filter((t) => !/^You asked|your turn|begins|game is over/.test(t));
  // The bot can end a short game of pairs before Uma's first turn (see waitGame): then only
  // its start and end are spoken, and there was no turn of hers to speak of.
  assert((heard.length > 2 || asks.length === botAsks) && others.length === 0,
    `"only my turn" speaks of your turns only (${heard.length} announcements for ${asks.length} asks, ` +
    `${botAsks} by the bot; others: ${others.slice(0, 3)})`);
  log(`"only my turn": ${heard.length} announcements for ${asks.length} asks, none of the bot's ${botAsks}`);
  await uma.page.click('#rematch');
  // Not waitScreen(table): the bot may have played game 2 out before the page's next frame, and
  // then the page shows its end without ever showing the table (the one failure seen in CI).
  await waitGame(uma.page, 2).catch(async (error) => {
    // Say what the page and the socket were doing.
    const button = await uma.page.evaluate(() => {
      const b = document.getElementById('rematch');
      return `${b.textContent} (aria-disabled ${b.getAttribute('aria-disabled')}); ` +
        `status "${document.getElementById('rematch-status').textContent}"; ` +
        `error "${document.getElementById('over-error').textContent}"; screen ${document.body.dataset.screen}; ` +
        `game ${window.gofish.state.room?.game_number} ${window.gofish.state.room?.state}`;
    });
    const types = uma.frames.slice(-6).map((f) => f.payload.slice(0, 90));
    throw new Error(`game 2 not shown after "Play again": ${button}; rematch requests sent: ` +
      `${sentOfType(uma, 'rematch').length}; last frames: ${types.join(' | ')}; ${error.message}`);
  });
  await playToEnd([uma.page]);
  const second = await wins();
  const sum = (a) => a.reduce((x, y) => x + y, 0);
  assert(sum(first) >= 1 && sum(second) > sum(first), `games won add up across rematches: ${first} then ${second}`);
  log(`games won after two games of pairs: ${second} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  assert(ann.errors.length === 0 && uma.errors.length === 0, `no page errors: ${[...ann.errors, ...uma.errors]}`);
}

async function tableRules(browser, baseUrl, log) {
  const tia = await openPage(browser, baseUrl);

  await createRoom(tia.page, 'Tia', { others: ['easy', 'easy'], tableRules: true });
  await tia.page.click('#start-game');
  await waitGame(tia.page, 1);
  let outOfTurn = false;
  let falseFish = false;
  let answerFirst = false;
  let titleSeen = false;
  let games = 1;
  await waitFor('an ask out of turn, a false "Go fish!" and a card picked while asked', async () => {
    const screen = await tia.page.evaluate(() => document.body.dataset.screen);
    if (screen === 'over') {
      await tia.page.click('#rematch');
      games += 1;
      await waitGame(tia.page, games);  // the table, or this game already over (see waitGame)
      return false;
    }
    const s = await tia.page.evaluate(() => {
      const o = window.gofish.choices();
      const g = window.gofish.state.room.game;
      return { busy: window.gofish.pacer.busy, out: !!o?.ask?.outOfTurn, answers: o?.answers ?? [], pending: o?.pending,
        hand: g.hand, title: document.title };
    });
    if (s.busy) return false;
    if (/Your turn/.test(s.title)) titleSeen = true;
    // Asked, a player answers first: a card picked then (a tap on the hand,
    // or a test's click a moment late) must not hide the answer the table
    // waits for (a page once swapped it for an ask out of turn's prompt, and
    // a table-rules game stalled there).
    if (!answerFirst && s.answers.length === 2 && s.pending) {
      await tia.page.click('#hand .rank-group', { force: true });
      const prompt = await tia.page.textContent('#prompt');
      const offered = await tia.page.isVisible('#actions [data-answer="give"]');
      assert(offered && /asked you for/.test(prompt),
        `a card picked while asked leaves the answer on screen (prompt: "${prompt}", answer buttons: ${offered})`);
      answerFirst = true;
      return outOfTurn && falseFish;
    }
    if (!falseFish && s.answers.length === 2 && s.pending && s.hand.some((c) => c.slice(0, -1) === s.pending.rank)) {
      await tia.page.click('#actions [data-answer="go_fish"]');
      await tia.page.waitForFunction(() => /Penalty: you said "Go fish!" but had/.test(document.getElementById('story').textContent));
      falseFish = true;
      return outOfTurn && answerFirst;
    }
    if (!outOfTurn && s.out) {
      // The bots play on meanwhile: when Tia is asked (she answers first) or
      // her turn comes, the ask out of turn is gone, and the next look tries
      // again. Anything else that goes wrong fails the test.
      const stillOffered = () => tia.page.evaluate(() => !!window.gofish.choices()?.ask?.outOfTurn);
      const quick = { timeout: 2000 };
      if (!(await tia.page.click('#hand .rank-group[aria-disabled="false"]', quick).then(() => true, () => false))) return false;
      const prompt = await tia.page.textContent('#prompt');
      if (!/not your turn/.test(prompt) && !(await stillOffered())) return false;
      assert(/not your turn/.test(prompt), `the prompt warns before an ask out of turn: "${prompt}"`);
      const ask = await tia.page.$('#actions [data-target]');
      if (!ask) return false;
      // Two stray taps (a card, then "Ask …") cost nothing: the ask out of
      // turn is a deliberate third step that says what it will cost, and a
      // tap where "Ask …" was does not take it.
      const asksBefore = sentOfType(tia, 'ask').length;
      const box = await ask.boundingBox();
      if (!box || !(await ask.click(quick).then(() => true, () => false))) return false;
      await tia.page.waitForSelector('#confirm-dialog[open]');
      assert(sentOfType(tia, 'ask').length === asksBefore, 'a card and "Ask …" out of turn send nothing yet');
      const cost = await tia.page.textContent('#confirm-text');
      assert(/can never score/.test(cost), `the confirmation says what it costs: ${cost}`);
      assert(await tia.page.evaluate(() => document.activeElement.id === 'confirm-no'), 'not asking is the default');
      const under = await tia.page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.id ?? null,
        { x: box.x + box.width / 2, y: box.y + box.height / 2 });
      assert(under !== 'confirm-yes', 'the button that asks out of turn is not where "Ask …" was');
      await tia.page.click('#confirm-yes');
      // Confirmed after the moment passed, the page sends nothing.
      const penalised = await tia.page.waitForFunction(
        () => /Penalty: you asked when it was not your turn/.test(document.getElementById('story').textContent), null,
        { timeout: 5000 }).then(() => true, () => false);
      if (!penalised && sentOfType(tia, 'ask').length === asksBefore) return false;
      assert(penalised, 'an ask out of turn is penalised and explained');
      outOfTurn = true;
      return falseFish && answerFirst;
    }
    await clickAsk(tia.page).catch(() => false);
    return false;
  }, 150_000).catch((error) => {
    throw new Error(`${error.message} (seen: out of turn ${outOfTurn}, false "Go fish!" ${falseFish}, ` +
      `picked while asked ${answerFirst}; ${games} game(s))`);
  });
  assert(titleSeen, 'the tab title says when it is your turn');
  await tia.page.waitForFunction(() => !/Your turn/.test(document.title) || !!window.gofish.choices()?.ask);
  log(`table rules: an ask out of turn and a false "Go fish!" were penalised and explained, and a card picked while asked left the answer on screen (${games} game(s))`);

  await tia.context.close();
}
