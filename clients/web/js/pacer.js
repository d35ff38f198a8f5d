// The page plays what it receives at a readable pace of its own. A bot's ask,
// the answer and the draw reach the page within a millisecond; shown as they
// come, each would be gone before anyone could read it. So messages wait in a
// queue and are played move by move: a move (an ask and everything it caused,
// or a deal, or the end) stays on screen for `pace` ms before the next one
// starts. The server's bot delay is a separate setting; when the page falls
// behind (a long run of bot moves, a replay after a reconnect) each move is
// shown for less time until it has caught up.
//
// Items: {kind: 'event', v, event} | {kind: 'room', msg} | {kind: 'turn', msg}.
// Only events that start a move wait; everything else is applied as soon as
// it reaches the front of the queue, so the picture never skips a version.
// The player's own next decision waits too (app.js offers nothing while the
// pacer is busy), so the result of the last move is read before it goes.

const STARTS = new Set(['asked', 'game_started', 'game_over']);
const GAME = new Set(['deal', 'hand_dealt', 'answered', 'gave', 'go_fish', 'drew', 'lucky_draw', 'set_laid',
  'penalty', 'turn_passed', 'sat_out', 'went_out', 'missed_turn']);

// How long a move stays, by how many moves wait behind it: the full pace
// when the page is keeping up, a little less with a few waiting (bots that
// act every 800 ms never make it fall further behind), and much less when it
// is far behind.
export function dwellFor(pace, backlog) {
  if (pace <= 0) return 0;
  if (backlog === 0) return pace;
  if (backlog <= 5) return Math.max(Math.min(pace, 850), pace * 0.85);
  if (backlog <= 15) return pace * 0.3;
  return pace * 0.05;
}

export class Pacer {
  // apply(item): changes the picture; onMove(move, fresh): a move started
  // (fresh) or grew; onChange(): something was applied; onIdle(): the queue
  // is empty. mine(event): the viewer's own ask, which never waits.
  constructor({ apply, onMove, onChange, onIdle, mine, pace }) {
    Object.assign(this, { apply, onMove, onChange, onIdle, mine, pace });
    this.queue = [];
    this.move = null;     // {id, events, started, shown, until}
    this.timer = null;
    this.nextId = Date.now();   // move ids stay unique across reloads (the story keeps them)
  }

  push(item) {
    this.queue.push(item);
    this.pump();
  }

  // Drops everything waiting (a new room, or leaving one).
  clear() {
    this.queue = [];
    this.move = null;
    clearTimeout(this.timer);
    this.timer = null;
  }

  // True while something waits to be shown or the latest move is still being
  // read: the page offers the player nothing until the story has caught up.
  get busy() { return this.queue.length > 0 || (!!this.move && performance.now() < this.move.until); }

  // The page drew move `id` only now: its time on screen counts from here, not
  // from when it left the queue. A busy page draws its next frame late, and
  // the move before it, drawn on time, would otherwise get that much of its
  // time back.
  shown(id) {
    const move = this.move;
    if (!move || move.id !== id || move.shown) return;
    move.shown = true;
    const late = performance.now() - move.started;
    if (late <= 0 || move.until <= move.started) return;  // no time to stay (pace 0): none added
    move.until += late;
    // The queue may have gone idle meanwhile; it must look again when the new time is up.
    if (!this.timer) this.timer = setTimeout(() => this.pump(), move.until - performance.now());
  }

  startsMove(item) { return item.kind === 'event' && STARTS.has(item.event.type); }

  backlog() {
    let n = 0;
    for (const item of this.queue) if (this.startsMove(item)) n += 1;
    return n;
  }

  pump() {
    clearTimeout(this.timer);
    this.timer = null;
    let changed = false;
    while (this.queue.length) {
      const item = this.queue[0];
      const now = performance.now();
      if (this.startsMove(item)) {
        if (this.move && now < this.move.until && !this.mine(item.event)) {
          this.timer = setTimeout(() => this.pump(), this.move.until - now);
          break;
        }
        this.queue.shift();
        this.apply(item);
        this.move = { id: this.nextId++, events: [item.event], started: now, shown: false,
          until: now + dwellFor(this.pace, this.backlog()) };
        this.onMove(this.move, true);
        changed = true;
        continue;
      }
      this.queue.shift();
      this.apply(item);
      changed = true;
      if (item.kind !== 'event' || !GAME.has(item.event.type)) continue;
      if (!this.move) {
        // A move already under way when this page started (after a snapshot).
        this.move = { id: this.nextId++, events: [], started: now, shown: false, until: now };
      }
      this.move.events.push(item.event);
      // A late part of a move (an answer under table rules) gets its own time too.
      this.move.until = Math.max(this.move.until, now + dwellFor(this.pace, this.backlog()) * 0.6);
      this.onMove(this.move, false);
    }
    if (changed) this.onChange();
    if (this.queue.length) return;
    const left = this.move ? this.move.until - performance.now() : 0;
    if (left > 0) this.timer = setTimeout(() => this.pump(), left);
    else this.onIdle();
  }
}
