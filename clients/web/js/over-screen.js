// The game's end answers the person: "Play again", the game's record to
// download, and its replay stepped through. The record is asked for at game
// over (app.js's loop calls fetchTranscript and makeReplay).

import { session } from './session.js';
import { unanswered } from './connection.js';
import { clause } from './narrate.js';
import { renderReplay } from './screens.js';
import { act, wireRulesButton } from './room-actions.js';
import { el } from './dom.js';

const $ = (id) => document.getElementById(id);
const { state, ui } = session;

// "Play again" (the server gives a seat emptied since the game to a computer player).
async function rematch() {
  if ($('rematch').getAttribute('aria-disabled') === 'true') return;
  await act({ type: 'rematch' });
  session.render();
}

// The replay and the transcript download come with the first game over
// (replay.js is imported then: the built page's bundle holds it already).
export async function makeReplay() {
  const transcript = ui.transcript;
  ui.replay = false;   // being made
  const { buildReplay } = await import('./replay.js');
  if (ui.transcript !== transcript) return;
  if (!state.players && transcript.transcript?.seats) state.players = transcript.transcript.seats;
  const v = { you: -1, nameOf: (s) => state.nameOf(s), rules: state.rules };
  // 'none' when this page did not see the whole game (it shows the last hands).
  ui.replay = buildReplay(transcript.transcript, state.gameLog, (ev) => clause(ev, v)) ?? 'none';
  ui.replayStep = 0;
  session.queueRender();
}

// The deal checked (docs/FAIRNESS.md) once the transcript is here, in one
// sentence under the scores; fairness.js is loaded only then.
function fairnessLine() {
  let line = $('fairness-check');
  if (!line) {
    line = el('p', { id: 'fairness-check', class: 'status-line', role: 'status' });
    $('over-tiebreak').after(line);
  }
  return line;
}

async function checkDeal(reply) {
  // A game played on this device alone (offline play) had no server deal to check.
  if (session.local) return;
  const line = fairnessLine();
  line.textContent = 'Checking the deal...';
  line.dataset.fair = '';
  const { checkTranscript } = await import('./fairness.js');
  const verdict = await checkTranscript(reply.transcript);
  if (ui.transcript !== reply) return;
  line.textContent = verdict.sentence;
  line.dataset.fair = verdict.fair ? 'yes' : verdict.pending ? 'pending' : 'no';
}

// Asked for at game over; a request the server did not answer (too fast,
// timed out) is asked again, so the record never stays "Loading". A record
// the server holds (room/transcript_held: the same deal is still played at
// other tables, or today's deal is still open) is not asked for again: the
// replay's place says the server's sentence, when it will be available.
export async function fetchTranscript(attempt = 0) {
  if (state.isSpectator === null) return;
  if ($('fairness-check')) $('fairness-check').textContent = '';
  const game = state.room?.game_number;
  const reply = await session.request({ type: 'transcript' });
  if (reply.type === 'transcript') {
    ui.transcript = reply;
    ui.replay = null;
    session.queueRender();
    checkDeal(reply);
  } else if (reply.type === 'error' && reply.code === 'room/transcript_held') {
    ui.transcriptHeld = { game, message: reply.message };
    session.queueRender();
  } else if (unanswered(reply) && attempt < 5) {
    setTimeout(() => {
      if (!ui.transcript && state.room?.state === 'over' && state.room.game_number === game) fetchTranscript(attempt + 1);
    }, 700 * (attempt + 1));
  }
}

export function wireOver() {
  $('rematch').addEventListener('click', rematch);
  $('download').addEventListener('click', async () => {
    if (ui.transcript) (await import('./replay.js')).downloadTranscript(ui.transcript);
  });
  const step = (to) => () => {
    if (!ui.replay?.steps) return;
    ui.replayStep = Math.max(0, Math.min(ui.replay.steps.length - 1, to()));
    renderReplay(state, ui);
  };
  $('replay-first').addEventListener('click', step(() => 0));
  $('replay-prev').addEventListener('click', step(() => ui.replayStep - 1));
  $('replay-next').addEventListener('click', step(() => ui.replayStep + 1));
  $('replay-last').addEventListener('click', step(() => Infinity));
  wireRulesButton('screen-over');
}
