// The page stays small and a repeat visit is cheap (issue 35's budgets). The
// server serves the page as built (clients/web/CMakeLists.txt): index.html,
// style.css and js/app.js, the ES modules bundled and minified by esbuild,
// and nothing else: no module of its own, no source map (those only a
// browser's developer tools fetch). The first load moves at most 60 KB over
// the wire (the server sends it gzip-compressed; that is what a slow phone
// connection waits for) and is at most 128 KB once unpacked (what the
// browser parses); a second visit revalidates each of the three files by its
// ETag, is answered 304 for each, and transfers under 5 KB. Bytes are counted
// in Chromium through the DevTools protocol.
import { assert, online, waitScreen } from '../lib/harness.mjs';

async function visit(page, cdp, url) {
  const requests = new Map();
  const onResponse = (e) => { if (e.type !== 'WebSocket' && !e.response.url.startsWith('data:')) requests.set(e.requestId, { url: e.response.url, type: e.type, status: e.response.status, encoded: 0, decoded: 0, gzip: /gzip/.test(e.response.headers['content-encoding'] ?? e.response.headers['Content-Encoding'] ?? '') }); };
  const onData = (e) => { const r = requests.get(e.requestId); if (r) r.decoded += e.dataLength; };
  const onDone = (e) => { const r = requests.get(e.requestId); if (r) r.encoded = e.encodedDataLength; };
  cdp.on('Network.responseReceived', onResponse);
  cdp.on('Network.dataReceived', onData);
  cdp.on('Network.loadingFinished', onDone);
  await page.goto(url);
  await online(page);
  await waitScreen(page, 'home');
  await page.waitForLoadState('networkidle');
  cdp.off('Network.responseReceived', onResponse);
  cdp.off('Network.dataReceived', onData);
  cdp.off('Network.loadingFinished', onDone);
  return [...requests.values()];
}

export default async function ({ baseUrl, browser, log }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const first = await visit(page, cdp, `${baseUrl}/`);
  const second = await visit(page, cdp, `${baseUrl}/`);
  const sum = (list, key) => list.reduce((n, r) => n + r[key], 0);
  const files = first.filter((r) => r.status === 200);
  const paths = files.map((r) => new URL(r.url).pathname).sort();
  assert(paths.join(' ') === '/ /js/app.js /style.css',
    `the first load fetches the page, its one script and its one stylesheet, nothing else: ${first.map((r) => `${r.url} ${r.status}`)}`);
  const decoded = sum(first, 'decoded');
  const wire = sum(first, 'encoded');
  assert(wire <= 60 * 1024, `the first load moves ${wire} bytes over the wire (at most 60 KB)`);
  assert(decoded <= 128 * 1024, `the first load is ${decoded} bytes before compression (at most 128 KB)`);
  const texts = files.filter((r) => /\.(js|css|html)$|\/$/.test(r.url));
  assert(texts.every((r) => r.gzip), `every text file came compressed: ${texts.filter((r) => !r.gzip).map((r) => r.url)}`);
  // (Chromium reports a revalidated page as the 200 it had; its bytes tell.)
  const revalidated = second.filter((r) => r.type !== 'Document');
  assert(second.length >= files.length && revalidated.every((r) => r.status === 304 || r.type === 'Document'),
    `a repeat visit revalidates every file: ${second.map((r) => `${r.url} ${r.status}`)}`);
  const again = sum(second, 'encoded');
  assert(again < 5 * 1024, `a repeat visit transfers ${again} bytes (under 5 KB)`);
  log(`first visit: ${files.length} files, ${decoded} bytes, ${wire} on the wire; repeat visit: ${again} bytes`);
}
