// The page stays small and a repeat visit is cheap: the first load moves at
// most 64 KB over the wire (the server sends it gzip-compressed; that is what
// a slow phone connection waits for) and is at most 190 KB once unpacked (what
// the browser parses), and a second visit transfers under 5 KB (every file revalidated by its ETag and
// answered 304). Bytes are counted in Chromium through the DevTools protocol.
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
  assert(files.length >= 10, `the page's files were counted (${files.length})`);
  const decoded = sum(first, 'decoded');
  const wire = sum(first, 'encoded');
  assert(wire <= 64 * 1024, `the first load moves ${wire} bytes over the wire (at most 64 KB)`);
  assert(decoded <= 190 * 1024, `the first load is ${decoded} bytes before compression (at most 190 KB)`);
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
