// The browser's gofish-deal/1 (clients/web/js/fairness.js) against the
// published test vectors (docs/FAIRNESS.md, tests/golden/fairness/vectors.jsonl),
// under node's WebCrypto: the same key message, deck key, deck, dealer and
// first player as the C++ implementation, line for line.
import { readFileSync } from 'node:fs';
import { fairDeal, fromHex, keyMessage, toHex } from '../../clients/web/js/fairness.js';

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
if (lines.length !== 3) { failed++; console.error(`expected 3 vectors, read ${lines.length}`); }
console.log(failed ? 'FAILED' : `${lines.length} vectors agree`);
process.exit(failed ? 1 : 0);
