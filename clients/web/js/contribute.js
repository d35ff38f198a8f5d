// The page's part in each deal (docs/FAIRNESS.md, gofish-deal/1): a random
// value of its own for the room's commitment, sent once per commitment it
// sees. Apart from fairness.js (the check at the game's end, a bundle of its
// own fetched only then), so the first visit carries only this.

const contributed = new Set();
// A commitment whose value the room did not take for a passing reason (its
// store failing: room/paused; no connection, no answer): sent again by
// contributeAgain, once the room says it goes on.
let unsent = null;
const kPassing = new Set(['room/paused', 'room/busy', 'client/offline', 'client/timeout']);
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

// A random value for the commitment `commitment`, sent once (per page) with
// `send`, which answers with the server's reply (a promise).
export function contributeOnce(commitment, send) {
  if (!commitment || contributed.has(commitment) || !globalThis.crypto?.getRandomValues) return;
  contributed.add(commitment);
  if (unsent === commitment) unsent = null;
  Promise.resolve(send({ type: 'contribute', value: hex(crypto.getRandomValues(new Uint8Array(32))) }))
    .then((reply) => {
      if (reply?.type !== 'error' || !kPassing.has(reply.code)) return;
      contributed.delete(commitment);
      unsent = commitment;
    }, () => {});
}

// The room goes on (room_resumed): a value it could not take is sent again.
export function contributeAgain(send) {
  if (unsent) contributeOnce(unsent, send);
}
