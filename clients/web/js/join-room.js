// Going into a room by its code as a player or to watch, from the start page
// (the code typed, or a room of the list) or from an invite link's screen;
// and the name a person plays under, typed or made up.

import { session } from './session.js';
import { enteredRoom, enterRequest, pausedBusy } from './navigation.js';

const $ = (id) => document.getElementById(id);

const DEFAULT_NAMES = ['Otter', 'Puffin', 'Seal', 'Turtle', 'Dolphin', 'Starfish', 'Walrus', 'Penguin'];
export function nameFrom(input) {
  const name = $(input).value.trim();
  if (name) localStorage.setItem('gofish.name', name);
  return name || DEFAULT_NAMES[Math.floor(Math.random() * DEFAULT_NAMES.length)];
}

export async function join(code, as, nameInput, errorId) {
  code = code.trim().toUpperCase();
  if (!code) { $(errorId).textContent = 'Please type the room code first.'; return; }
  let name = nameFrom(nameInput);
  if (session.conn.useRoom(code)) await session.conn.whenWelcomed();
  const note = $(errorId);
  // Set once, not at each retry: the note is a live region (role=alert), and
  // the same words written again would be read out again every 750 ms.
  const moving = (busy) => {
    const text = `Room ${code} is ${pausedBusy(busy) ? 'busy saving its game' : 'moving to another server'}. Trying again…`;
    note.classList.add('pending');
    if (note.textContent !== text) note.textContent = text;
  };
  let reply = await enterRequest({ type: 'join', code, name, as }, moving);
  // A made-up name that someone in the room already has: make up another.
  if (reply.code === 'room/name_taken' && !$(nameInput).value.trim()) {
    name = `${name} ${Math.floor(Math.random() * 90) + 10}`;
    reply = await enterRequest({ type: 'join', code, name, as }, moving);
  }
  note.classList.remove('pending');
  if (reply.type === 'error') { note.textContent = reply.message; return; }
  note.textContent = '';
  enteredRoom(reply, name);
}
