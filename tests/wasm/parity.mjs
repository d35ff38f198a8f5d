// The parity test: the engine compiled to WebAssembly (clients/wasm) plays
// exactly as the native engine does.
//
//   node --no-experimental-fetch parity.mjs --sim gofish-sim --native gofish_engine_api_native
//        --module <dir of gofish-engine.mjs> --work <scratch dir> [--games N] [--tamper WHAT]
//
// 1. gofish-sim (native) plays N bot games (default 1,000) of every preset,
//    in two table sizes each, some with table rules or a changed field, the
//    bot levels rotated through the seats, and writes their transcripts.
// 2. Replay: every transcript is replayed by the module's `replay` and by the
//    same call to the API compiled natively (gofish_engine_api_native); the
//    answers (every event, with every card, and the result) must be the same
//    bytes, and the result must be the one gofish-sim recorded. For the first
//    games of each run, the events as each seat and a spectator see them too.
// 3. Bots: for the first 150 games of each run (300 of each preset, every
//    level in every seat) the module deals the game's seed and lets its bots
//    (the levels gofish-sim seated) play it through `play`; the transcript
//    must be gofish-sim's. The first 10 go decision by decision through
//    `bot` and `apply` instead.
// The first difference stops the test, naming the run, the game, the event
// or action number and both values.
//
// --tamper transcript|event|bot alters one game on the native side (an action
// of a transcript, an event of the native answer, a bot's action in the
// expected transcript), to show the test fails (tests/wasm/CMakeLists.txt).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = Object.create(null);
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
for (const needed of ['sim', 'native', 'module', 'work']) {
  if (!args[needed]) {
    console.error(`parity.mjs: --${needed} is missing`);
    process.exit(2);
  }
}
const gamesPerPreset = Number(args.games ?? 1000);
const tamper = args.tamper ?? null;
if (tamper && !['transcript', 'event', 'bot'].includes(tamper)) {
  console.error('parity.mjs: --tamper takes transcript, event or bot');
  process.exit(2);
}
const viewerGames = 20; // games of each run also replayed as each seat and a spectator see them
const botGames = 150; // games of each run the module's bots play again from the seed...
const stepGames = 10; // ...the first of them decision by decision through bot and apply

// Two runs a preset, half the games each: different table sizes, and table
// rules (answers, declarations) or a changed field where they apply.
const runs = [
  { preset: 'classic', players: 4, bots: 'easy,medium,hard,hard', sets: [] },
  { preset: 'classic', players: 2, bots: 'hard,easy', sets: [] },
  { preset: 'specific-card', players: 3, bots: 'easy,medium,hard', sets: [] },
  { preset: 'specific-card', players: 4, bots: 'hard,medium,easy,hard', sets: ['may_ask_held_card=true'] },
  { preset: 'keep-playing', players: 5, bots: 'easy,medium,hard,medium,easy', sets: [] },
  { preset: 'keep-playing', players: 3, bots: 'hard,medium,easy', sets: ['table_rules=true'] },
  { preset: 'bicycle', players: 4, bots: 'medium,hard,easy,hard', sets: [] },
  { preset: 'bicycle', players: 5, bots: 'easy,hard,medium,easy,hard', sets: ['table_rules=true'] },
  { preset: 'authors', players: 3, bots: 'hard,easy,medium', sets: [] },
  { preset: 'authors', players: 6, bots: 'easy,medium,hard,easy,medium,hard', sets: [] },
  { preset: 'pairs', players: 2, bots: 'medium,hard', sets: [] },
  { preset: 'pairs', players: 6, bots: 'hard,easy,medium,hard,easy,medium', sets: ['table_rules=true'] },
];

function describe(run) {
  return `${run.preset}, ${run.players} players${run.sets.length ? ', ' + run.sets.join(', ') : ''}`;
}

function fail(message) {
  console.error(`parity.mjs: FAIL: ${message}`);
  process.exit(1);
}

// The first index at which two arrays differ (by their JSON), or -1.
function firstDifference(a, b) {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; ++i) {
    if (JSON.stringify(a[i]) !== JSON.stringify(b[i])) return i;
  }
  return -1;
}

function show(value) {
  return value === undefined ? '(none)' : JSON.stringify(value);
}

// Names the first difference between two answers that are not the same bytes.
function explain(nativeText, wasmText, what) {
  let nativeAnswer, wasmAnswer;
  try {
    nativeAnswer = JSON.parse(nativeText);
    wasmAnswer = JSON.parse(wasmText);
  } catch {
    return `${what}: the answers differ: native ${nativeText.slice(0, 300)} / wasm ${wasmText.slice(0, 300)}`;
  }
  if (Array.isArray(nativeAnswer.events) && Array.isArray(wasmAnswer.events)) {
    const i = firstDifference(nativeAnswer.events, wasmAnswer.events);
    if (i >= 0) {
      return `${what}, event ${i}: native ${show(nativeAnswer.events[i])}, wasm ${show(wasmAnswer.events[i])}`;
    }
  }
  for (const key of new Set([...Object.keys(nativeAnswer), ...Object.keys(wasmAnswer)])) {
    if (JSON.stringify(nativeAnswer[key]) !== JSON.stringify(wasmAnswer[key])) {
      return `${what}, field "${key}": native ${show(nativeAnswer[key])}, wasm ${show(wasmAnswer[key])}`;
    }
  }
  return `${what}: the answers differ in their spelling: native ${nativeText.slice(0, 300)} / ` +
         `wasm ${wasmText.slice(0, 300)}`;
}

// ------------------------------------------------------------------ the module

const { default: createGofishEngine } = await import(pathToFileURL(join(args.module, 'gofish-engine.mjs')).href);
const engine = await createGofishEngine({ wasmBinary: readFileSync(join(args.module, 'gofish-engine.wasm')) });
const wasmCall = (fn, request) => engine.ccall(`gofish_${fn}`, 'string', ['string'], [request]);
const wasm = (fn, request) => JSON.parse(wasmCall(fn, JSON.stringify(request)));

// ------------------------------------------------------------------ 1. native transcripts

mkdirSync(args.work, { recursive: true });
const started = performance.now();
let seed = 7100;
for (const run of runs) {
  run.file = join(args.work, `${run.preset}-${run.players}.jsonl`);
  run.games = Math.ceil(gamesPerPreset / 2);
  const sets = run.sets.flatMap((s) => ['--set', s]);
  execFileSync(args.sim, ['--preset', run.preset, ...sets, '--players', String(run.players), '--bots', run.bots,
    '--rotate', '--games', String(run.games), '--seed', String(seed++), '--transcripts', run.file],
  { stdio: 'ignore' });
  run.lines = readFileSync(run.file, 'utf8').split('\n').filter((line) => line.length > 0);
  if (run.lines.length !== run.games) fail(`gofish-sim wrote ${run.lines.length} games for ${describe(run)}`);
}
const simSeconds = (performance.now() - started) / 1000;

if (tamper === 'transcript') {
  // Game 5 of the first run: its fourth action asks for another rank. The
  // replays may still agree with each other; they must not reach the result
  // gofish-sim recorded.
  const t = JSON.parse(runs[0].lines[5]);
  t.actions[3].rank = t.actions[3].rank === '2' ? '3' : '2';
  runs[0].lines[5] = JSON.stringify(t);
}

// ------------------------------------------------------------------ 2. replays

let replays = 0;
let events = 0;
const replayStarted = performance.now();
for (const run of runs) {
  const calls = []; // [game index, viewer, request text]
  run.lines.forEach((line, game) => {
    calls.push([game, 'all', `{"viewer":"all","transcript":${line}}`]);
    if (game < viewerGames) {
      for (const viewer of ['spectator', ...Array.from({ length: run.players }, (_, s) => s)]) {
        calls.push([game, viewer, `{"viewer":${JSON.stringify(viewer)},"transcript":${line}}`]);
      }
    }
  });
  const input = calls.map(([, , request]) => `replay ${request}\n`).join('');
  const native = spawnSync(args.native, [], { input, maxBuffer: 1 << 30, encoding: 'utf8' });
  if (native.status !== 0) fail(`the native driver failed (${native.status}): ${native.stderr}`);
  const nativeAnswers = native.stdout.split('\n');
  if (tamper === 'event' && run === runs[0]) {
    // Game 1 as everything happened (game 0 and its viewers come first): the
    // seat of its first event after the tenth that names one.
    const index = 2 + run.players;
    const answer = JSON.parse(nativeAnswers[index]);
    const event = answer.events.find((e, i) => i >= 10 && typeof e.seat === 'number');
    event.seat = (event.seat + 1) % run.players;
    nativeAnswers[index] = JSON.stringify(answer);
  }
  calls.forEach(([game, viewer, request], i) => {
    const what = `${describe(run)}, game ${game}, viewer ${viewer}`;
    const wasmText = wasmCall('replay', request);
    if (wasmText !== nativeAnswers[i]) fail(explain(nativeAnswers[i], wasmText, what));
    const answer = JSON.parse(wasmText);
    if (answer.error) fail(`${what}: the transcript does not replay: ${answer.error.message}`);
    if (answer.check !== null) fail(`${what}: the replay differs from the transcript: ${answer.check}`);
    const recorded = JSON.parse(run.lines[game]).result;
    if (JSON.stringify(answer.result) !== JSON.stringify(recorded)) {
      fail(`${what}: result: gofish-sim recorded ${show(recorded)}, wasm ${show(answer.result)}`);
    }
    ++replays;
    events += answer.events.length;
  });
}
const replaySeconds = (performance.now() - replayStarted) / 1000;

// ------------------------------------------------------------------ 3. bots

if (tamper === 'bot') {
  // Game 2 of the last run: one of its bots' decisions changed in the
  // expected transcript, as if the module's bot had chosen otherwise.
  const run = runs[runs.length - 1];
  const t = JSON.parse(run.lines[2]);
  const action = t.actions.find((a) => a.target !== undefined);
  action.target = (action.target + 1) % run.players === action.seat ? (action.target + 2) % run.players
                                                                     : (action.target + 1) % run.players;
  run.lines[2] = JSON.stringify(t);
}

let botPlayed = 0;
let decisions = 0;
const botStarted = performance.now();
for (const run of runs) {
  run.lines.slice(0, botGames).forEach((line, game) => {
    const expected = JSON.parse(line);
    const { bots, seed: gameSeed } = expected;
    delete expected.bots;
    delete expected.game;
    delete expected.seed;
    const what = `${describe(run)}, game ${game} (seed ${gameSeed}, bots ${bots.join(',')})`;
    const start = wasm('start', { rules: expected.rules, players: expected.players, seed: gameSeed });
    if (start.error) fail(`${what}: start: ${start.error.message}`);
    if (game < stepGames) {
      // Decision by decision, as a page would play the bots' turns.
      for (let count = 0; start.to_act !== null; ++count) {
        if (count > 100000) fail(`${what}: the game does not end`);
        const legal = wasm('legal', { game: start.game });
        if (legal.seat === null) break;
        const { decision } = wasm('bot', { game: start.game, seat: legal.seat, level: bots[legal.seat] });
        if (!legal.decisions.some((d) => JSON.stringify(d) === JSON.stringify(decision))) {
          fail(`${what}: the bot's decision ${show(decision)} is not among the legal ones`);
        }
        const applied = wasm('apply', { game: start.game, decision });
        if (applied.error) fail(`${what}: apply ${show(decision)}: ${applied.error.message}`);
        if (applied.over) break;
      }
    } else {
      const played = wasm('play', { game: start.game, bots });
      if (played.error) fail(`${what}: play: ${played.error.message}`);
    }
    const made = wasm('transcript', { game: start.game });
    if (made.error) fail(`${what}: transcript: ${made.error.message}`);
    wasm('end', { game: start.game });
    if (JSON.stringify(made.transcript) !== JSON.stringify(expected)) {
      const i = firstDifference(expected.actions, made.transcript.actions);
      if (i >= 0) {
        fail(`${what}, action ${i}: native ${show(expected.actions[i])}, wasm ${show(made.transcript.actions[i])}`);
      }
      for (const key of Object.keys(expected)) {
        if (JSON.stringify(expected[key]) !== JSON.stringify(made.transcript[key])) {
          fail(`${what}, field "${key}": native ${show(expected[key])}, wasm ${show(made.transcript[key])}`);
        }
      }
      fail(`${what}: the transcripts differ`);
    }
    ++botPlayed;
    decisions += expected.actions.length;
  });
}
const botSeconds = (performance.now() - botStarted) / 1000;

if (tamper) fail(`--tamper ${tamper} found no difference`);
console.log(`parity: ${runs.length} runs, ${gamesPerPreset} games of each of 6 presets ` +
            `(gofish-sim ${simSeconds.toFixed(1)} s)`);
console.log(`  replays: ${replays} (${events} events) the same bytes native and wasm, results as recorded ` +
            `(${replaySeconds.toFixed(1)} s)`);
console.log(`  bots: ${botPlayed} games, ${decisions} decisions, the module's bots chose as gofish-sim's ` +
            `(${botSeconds.toFixed(1)} s)`);
