// The create screen: a room of one's own (seats and computer players, the
// rules from the shared picker, rules-picker.js, timer, chat, pace), and the
// server's refusal shown by the field it names.

import { session } from './session.js';
import { renderSeatSetup, showScreen } from './screens.js';
import { enteredRoom } from './navigation.js';
import { nameFrom } from './join-room.js';
import { chosenRules, loadAdvanced, placeRulesPicker, showRulesError, wireRulesPicker } from './rules-picker.js';

const $ = (id) => document.getElementById(id);

// The start page's "Make a room".
export async function openCreate() {
  placeRulesPicker('rules-slot');
  showScreen('create');
  $('create-title').focus();
  await loadAdvanced();
}

function createMessage(name) {
  const seats = Number($('seat-count').value);
  const bots = [];
  for (let seat = 1; seat < seats; seat++) {
    const kind = $(`seat-kind-${seat}`).value;
    if (kind !== 'person') bots.push({ seat, level: kind });
  }
  return {
    type: 'create_room', name, seats, bots,
    rules: chosenRules(),
    turn_timer_seconds: Number($('turn-timer').value),
    spectators: $('allow-spectators').checked,
    listed: $('listed').checked,
    chat: $('chat-mode').value,
    bot_pace: $('bot-pace').value,
  };
}

async function createRoom(event) {
  event.preventDefault();
  for (const e of document.querySelectorAll('.field-error')) e.textContent = '';
  const name = nameFrom('name');
  const msg = createMessage(name);
  const reply = await session.conn.request(msg);
  if (reply.type === 'error') { showRulesError(reply, 'create-error'); return; }
  enteredRoom({ ...reply, as: 'player' }, name);
}

export function wireCreate() {
  $('seat-count').addEventListener('change', () => renderSeatSetup(Number($('seat-count').value), session.welcome?.bot_levels ?? ['easy', 'medium', 'hard']));
  wireRulesPicker();
  $('create-form').addEventListener('submit', createRoom);
}
