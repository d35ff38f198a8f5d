// What a screen reader hears at the default setting keeps up with the game:
// a classic game against two medium computer players at the page's own pace
// and the server's default bot delay, with every change of the live region
// recorded (harness recordPage). Measured:
//  - no announcement is replaced before it could be spoken at 15 characters
//    a second (its length / 15 s);
//  - at most 15 characters a second, from the first announcement to the end
//    of the last one;
//  - the game's end is heard within 30 s of the game-over screen (the
//    announcements do not fall ever further behind the game: today's page,
//    had it queued every sentence, would be minutes behind);
//  - the player's own moves and each "Now it's your turn." are heard in full
//    (the player asks once the page has said everything, as a listener does).
// Then the words of narrate.js and advanced.js, run in the page (issue 31,
// item 9): possessives, a catch keeps the turn, no "You said" for an answer
// the server gave, Authors has no pond, a kind word at the end, field labels.
import { assert, online, openPage, recordPage, routeSourceModules, waitFor, waitScreen } from '../lib/harness.mjs';
import { startServer } from '../lib/server.mjs';

const CPS = 15;
// Most of its three minutes are the clock (bot delays, speech at 15 characters
// a second), on a server of its own: run.mjs runs it beside the other tests.
export const alongside = true;

export default async function ({ browser, serverPath, webRoot, log }) {
  const server = await startServer(serverPath, webRoot, { botDelayMs: null });   // the server's default delay
  try {
    const kay = await openPage(browser, server.baseUrl, { pace: null });   // the page's default pace
    const page = kay.page;
    await recordPage(page);
    await online(page);
    await waitScreen(page, 'home');
    await page.getByRole('button', { name: 'Play with the computer' }).click();

    const cards = page.getByRole('group', { name: 'Your cards' }).getByRole('button', { disabled: false });
    const askButtons = page.getByRole('button', { name: /^Ask / });
    const over = page.getByRole('heading', { name: 'Game over' });
    // The player acts once they have heard what there is to hear, as someone
    // listening does (the page before the queue was always "quiet").
    const quiet = () => page.evaluate(() => window.gofish.announcer?.quiet ?? true);
    const deadline = Date.now() + 300_000;
    while (!(await over.isVisible())) {
      assert(Date.now() < deadline, 'the game ended in time');
      if (!(await askButtons.count()) && (await cards.count()) && (await quiet())) {
        if (!(await cards.first().click({ timeout: 3000 }).then(() => true, () => false))) continue;
        await askButtons.first().waitFor({ timeout: 5000 }).catch(() => {});
        if (await askButtons.count()) await askButtons.first().click({ timeout: 3000 }).catch(() => {});
      } else {
        await page.waitForTimeout(50);
      }
    }
    // Everything queued is heard (the page before the queue had none to wait for).
    await page.waitForFunction(() => window.gofish.announcer?.idle ?? true, null, { timeout: 60_000 });
    await waitFor('the end of the game to be heard', () => page.evaluate(() =>
      window.__rec.announce.some((a) => /game is over/.test(a.text))), 60_000);

    const rec = await page.evaluate(() => window.__rec);
    const story = await page.evaluate(() => window.gofish.ui.story.map((e) => e.text));
    const you = await page.evaluate(() => window.gofish.state.you);
    const said = rec.announce.map((a) => ({ t: a.t, text: a.text.replace(/\u00a0$/, '') })).filter((a) => a.text.trim());
    const events = kay.frames.map((f) => { try { return JSON.parse(f.payload); } catch { return null; } })
      .filter((m) => m?.type === 'event').map((m) => m.event);
    const moves = events.filter((e) => ['asked', 'game_started', 'game_over'].includes(e.type)).length;
    const chars = said.reduce((n, a) => n + a.text.length, 0);

    // 1. Nothing replaced before it could be spoken.
    const cut = [];
    for (let i = 0; i + 1 < said.length; i++) {
      const needs = (said[i].text.length / CPS) * 1000;
      const had = said[i + 1].t - said[i].t;
      if (had < needs) cut.push(`"${said[i].text}" (${said[i].text.length} characters) after ${Math.round(had)} ms, needed ${Math.round(needs)}`);
    }
    // 2. Characters a second of play, to the end of the last announcement's speech.
    const last = said.at(-1);
    const seconds = (last.t + (last.text.length / CPS) * 1000 - said[0].t) / 1000;
    const rate = chars / seconds;
    const gaps = said.slice(1).map((a, i) => a.t - said[i].t).sort((a, b) => a - b);
    const median = Math.round(gaps[Math.floor(gaps.length / 2)] ?? 0);
    const overAt = rec.screens.find((s) => s.screen === 'over')?.t ?? Infinity;
    const endHeard = said.find((a) => /game is over/.test(a.text));
    log(`${moves} moves, ${said.length} announcements, ${chars} characters over ${seconds.toFixed(1)} s: ` +
      `${rate.toFixed(1)} characters a second, median ${median} ms between announcements, ${cut.length} replaced early; ` +
      `the end heard ${Math.round(endHeard.t - overAt)} ms after the game-over screen`);
    assert(rate <= CPS, `${rate.toFixed(1)} characters a second at the default setting (at most ${CPS})`);
    assert(cut.length === 0, `${cut.length} of ${said.length} announcements replaced before they could be spoken: ${cut.slice(0, 3).join('; ')}`);
    // 3. Keeping up: the end is heard soon after the game ends.
    assert(endHeard && endHeard.t - overAt < 30_000, `the end was heard ${Math.round(endHeard.t - overAt)} ms after the game-over screen`);
    // 4. The player's own moves and their turn, in full.
    const heard = (text) => said.some((a) => a.text.includes(text));
    const mine = story.filter((t) => /^You asked /.test(t));
    const missed = mine.filter((t) => !heard(t));
    assert(mine.length > 0 && missed.length === 0, `your own moves are heard in full (${missed.length} of ${mine.length} not: ${missed.slice(0, 2).join(' | ')})`);
    const turns = events.filter((e) => e.type === 'turn_passed' && e.to === you).length;
    const turnsHeard = said.filter((a) => a.text.includes("Now it's your turn.")).length;
    assert(turnsHeard >= turns, `"Now it's your turn." heard ${turnsHeard} times for ${turns} turns passed to you`);
    // The default setting is the short one.
    await page.click('#settings-button');
    const checked = await page.evaluate(() => document.querySelector('input[name=verbosity]:checked')?.value);
    await page.click('#settings-dialog button[type=submit]');
    assert(checked === 'brief', `the default screen reader setting is "short" (${checked})`);
    assert(kay.errors.length === 0, `no page errors: ${kay.errors}`);

    // ---- The words, in the page's own modules.
    await routeSourceModules(page);
    const words = await page.evaluate(async () => {
      const n = await import('/src/narrate.js');
      const a = await import('/src/advanced.js');
      const names = ['Kay', 'Bubbles', 'Ben'];
      const view = { you: 0, nameOf: (s) => names[s], rules: { set_size: 4, ask_for: 'rank' } };
      const authors = { ...view, rules: { set_size: 4, ask_for: 'card', deal_whole_pack: true } };
      const fish = (seat, asker) => ({ type: 'go_fish', seat, asker, stock_empty: false });
      return {
        possessive: n.clause({ type: 'turn_passed', from: 0, to: 1 }, view),
        came: [n.possessive('Ben'), n.possessive('Bubbles')],
        again: n.moveSentence([{ type: 'asked', seat: 0, target: 2, rank: '7' }, { type: 'gave', from: 2, to: 0, cards: ['7H', '7S'] }], view),
        othersAgain: n.moveSentence([{ type: 'asked', seat: 2, target: 1, rank: '7' }, { type: 'gave', from: 1, to: 2, cards: ['7H'] }], view),
        passed: n.moveSentence([{ type: 'asked', seat: 0, target: 2, rank: '7' }, fish(2, 0),
          { type: 'drew', seat: 0, cause: 'fish', card: '3H' }, { type: 'turn_passed', from: 0, to: 2 }], view),
        auto: n.moveSentence([{ type: 'asked', seat: 2, target: 0, rank: '7' }, fish(0, 2), { type: 'turn_passed', from: 2, to: 0 }], view),
        answered: n.moveSentence([{ type: 'asked', seat: 2, target: 0, rank: '7' }, { type: 'answered', seat: 0, give: false }, fish(0, 2)], view),
        authors: n.moveSentence([{ type: 'asked', seat: 2, target: 1, card: '7H' }, { ...fish(1, 2), stock_empty: true }], authors),
        lost: n.clause({ type: 'game_over', reason: 'stock_out', hands: [[], [], []], scores: [3, 5, 2], winners: [1] }, view),
        won: n.clause({ type: 'game_over', reason: 'stock_out', hands: [[], [], []], scores: [5, 3, 2], winners: [0] }, view),
        brief: [
          n.briefSentence([{ type: 'asked', seat: 2, target: 1, rank: '7' }, fish(1, 2), { type: 'drew', seat: 2, cause: 'fish' },
            { type: 'turn_passed', from: 2, to: 1 }], view),
          n.briefSentence([{ type: 'asked', seat: 2, target: 1, rank: '7' }, { type: 'gave', from: 1, to: 2, cards: ['7H', '7S'] },
            { type: 'set_laid', seat: 2, rank: '7', cards: ['7H', '7S', '7C', '7D'], outcome: 'scores' }], view),
          n.briefSentence([{ type: 'asked', seat: 1, target: 2, rank: '7' }, fish(2, 1), { type: 'turn_passed', from: 1, to: 0 }], view),
        ],
        fields: [a.ruleMessage('min_players cannot be larger than max_players.'),
          a.ruleMessage('When players ask for a specific card, the asked player gives that card (give = named).'),
          a.ruleMessage('cards_dealt must be a whole number.')],
      };
    });
    const expect = (got, want, what) => assert(got === want, `${what}: "${got}" (want "${want}")`);
    expect(words.possessive, "Now it's Bubbles' turn.", 'a name ending in s');
    expect(words.came.join(' '), "Ben's Bubbles'", 'possessive()');
    expect(words.again, 'You asked Ben for 7s. Ben gave you two 7s, so you go again.', 'a catch keeps your turn');
    expect(words.othersAgain, 'Ben asked Bubbles for 7s. Bubbles gave Ben one 7, so Ben goes again.', "a catch keeps another's turn");
    expect(words.passed, 'You asked Ben for 7s. Ben said "Go fish!" You fished the 3 of hearts. Now it\'s Ben\'s turn.', 'a miss passes the turn');
    assert(!/You said/.test(words.auto) && /Go fish/.test(words.auto), `an answer the server gave is not "You said": "${words.auto}"`);
    assert(/You said "Go fish!"/.test(words.answered), `an answer the player gave is: "${words.answered}"`);
    assert(!/pond|fish/i.test(words.authors), `Authors has no pond: "${words.authors}"`);
    expect(words.lost, 'The pond is empty, so the game is over. Bubbles wins! Well played: you made three sets.', 'a kind word when you did not win');
    expect(words.won, 'The pond is empty, so the game is over. You win!', 'the winner');
    expect(words.brief.join(' | '), 'Ben asked Bubbles for 7s: go fish. | Ben got two 7s from Bubbles. Ben made a set of 7s. | ' +
      "Bubbles asked Ben for 7s: go fish. Now it's your turn.", 'short sentences for the others');
    expect(words.fields.join(' | '), '"Fewest players" cannot be larger than "Most players". | When players ask for a specific card, ' +
      'the asked player gives that card ("The asked player gives" is "the exact card asked for"). | "Cards each at a bigger table" must be a whole number.',
    'the Advanced errors name the fields by their labels');
    log('the words: possessives, "go again", answers, Authors, a kind word, field labels');
  } finally {
    await server.stop();
  }
}
