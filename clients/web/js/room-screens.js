// The room's screens answer the person: the waiting room (invite, seats, start),
// the table (cards, whom to ask, answers, keys), the chat and the story beside
// them, and the game's end (play again, the record and its replay).

import { session } from './session.js';
import { unanswered } from './connection.js';
import { choices } from './decisions.js';
import { clause } from './narrate.js';
import { confirmDialog, renderReplay, renderRules, showError } from './screens.js';
import { handNeedsTidying } from './table.js';
import { cardName, rankOf, rankPlural } from './cards.js';

const $ = (id) => document.getElementById(id);
const { state, ui } = session;

// A refusal is shown where the person looks (a pause by its notice).
export async function act(msg) {
  const reply = await session.conn.request(msg);
  if (reply.type === 'error' && reply.code !== 'room/paused') showError(reply.message);
  return reply;
}

// A decision goes out; nothing more is offered until its answer (the
// events and their `turn`, or a refusal, which changes nothing).
async function request(msg) {
  ui.selected = null;
  ui.selectedCard = null;
  ui.sending = true;
  session.render();
  const reply = await act(msg);
  ui.sending = false;
  session.queueRender();
  return reply;
}

async function ask(target) {
  if (session.isPaused()) return;
  const offer = choices(state);
  if (!offer?.ask || !ui.selected) return;
  const msg = { type: 'ask', target };
  if (state.rules.ask_for === 'card') {
    if (!ui.selectedCard) return;
    msg.card = ui.selectedCard;
  } else {
    msg.rank = ui.selected;
  }
  // Under table rules an ask out of turn is a real mistake with a lasting
  // cost; a stray tap on a card and then on "Ask …" must not make it. It
  // takes a third, deliberate step that says what it costs.
  if (offer.ask.outOfTurn) {
    const name = state.nameOf(target);
    const what = msg.card ? `the ${cardName(msg.card)}` : rankPlural(msg.rank);
    const ok = await confirmDialog('Ask out of turn?',
      `It is not your turn. If you ask ${name} for ${what} now, that is a penalty: ` +
      `you can never score ${rankPlural(msg.rank ?? rankOf(msg.card))} in this game.`, 'Ask anyway', 'Wait for my turn');
    if (!ok || !choices(state)?.ask) return;
  }
  await request(msg);
}

function chooseRank(rank) {
  if (session.isPaused()) return;
  const offer = session.pacer.busy || ui.sending ? null : choices(state);
  const enabled = offer?.ask?.ranks.includes(rank) || offer?.declare?.includes(rank);
  if (!enabled) {
    showError(state.room.state === 'playing' ? 'Wait for your turn to pick a card.' : '');
    return;
  }
  ui.selected = ui.selected === rank ? null : rank;
  ui.selectedCard = null;
  session.render();
  // The chosen kind of card reaches a player in one or two key presses.
  document.querySelector('#card-picker button, #actions button')?.focus();
}

// The host removes a player, after saying yes: in the waiting room the seat
// is freed; during a game the computer plays it to the end (protocol `kick`).
async function removePlayer(seat) {
  const name = state.nameOf(seat);
  const text = state.room?.state === 'playing'
    ? `The computer plays ${name}'s cards for the rest of this game. ${name} cannot come back into this room.`
    : `${name} will have to leave this room and cannot come back into it.`;
  if (await confirmDialog(`Remove ${name}?`, text, `Remove ${name}`, `Keep ${name}`)) act({ type: 'kick', seat });
}

// The host starts; empty seats get computer players first.
async function startGame() {
  const room = state.room;
  if (!room || session.isPaused()) return;
  for (const s of room.seats) {
    if (s.occupant !== 'empty') continue;
    const reply = await act({ type: 'add_bot', seat: s.seat, level: $(`bot-level-${s.seat}`)?.value ?? 'medium' });
    if (reply.type === 'error') return;
  }
  act({ type: 'start' });
}

// "Play again" (the server gives a seat emptied since the game to a computer player).
async function rematch() {
  if ($('rematch').getAttribute('aria-disabled') === 'true') return;
  await act({ type: 'rematch' });
  session.render();
}

// ---------------------------------------------------------------- the record

// The replay and the transcript download come with the first game over
// (replay.js is not part of the first load).
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

// Asked for at game over; a request the server did not answer (too fast,
// timed out) is asked again, so the record never stays "Loading".
export async function fetchTranscript(attempt = 0) {
  if (state.isSpectator === null) return;
  const game = state.room?.game_number;
  const reply = await session.conn.request({ type: 'transcript' });
  if (reply.type === 'transcript') {
    ui.transcript = reply;
    ui.replay = null;
    session.queueRender();
  } else if (unanswered(reply) && attempt < 5) {
    setTimeout(() => {
      if (!ui.transcript && state.room?.state === 'over' && state.room.game_number === game) fetchTranscript(attempt + 1);
    }, 700 * (attempt + 1));
  }
}

// ---------------------------------------------------------------- wiring

function wireWaiting() {
  $('copy-invite').addEventListener('click', async () => {
    const input = $('invite-link');
    try { await navigator.clipboard.writeText(input.value); } catch {
      input.select();
      document.execCommand?.('copy');
    }
    $('copy-status').textContent = 'Copied!';
    setTimeout(() => { $('copy-status').textContent = ''; }, 3000);
  });
  $('waiting-seats').addEventListener('click', async (e) => {
    const t = e.target.closest('button');
    if (!t || session.isPaused()) return;
    if (t.dataset.addBot) act({ type: 'add_bot', seat: Number(t.dataset.addBot), level: $(`bot-level-${t.dataset.addBot}`).value });
    if (t.dataset.removeBot) act({ type: 'remove_bot', seat: Number(t.dataset.removeBot) });
    if (t.dataset.kick) removePlayer(Number(t.dataset.kick));
  });
  $('start-game').addEventListener('click', startGame);
}

function wireTable() {
  $('hand').addEventListener('click', (e) => {
    const rank = e.target.closest('[data-rank]')?.dataset.rank;
    if (rank) chooseRank(rank);
  });
  $('card-picker').addEventListener('click', (e) => {
    const card = e.target.closest('[data-card]')?.dataset.card;
    if (!card) return;
    ui.selectedCard = card;
    session.render();
    document.querySelector('#actions button')?.focus();
  });
  $('actions').addEventListener('click', (e) => {
    const b = e.target.closest('button');
    if (!b) return;
    if (b.dataset.target) ask(Number(b.dataset.target));
    else if (b.dataset.answer) request({ type: 'answer', give: b.dataset.answer === 'give' });
    else if (b.dataset.declare) request({ type: 'declare', rank: b.dataset.declare });
    else if (b.dataset.cancel) { ui.selected = null; ui.selectedCard = null; session.render(); }
  });
  // A tap on a seat asks that player, like its "Ask" button.
  $('seats').addEventListener('click', (e) => {
    const kick = e.target.closest('[data-kick]');
    if (kick) { if (!session.isPaused()) removePlayer(Number(kick.dataset.kick)); return; }
    const seat = e.target.closest('.seat.target')?.dataset.seat;
    if (seat !== undefined) document.querySelector(`#actions [data-target="${seat}"]`)?.click();
  });
  // Arrow keys move between the choices and between the cards, round and round.
  for (const id of ['actions', 'hand', 'card-picker']) {
    $(id).addEventListener('keydown', (e) => {
      if (!['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'].includes(e.key)) return;
      const buttons = [...$(id).querySelectorAll('button')];
      const i = buttons.indexOf(document.activeElement);
      if (i < 0) return;
      e.preventDefault();
      const step = e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? -1 : 1;
      buttons[(i + step + buttons.length) % buttons.length].focus();
    });
  }
  // The hand is tidied (sorted, gaps closed) just after the player clicks or
  // presses a key, so cards never move by themselves, nor under a finger.
  const tidy = () => setTimeout(() => {
    if (document.body.dataset.screen === 'table' && handNeedsTidying(ui)) {
      ui.compact = true;
      session.render();
    }
  }, 0);
  document.addEventListener('click', tidy);
  document.addEventListener('keyup', tidy);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && ui.selected && document.body.dataset.screen === 'table') {
      ui.selected = null;
      ui.selectedCard = null;
      session.render();
      document.querySelector('#hand .rank-group[aria-disabled="false"]')?.focus();
    }
  });
  setInterval(() => {
    const t = state.room?.timer;
    const box = $('timer');
    if (!t || state.room.state !== 'playing' || session.isPaused()) { box.textContent = ''; return; }
    const left = Math.max(0, Math.round((t.deadline_ms - Date.now()) / 1000));
    box.textContent = `${t.seat === state.you ? 'You have' : `${state.nameOf(t.seat)} has`} ${left} s`;
  }, 500);
}

// The chat and "What happened" (a sheet of its own on a phone).
function wireSide() {
  $('chat-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = $('chat-text').value.trim();
    if (!text) return;
    const reply = await act({ type: 'chat', text });
    if (reply.type !== 'error') $('chat-text').value = '';
  });
  $('chat-phrases').addEventListener('click', (e) => {
    const phrase = e.target.closest('[data-phrase]')?.dataset.phrase;
    if (!phrase) return;
    act({ type: 'chat', phrase });
    $('chat-phrases').hidden = true;
    $('say-toggle').setAttribute('aria-expanded', 'false');
    $('say-toggle').focus();
  });
  $('say-toggle').addEventListener('click', () => {
    const open = $('chat-phrases').hidden;
    $('chat-phrases').hidden = !open;
    $('say-toggle').setAttribute('aria-expanded', String(open));
    if (open) $('chat-phrases').querySelector('button')?.focus();
  });
  const storySheet = (open) => {
    $('story-toggle').setAttribute('aria-expanded', String(open));
    $('side').classList.toggle('open', open);
    (open ? $('story') : $('story-toggle')).focus();
  };
  $('story-toggle').addEventListener('click', () => storySheet($('story-toggle').getAttribute('aria-expanded') !== 'true'));
  $('story-close').addEventListener('click', () => storySheet(false));
}

function wireOver() {
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
}

export function wireRoomScreens() {
  wireWaiting();
  for (const b of document.querySelectorAll('.rules-button')) {
    b.addEventListener('click', () => {
      if (!state.rules) return;
      renderRules(state.rules);
      $('rules-dialog').showModal();
    });
  }
  wireTable();
  wireSide();
  wireOver();
}
