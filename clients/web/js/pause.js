// What the page says while its room is paused (protocol/README.md,
// room_paused): the server could not save the game and tries again, or a
// class's teacher paused every table, and nothing can be played until
// room_resumed. Imported when a room first
// pauses (the built page's one bundle holds it already).

const $ = (id) => document.getElementById(id);

// In a child's words, by the reason room_paused gives; 'busy' is a resume
// the paused room could not let in yet (room/paused).
const TITLES = {
  saving_failed: 'Saving the game failed; trying again…',
  store_unreachable: "The server can't reach the place where it saves games; trying again…",
  busy: 'Your game is being saved; trying again to get you back in…',
  teacher: 'Your teacher paused the game.',
};
const title = (reason) => TITLES[reason] ?? 'The game is being saved; trying again…';
const line = (reason) => (reason === 'teacher' ? 'Wait a moment: the game goes on when your teacher says so.'
  : 'Wait a moment: the game goes on by itself as soon as it is saved.');

export const spoken = (reason) => `Play is paused. ${title(reason)}`;
export const storyLine = (reason) => (reason === 'teacher' ? 'Play paused by the teacher.' : 'Play paused until the game is saved.');

const note = document.createElement('div');
note.id = 'pause-note';
note.className = 'pause-note';
note.innerHTML = '<p id="pause-title" class="pause-title"></p><p class="pause-line"></p>';
const heading = note.firstChild;
const detail = note.lastChild;

// Shows the notice for `reason`, or hides it (null). Paused, the waiting
// room's buttons offer nothing either: the server would refuse it.
export function renderPause(reason) {
  note.hidden = reason === null;
  for (const b of [$('start-game'), ...$('waiting-seats').querySelectorAll('button')]) {
    if (reason !== null) b.setAttribute('aria-disabled', 'true');
    else b.removeAttribute('aria-disabled');
  }
  if (reason === null) return;
  if (heading.textContent !== title(reason)) heading.textContent = title(reason);
  if (detail.textContent !== line(reason)) detail.textContent = line(reason);
  const screen = document.body.dataset.screen;
  const place = { table: () => document.querySelector('#screen-table .middle'), waiting: () => $('waiting-title'),
    over: () => $('over-title') }[screen]?.();
  if (!place) return;
  if (screen === 'table') {
    if (note.parentElement !== place) place.append(note);
  } else if (note.previousElementSibling !== place) {
    place.after(note);
  }
}

// A paused room lets nobody leave (room/paused): the player may go to the
// start page all the same, keeping the seat. Arguments for confirmDialog.
export const leaveQuestion = ['Leave the room?',
  "The game is being saved, so the room can't let you go just yet. You can go to the start page now: " +
  'your seat stays yours for a while, and the room link brings you back.',
  'Go to the start page', 'Stay here'];
