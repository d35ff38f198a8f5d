// The page's part in each deal (docs/FAIRNESS.md, gofish-deal/1): a random
// value of its own for the room's commitment, sent once per commitment it
// sees. Apart from fairness.js (the check at the game's end, a bundle of its
// own fetched only then), so the first visit carries only this.

const contributed = new Set();
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

// A random value for the commitment `commitment`, sent once (per page) with `send`.
export function contributeOnce(commitment, send) {
  if (!commitment || contributed.has(commitment) || !globalThis.crypto?.getRandomValues) return;
  contributed.add(commitment);
  send({ type: 'contribute', value: hex(crypto.getRandomValues(new Uint8Array(32))) });
}
