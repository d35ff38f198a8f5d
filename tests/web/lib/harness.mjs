// Shared helpers for the end-to-end tests: the browser, pages, and waiting
// for the client to reach a state. No fixed sleeps: everything waits for a
// condition with a generous timeout.

import { chromium } from 'playwright-core';
import { execSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TIMEOUT = 30_000;

// The page's modules as written (clients/web/js), for a test that calls their
// functions in the page: the server serves one bundle, so this page (only)
// gets each module under /src/NAME.js from the source tree, and relative
// imports between them resolve there too: `await import('/src/narrate.js')`.
const sourceModules = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'clients', 'web', 'js');
export async function routeSourceModules(page) {
  await page.route(/\/src\/[\w-]+\.js$/, (route) => route.fulfill({
    contentType: 'text/javascript; charset=utf-8',
    body: readFileSync(join(sourceModules, basename(new URL(route.request().url()).pathname))),
  }));
}

export function chromiumPath() {
  return execSync('command -v chromium', { shell: '/bin/sh' }).toString().trim();
}

// Every context the browser makes watches for what the page's
// Content-Security-Policy refuses (the server sends it with every response:
// an inline style, a <style> element, eval, a foreign script...): a
// `securitypolicyviolation` event in any frame, or a console line from the
// browser that names the policy. run.mjs fails a test that saw one. A test
// that provokes a refusal on purpose (a page of another origin that frames
// the game) marks its context with expectCspViolations.
const cspExpected = new WeakSet();
export const expectCspViolations = (context) => cspExpected.add(context);
function reportViolations() {
  addEventListener('securitypolicyviolation', (e) => {
    console.error(`Content Security Policy violation: ${e.violatedDirective} refused ${e.blockedURI || 'inline'} ` +
      `at ${e.sourceFile || e.documentURI}:${e.lineNumber} (${(e.sample || '').slice(0, 60)})`);
  }, true);
}
function watchPolicy(browser, violations) {
  const newContext = browser.newContext.bind(browser);
  // browser.newPage() makes its context with this.newContext, so it is
  // watched too.
  browser.newContext = async (options) => {
    const context = await newContext(options);
    await context.addInitScript(reportViolations);
    context.on('console', (m) => {
      if (cspExpected.has(context) || !/Content.Security.Policy/i.test(m.text())) return;
      const where = m.location()?.url;
      violations.push(where ? `${where}: ${m.text()}` : m.text());
    });
    return context;
  };
}

// A fresh headless Chromium with its own profile and config/cache dirs.
// `violations` collects what the page's Content-Security-Policy refused.
// `home` is the profile's HOME ($HOME/.pki/nssdb is where Chromium on Linux
// looks for the certificate authorities it trusts besides the system's);
// `prepareHome(home)` runs before the browser starts.
export async function launchBrowser({ prepareHome = null } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'gofish-chromium-'));
  if (prepareHome) await prepareHome(home);
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--disable-dev-shm-usage'],
    env: { ...process.env, XDG_CONFIG_HOME: join(home, 'config'), XDG_CACHE_HOME: join(home, 'cache'), HOME: home },
    timeout: 60_000,
  });
  const violations = [];
  watchPolicy(browser, violations);
  return {
    browser,
    home,
    violations,
    close: async () => {
      await browser.close().catch(() => {});
      rmSync(home, { recursive: true, force: true });
    },
  };
}

// A page in its own context (its own localStorage, like another person's
// browser), recording every WebSocket frame it receives and sends and any
// page error (a message the server dropped for the rate counts as one).
// `pace` is how long the page shows each move (its own setting, in ms): 0
// unless a test is about the pace, so games run as fast as the server plays.
export async function openPage(browser, baseUrl, { width = 1280, height = 800, path = '/', pace = 0, motion = 'reduce' } = {}) {
  // Reduced motion: the same client, less work for a loaded test machine.
  const context = await browser.newContext({ viewport: { width, height }, reducedMotion: motion });
  if (pace !== null) await context.addInitScript((p) => { if (!localStorage.getItem('gofish.pace')) localStorage.setItem('gofish.pace', String(p)); }, pace);
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const frames = [];
  const sent = [];
  const errors = [];
  page.on('websocket', (ws) => {
    ws.on('framesent', (f) => sent.push({ at: Date.now(), payload: String(f.payload) }));
    ws.on('framereceived', (f) => {
      const payload = String(f.payload);
      frames.push({ at: Date.now(), payload });
      // The client paces itself to the server's message rate: a drop is a bug.
      if (payload.includes('"protocol/rate_limited"')) errors.push(`the server dropped a message: ${payload}`);
    });
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(baseUrl + path);
  return { page, context, frames, sent, errors };
}

export async function waitFor(what, fn, timeout = TIMEOUT) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const screenOf = (page) => page.evaluate(() => document.body.dataset.screen ?? '');
export const waitScreen = (page, name, timeout = TIMEOUT) =>
  page.waitForFunction((n) => document.body.dataset.screen === n, name, { timeout });
export const online = (page) => page.waitForSelector('#conn.online');
// How far the top of `lower` is below the bottom of `upper`, in CSS pixels
// (negative when they overlap).
export async function pixelsBelow(page, upper, lower) {
  const [a, b] = await Promise.all([upper, lower].map((selector) => page.locator(selector).boundingBox()));
  return b.y - (a.y + a.height);
}
// Waits until the page has drawn game `n` (after a start or "Play again"):
// its table, or already its end. Waiting for the table alone is wrong here:
// with no bot delay (run.mjs) and no pace (openPage), a bot can play a short
// game out before the page's next frame (pairs: the bot holds one card, asks
// for it, gets it and lays the pair: the game is over, a hand is empty), and
// the page goes from the last game's end straight to this one's without ever
// showing the table (features' one failure in CI; a probe of 119 rematches of
// pairs against an easy bot saw it 3 times). render() draws the story, which
// gains the line "Game n" with game_started, and picks the screen in one go,
// so that line means the screen shown is game n's, not the last game's end.
export const waitGame = (page, n, timeout = TIMEOUT) => page.waitForFunction((g) =>
  ['table', 'over'].includes(document.body.dataset.screen) &&
  [...document.querySelectorAll('#story li.story-game')].some((li) => li.textContent === `Game ${g}`), n, { timeout });

// Home screen -> create a room. `others` is an array for seats 1.. of
// 'person' or a bot level.
export async function createRoom(page, name, { preset = 'classic', others = ['person', 'medium'], timer = '0', listed = false, tableRules = false, chat = null, pace = null } = {}) {
  await online(page);
  await waitScreen(page, 'home');
  await page.fill('#name', name);
  await page.click('#go-create');
  await waitScreen(page, 'create');
  await page.check(`input[name=preset][value="${preset}"]`);
  await page.selectOption('#seat-count', String(others.length + 1));
  for (let i = 0; i < others.length; i++) await page.selectOption(`#seat-kind-${i + 1}`, others[i]);
  await page.selectOption('#turn-timer', timer);
  if (listed) await page.check('#listed');
  if (tableRules) await page.check('#table-rules');
  if (chat) await page.selectOption('#chat-mode', chat);
  if (pace) await page.selectOption('#bot-pace', pace);
  await page.click('#create-button');
  await waitScreen(page, 'waiting');
  return (await page.textContent('#waiting-code')).trim();
}

// Two people, each in a browser of their own, at the table of a game the
// host has started: the host (who creates the room, named `names[0]`) and a
// guest (who joins it by its code), with a medium bot in the third seat.
export async function twoAtTable(browser, baseUrl, names = ['Ann', 'Bob']) {
  const host = await openPage(browser, baseUrl);
  const guest = await openPage(browser, baseUrl);
  const code = await createRoom(host.page, names[0], { others: ['person', 'medium'] });
  await joinByCode(guest.page, names[1], code);
  await waitScreen(guest.page, 'waiting');
  await host.page.waitForSelector('#start-game:not([disabled])');
  await host.page.click('#start-game');
  await Promise.all([waitScreen(host.page, 'table'), waitScreen(guest.page, 'table')]);
  return { host, guest, code };
}

export async function joinByCode(page, name, code, as = 'player') {
  await online(page);
  await waitScreen(page, 'home');
  await page.fill('#name', name);
  await page.fill('#join-code', code);
  await page.click(as === 'player' ? '#join-button' : '#watch-button');
}

export const ENABLED_RANK = '#hand .rank-group[aria-disabled="false"]';
// What the page's table says about whose turn it is.
export const myTurn = (page) => page.evaluate((s) => !!document.querySelector(s) && !window.gofish.choices()?.ask?.outOfTurn, ENABLED_RANK);

// What a careful player does now, read from the page's own choices: under
// table rules answer truthfully and put down a full set first; otherwise ask
// with the first kind of card (and card) at the first player offered.
// Returns false when it was not this page's turn. `target`, a seat number,
// asks that player when the page offers them.
export async function clickAsk(page, { target: seat = null } = {}) {
  const plan = await page.evaluate(() => {
    const offer = window.gofish.choices();
    const g = window.gofish.state.room?.game;
    if (!offer || window.gofish.pacer.busy) return null;
    if (offer.answers.length && offer.pending) {
      const held = g.hand.some((c) => (offer.pending.card ? c === offer.pending.card : c.slice(0, -1) === offer.pending.rank));
      return { answer: held ? 'give' : 'go_fish' };
    }
    if (offer.ask?.outOfTurn) return null;
    const full = offer.declare.find((r) => g.hand.filter((c) => c.slice(0, -1) === r).length >= window.gofish.state.rules.set_size);
    if (full) return { declare: full };
    return offer.ask ? { ask: true } : null;
  });
  if (!plan) return false;
  // The page's choices can lag its buttons by a moment: just after an
  // answer, choices() may still offer the answer whose buttons are gone.
  // Such a click gives up after a short wait (not Playwright's 30 s, which
  // stalled table-rules games past their deadline) and the next look decides.
  const quick = { timeout: 2000 };
  if (plan.answer) {
    return page.click(`#actions [data-answer="${plan.answer}"]`, quick).then(() => true, () => false);
  }
  if (plan.declare) {
    return page.click(`#hand .rank-group[data-rank="${plan.declare}"]`, quick)
      .then(() => page.click(`#actions [data-declare="${plan.declare}"]`, quick))
      .then(() => true, () => false);
  }
  const rank = await page.$(ENABLED_RANK);
  if (!rank) return false;
  await rank.click();
  const card = await page.$('#card-picker .pick');
  if (card) await card.click();
  const target = await page.waitForSelector('#actions [data-target]', { timeout: 5000 }).catch(() => null);
  if (!target) return false;
  const chosen = seat === null ? null : await page.$(`#actions [data-target="${seat}"]`);
  await (chosen ?? target).click();
  // Under table rules the turn may have moved on between the look and the
  // click: the ask is out of turn now, and the page asks first what a
  // careful player declines.
  if (await page.isVisible('#confirm-dialog[open]')) {
    await page.click('#confirm-no');
    return false;
  }
  return true;
}

// Plays until every page shows the game-over screen, clicking for whichever
// page has its turn. `onStep` runs after each ask (for DOM samples).
export async function playToEnd(pages, { onStep, timeout = 120_000 } = {}) {
  const deadline = Date.now() + timeout;
  let asks = 0;
  for (;;) {
    const screens = await Promise.all(pages.map(screenOf));
    if (screens.every((s) => s === 'over')) return asks;
    if (Date.now() > deadline) {
      // What each page showed, to tell a stuck page from a stuck game.
      const states = await Promise.all(pages.map((page) => page.evaluate(() => {
        const g = window.gofish.state.room?.game;
        return JSON.stringify({ prompt: document.getElementById('prompt')?.textContent, conn: window.gofish.ui.conn,
          busy: window.gofish.pacer.busy, queued: window.gofish.pacer.queue.length, paused: window.gofish.ui.paused,
          sending: window.gofish.ui.sending, dialog: !!document.querySelector('dialog[open]'), you: window.gofish.state.you,
          turn: g?.turn, toAct: g?.to_act, phase: g?.phase, legal: g?.legal, choices: window.gofish.choices(), v: window.gofish.state.v });
      }).catch((e) => `unreadable: ${e}`)));
      throw new Error(`game did not end in time (screens: ${screens.join(', ')}; pages: ${states.join(' | ')})`);
    }
    let acted = false;
    for (const page of pages) {
      if ((await screenOf(page)) !== 'table') continue;
      if (await clickAsk(page).catch(() => false)) {
        acted = true;
        asks += 1;
        if (onStep) await onStep();
      }
    }
    if (!acted) await new Promise((r) => setTimeout(r, 40));
  }
}

export function assert(cond, message) {
  if (!cond) throw new Error(`assertion failed: ${message}`);
}

// The frames whose JSON message passes `test`.
const framesWhere = (frames, test) => frames.filter((f) => { try { return test(JSON.parse(f.payload)); } catch { return false; } });
// The requests of one type a page sent (e.g. 'resume').
export const sentOfType = (p, type) => framesWhere(p.sent, (m) => m.type === type);
// How many messages a page received that pass `test`.
export const receivedWhere = (p, test) => framesWhere(p.frames, test).length;

// Recorders installed before the page's own scripts run, then the page
// loaded again: the move told in the middle of the table (#latest), the live
// region, the screens, and every layout shift (Layout Instability API).
// Read them with page.evaluate(() => window.__rec).
function record() {
  const rec = { latest: [], announce: [], shifts: [], screens: [] };
  window.__rec = rec;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      rec.shifts.push({ t: e.startTime, value: e.value, input: e.hadRecentInput, screen: document.body.dataset.screen,
        sources: (e.sources ?? []).map((s) => s.node?.id || s.node?.className || s.node?.nodeName || '?') });
    }
  }).observe({ type: 'layout-shift', buffered: true });
  addEventListener('DOMContentLoaded', () => {
    const latest = document.getElementById('latest');
    const region = document.getElementById('announcer');
    new MutationObserver(() => rec.latest.push({ t: performance.now(), move: latest.dataset.move, text: latest.textContent }))
      .observe(latest, { childList: true, characterData: true, subtree: true, attributes: true, attributeFilter: ['data-move'] });
    new MutationObserver(() => rec.announce.push({ t: performance.now(), text: region.textContent }))
      .observe(region, { childList: true, characterData: true, subtree: true });
    new MutationObserver(() => rec.screens.push({ t: performance.now(), screen: document.body.dataset.screen }))
      .observe(document.body, { attributes: true, attributeFilter: ['data-screen'] });
  });
}

export async function recordPage(page) {
  await page.addInitScript(record);
  await page.reload();
}

// The layout shift recorded, without the shifts just after the player's own
// input (the Layout Instability API's hadRecentInput), and the worst three.
export function layoutShift(rec) {
  const shifts = rec.shifts.filter((s) => !s.input);
  return {
    shift: shifts.reduce((n, s) => n + s.value, 0),
    worst: [...shifts].sort((a, b) => b.value - a.value).slice(0, 3)
      .map((s) => `${s.value.toFixed(4)} on ${s.screen} (${s.sources.join(', ')})`),
  };
}
