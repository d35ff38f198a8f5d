// The WebSocket to the server: hello, request/reply matching by id,
// reconnection with backoff, a heartbeat that notices a silent connection,
// and seat tokens kept in the browser so a reload or a dropped network
// resumes the seat (protocol/README.md, "resume"). A socket for a known room
// opens /ws?room=CODE: the server ignores it, a proxy in front of several
// servers sends the socket to the one serving that room.

const kClient = 'web/0.2';
// The protocol version this page speaks, sent in hello. It must equal the
// server's (protocol/limits.hpp, kProtocolVersion), which
// tests/protocol/web_version_test.cpp checks.
const kProtocolVersion = 1;
const kBackoffMs = [250, 750, 1500, 3000];
// A connection that has said nothing for kQuietMs gets a ping; one whose
// ping is unanswered at kStalledMs is shown as lost (the table takes the
// hand out of play, well within 5 s) while it still waits; one silent for
// kDeadMs (no pong either) is given up and replaced: a dead network shows
// at once and is replaced within 10 s, not after the server's 60 s idle timeout.
const kQuietMs = 2000;
const kStalledMs = 3500;
const kDeadMs = 6000;
// A socket without `welcome` after kHandshakeMs is closed and tried again: a
// proxy may hand it to a frozen server that takes connections but never
// answers. TCP, TLS, the upgrade and hello take a second or two on a slow
// mobile network; 3.5 s allows that and gives up well before kDeadMs.
const kHandshakeMs = 3500;

// Tokens live in sessionStorage (this tab, survives a reload) and in
// localStorage (this browser, survives closing the tab). The tab's own copy
// wins, so two tabs of one browser can hold two seats of one room.
export const seatStore = {
  key: (code) => `gofish.seat.${code}`,
  get(code) {
    const text = sessionStorage.getItem(this.key(code)) ?? localStorage.getItem(this.key(code));
    try { return text ? JSON.parse(text) : null; } catch { return null; }
  },
  set(code, seat) {
    const text = JSON.stringify(seat);
    sessionStorage.setItem(this.key(code), text);
    localStorage.setItem(this.key(code), text);
  },
  forget(code) {
    sessionStorage.removeItem(this.key(code));
    localStorage.removeItem(this.key(code));
  },
};

// A request the server never answered (dropped for the rate, or timed out):
// worth asking again in a moment.
export const unanswered = (reply) => reply.type === 'error' && ['protocol/rate_limited', 'client/timeout'].includes(reply.code);

export class Connection {
  constructor({ onMessage, onStatus, onReady }) {
    this.onMessage = onMessage;   // messages that answer no request: events, snapshots, closing
    this.onStatus = onStatus;     // (status, detail) for the connection badge
    this.onReady = onReady;       // after each welcome: (welcome, isReconnect)
    this.nextId = 1;
    this.pending = new Map();
    this.attempt = 0;
    this.everReady = false;
    this.stopped = false;
    this.ws = null;
    this.welcome = null;
    // The server's message rate (a token bucket, welcome.limits): requests
    // wait here for a token rather than be dropped by the server. It mirrors
    // the C++ bucket the server and gofish-cli share (protocol/token_bucket.hpp).
    this.bucket = { rate: 10, burst: 20, tokens: 20, at: 0 };
    this.queue = [];
    this.queueTimer = null;
    this.heard = 0;
    this.pingAt = 0;
    this.room = null;       // the code the next socket opens with (?room=)
    this.socketRoom = null; // the code the current socket opened with
    this.welcomed = [];     // resolvers waiting for the next welcome
    this.quietWelcome = false; // the next welcome follows reroute(): onReady is not told
    this.paused = false;    // the room is paused: replies held by the server are late, not lost
    this.stalled = false;  // the connection is quiet past kStalledMs
    setInterval(() => this.heartbeat(), 500);
    addEventListener('offline', () => this.lost('Your device is offline. Waiting for the network…'));
    addEventListener('online', () => this.reconnectNow());
  }

  url() {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const query = this.room ? `?room=${encodeURIComponent(this.room)}` : '';
    return `${scheme}//${location.host}/ws${query}`;
  }

  // The room this page is about to be in (joining, watching, resuming) or is
  // in (after creating it). Every socket from now on opens for it; with
  // `reconnect`, a socket open for no room or another is replaced at once,
  // so the request that follows goes to the room's server. True when the
  // caller should wait for whenWelcomed() before its next request.
  useRoom(code, { reconnect = true } = {}) {
    this.room = code;
    if (!reconnect || !this.ws || this.socketRoom === code) return false;
    this.restart();
    return true;
  }

  // A join or resume answered room/class_table: the room is a class's
  // table, served with its class. The socket is opened again by the class's
  // code (a proxy sends it to the class's server), and so is every socket
  // after it; the caller asks again once this resolves. That welcome is no
  // reconnection for the page (onReady is not told): the request is simply
  // asked again.
  reroute(code) {
    this.room = code;
    this.quietWelcome = true;
    this.restart();
    return this.whenWelcomed();
  }

  // Resolves at the next welcome (or after `timeoutMs`, when the request
  // that follows will find the connection offline and say so).
  whenWelcomed(timeoutMs = 5000) {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.welcomed.push(() => { clearTimeout(timer); resolve(); });
    });
  }

  open() {
    this.stopped = false;
    clearTimeout(this.retryTimer);
    this.onStatus('connecting', this.everReady ? 'Reconnecting…' : 'Connecting…');
    this.socketRoom = this.room;
    const ws = new WebSocket(this.url());
    this.ws = ws;
    this.heard = performance.now();
    this.pingAt = 0;
    this.stalled = false;
    clearTimeout(this.handshakeTimer);
    this.handshakeTimer = setTimeout(() => { if (!this.ready) this.closed(ws, {}); }, kHandshakeMs);
    ws.addEventListener('open', () => {
      ws.send(JSON.stringify({ type: 'hello', protocol: kProtocolVersion, client: kClient }));
    });
    ws.addEventListener('message', (e) => this.receive(ws, e.data));
    ws.addEventListener('close', (e) => this.closed(ws, e));
  }

  receive(ws, data) {
    if (ws !== this.ws) return;
    this.heard = performance.now();
    if (this.stalled && this.ready) {
      this.stalled = false;
      this.onStatus('online', 'Connected');
    }
    let msg;
    try { msg = JSON.parse(data); } catch { return; }
    if (msg.type === 'welcome' && !this.ready) {
      this.ready = true;
      this.welcome = msg;
      this.attempt = 0;
      this.resetBucket(msg.limits);
      const isReconnect = this.everReady;
      this.everReady = true;
      this.onStatus('online', 'Connected');
      if (this.quietWelcome) this.quietWelcome = false;
      else this.onReady(msg, isReconnect);
      for (const resolve of this.welcomed.splice(0)) resolve();
      return;
    }
    if (msg.id !== undefined && this.pending.has(msg.id)) {
      const resolve = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      resolve(msg);
      return;
    }
    // A request over the rate is dropped and answered by one error without an
    // id. Replies come in order, so the oldest request still waiting is the
    // one that was dropped.
    if (msg.type === 'error' && msg.id === undefined && msg.code === 'protocol/rate_limited' && this.pending.size) {
      const [id, resolve] = this.pending.entries().next().value;
      this.pending.delete(id);
      resolve(msg);
      return;
    }
    if (msg.type === 'closing') this.closingReason = msg.reason;
    this.onMessage(msg);
  }

  closed(ws, event) {
    if (ws !== this.ws) return;
    this.drop();
    if (this.stopped) return;
    if (event.code === 4000) {
      this.onStatus('replaced', 'This seat is now open in another window.');
      return;
    }
    // 4001 moved: the room went to another server of the cluster. Nothing
    // is wrong: reconnect at once (to /ws?room=CODE, which the proxy sends
    // to the room's new server) and resume, showing no error.
    if (event.code === 4001) {
      this.attempt = 0;
      this.open();
      return;
    }
    this.retry(this.everReady ? 'Connection lost. Reconnecting…' : 'Cannot reach the server. Trying again…');
  }

  // Forgets the socket (without waiting for a close that a dead network may
  // never deliver) and settles every request still waiting.
  drop() {
    const ws = this.ws;
    if (ws) {
      this.ws = null;
      try { ws.close(); } catch { /* already closed */ }
    }
    this.ready = false;
    this.ws = null;
    clearTimeout(this.queueTimer);
    this.queueTimer = null;
    this.queue = [];
    // Requests in flight will never be answered: settle them as errors.
    for (const resolve of this.pending.values()) {
      resolve({ type: 'error', code: 'client/offline', message: 'The connection dropped; trying again.' });
    }
    this.pending.clear();
  }

  retry(text) {
    clearTimeout(this.retryTimer);
    const delay = kBackoffMs[Math.min(this.attempt, kBackoffMs.length - 1)];
    this.attempt += 1;
    this.onStatus('offline', text);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  // The connection is gone though the socket has not said so.
  lost(text) {
    if (this.stopped) return;
    this.drop();
    this.retry(text);
  }

  heartbeat() {
    if (!this.ws || this.stopped) return;
    const quiet = performance.now() - this.heard;
    if (quiet > kDeadMs) {
      this.lost('The connection went quiet. Reconnecting…');
    } else if (this.ready && quiet > kStalledMs && !this.stalled) {
      this.stalled = true;
      this.onStatus('stalled', 'The connection is not answering. Waiting…');
    } else if (this.ready && quiet > kQuietMs && performance.now() - this.pingAt > kQuietMs) {
      this.pingAt = performance.now();
      this.request({ type: 'ping' });
    }
  }

  // Starts afresh on a new socket: the server sees this connection leave
  // (stepping away from a game keeps the seat for its token).
  restart() {
    this.drop();
    this.attempt = 0;
    this.open();
  }

  // Sends a request and resolves with its reply (or an error message).
  request(msg) {
    if (!this.ws || !this.ready) {
      return Promise.resolve({ type: 'error', code: 'client/offline', message: 'Not connected to the server yet.' });
    }
    const id = this.nextId++;
    return new Promise((resolve) => {
      // Later drops in one run of drops get no error of their own: give up
      // waiting after a while rather than wait forever.
      let timer = null;
      this.pending.set(id, (reply) => { clearTimeout(timer); resolve(reply); });
      const wait = () => {
        timer = setTimeout(() => {
          if (this.paused) wait();
          else if (this.pending.delete(id)) resolve({ type: 'error', code: 'client/timeout', message: 'The server did not answer; trying again.' });
        }, 10_000);
      };
      this.queue.push(() => {
        wait();
        this.ws.send(JSON.stringify({ ...msg, id }));
      });
      this.drain();
    });
  }

  // At the pace the server asks of its clients (welcome.limits.pace_*), a
  // margin under its rate, so that it never drops a request; the hello it
  // has already counted is taken off the start. A server from before those
  // fields gets half its rate and burst (protocol/README.md, "welcome").
  resetBucket(limits) {
    const paceRate = Number(limits?.pace_messages_per_second);
    const paceBurst = Number(limits?.pace_message_burst);
    const paced = paceRate > 0 && paceBurst > 0;
    const rate = paced ? paceRate : (Number(limits?.messages_per_second) || 10) / 2;
    const burst = paced ? paceBurst : Math.max(1, Math.floor((Number(limits?.message_burst) || 20) / 2));
    this.bucket = { rate, burst, tokens: burst - 1, at: performance.now() };
  }

  // Sends queued requests while the bucket has tokens; otherwise waits for
  // the next token. Requests still queued when the socket drops are settled
  // by closed(), like those in flight.
  drain() {
    const b = this.bucket;
    const now = performance.now();
    b.tokens = Math.min(b.burst, b.tokens + ((now - b.at) / 1000) * b.rate);
    b.at = now;
    while (this.queue.length && b.tokens >= 1 && this.ws && this.ready) {
      b.tokens -= 1;
      this.queue.shift()();
    }
    if (this.queue.length && !this.queueTimer) {
      const wait = Math.ceil(((1 - b.tokens) / b.rate) * 1000);
      this.queueTimer = setTimeout(() => { this.queueTimer = null; this.drain(); }, Math.max(wait, 10));
    }
  }

  // "Retry now", the browser coming back online, or taking the seat back
  // from another window.
  reconnectNow() {
    clearTimeout(this.retryTimer);
    this.attempt = 0;
    if (!this.ws || !this.ready) {
      this.drop();
      this.open();
    }
  }
}
