// What the page tells of what happens in the room: the sentence in the middle
// of the table, the lines of "What happened", the words each player says, the
// chat, and the live region that screen readers speak (announcer.js paces
// it). What it shows for the eyes alone is effects.js.

import { session, settings } from './session.js';
import { clause, moveSentence, question } from './narrate.js';
import { moveItem } from './announcer.js';
import { renderChat } from './screens.js';

const { state, ui, announcer } = session;
const verbosity = () => settings.get('verbosity', 'brief');
// The player's own move waits at most this long for the rest of it (onMove).
const kHoldMs = 300;

// What narrate.js needs to know of this page's room. Passed around a table
// (pass and play), the device tells everyone by name: nobody is "you".
const view = () => ({ you: ui.shared ? null : state.you, nameOf: (s) => state.nameOf(s), rules: state.rules, ending: gameEnding });

// The game ends with the move being told (its game_over still waits in the
// pacer's queue): a hand is empty where that ends the game, or every set is made.
function gameEnding() {
  const g = state.room?.game;
  const rules = state.rules;
  if (!g || !rules) return false;
  if (g.seats.reduce((n, s) => n + s.sets.length, 0) * rules.set_size >= 52) return true;
  return rules.empty_hand === 'ends_game' && g.seats.some((s) => s.hand_size === 0 && s.status === 'in');
}

// The pacer started a move (fresh) or added to it.
export function onMove(move, fresh) {
  const first = move.events[0];
  const v = view();
  if (fresh) {
    ui.reaction = null;
    if (first?.type === 'asked') {
      ui.said.set(first.seat, question(first, v));
      if (first.seat === state.you) { ui.selected = null; ui.selectedCard = null; }
    }
  }
  for (const ev of move.events) {
    if (ev.type === 'go_fish') ui.reaction = { seat: ev.seat, text: 'Go fish!' };
    if (ev.type === 'gave') ui.reaction = { seat: ev.from, text: ev.cards.length === 1 ? 'Here you go!' : `Here: ${ev.cards.length}!` };
  }
  const sentence = moveSentence(move.events, v);
  ui.move = { id: move.id, text: sentence };
  // The player's own move is shown once, whole: its events come in several
  // messages, the last within milliseconds, and the decision's `turn` ends
  // them. Until then (at most kHoldMs) the middle keeps the move before.
  if (fresh && first?.type === 'asked' && first.seat === state.you && state.you !== null) ui.moveHold = performance.now() + kHoldMs;
  // Your own last ask and what came of it stays in your corner until you ask again.
  if (state.you !== null && first?.type === 'asked' && first.seat === state.you) ui.myResult = { id: move.id, text: sentence };
  if (sentence) {
    addStory(move.id, sentence, first?.type === 'game_over' ? 'end' : 'move');
    announcer.move(move.id, moveItem(move.events, v, verbosity(), sentence));
  }
  session.queueRender();
}

// Room events worth a line in the story and a word to screen readers.
const ROOM_EVENTS = ['seat_joined', 'seat_left', 'kicked', 'host_changed', 'bot_takeover', 'rematch', 'bot_added', 'bot_removed'];

export function tellRoomEvent(ev) {
  if (!ROOM_EVENTS.includes(ev.type)) return;
  const text = clause(ev, view());
  if (text && !(ev.type === 'bot_takeover' && ev.reason === 'timeout')) {
    addStory(null, text, 'room');
    announcer.say(text);
  }
}

// A line of "What happened", newest first; a move's line grows with the move.
export function addStory(id, text, kind) {
  const entry = id === null ? null : ui.story.find((e) => e.id === id);
  if (entry) entry.text = text;
  else ui.story.unshift({ id: id ?? `r${Date.now()}${Math.random()}`, text, kind });
  if (ui.story.length > 150) ui.story.length = 150;
}

export function addChat(ev) {
  ui.chat.push({ name: ev.name, text: ev.text, seat: ev.seat });
  if (ui.chat.length > 60) ui.chat.shift();
  if (ev.seat !== state.you || ev.seat === null) announcer.say(`${ev.name} says: ${ev.text}`);
  renderChat(state, ui, session.welcome);
}
