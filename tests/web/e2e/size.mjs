// The page stays small and a repeat visit is cheap (issue 35's budgets). The
// server serves the page as built (clients/web/CMakeLists.txt): index.html,
// style.css and js/app.js, the ES modules bundled and minified by esbuild,
// and nothing else: no module of its own, no source map (those only a
// browser's developer tools fetch). The first load moves at most 60 KB over
// the wire (the server sends it gzip-compressed; that is what a slow phone
// connection waits for) and is at most 136 KB once unpacked (what the
// browser parses; 128 KB until the page learnt to play on the device: what
// that needs at the start, finding a kept game and starting one, is 2.5 KB,
// the game itself, js/local-room.js, comes when a game starts); a second visit revalidates each of the three files by its
// ETag, is answered 304 for each, and transfers under 5 KB. Bytes are counted
// in Chromium through the DevTools protocol.
//
// Once the start page is idle, the service worker (clients/web/sw.js) keeps
// the page and the rules engine's module for visits with no network: those
// bytes come after the page is usable, and the module is at most 100 KB
// gzipped (as the server sends it). From then on a visit goes through the
// service worker, which asks the network first: what its fetches moved
// (their Resource Timing, read in the worker) counts in the repeat visit; a
// response revalidated by the HTTP cache has a transferSize smaller than its
// body (Chromium reports 300 bytes for one, about what the 304 moves).
import { get } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { assert, online, waitScreen } from '../lib/harness.mjs';

async function visit(page, cdp, url) {
  const requests = new Map();
  const onResponse = (e) => { if (e.type !== 'WebSocket' && !e.response.url.startsWith('data:')) requests.set(e.requestId, { url: e.response.url, type: e.type, status: e.response.status, encoded: 0, decoded: 0, gzip: /gzip/.test(e.response.headers['content-encoding'] ?? e.response.headers['Content-Encoding'] ?? ''), fromWorker: !!e.response.fromServiceWorker }); };
  const onData = (e) => { const r = requests.get(e.requestId); if (r) r.decoded += e.dataLength; };
  const onDone = (e) => { const r = requests.get(e.requestId); if (r) r.encoded = e.encodedDataLength; };
  cdp.on('Network.responseReceived', onResponse);
  cdp.on('Network.dataReceived', onData);
  cdp.on('Network.loadingFinished', onDone);
  const worker = page.context().serviceWorkers()[0];
  await worker?.evaluate(() => performance.clearResourceTimings());
  await page.goto(url);
  await online(page);
  await waitScreen(page, 'home');
  await page.waitForLoadState('networkidle');
  // The service worker's own fetches (each for a request of the page).
  const fetched = await worker?.evaluate(() => performance.getEntriesByType('resource')
    .map((e) => ({ url: e.name, type: 'worker', status: e.transferSize < e.encodedBodySize ? 304 : 200, encoded: e.transferSize, decoded: e.decodedBodySize, gzip: true })));
  cdp.off('Network.responseReceived', onResponse);
  cdp.off('Network.dataReceived', onData);
  cdp.off('Network.loadingFinished', onDone);
  // A response the worker gave the page moved nothing itself: its fetch is counted above.
  const direct = [...requests.values()].filter((r) => !r.fromWorker);
  return [...direct, ...(fetched ?? [])];
}

// The page and the engine kept by the service worker.
async function keptForOffline(page) {
  await page.waitForFunction(async () => {
    const reg = await navigator.serviceWorker?.getRegistration();
    if (!reg?.active) return false;
    const keys = (await (await caches.open('gofish-page')).keys()).map((r) => new URL(r.url).pathname);
    return keys.includes('/engine/gofish-engine.wasm') && keys.includes('/');
  }, null, { timeout: 30_000, polling: 200 });
}

export default async function ({ baseUrl, browser, log }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const first = await visit(page, cdp, `${baseUrl}/`);
  await keptForOffline(page);
  const second = await visit(page, cdp, `${baseUrl}/`);
  const sum = (list, key) => list.reduce((n, r) => n + r[key], 0);
  const files = first.filter((r) => r.status === 200);
  const paths = files.map((r) => new URL(r.url).pathname).sort();
  assert(paths.join(' ') === '/ /js/app.js /style.css',
    `the first load fetches the page, its one script and its one stylesheet, nothing else: ${first.map((r) => `${r.url} ${r.status}`)}`);
  const decoded = sum(first, 'decoded');
  const wire = sum(first, 'encoded');
  assert(wire <= 60 * 1024, `the first load moves ${wire} bytes over the wire (at most 60 KB)`);
  assert(decoded <= 136 * 1024, `the first load is ${decoded} bytes before compression (at most 136 KB)`);
  const texts = files.filter((r) => /\.(js|css|html)$|\/$/.test(r.url));
  assert(texts.every((r) => r.gzip), `every text file came compressed: ${texts.filter((r) => !r.gzip).map((r) => r.url)}`);
  // (Chromium reports a revalidated page as the 200 it had; its bytes tell.)
  const revalidated = second.filter((r) => r.type !== 'Document' && !/\/$/.test(r.url));
  assert(second.length >= files.length && revalidated.every((r) => r.status === 304),
    `a repeat visit revalidates every file: ${second.map((r) => `${r.url} ${r.status}`)}`);
  const again = sum(second, "encoded");
  assert(again < 5 * 1024, `a repeat visit transfers ${again} bytes (under 5 KB)`);
  // The module as the server sends it to a browser.
  const { encoding, gzipped } = await new Promise((resolve, reject) => {
    get(`${baseUrl}/engine/gofish-engine.wasm`, { headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ encoding: res.headers['content-encoding'] ?? '', gzipped: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
  assert(encoding === 'gzip', 'the module is sent gzipped');
  assert(gzipped.length <= 100 * 1024, `the engine module is ${gzipped.length} bytes gzipped (at most 100 KB)`);
  log(`first visit: ${files.length} files, ${decoded} bytes, ${wire} on the wire; repeat visit: ${again} bytes ` +
    `(${second.length} requests); the engine module: ${gzipped.length} bytes gzipped, ${gunzipSync(gzipped).length} unpacked`);
}
