// The deal anyone can check (docs/FAIRNESS.md, gofish-deal/1), in the
// browser. Before a deal the page sends the room a random value of its own
// (contribute.js); when the game is over this module, a bundle of its own
// fetched only then, checks the transcript: the revealed seed against the
// commitment (SHA-256), the deck, dealer and first player rebuilt from the
// seed and the contributions (HMAC-SHA256 driving the specified
// Fisher-Yates), and the decisions replayed by the rules engine (the
// WebAssembly module, as replay-page.js loads it). The result is one plain
// sentence on the over screen. crypto.subtle exists only in secure contexts
// (https, localhost, 127.0.0.1): elsewhere the page says it cannot check
// here and names the command that can.

const kAlgorithm = 'gofish-deal/1';
// The web root's engine module (clients/wasm), served under /engine/.
const kEngineDir = '/engine/';
const kEngine = `${kEngineDir}gofish-engine.mjs`;
const kRanks = ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A'];
const kSuits = ['C', 'D', 'H', 'S'];

export const kFair = 'This deal was fair: checked.';
export const kFairShared = 'This deal was fair: checked. It is the same deal as every table\'s, dealt from the seed revealed here.';

const enc = new TextEncoder();

export function toHex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function fromHex(hex) {
  if (typeof hex !== 'string' || hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}

async function hmacKey(key) {
  return crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

async function hmac(key, message) {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, message));
}

// "gofish-deal/1", then seat, length and value for each seat that contributed.
export function keyMessage(contributions) {
  const parts = [...enc.encode(kAlgorithm)];
  contributions.forEach((value, seat) => {
    if (!value) return;
    parts.push(seat, value.length, ...value);
  });
  return new Uint8Array(parts);
}

// The deck (top first), the dealer and the first player gofish-deal/1 gives.
export async function fairDeal(seed, contributions, players, firstPlayerRandom) {
  const deckKey = await hmac(await hmacKey(seed), keyMessage(contributions));
  const streamKey = await hmacKey(deckKey);
  let block = new Uint8Array(0);
  let used = 0;
  let counter = 0n;
  const word = async () => {
    if (used + 4 > block.length) {
      const message = new Uint8Array(8);
      new DataView(message.buffer).setBigUint64(0, counter++);
      block = await hmac(streamKey, message);
      used = 0;
    }
    const x = new DataView(block.buffer).getUint32(used);
    used += 4;
    return x;
  };
  const below = async (bound) => {
    const limit = 2 ** 32 - (2 ** 32 % bound);
    for (;;) {
      const x = await word();
      if (x < limit) return x % bound;
    }
  };
  const deck = [];
  for (const rank of kRanks) for (const suit of kSuits) deck.push(rank + suit);
  for (let i = 51; i >= 1; i--) {
    const j = await below(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  const dealer = await below(players);
  const first = firstPlayerRandom ? await below(players) : (dealer + 1) % players;
  return { deckKey: toHex(deckKey), deck, dealer, first };
}

const cardName = (card) => String(card).toUpperCase().replace(/^T/, '10');

// The deal and (when `replay` is given) the game checked: { fair, sentence }.
// `replay(transcript)` returns the engine's answer, or null when the engine
// cannot run here.
// A shared deal's seed is held back while it could still help someone
// (docs/FAIRNESS.md, "Shared deals"): said plainly, and no failure.
export function notRevealedYet(f) {
  let when = 'once every game dealt from it is over';
  if (f.day) when = `once the day of today's deal (${f.day}, UTC) is over`;
  else if (f.round) when = `once every table of round ${f.round}${f.event ? ` of event ${f.event}` : ''} is over`;
  return `Not checked yet: the seed of this shared deal is not revealed yet. The server committed to it (commitment ${f.commitment}) and reveals it ${when}; fetch the transcript again then and check it.`;
}

// { fair, sentence }, and pending: true when a shared deal's seed is not revealed yet.
export async function checkTranscript(transcript, replay = engineReplay) {
  const unfair = (sentence) => ({ fair: false, sentence });
  const shared = transcript?.fairness;
  if (shared?.algorithm === kAlgorithm && shared.shared && !shared.seed) {
    return { fair: false, pending: true, sentence: notRevealedYet(shared) };
  }
  if (!globalThis.crypto?.subtle) {
    return unfair('This page cannot check the deal here (the browser allows its checks only over https or on this computer): save the game record and run gofish-cli verify on it.');
  }
  const f = transcript?.fairness;
  if (!f) return unfair('This game has no fairness record, so its deal cannot be checked.');
  if (f.algorithm !== kAlgorithm) return unfair(`The deal used the algorithm "${f.algorithm}", which this page does not know.`);
  if (!f.seed) return unfair('The seed was not revealed, so the deal cannot be checked.');
  const seed = fromHex(f.seed);
  if (!seed || seed.length !== 32) return unfair('The revealed seed is not 32 bytes in hex.');
  if (toHex(await sha256(seed)) !== String(f.commitment).toLowerCase()) {
    return unfair('The seed does not match the commitment: this is not the seed the server committed to before the deal.');
  }
  const contributions = f.contributions ?? [];
  if (f.shared && contributions.length) return unfair('The fairness record says the deal was shared, yet it lists contributions.');
  if (!f.shared && contributions.length !== transcript.players) {
    return unfair(`The fairness record lists contributions for ${contributions.length} seats, but the game had ${transcript.players}.`);
  }
  const values = [];
  for (let seat = 0; seat < contributions.length; seat++) {
    if (contributions[seat] === null) { values.push(null); continue; }
    const value = fromHex(contributions[seat]);
    if (!value || value.length < 16 || value.length > 32) return unfair(`Seat ${seat}'s contribution is not 16 to 32 bytes in hex.`);
    values.push(value);
  }
  const expected = await fairDeal(seed, values, transcript.players, (transcript.rules?.first_player ?? 'random') === 'random');
  const deck = transcript.deck ?? [];
  for (let i = 0; i < 52; i++) {
    if (cardName(deck[i]) !== expected.deck[i]) {
      return unfair(`The deck is not the one the seed and the contributions give: card ${i + 1} is ${deck[i]}, where it should be ${expected.deck[i]}.`);
    }
  }
  if (transcript.dealer !== expected.dealer) return unfair(`The dealer is seat ${transcript.dealer}, where the seed gives seat ${expected.dealer}.`);
  if (transcript.first !== expected.first) return unfair(`The first player is seat ${transcript.first}, where the seed gives seat ${expected.first}.`);
  if (replay) {
    const answer = await replay(transcript);
    if (!answer) return unfair('The deal is right, but this page cannot replay the game here (the rules engine is not available): run gofish-cli verify on the game record.');
    if (answer.error) return unfair(`The deal is right, but the game does not replay: ${answer.error}`);
    if (answer.check) return unfair(`The deal is right, but the game does not replay as recorded: ${answer.check}`);
  }
  return { fair: true, sentence: f.shared ? kFairShared : kFair };
}

// The engine's replay of the transcript (clients/wasm), or null where it cannot run.
async function engineReplay(transcript) {
  try {
    const { default: create } = await import(kEngine);
    const engine = await create();
    const request = { transcript: { format: transcript.format, rules: transcript.rules, players: transcript.players, deck: transcript.deck,
      dealer: transcript.dealer, first: transcript.first, actions: transcript.actions, result: transcript.result }, viewer: 'all' };
    const answer = JSON.parse(engine.ccall('gofish_replay', 'string', ['string'], [JSON.stringify(request)]));
    return { check: answer.check ?? null, error: answer.error?.message ?? (typeof answer.error === 'string' ? answer.error : null) };
  } catch {
    return null;
  }
}
