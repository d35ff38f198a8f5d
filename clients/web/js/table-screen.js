// The table answers the person: a kind of card chosen (and a card, where the
// rules ask for one), whom to ask, the answer to an ask, a set declared; the
// arrow keys and Escape; the hand tidied after a click; the turn's timer.

import { session } from './session.js';
import { choices } from './decisions.js';
import { confirmDialog, showError } from './screens.js';
import { handNeedsTidying } from './hand-layout.js';
import { cardName, rankOf, rankPlural } from './cards.js';
import { act, removePlayer, wireRulesButton } from './room-actions.js';

const $ = (id) => document.getElementById(id);
const { state, ui } = session;

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
    const asked = offer?.answers?.length && offer.pending;
    showError(state.room.state !== 'playing' ? '' : asked ? 'You were asked: answer first.' : 'Wait for your turn to pick a card.');
    return;
  }
  ui.selected = ui.selected === rank ? null : rank;
  ui.selectedCard = null;
  session.render();
  // The chosen kind of card reaches a player in one or two key presses.
  document.querySelector('#card-picker button, #actions button')?.focus();
}

export function wireTable() {
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
  wireRulesButton('screen-table');
}
