// /?replay=GAME_ID: a finished game step by step with every hand face up,
// opened from a class's results ("Watch the game again"). The transcript comes
// from GET /api/games/GAME_ID/transcript. A transcript records the decisions
// only, so what followed from each (cards handed over, fish, sets) is asked
// of the rules engine itself, the WebAssembly module under /engine/
// (clients/wasm, its `replay` with the viewer "all"); its events go through
// replay.js's buildReplay as a finished game's own do on the over screen.
// Where the module cannot run (a server built without it, or one whose
// Content-Security-Policy does not allow WebAssembly), the page says so and
// shows how the game ended, with the record to download.
// Part of the class bundle (classroom.js), fetched only for this page: what it
// uses of the main one (replay.js's buildReplay, the narration, the replay
// rows) comes in `page`, the helpers of init().

import { el } from './dom.js';

const $ = (id) => document.getElementById(id);
// The web root's folder of the engine module, and its loader (clients/wasm).
const kEngineDir = '/engine/';
const kEngine = `${kEngineDir}gofish-engine.mjs`;

// Whether the engine can run here: the module is served, and the policy the
// server sends with it (the page's own) lets a page compile WebAssembly. It is
// asked first so that a server that does not allow it sees no refusal.
async function engineAllowed() {
  try {
    const response = await fetch(kEngine, { method: 'HEAD', cache: 'no-store' });
    if (!response.ok) return false;
    const policy = (response.headers.get('Content-Security-Policy') ?? '').split(';').map((d) => d.trim());
    const script = policy.find((d) => d.startsWith('script-src ')) ?? policy.find((d) => d.startsWith('default-src '));
    return !script || /'(wasm-)?unsafe-eval'/.test(script);
  } catch {
    return false;
  }
}

// The transcript's decisions replayed by the engine: every event, or null.
async function engineEvents(transcript) {
  if (!(await engineAllowed())) return null;
  try {
    const url = kEngine;
    const { default: create } = await import(url);
    const engine = await create();
    const request = { transcript: { format: transcript.format, rules: transcript.rules, players: transcript.players, deck: transcript.deck,
      dealer: transcript.dealer, first: transcript.first, actions: transcript.actions, result: transcript.result }, viewer: 'all' };
    const answer = JSON.parse(engine.ccall('gofish_replay', 'string', ['string'], [JSON.stringify(request)]));
    return Array.isArray(answer.events) ? answer.events : null;
  } catch {
    return null;
  }
}

function buildScreen() {
  const step = (id, text) => el('button', { type: 'button', id, class: 'small', text });
  const home = el('a', { href: '/', class: 'button-link', text: 'Go to the start page' });
  return el('section', { id: 'screen-replay', class: 'screen', hidden: true, 'aria-labelledby': 'replay-page-title' },
    el('h2', { id: 'replay-page-title', tabindex: '-1', text: 'The game again' }),
    el('p', { id: 'replay-page-players' }),
    el('p', { id: 'replay-page-error', class: 'error', role: 'alert' }),
    el('section', { class: 'replay', 'aria-label': 'The whole game, step by step' },
      el('div', { class: 'row' }, step('rp-first', 'First'), step('rp-prev', 'Back'), el('span', { id: 'rp-pos' }),
        step('rp-next', 'Next'), step('rp-last', 'Last'), step('rp-download', 'Download the game record')),
      el('p', { id: 'rp-text', class: 'replay-text', 'aria-live': 'polite' }),
      el('div', { id: 'rp-hands', class: 'replay-hands' })),
    el('div', { class: 'row' }, home));
}

export async function openReplayPage(gameId, page) {
  const { buildReplay, downloadTranscript, clause, rankPlural, replayRow, showScreen } = page;
  if (!$('screen-replay')) $('main').append(buildScreen());
  showScreen('replay');
  $('room-label').textContent = 'A game again';
  $('conn').style.visibility = 'hidden';   // this page opens no socket (the bar keeps its layout)
  for (const id of ['rp-first', 'rp-prev', 'rp-next', 'rp-last', 'rp-download']) $(id).disabled = true;
  $('rp-pos').textContent = 'Loading the game record…';
  $('replay-page-title').focus();
  let doc = null;
  let held = null;   // api/transcript_held: a shared deal still played elsewhere; the server's sentence says until when
  try {
    const response = await fetch(`/api/games/${encodeURIComponent(gameId)}/transcript`, { cache: 'no-store' });
    if (response.ok) doc = await response.json();
    else if (response.status === 403) {
      const error = await response.json();
      if (error?.code === 'api/transcript_held' && typeof error.message === 'string') held = error.message;
    }
  } catch { /* said below */ }
  const transcript = doc?.transcript ?? doc;
  if (!transcript?.deck || !Array.isArray(transcript.actions)) {
    $('rp-pos').textContent = '';
    $('replay-page-error').textContent = held
      ?? 'This game cannot be found. It may still be being played, or the server no longer keeps it.';
    return;
  }
  const seats = doc.seats ?? transcript.seats ?? [];
  const nameOf = (s) => seats[s]?.name ?? `Seat ${s + 1}`;
  $('replay-page-players').textContent = `Played by ${[...Array(transcript.players).keys()].map(nameOf).join(', ')}.`;
  $('rp-download').disabled = false;
  $('rp-download').onclick = () => downloadTranscript({ code: 'replay', game: gameId.slice(0, 12), transcript: doc });

  const events = await engineEvents(transcript);
  const view = { you: -1, nameOf, rules: transcript.rules };
  const replay = events && buildReplay(transcript, events.map((event) => ({ event })), (ev) => clause(ev, view));
  if (!replay?.steps) {
    $('rp-pos').textContent = '';
    $('replay-page-error').textContent = 'This page cannot step through the game on this server. Here is how it ended; the game record can be downloaded.';
    const books = transcript.result?.books ?? [];
    $('rp-hands').replaceChildren(...books.map((b, i) => el('div', { class: 'replay-row' },
      el('span', { class: 'replay-name', text: nameOf(i) }),
      el('span', { class: 'sets', text: b.length ? `Made: ${b.map(rankPlural).join(', ')}` : 'Made no sets' }))));
    return;
  }
  let at = 0;
  const draw = () => {
    const s = replay.steps[at];
    $('rp-pos').textContent = `Step ${at + 1} of ${replay.steps.length}`;
    $('rp-text').textContent = `${s.text} (${s.stock} ${s.stock === 1 ? 'card' : 'cards'} in the pond)`;
    $('rp-hands').replaceChildren(...s.hands.map((h, i) => replayRow(nameOf(i), h, s.sets[i])));
    $('rp-first').disabled = $('rp-prev').disabled = at === 0;
    $('rp-next').disabled = $('rp-last').disabled = at === replay.steps.length - 1;
  };
  const go = (to) => () => { at = Math.max(0, Math.min(replay.steps.length - 1, to())); draw(); };
  $('rp-first').onclick = go(() => 0);
  $('rp-prev').onclick = go(() => at - 1);
  $('rp-next').onclick = go(() => at + 1);
  $('rp-last').onclick = go(() => Infinity);
  draw();
}
