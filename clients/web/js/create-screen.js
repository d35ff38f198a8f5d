// The create screen: a room of one's own (seats and computer players, the
// rules from a preset and its advanced settings, timer, chat, pace), and the
// server's refusal shown by the field it names.

import { session } from './session.js';
import { renderSeatSetup, showScreen } from './screens.js';
import { enteredRoom } from './navigation.js';
import { nameFrom } from './join-room.js';

const $ = (id) => document.getElementById(id);

// advanced.js is imported when the create screen first opens (the built
// page's one bundle holds it already; served unbundled, it is fetched then).
async function loadAdvanced() {
  if (session.advanced) return;
  session.advanced = await import('./advanced.js');
  session.advanced.renderAdvanced(document.querySelector('input[name=preset]:checked')?.value ?? 'classic');
}

// The start page's "Make a room".
export async function openCreate() {
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
  const preset = document.querySelector('input[name=preset]:checked')?.value ?? 'classic';
  const msg = {
    type: 'create_room', name, seats, bots,
    rules: { preset, ...(session.advanced?.changedRules(preset) ?? {}) },
    turn_timer_seconds: Number($('turn-timer').value),
    spectators: $('allow-spectators').checked,
    listed: $('listed').checked,
    chat: $('chat-mode').value,
    bot_pace: $('bot-pace').value,
  };
  if ($('table-rules').checked) msg.rules.table_rules = true;
  return msg;
}

async function createRoom(event) {
  event.preventDefault();
  for (const e of document.querySelectorAll('.field-error')) e.textContent = '';
  const name = nameFrom('name');
  const msg = createMessage(name);
  const reply = await session.conn.request(msg);
  if (reply.type === 'error') {
    const words = session.advanced ? session.advanced.ruleMessage(reply.message) : reply.message;
    $('create-error').textContent = words;
    const field = reply.field && $(`rule-${reply.field}`);
    if (field) {
      $('advanced').open = true;
      $(`rule-${reply.field}-error`).textContent = words;
      field.focus();
    }
    return;
  }
  enteredRoom({ ...reply, as: 'player' }, name);
}

export function wireCreate() {
  $('seat-count').addEventListener('change', () => renderSeatSetup(Number($('seat-count').value), session.welcome?.bot_levels ?? ['easy', 'medium', 'hard']));
  $('preset-list').addEventListener('change', (e) => { if (e.target.name === 'preset') session.advanced?.renderAdvanced(e.target.value); });
  $('create-form').addEventListener('submit', createRoom);
}
