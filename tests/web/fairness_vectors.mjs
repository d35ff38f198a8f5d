// The browser's gofish-deal/1 (clients/web/js/fairness.js) against the
// published test vectors (docs/FAIRNESS.md, tests/golden/fairness/vectors.jsonl),
// under node's WebCrypto: the same key message, deck key, deck, dealer and
// first player as the C++ implementation, line for line.
import { readFileSync } from 'node:fs';
import { checkTranscript, fairDeal, fromHex, keyMessage, toHex } from '../../clients/web/js/fairness.js';

const vectors = new URL('../golden/fairness/vectors.jsonl', import.meta.url);
const lines = readFileSync(vectors, 'utf8').split('\n').filter((line) => line.trim());
let failed = 0;
for (const line of lines) {
  const v = JSON.parse(line);
  const contributions = v.contributions.map((x) => (x === null ? null : fromHex(x)));
  const deal = await fairDeal(fromHex(v.seed), contributions, v.players, v.preset === 'classic');
  const problems = [];
  if (toHex(keyMessage(contributions)) !== v.key_message) problems.push('key message');
  if (deal.deckKey !== v.deck_key) problems.push('deck key');
  if (JSON.stringify(deal.deck) !== JSON.stringify(v.deck)) problems.push('deck');
  if (deal.dealer !== v.dealer || deal.first !== v.first) problems.push('dealer or first');
  if (problems.length) { failed++; console.error(`${v.case}: ${problems.join(', ')} differ`); }
}
// A shared deal whose seed is not revealed yet: a plain sentence, pending, not a failure.
const commitment = JSON.parse(lines[0]).commitment;
for (const [fairness, when] of [
  [{ day: '2026-11-30' }, "once the day of today's deal (2026-11-30, UTC) is over"],
  [{ event: 'K7QXM2', round: 2 }, 'once every table of round 2 of event K7QXM2 is over'],
]) {
  const verdict = await checkTranscript({ fairness: { algorithm: 'gofish-deal/1', commitment, contributions: [], shared: true, ...fairness } }, null);
  if (!verdict.pending || verdict.fair || !verdict.sentence.startsWith('Not checked yet') || !verdict.sentence.includes(when)) {
    failed++;
    console.error(`a seed not revealed yet: ${JSON.stringify(verdict)}`);
  }
}
const unshared = await checkTranscript({ fairness: { algorithm: 'gofish-deal/1', commitment, contributions: [null], shared: false } }, null);
if (unshared.pending || unshared.fair) { failed++; console.error(`a room's own deal without its seed: ${JSON.stringify(unshared)}`); }
// A page outside a secure context (plain http to another machine) has no
// crypto.subtle: it says it cannot check here and names the CLI's check.
const real = Object.getOwnPropertyDescriptor(globalThis, 'crypto');
Object.defineProperty(globalThis, 'crypto', { value: { getRandomValues: real.get ? real.get.call(globalThis).getRandomValues : undefined }, configurable: true });
const insecure = await checkTranscript({ fairness: { algorithm: 'gofish-deal/1', commitment, seed: JSON.parse(lines[0]).seed, contributions: [], shared: false } }, null);
Object.defineProperty(globalThis, 'crypto', real);
if (insecure.fair || insecure.pending || !/cannot check the deal here/.test(insecure.sentence) || !/gofish-cli verify/.test(insecure.sentence)) {
  failed++;
  console.error(`no crypto.subtle: ${JSON.stringify(insecure)}`);
}
if (!globalThis.crypto?.subtle) { failed++; console.error('crypto was not put back'); }
if (lines.length !== 3) { failed++; console.error(`expected 3 vectors, read ${lines.length}`); }
console.log(failed ? 'FAILED' : `${lines.length} vectors agree`);
process.exit(failed ? 1 : 0);
