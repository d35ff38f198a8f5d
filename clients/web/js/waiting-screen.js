// The waiting room answers the person: the invite link copied, seats given to
// computer players or freed, a player removed, and the host's "Start".

import { session } from './session.js';
import { act, removePlayer, wireRulesButton } from './room-actions.js';

const $ = (id) => document.getElementById(id);
const { state } = session;

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

export function wireWaiting() {
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
  wireRulesButton('screen-waiting');
}
