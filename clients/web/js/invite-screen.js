// An invite link's screen (/r/CODE for a room this browser has no seat in):
// join the room under a name, or watch it.

import { join } from './join-room.js';

const $ = (id) => document.getElementById(id);

export function wireInvite() {
  $('invite-form').addEventListener('submit', (e) => { e.preventDefault(); join($('invite-code').textContent, 'player', 'invite-name', 'invite-error'); });
  $('invite-watch').addEventListener('click', () => join($('invite-code').textContent, 'spectator', 'invite-name', 'invite-error'));
}
