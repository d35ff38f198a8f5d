// Games on this device (local-room.js): "Play with the computer" when the
// server cannot be reached, a game kept from before a reload, and leaving
// one. While a local game is open, session.local answers the page's requests
// (session.request) and the server's connection serves nothing of it.

import { session, settings } from './session.js';
import { confirmDialog } from './screens.js';
import { loadEngine } from './engine-module.js';

const $ = (id) => document.getElementById(id);
const kStore = 'gofish.local';
// The room code of a game on this device (no server room has five letters of this kind).
export const kLocalCode = 'LOCAL';

// The game kept on this device (local-room.js's record), or null.
export function savedLocal() {
  try {
    const record = JSON.parse(localStorage.getItem(kStore) ?? 'null');
    return record && Array.isArray(record.players) && Array.isArray(record.decisions) ? record : null;
  } catch {
    return null;
  }
}

function keep(record) {
  try {
    if (record) localStorage.setItem(kStore, JSON.stringify(record));
    else localStorage.removeItem(kStore);
  } catch { /* full: the game goes on, unkept */ }
}

// How long a computer player "thinks", tied to the page's own pace (the
// tests' pace 0 plays at once).
const botDelay = () => Math.min(800, Number(settings.get('pace', '1000')) || 0);

async function openLocal(makeRecord, resumed) {
  let engine;
  let LocalRoom;
  try {
    [engine, { LocalRoom }] = await Promise.all([loadEngine(), import('./local-room.js')]);
  } catch {
    $('home-error').textContent = 'The game could not be loaded on this device. Connect to the internet once and try again.';
    session.ui.starting = false;
    return false;
  }
  const record = makeRecord(LocalRoom);
  session.local?.close();
  session.resetRoom({ code: kLocalCode, as: 'player', name: record.players[record.you ?? 0].name, local: true });
  if (resumed) session.restoreState(kLocalCode);
  else session.forgetStoredState(kLocalCode);
  session.ui.local = true;
  session.ui.shared = !!record.shared;
  session.local = new LocalRoom(engine, (msg) => session.onMessage(msg), record,
    { botDelay: botDelay(), keep, code: kLocalCode, onPass: passTo });
  session.local.open({ resumed });
  session.paintConn();
  session.ui.starting = false;
  session.queueRender();
  return true;
}

// Pass and play: once the table has told everything before it, the device
// goes to the person at `seat` (pass-play.js's screen).
async function passTo(seat) {
  const local = session.local;
  while (session.pacer.busy) await new Promise((resolve) => { setTimeout(resolve, 100); });
  if (session.local !== local || local.toAct() !== seat) return;
  const { showPass } = await import('./pass-play.js');
  if (session.local !== local || local.toAct() !== seat) return;
  // The table behind the screen is drawn now, from the picture with no hand.
  session.render();
  const g = session.state.room?.game;
  const why = g?.phase === 'answer' && g.pending?.target === seat
    ? `${session.state.nameOf(g.pending.seat)} asked ${session.state.nameOf(seat)}: it's theirs to answer.`
    : `It's ${session.state.nameOf(seat)}'s turn. Everyone else, no peeking!`;
  const stop = async () => {
    // "Leave" as on the table (it asks first); kept on, the device still goes to the same person.
    const { leave } = await import('./navigation.js');
    await leave();
    if (session.local === local) passTo(seat);
  };
  const take = () => {
    if (session.local !== local) return;
    session.ui.myResult = null;   // the last person's own corner is not the next one's
    local.takeDevice(seat);
  };
  showPass(session.state.nameOf(seat), why, take, stop);
}

// Pass and play: players [{name, bot}], the people first.
export function startShared(rules, players) {
  return openLocal((LocalRoom) => LocalRoom.fresh(rules, players, null, true), false);
}

// With no server, "Play with the computer" will play on the device: the
// engine and the game's bundle are made ready while the start page waits.
export function warmLocal() {
  loadEngine().catch(() => {});
  import('./local-room.js').catch(() => {});
}

// A new game on this device: `players` [{name, bot}], `you` this page's seat.
export function startLocal(rules, players, you) {
  return openLocal((LocalRoom) => LocalRoom.fresh(rules, players, you), false);
}

// The game this device kept (a reload in the middle of it), if any.
export function resumeLocal() {
  const record = savedLocal();
  return record ? openLocal(() => record, true) : Promise.resolve(false);
}

// Leaving a game on this device ends it (after asking, while it is played).
// True when the page left.
export async function leaveLocal() {
  const room = session.state.room;
  if (room?.state === 'playing') {
    const ok = await confirmDialog('Leave the game?', 'This game on this device ends, and cannot be played on later.',
      'Leave the game', 'Keep playing');
    if (!ok) return false;
  }
  await session.local.request({ type: 'leave' });
  session.local = null;
  session.paintConn();
  session.ui.local = false;
  session.ui.shared = false;
  if (document.getElementById('pass-dialog')?.open) (await import('./pass-play.js')).hidePass();
  session.forgetStoredState(kLocalCode);
  return true;
}
