// The page's contribution to a deal (clients/web/js/contribute.js), in node:
// one value per commitment; a value the room refused for a passing reason
// (room/paused while its store fails, no connection, no answer) is sent again
// when the room goes on (contributeAgain), and one it refused for good is not.
import assert from 'node:assert/strict';
import { contributeAgain, contributeOnce } from '../../clients/web/js/contribute.js';

const sent = [];
const answering = (reply) => (m) => { sent.push(m); return Promise.resolve(reply); };
const settle = () => new Promise((resolve) => { setTimeout(resolve, 0); });

// Taken: sent once, however often the commitment is seen.
contributeOnce('aa', answering({ type: 'ok' }));
contributeOnce('aa', answering({ type: 'ok' }));
await settle();
contributeAgain(answering({ type: 'ok' }));
await settle();
assert.equal(sent.length, 1, 'a value taken is sent once');
assert.equal(sent[0].type, 'contribute');
assert.match(sent[0].value, /^[0-9a-f]{64}$/);

// The room paused (its store fails): nothing is sent until it goes on, then a value again.
contributeOnce('bb', answering({ type: 'error', code: 'room/paused' }));
await settle();
contributeOnce('bb', answering({ type: 'ok' }));   // its commitment seen again (a snapshot): tried again
await settle();
assert.equal(sent.length, 3, 'seen again, the refused commitment is tried again once');
contributeAgain(answering({ type: 'ok' }));
await settle();
assert.equal(sent.length, 3, 'taken on the second try: nothing left to send');

contributeOnce('cc', answering({ type: 'error', code: 'room/paused' }));
await settle();
contributeAgain(answering({ type: 'ok' }));
await settle();
assert.equal(sent.length, 5, 'room_resumed sends the refused value again');
contributeAgain(answering({ type: 'ok' }));
await settle();
assert.equal(sent.length, 5, 'and only once');

// Refused for good (already contributed, not seated): never again.
contributeOnce('dd', answering({ type: 'error', code: 'deal/already_contributed' }));
await settle();
contributeAgain(answering({ type: 'ok' }));
contributeOnce('dd', answering({ type: 'ok' }));
await settle();
assert.equal(sent.length, 6, 'a value refused for good is not sent again');
console.log(`contribute.js: ${sent.length} contributions sent as expected`);
