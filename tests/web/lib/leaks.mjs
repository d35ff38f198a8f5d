// The leak check: no page may see a card of another player's hand before the
// game is over, unless the game showed it to everyone (a catch, a lucky draw,
// a set laid down) or it came to this seat (its own deal and draws).
//
// The truth comes from the transcript (the deck in dealing order) and the
// room's events by version, merged from every page (each page gets every v,
// private events as their public twin). From them, for every seat and every
// version v, we know the set of cards that seat may legitimately know. Every
// card in every frame a page received, and every card its DOM showed, must be
// in that set at that version.

const CARD = /^(10|[2-9JQKA])[CDHS]$/;
const WORD_RANK = { jack: 'J', queen: 'Q', king: 'K', ace: 'A' };
const WORD_SUIT = { clubs: 'C', diamonds: 'D', hearts: 'H', spades: 'S' };
const NAMED_CARD = /\b(10|[2-9]|jack|queen|king|ace) of (clubs|diamonds|hearts|spades)\b/g;

// Cards named in text ("queen of hearts"), as tokens.
export function cardsInText(text) {
  const out = new Set();
  for (const m of text.matchAll(NAMED_CARD)) out.add((WORD_RANK[m[1]] ?? m[1]) + WORD_SUIT[m[2]]);
  return out;
}

// Every card-shaped string anywhere in a JSON value.
export function cardsInJson(value, out = new Set()) {
  if (typeof value === 'string') {
    if (CARD.test(value)) out.add(value);
  } else if (Array.isArray(value)) {
    for (const v of value) cardsInJson(v, out);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) cardsInJson(v, out);
  }
  return out;
}

const parse = (frame) => { try { return JSON.parse(frame.payload); } catch { return null; } };

// The room's events of game `game` by version, merged from every page's frames.
export function canonicalEvents(allFrames, game) {
  const byV = new Map();
  for (const frames of allFrames) {
    for (const f of frames) {
      const m = parse(f);
      if (m?.type === 'event' && !byV.has(m.v)) byV.set(m.v, m.event);
    }
  }
  const start = [...byV].find(([, e]) => e.type === 'game_started' && e.game === game)?.[0];
  if (start === undefined) throw new Error(`no game_started for game ${game}`);
  let end;
  for (let v = start; ; v++) {
    if (!byV.has(v)) throw new Error(`no page saw room version ${v}: cannot check`);
    if (byV.get(v).type === 'game_over') { end = v; break; }
  }
  return { byV, start, end };
}

// known[s] as a function of v: the cards seat s (or -1: a spectator) may know.
export function knownCards(transcript, { byV, start, end }) {
  const players = transcript.players;
  const counts = new Array(players).fill(0);
  let deal = null;
  for (let v = start; v <= end; v++) {
    const e = byV.get(v);
    if (e.type === 'hand_dealt') counts[e.seat] = e.count;
    if (e.type === 'deal') deal = e;
  }
  const dealt = Array.from({ length: players }, () => []);
  const total = counts.reduce((a, b) => a + b, 0);
  let next = 0;
  while (next < total) {
    for (let k = 1; k <= players && next < total; k++) {
      const seat = (deal.dealer + k) % players;
      if (dealt[seat].length < counts[seat]) dealt[seat].push(transcript.deck[next++]);
    }
  }
  const viewers = [-1, ...Array.from({ length: players }, (_, i) => i)];
  const known = new Map(viewers.map((s) => [s, new Set()]));
  const history = [];   // [v, Map(viewer -> Set)] after each version
  const reveal = (cards) => { for (const k of known.values()) for (const c of cards) k.add(c); };
  for (let v = start; v <= end; v++) {
    const e = byV.get(v);
    switch (e.type) {
      case 'hand_dealt': for (const c of dealt[e.seat]) known.get(e.seat).add(c); break;
      case 'drew': known.get(e.seat).add(transcript.deck[next++]); break;
      case 'gave': case 'set_laid': reveal(e.cards); break;
      case 'lucky_draw': reveal([e.card]); break;
      case 'asked': if (e.card) reveal([e.card]); break;
      default: break;
    }
    history.push([v, new Map([...known].map(([s, set]) => [s, new Set(set)]))]);
  }
  return (viewer, v) => {
    if (v < start) return new Set();
    let found = null;
    for (const [hv, m] of history) { if (hv <= v) found = m; else break; }
    return found.get(viewer);
  };
}

// Checks one page's frames (up to its game_over) and DOM samples.
// `viewer` is the page's seat, or -1 for a spectator. Returns a list of leaks.
export function checkPage({ frames, samples = [], viewer, known, end }) {
  const leaks = [];
  let v = -1;
  for (const f of frames) {
    const m = parse(f);
    if (!m) continue;
    if (m.type === 'event' || m.type === 'room') v = m.v;
    if (v >= end) break;   // the game is over: every hand is revealed
    const allowed = known(viewer, v);
    for (const c of cardsInJson(m)) {
      if (!allowed.has(c)) leaks.push(`frame at v ${v} (${m.type}${m.event ? '/' + m.event.type : ''}) shows ${c}`);
    }
  }
  for (const s of samples) {
    if (s.v >= end || s.over) continue;
    const allowed = known(viewer, s.v);
    for (const c of s.cards) if (!allowed.has(c)) leaks.push(`DOM at v ${s.v} shows ${c}`);
  }
  return leaks;
}

// A DOM sample: the room version the page has drawn and every card it names
// (cards carry their names in aria-label and title; narration is text).
export async function sampleDom(page) {
  const s = await page.evaluate(() => ({
    v: window.gofish?.state?.v ?? -1,
    over: window.gofish?.state?.room?.state === 'over',
    html: document.body.innerHTML,
  }));
  return { v: s.v, over: s.over, cards: [...cardsInText(s.html)] };
}

export function transcriptFrom(frames, game) {
  for (const f of frames) {
    const m = parse(f);
    if (m?.type === 'transcript' && m.game === game) return m.transcript;
  }
  return null;
}
