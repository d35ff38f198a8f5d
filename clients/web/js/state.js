// The client's picture of its room: the latest snapshot with every event
// since applied to it. Snapshots (after a join, a resume or a resync) are the
// authority; events keep the picture current between them.

import { cardOrder } from './cards.js';

// Computer players get friendly names of their own (the server calls them
// "Medium bot", "Medium bot 2"); every page of a room picks the same ones.
const BOT_NAMES = ['Bubbles', 'Goldie', 'Finn', 'Coral', 'Splash', 'Pebble'];
const SERVER_BOT_NAME = /^(easy|medium|hard) bot( \d+)?$/i;

export class RoomState {
  constructor() {
    this.reset();
  }

  reset() {
    this.room = null;       // the snapshot fields: code, state, host, you, settings, seats, game, result...
    this.v = -1;
    this.ready = [];        // seats that asked for a rematch
    this.gameLog = [];      // this game's events as this viewer saw them, for the replay
    this.players = null;    // this game's players, {name, bot} per seat (names stay after someone leaves)
    this.wins = {};         // games won in this room, by player name
  }

  get you() { return this.room?.you ?? null; }
  get isSpectator() { return this.room && this.room.you === null; }
  get rules() { return this.room?.settings?.rules; }

  nameOf(seat) {
    const seats = this.room?.seats ?? [];
    const s = seats[seat];
    const name = s?.name || this.players?.[seat]?.name;
    if (!name) return `Seat ${seat + 1}`;
    if (!(s?.occupant === 'bot' || (!s?.name && this.players?.[seat]?.bot)) || !SERVER_BOT_NAME.test(name)) return name;
    const taken = new Set(seats.filter((x) => x.occupant === 'human').map((x) => x.name.toLowerCase()));
    let k = 0;
    for (let i = 0; i <= seat; i++) {
      const other = seats[i];
      if (i < seat && !(other?.occupant === 'bot' && SERVER_BOT_NAME.test(other.name))) continue;
      while (taken.has(BOT_NAMES[k % BOT_NAMES.length].toLowerCase())) k++;
      if (i === seat) return BOT_NAMES[k % BOT_NAMES.length];
      taken.add(BOT_NAMES[k % BOT_NAMES.length].toLowerCase());
    }
    return name;
  }

  // "medium" for a computer player (or the computer playing for a person), else null.
  botLevel(seat) {
    const s = this.room?.seats?.[seat];
    if (s?.occupant === 'bot') return s.bot;
    return null;
  }

  applySnapshot(msg) {
    const sameGame = this.room && this.room.code === msg.code && this.room.game_number === msg.game_number;
    this.room = structuredClone(msg);
    this.v = msg.v;
    if (!sameGame) this.gameLog = [];
    // Who has asked for a rematch: the snapshot knows, after a reload too.
    this.ready = (msg.seats ?? []).filter((s) => s.rematch).map((s) => s.seat);
    if (msg.game) msg.game.hand.sort(cardOrder);
  }

  // Applies one event; returns false when it was already seen (v too old).
  applyEvent(v, ev) {
    if (v <= this.v) return false;
    this.v = v;
    const room = this.room;
    const seat = room.seats[ev.seat];
    const game = room.game;
    if (room.state === 'playing' && !['chat', 'spectators'].includes(ev.type)) this.gameLog.push({ v, event: ev });
    switch (ev.type) {
      case 'seat_joined':
        Object.assign(seat, { occupant: 'human', name: ev.name, bot: null, connected: true, bot_playing: false, kicked: false });
        break;
      case 'seat_left':
      case 'kicked':
        if (room.state === 'playing') {
          Object.assign(seat, { connected: false, bot_playing: true, kicked: ev.type === 'kicked' });
        } else {
          Object.assign(seat, { occupant: 'empty', name: '', bot: null, connected: false, bot_playing: false, kicked: false });
        }
        break;
      case 'bot_added':
        Object.assign(seat, { occupant: 'bot', name: ev.name, bot: ev.level, connected: false, bot_playing: false });
        break;
      case 'bot_removed':
        Object.assign(seat, { occupant: 'empty', name: '', bot: null, connected: false, bot_playing: false });
        break;
      case 'connection':
        seat.connected = ev.connected;
        if (ev.connected) seat.bot_playing = false;
        break;
      case 'spectators': room.spectators = ev.count; break;
      case 'host_changed': room.host = ev.seat; break;
      case 'bot_takeover':
        if (ev.reason !== 'timeout') Object.assign(seat, { bot_playing: true, bot: ev.level });
        break;
      case 'turn_timer': room.timer = { seat: ev.seat, seconds: ev.seconds, deadline_ms: ev.deadline_ms }; break;
      case 'rematch': this.ready = ev.ready; break;
      case 'chat': break;   // the page keeps chat itself (app.js)
      case 'game_started':
        this.players = ev.players;
        room.state = 'playing';
        room.game_number = ev.game;
        room.result = null;
        room.timer = null;
        this.ready = [];
        this.gameLog = [{ v, event: ev }];
        room.game = {
          players: ev.players.length, hand: [], stock: 0, phase: 'ask', turn: 0, to_act: 0, pending: null, legal: null,
          improper: null,
          seats: ev.players.map(() => ({ hand_size: 0, status: 'in', score: 0, sets: [], misses_next_turn: false, barred: [] })),
          end_reason: null, winners: [],
        };
        break;
      default:
        if (game) this.applyGameEvent(ev, game);
    }
    return true;
  }

  applyGameEvent(ev, game) {
    const you = this.you;
    const seats = game.seats;
    const take = (cards) => { game.hand = game.hand.filter((c) => !cards.includes(c)); };
    const add = (cards) => { game.hand = [...game.hand, ...cards].sort(cardOrder); };
    game.legal = null;  // the `turn` after the decision's events brings the next ones
    game.improper = null;
    switch (ev.type) {
      case 'deal': Object.assign(game, { stock: ev.stock, turn: ev.first, to_act: ev.first, dealer: ev.dealer }); break;
      case 'hand_dealt':
        seats[ev.seat].hand_size = ev.count;
        if (ev.seat === you && ev.cards) game.hand = [...ev.cards].sort(cardOrder);
        break;
      case 'asked':
        this.room.timer = null;
        // Under table rules an ask out of turn is only a penalty: nobody answers.
        if (this.rules?.table_rules && ev.seat === game.turn) Object.assign(game, { phase: 'answer', to_act: ev.target, pending: { ...ev } });
        break;
      case 'penalty': {
        const s = seats[ev.seat];
        if (ev.kind !== 'asked_out_of_turn') s.misses_next_turn = true;
        if (ev.kind !== 'illegal_call' && !s.barred.includes(ev.rank)) {
          s.barred.push(ev.rank);
          for (const set of s.sets) if (set.rank === ev.rank && set.scores) { set.scores = false; s.score -= 1; }
        }
        break;
      }
      case 'answered': Object.assign(game, { phase: 'ask', to_act: game.turn, pending: null }); break;
      case 'gave':
        seats[ev.from].hand_size -= ev.cards.length;
        seats[ev.to].hand_size += ev.cards.length;
        if (ev.from === you) take(ev.cards);
        if (ev.to === you) add(ev.cards);
        break;
      case 'drew':
        seats[ev.seat].hand_size += 1;
        game.stock = Math.max(0, game.stock - 1);
        if (ev.seat === you && ev.card) add([ev.card]);
        break;
      case 'set_laid': {
        const s = seats[ev.seat];
        s.hand_size -= ev.cards.length;
        s.sets.push({ rank: ev.rank, scores: ev.outcome === 'scores' });
        if (ev.outcome === 'scores') s.score += 1;
        if (ev.seat === you) take(ev.cards);
        break;
      }
      case 'turn_passed': game.turn = ev.to; game.to_act = ev.to; this.room.timer = null; break;
      case 'sat_out': seats[ev.seat].status = 'sitting_out'; break;
      case 'went_out': seats[ev.seat].status = 'out'; break;
      case 'missed_turn': seats[ev.seat].misses_next_turn = false; break;
      case 'game_over':
        for (const w of ev.winners) {
          const name = this.nameOf(w);
          this.wins[name] = (this.wins[name] ?? 0) + 1;
        }
        this.room.state = 'over';
        this.room.timer = null;
        this.room.result = { reason: ev.reason, hands: ev.hands, scores: ev.scores, winners: ev.winners };
        Object.assign(game, { phase: 'over', end_reason: ev.reason, winners: ev.winners });
        break;
      default: break;
    }
  }

  // The `turn` that closes a decision (at the picture's version): what this
  // seat may do now, as the server lists it: its legal decisions when it is
  // to act, and under table rules its improper ones whoever is to act.
  applyTurn(msg) {
    const g = this.room?.game;
    if (!g || msg.v !== this.v) return;
    const seated = this.you !== null && this.you !== undefined;
    g.legal = seated && msg.seat === this.you ? msg.legal ?? null : null;
    g.improper = seated ? msg.improper ?? null : null;
  }

  // True when this seat should ask now but the picture has no legal list yet.
  needsLegal() {
    const g = this.room?.game;
    return this.room?.state === 'playing' && !this.isSpectator && g && g.to_act === this.you && !g.legal;
  }
}
