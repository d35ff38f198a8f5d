// Moving between rooms: where a page starts (an invite link, a seat this
// browser holds, or home), getting back into the room after a reload or a
// reconnection, a room that pauses, and every way out of a room (leaving,
// stepping away, being removed, the room closing).

import { session, settings, savedName } from './session.js';
import { seatStore, unanswered } from './connection.js';
import { confirmDialog, renderLobby, renderPresets, renderSeatSetup, showError, showScreen } from './screens.js';
import { addStory } from './announcements.js';
import { classEntry, classroom } from './class-loader.js';
import { join } from './join-room.js';
import { leaveLocal } from './local-play.js';

const $ = (id) => document.getElementById(id);
const { state, ui, announcer } = session;

export const roomPath = () => location.pathname.match(/^\/r\/([A-Za-z0-9]{5})\/?$/)?.[1]?.toUpperCase() ?? null;

// After each welcome (connection.js).
export async function onReady(w, isReconnect) {
  session.welcome = w;
  renderPresets(w.presets, document.querySelector('input[name=preset]:checked')?.value ?? 'classic');
  renderSeatSetup(Number($('seat-count').value), w.bot_levels);
  if (session.klass) {
    // A class's teacher or pupil: the event is entered again first (a
    // pupil's seat comes back with the event_seat that answers it).
    await (await classroom()).rejoin();
  } else if (session.local) {
    // A game on this device needs no server: it goes on as it was.
  } else if (session.current) {
    await reenter();
  } else if (!isReconnect) {
    startPage();
  }
}

// Where a page starts (a load, or Back and Forward): an invite link, a seat
// this browser holds, or home.
export function startPage() {
  const entry = classEntry();
  if (entry.replay) {
    // Opened at load already (app.js): it needs no socket.
    if (document.body.dataset.screen !== 'replay') classroom().then((c) => c.openReplay(entry.replay));
    return;
  }
  if (entry.teach || entry.event) {
    classroom().then((c) => (entry.teach ? c.resumeTeacher(entry.teach) : c.openPupil(entry.event)));
    return;
  }
  const code = roomPath();
  if (code && localStorage.getItem(`gofish.kicked.${code}`)) {
    showGone('The host removed you from this room', `You can't go back into room ${code}. Start a new game from the start page!`);
    return;
  }
  if (code && seatStore.get(code)) {
    session.resetRoom({ code, as: 'player' });
    session.restoreState(code);
    session.queueRender();
    // A socket opened for another room is replaced, and the welcome on the
    // new one resumes the seat (onReady); otherwise resume now.
    if (!session.conn.useRoom(code)) reenter();
    return;
  }
  if (code && entry.watch) {
    // "Watch" from a class's console: straight in as a spectator.
    history.replaceState(null, '', `/r/${code}`);
    join(code, 'spectator', 'name', 'join-error');
    return;
  }
  if (code) {
    session.conn.useRoom(code);
    $('invite-code').textContent = code;
    $('invite-name').value = savedName();
    showScreen('invite');
    return;
  }
  goHome();
}

// A join or resume answered room/busy (the room is moving between servers)
// or room/paused (its game is being saved again) is asked again in a moment,
// as after a reconnection: a join for about 30 s, a resume of this page's
// seat until let in. onBusy(reply) tells the person meanwhile.
// A room that is a class's table (room/class_table) is asked for again,
// once, on a socket opened by the class's code, which a proxy in front of
// several servers sends to the class's server.
export async function enterRequest(msg, onBusy = () => {}, attempts = 40) {
  let rerouted = false;
  for (let attempt = 1; ; attempt++) {
    const reply = await session.conn.request(msg);
    if (reply.code === 'room/class_table' && typeof reply.event === 'string' && !rerouted) {
      rerouted = true;
      await session.conn.reroute(reply.event);
      continue;
    }
    if ((reply.code !== 'room/busy' && reply.code !== 'room/paused') || attempt >= attempts) return reply;
    onBusy(reply);
    await new Promise((resolve) => { setTimeout(resolve, 750); });
  }
}

// The room is paused, not moving.
export const pausedBusy = (reply) => reply.code === 'room/paused';
// A resume or watch told the room is paused: the table says so.
const busyEntering = (code) => (reply) => { if (pausedBusy(reply) && ui.paused?.code !== code) pauseRoom(code, 'busy'); };

// Back into the room after a reload or a reconnect: resume the seat (with the
// last version received, so the server replays only what was missed) or, for a
// spectator, watch again.
async function reenter() {
  const current = session.current;
  const code = current.code;
  if (current.as === 'spectator') {
    session.clearPicture();
    const reply = await enterRequest({ type: 'join', code, name: current.name, as: 'spectator' }, busyEntering(code), Infinity);
    if (reply.type !== 'error') resumeRoom(code);
    if (reply.type === 'error' && reply.code !== 'client/offline') leftRoom(`Could not watch room ${code} again: ${reply.message}`);
    return;
  }
  const seat = seatStore.get(code);
  if (!seat) { leftRoom(`Your seat in room ${code} is gone.`); return; }
  const msg = { type: 'resume', token: seat.token };
  if (state.room?.code === code && session.receivedV >= 0) msg.last_v = session.receivedV;
  const reply = await enterRequest(msg, busyEntering(code), Infinity);
  if (reply.type !== 'error') {
    if (settings.get('away', '') === code) localStorage.removeItem('gofish.away');
    resumeRoom(code);   // let in: not paused (any more)
    return;
  }
  if (reply.code === 'client/offline' || unanswered(reply)) return;   // the next connection tries again
  forgetRoom(code);
  if (reply.code === 'room/kicked') {
    localStorage.setItem(`gofish.kicked.${code}`, '1');
    showGone('The host removed you from this room', `You can't go back into room ${code}. Start a new game from the start page!`);
    return;
  }
  showGone('That game is not there any more', `Your seat in room ${code} is no longer kept for you (${reply.message}) ` +
    'You can start a new game from the start page.');
}

// The events after `lastV`, when a version was skipped (a "resync" resume):
// the only resume a page sends while its connection lasts. Every decision
// ends with a `turn`, which tells the seat to act what it may do.
export async function resync(lastV) {
  const seat = session.current && seatStore.get(session.current.code);
  if (!seat) return;
  const reply = await enterRequest({ type: 'resume', token: seat.token, last_v: lastV });
  if (unanswered(reply)) setTimeout(() => resync(lastV), 700);
}

// Until room_resumed nothing is offered and held replies are awaited.
export async function pauseRoom(code, reason) {
  const fresh = ui.paused?.code !== code;
  ui.paused = { code, reason };
  session.conn.paused = true;
  session.queueRender();
  session.pauseView ??= await import('./pause.js');
  if (fresh && session.current?.code === code && ui.paused?.code === code) {
    addStory(null, session.pauseView.storyLine(reason), 'room');
    announcer.flush();
    announcer.say(session.pauseView.spoken(reason), { first: true });
  }
  session.queueRender();
}

// What the pause held back has come; the controls follow the turn again.
export function resumeRoom(code) {
  if (ui.paused?.code !== code) return;
  session.forgetPause();
  if (session.current?.code === code) {
    addStory(null, 'The game is saved. Play goes on.', 'room');
    announcer.say('The game is saved. Play goes on.');
  }
  session.queueRender();
}

export const renderPause = () => session.pauseView?.renderPause(session.isPaused() ? ui.paused.reason : null);

// In the room `reply` (to a join or a create_room) let this page into.
export function enteredRoom(reply, name) {
  session.resetRoom({ code: reply.code, as: reply.as ?? 'player', name });
  // This socket is on the room's server already (it created or joined it).
  session.conn.useRoom(reply.code, { reconnect: false });
  if (reply.token) seatStore.set(reply.code, { token: reply.token, seat: reply.seat, name });
  localStorage.removeItem(`gofish.kicked.${reply.code}`);
  if (location.pathname !== reply.invite) history.pushState(null, '', reply.invite);
  for (const id of ['home-error', 'join-error', 'create-error', 'invite-error']) $(id).textContent = '';
}

// Out of the room for good: the seat, the kept picture and the way back are gone.
export function forgetRoom(code) {
  seatStore.forget(code);
  session.forgetStoredState(code);
  if (settings.get('away', '') === code) localStorage.removeItem('gofish.away');
  clearTable();
}

// Out of the room on this page: no table, no pause notice, no pending sentences.
function clearTable() {
  session.resetRoom(null);
  $('room-label').textContent = '';
}

function leftRoom(message) {
  session.klass = null;
  if (session.current) forgetRoom(session.current.code);
  if (location.pathname !== '/') history.pushState(null, '', '/');
  goHome();
  if (message) $('home-error').textContent = message;
}

export function showGone(title, text) {
  $('gone-title').textContent = title;
  $('gone-text').textContent = text;
  $('room-label').textContent = '';
  showScreen('gone');
  $('gone-title').focus();
}

export function goHome() {
  $('name').value = $('name').value || savedName();
  const away = settings.get('away', '');
  $('away-box').hidden = !(away && seatStore.get(away));
  $('join-error').textContent = '';  // about an earlier try, not this visit
  if (away) {
    $('away-text').textContent = `You stepped away from your game in room ${away}. ${settings.get('awayNote', '') === 'paused'
      ? 'Your seat is kept for you for a while.' : 'A computer player takes your turns until you come back.'}`;
  }
  showScreen('home');
  refreshLobby();
  refreshDaily();
}

// How many have played today's deal, under its button.
export async function refreshDaily() {
  if (!session.conn.ready) return;
  const reply = await session.conn.request({ type: 'read_daily' });
  if (reply.type !== 'daily') return;
  const n = reply.players;
  // One short line in a box of one line's height: nothing below it moves.
  $('daily-count').textContent = n === 0 ? 'Nobody has played it yet today.'
    : `${n} ${n === 1 ? 'person has' : 'people have'} played it today.`;
}

export async function refreshLobby() {
  if (!session.conn.ready) return;
  const reply = await session.conn.request({ type: 'lobby' });
  if (reply.type === 'lobby') renderLobby(reply.rooms);
}

// Leaving: between games the seat is given up; during a game the page steps
// away (the seat stays yours, and the room link brings you back to it until
// the game is over). A paused room lets nobody leave (room/paused).
export async function leave() {
  if (session.local) {
    if (await leaveLocal()) leftRoom();
    return;
  }
  const room = state.room;
  const playing = room?.state === 'playing' && session.current?.as === 'player';
  if (playing) {
    const ok = await confirmDialog('Leave the game?',
      'A computer player will take your turns. You can come back to your seat with the room link until the game is over.',
      'Leave the game', 'Keep playing');
    if (!ok) return;
    stepAway('game');
    return;
  }
  const reply = await session.conn.request({ type: 'leave' });
  if (reply.code === 'room/paused') {
    if (await leavePaused()) leave();
    return;
  }
  if (reply.type === 'error' && !['room/not_in_room', 'client/offline'].includes(reply.code)) { showError(reply.message); return; }
  leftRoom();
}

// Leaving a paused room: a spectator goes; a player may go, keeping the seat.
// True when the room went on meanwhile.
async function leavePaused() {
  if (session.current.as === 'spectator') {
    leftRoom();
    session.conn.restart();
    return false;
  }
  session.pauseView ??= await import('./pause.js');
  const ok = await confirmDialog(...session.pauseView.leaveQuestion);
  if (!ok || !session.current) return false;
  if (!session.isPaused()) return true;
  stepAway('paused');
  return false;
}

// To the start page, keeping the seat.
function stepAway(why) {
  // A class's pupil leaving the table leaves the class's page too: a
  // reconnection must not seat them again (the class's link does).
  session.klass = null;
  settings.set('away', session.current.code);
  settings.set('awayNote', why);
  clearTable();
  session.conn.restart();
  history.pushState(null, '', '/');
  goHome();
}

// The ways out that every screen has: Back and Forward, the "Back" and
// "Leave" buttons, and the title (which goes nowhere from inside a room).
export function wireNavigation() {
  for (const b of document.querySelectorAll('.back')) {
    b.addEventListener('click', () => {
      if (location.pathname !== '/') history.pushState(null, '', '/');
      goHome();
      $('home-title').focus();
    });
  }
  $('home-link').addEventListener('click', (e) => { if (session.current) e.preventDefault(); });
  addEventListener('popstate', async () => {
    const code = roomPath();
    const current = session.current;
    if (current && code === current.code) return;
    if (current) {
      // Back out of a room: the same as "Leave" (a game asks first).
      const playing = state.room?.state === 'playing' && current.as === 'player';
      history.pushState(null, '', `/r/${current.code}`);
      if (playing) { leave(); return; }
      await leave();
      return;
    }
    startPage();
  });
  for (const b of document.querySelectorAll('.leave-button')) b.addEventListener('click', leave);
}
