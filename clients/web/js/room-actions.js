// What more than one of the room's screens asks of the room: a request whose
// refusal is shown, removing a player (the waiting room's seats and the
// table's), and the rules of the room (a button on the waiting room, the
// table and the game's end).

import { session } from './session.js';
import { confirmDialog, renderRules, showError } from './screens.js';

const $ = (id) => document.getElementById(id);
const { state } = session;

// A refusal is shown where the person looks (a pause by its notice).
export async function act(msg) {
  // A paused room holds its answers until the store takes the records
  // behind them; a player who stepped away meanwhile (a new socket, which
  // settles the old requests as dropped) is on another page by then, where
  // that room's answer is no news.
  const room = session.current;
  const reply = await session.request(msg);
  if (session.current !== room) return reply;
  if (reply.type === 'error' && reply.code !== 'room/paused') showError(reply.message);
  return reply;
}

// The host removes a player, after saying yes: in the waiting room the seat
// is freed; during a game the computer plays it to the end (protocol `kick`).
export async function removePlayer(seat) {
  const name = state.nameOf(seat);
  const text = state.room?.state === 'playing'
    ? `The computer plays ${name}'s cards for the rest of this game. ${name} cannot come back into this room.`
    : `${name} will have to leave this room and cannot come back into it.`;
  if (await confirmDialog(`Remove ${name}?`, text, `Remove ${name}`, `Keep ${name}`)) act({ type: 'kick', seat });
}

// Each screen's "Rules" button opens the dialog with the room's rules.
export function wireRulesButton(screen) {
  $(screen).querySelector('.rules-button').addEventListener('click', () => {
    if (!state.rules) return;
    renderRules(state.rules);
    $('rules-dialog').showModal();
  });
}
