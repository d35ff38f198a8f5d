// What the page says while its room is paused (protocol/README.md,
// room_paused): the server could not save the game and tries again, and
// nothing can be played until room_resumed. Imported when a room first
// pauses (the built page's one bundle holds it already).

const $ = (id) => document.getElementById(id);

// The notice's look comes with it, to keep it out of style.css:
// over the middle of the table (the pond and the last move) so that nothing
// else moves, under the title of the other screens, and a pause sign.
const style = document.createElement('style');
style.textContent = `
.middle { position: relative; }
.pause-note { display: grid; grid-template-columns: auto minmax(0, 1fr); align-content: center; gap: 0.1rem 0.7rem;
  background: #fff6d6; color: var(--ink); border: 3px solid var(--sun); border-radius: 1rem; padding: 0.5rem 0.9rem; margin: 0.6rem 0; }
.pause-note::before { content: ""; grid-row: span 2; align-self: center; width: 2.6rem; height: 2.6rem; border-radius: 50%;
  background: linear-gradient(90deg, transparent 33%, var(--ink) 33% 44%, transparent 44% 56%, var(--ink) 56% 67%, transparent 67%)
    center / 100% 42% no-repeat, var(--sun); }
.middle:has(> .pause-note:not([hidden])) .pond-count { visibility: hidden; }
.middle > .pause-note { position: absolute; inset: -0.2rem; margin: 0; z-index: 2; box-shadow: 0 2px 10px rgba(0, 0, 0, 0.2); overflow: auto; }
.pause-title { margin: 0; font-weight: 800; font-size: 1.15rem; line-height: 1.3; }
.pause-line { margin: 0; font-size: 1rem; line-height: 1.3; }
@media (max-width: 560px) {
  .pause-note { padding: 0.35rem 0.5rem; gap: 0.1rem 0.5rem; }
  .pause-note::before { width: 1.9rem; height: 1.9rem; }
  .pause-title { font-size: 0.98rem; line-height: 1.25; }
  .pause-line { font-size: 0.86rem; line-height: 1.25; }
}`;
document.head.append(style);

// In a child's words, by the reason room_paused gives; 'busy' is a resume
// the paused room could not let in yet (room/paused).
const TITLES = {
  saving_failed: 'Saving the game failed; trying again…',
  store_unreachable: "The server can't reach the place where it saves games; trying again…",
  busy: 'Your game is being saved; trying again to get you back in…',
};
const title = (reason) => TITLES[reason] ?? 'The game is being saved; trying again…';

export const spoken = (reason) => `Play is paused. ${title(reason)}`;
export const storyLine = 'Play paused until the game is saved.';

const note = document.createElement('div');
note.id = 'pause-note';
note.className = 'pause-note';
note.innerHTML = '<p id="pause-title" class="pause-title"></p><p class="pause-line">' +
  'Wait a moment: the game goes on by itself as soon as it is saved.</p>';
const heading = note.firstChild;

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
