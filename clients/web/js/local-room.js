// A room on this device: the game is played by the rules engine in the
// browser (engine-module.js) and told to the page in the server's own
// messages (protocol/README.md): a `room` snapshot, each `event` at its room
// version, the `turn` after every decision, and the replies to `ask`,
// `answer`, `declare`, `rematch`, `transcript` and `leave`. So the table, the
// story, the pacer, the narration and the game's end run as they do online,
// and every choice offered comes from the engine's `legal`, as online from
// the server's `turn`: the page derives no rule of its own.
//
// What makes the game (its rules, seed, players and every decision so far)
// is kept (local-play.js: in localStorage) after each decision; a reload
// deals the same cards again, replays the decisions through the engine and
// goes on from there.
//
// Pass and play (record.shared): several people share the device. Every
// event is told as a spectator sees it, so what the table says (the story, the
// middle) shows no one's cards and holds for everyone; a person's hand comes
// only in the snapshot made for them, after they have said who they are. When
// a person other than the one holding the device is to act (to ask, or to
// answer an ask), the room first turns to the spectator's view (no hand at
// all) and calls onPass(seat); the page shows its "Pass to NAME" screen and
// calls takeDevice(seat) when that person taps.
//
// A bundle of its own (clients/web/CMakeLists.txt), imported by
// local-play.js when a game on the device starts: it imports nothing.

const newSeed = () => crypto.getRandomValues(new BigUint64Array(1))[0].toString();

export class LocalRoom {
  // engine: engine-module.js's; deliver(msg): the page's onMessage; record:
  // { rules, players: [{name, bot}], seed, decisions, game_number, base, you };
  // keep(record): stores it (null: the game is over for good); code: the room's;
  // onPass(seat): pass and play, the device goes to that seat's person.
  constructor(engine, deliver, record, { botDelay = 800, keep = () => {}, code = 'LOCAL', onPass = () => {} } = {}) {
    Object.assign(this, { engine, deliver, record, botDelay, keep, code, onPass });
    this.game = null;
    this.sent = 0;         // engine events of this game told to the page
    this.over = false;
    this.result = null;
    this.timer = null;
    this.closed = false;
  }

  // A first game: players [{name, bot}], `you` the seat of this page's person
  // (null for pass and play, `shared`: nobody holds the device yet).
  static fresh(rules, players, you, shared = false) {
    return { rules, players, you, shared, seed: newSeed(), decisions: [], game_number: 1, base: 1 };
  }

  call(name, request) {
    const answer = this.engine.call(name, request);
    if (answer.error) throw new Error(`${answer.error.code}: ${answer.error.message}`);
    return answer;
  }

  save() { this.keep(this.record); }

  // Deals the record's game and replays its decisions; a decision the engine
  // refuses (a record from another version) ends the replay there.
  deal() {
    const r = this.record;
    if (this.game !== null) this.call('end', { game: this.game });
    const started = this.call('start', { rules: r.rules, players: r.players.length, seed: r.seed });
    this.game = started.game;
    this.rules = started.rules;
    this.over = false;
    this.result = null;
    for (let i = 0; i < r.decisions.length; i++) {
      const applied = this.engine.call('apply', { game: this.game, decision: r.decisions[i] });
      if (applied.error) { r.decisions.length = i; break; }
      this.over = applied.over;
    }
  }

  get v() { return this.record.base + this.sent; }

  // The events this page's seat sees from `since` on, and the next number
  // (shared: the spectator's, which everyone may see).
  eventsFrom(since) {
    const r = this.record;
    return this.call('events', { game: this.game, viewer: r.shared || r.you === null ? 'spectator' : r.you, since });
  }

  settings() {
    return { rules: this.rules, seats: this.record.players.length, turn_timer_seconds: 0, spectators: false, listed: false,
      chat: 'off', bot_pace: 'normal' };
  }

  seats() {
    return this.record.players.map((p, seat) => ({ seat, occupant: p.bot ? 'bot' : 'human', name: p.name, bot: p.bot,
      connected: !p.bot, bot_playing: false, kicked: false, rematch: false }));
  }

  // The room as a snapshot at version v: waiting (before the first deal is
  // told), or the game as this seat sees it.
  snapshot(waiting = false) {
    const r = this.record;
    const room = { type: 'room', v: waiting ? r.base - 1 : this.v, code: this.code, invite: '/', state: 'waiting',
      game_number: waiting ? r.game_number - 1 : r.game_number, players: waiting ? [] : r.players, host: 0, you: r.you,
      settings: this.settings(), seats: this.seats(), spectators: 0, timer: null, game: null, result: null };
    if (waiting) return room;
    room.state = this.over ? 'over' : 'playing';
    room.game = this.call('view', { game: this.game, viewer: r.you ?? 'spectator' }).view;
    room.result = this.result;
    return room;
  }

  // Into the page: a new game from its start, or a kept one where it was.
  open({ resumed }) {
    this.deal();
    if (resumed) {
      const seen = this.eventsFrom(0);
      this.sent = seen.next;
      const over = seen.events.findLast((e) => e.type === 'game_over');
      if (over) this.result = { reason: over.reason, hands: over.hands, scores: over.scores, winners: over.winners };
      if (this.record.shared) this.record.you = null;   // whoever holds the device now says who they are
      this.deliver(this.snapshot());
      this.sendTurn();
      this.passIfNeeded();
    } else {
      this.sent = 0;
      this.save();
      this.deliver(this.snapshot(true));
      this.tellStart();
    }
    this.scheduleBot();
  }

  tellStart() {
    const r = this.record;
    this.deliver({ type: 'event', v: r.base, event: { type: 'game_started', game: r.game_number, players: r.players } });
    this.tell();
  }

  // The new events, each at its version, then the `turn` that closes them.
  tell() {
    const seen = this.eventsFrom(this.sent);
    for (const event of seen.events) {
      this.sent += 1;
      if (event.type === 'game_over') {
        this.over = true;
        this.result = { reason: event.reason, hands: event.hands, scores: event.scores, winners: event.winners };
      }
      this.deliver({ type: 'event', v: this.v, event });
    }
    // Shared: the person holding the device sees their own hand again (a card
    // drawn is told to everyone face down).
    if (this.record.shared && this.record.you !== null && seen.events.length > 0) this.deliver(this.snapshot());
    this.sendTurn();
    this.passIfNeeded();
  }

  // Shared: a person other than the one holding the device is to act: nobody's
  // hand stays on the table, and the page asks for the device to be passed.
  passIfNeeded() {
    const r = this.record;
    if (!r.shared) return;
    const seat = this.toAct();
    const person = seat !== null && !r.players[seat].bot;
    if ((this.over || person) && r.you !== null && r.you !== seat) {
      r.you = null;
      this.save();
      this.deliver(this.snapshot());
      this.sendTurn();
    }
    if (person && r.you === null) this.onPass(seat);
  }

  // Shared: the person at `seat` has the device (they said so).
  takeDevice(seat) {
    const r = this.record;
    if (!r.shared || this.toAct() !== seat || r.players[seat].bot) return;
    r.you = seat;
    this.save();
    this.deliver(this.snapshot());
    this.sendTurn();
  }

  sendTurn() {
    const you = this.record.you;
    const turn = { type: 'turn', v: this.v, seat: null };
    if (!this.over && you === null) {
      turn.seat = this.toAct();   // nobody holds the device: no seat's choices at all
    } else if (!this.over) {
      const legal = this.call('legal', { game: this.game, seat: you });
      turn.seat = legal.to_act;
      if (legal.to_act === you && legal.legal) turn.legal = legal.legal;
      if (legal.improper) turn.improper = legal.improper;
    }
    this.deliver(turn);
  }

  toAct() { return this.over ? null : this.call('legal', { game: this.game }).to_act; }

  // A computer player decides after a moment, as the server's bots do.
  scheduleBot() {
    clearTimeout(this.timer);
    const seat = this.toAct();
    if (seat === null || this.closed || !this.record.players[seat].bot) return;
    this.timer = setTimeout(() => {
      if (this.closed) return;
      const { decision } = this.call('bot', { game: this.game, level: this.record.players[seat].bot, seat });
      this.decide(decision);
    }, this.botDelay);
  }

  // Validate (the engine judges), record, tell. Null, or the refusal.
  decide(decision) {
    const applied = this.engine.call('apply', { game: this.game, decision });
    if (applied.error) return applied.error;
    this.record.decisions.push(decision);
    this.record.over = applied.over;   // a game kept over is not resumed: the next visit starts afresh
    this.save();
    this.tell();
    this.scheduleBot();
    return null;
  }

  rematch() {
    if (!this.over) return { code: 'room/not_over', message: 'The game is not over yet.' };
    const r = this.record;
    Object.assign(r, { seed: newSeed(), decisions: [], game_number: r.game_number + 1, base: this.v + 1, over: false });
    if (r.shared) r.you = null;
    this.deal();
    this.sent = 0;
    this.save();
    this.tellStart();
    this.scheduleBot();
    return null;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.game !== null) this.engine.call('end', { game: this.game });
    this.game = null;
  }

  // The page's requests, answered as the server answers them.
  async request(msg) {
    const you = this.record.you;
    if (you === null && ['ask', 'answer', 'declare'].includes(msg.type)) {
      return { type: 'error', id: msg.id, code: 'action/not_your_turn', message: 'It is not your turn.' };
    }
    const refused = (error) => ({ type: 'error', id: msg.id, code: error.code, message: error.message });
    let error = null;
    switch (msg.type) {
      case 'ask': {
        const decision = { seat: you, target: msg.target };
        if (msg.card !== undefined) decision.card = msg.card; else decision.rank = msg.rank;
        error = this.decide(decision);
        break;
      }
      case 'answer': error = this.decide({ seat: you, answer: msg.give ? 'give' : 'go_fish' }); break;
      case 'declare': error = this.decide({ seat: you, declare: msg.rank }); break;
      case 'rematch': error = this.rematch(); break;
      case 'transcript': {
        if (!this.over) return refused({ code: 'room/not_over', message: 'The game is not over yet.' });
        const { transcript } = this.call('transcript', { game: this.game });
        return { type: 'transcript', code: this.code, game: this.record.game_number,
          transcript: { ...transcript, seats: this.record.players } };
      }
      case 'leave':
        this.close();
        this.keep(null);
        break;
      default:
        return refused({ code: 'protocol/bad_message', message: 'That is not something a game on this device does.' });
    }
    return error ? refused(error) : { type: 'ok' };
  }
}
