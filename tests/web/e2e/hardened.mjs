// The page's defences as a browser meets them (issue 33). On a server of its
// own (so that its count of open WebSockets is this test's alone):
//  - every response from the public port, the page, an invite link, the
//    script, the stylesheet and a 404 alike, carries the security headers:
//    the Content-Security-Policy, X-Frame-Options, Referrer-Policy,
//    Permissions-Policy, Cross-Origin-Opener-Policy and X-Content-Type-Options;
//  - a page of another origin (a small node server on another port) that
//    puts a table's invite link in an <iframe> gets nothing: the frame shows
//    the browser's error page, not the game, and no WebSocket comes from it
//    (none seen by the browser, and the server's gauge of open connections,
//    read on the operator port, stays at the one page that made the room);
//  - /metrics is not answered on the public port (404), only on the
//    operator port.
// That the page itself breaks none of the policy is checked by every test:
// run.mjs fails a test in which the policy refused anything (lib/harness.mjs).
import http from 'node:http';
import { assert, createRoom, expectCspViolations, openPage, waitFor } from '../lib/harness.mjs';
import { startServer } from '../lib/server.mjs';

const HEADERS = {
  'content-security-policy': "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; " +
    "connect-src 'self'; font-src 'self'; manifest-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; " +
    "form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()',
  'cross-origin-opener-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
};

// The headers of HEADERS that `headers` (a fetch Headers or a plain object
// with lower-case names) lacks or has otherwise, in words.
function wrongHeaders(headers) {
  const get = (name) => (typeof headers.get === 'function' ? headers.get(name) : headers[name]) ?? null;
  return Object.entries(HEADERS).filter(([name, value]) => get(name) !== value)
    .map(([name]) => `${name}: ${JSON.stringify(get(name))}`);
}

// The server's gauge of open WebSocket connections, from /metrics on its
// operator port.
async function openConnections(adminUrl) {
  const text = await (await fetch(`${adminUrl}/metrics`)).text();
  const m = text.match(/^gofish_connections(?:\{\})? (\d+(?:\.\d+)?)$/m);
  assert(m, 'the operator port\'s /metrics has gofish_connections');
  return Number(m[1]);
}

export default async function ({ browser, serverPath, webRoot, log }) {
  const server = await startServer(serverPath, webRoot);
  let other = null;
  try {
    const { baseUrl } = server;
    const adminUrl = await waitFor('the server to name its operator port', async () => server.adminUrl());

    // A room to point at: its invite link is the table's address.
    assert((await openConnections(adminUrl)) === 0, 'no connection is open before the first page');
    const ann = await openPage(browser, baseUrl);
    const code = await createRoom(ann.page, 'Ann', { others: ['person', 'easy'] });
    // The gauge counts a page that connects: the check below can fail.
    await waitFor('the gauge to count Ann\'s page', async () => (await openConnections(adminUrl)) === 1);

    // Every response carries the headers, a 404 too; /metrics is not public.
    const paths = ['/', `/r/${code}`, '/js/app.js', '/style.css', '/no-such-file.txt', '/metrics'];
    for (const path of paths) {
      const response = await fetch(baseUrl + path, { redirect: 'manual' });
      await response.arrayBuffer();
      const expected = ['/no-such-file.txt', '/metrics'].includes(path) ? 404 : 200;
      assert(response.status === expected, `${path} answers ${response.status} (expected ${expected})`);
      const wrong = wrongHeaders(response.headers);
      assert(wrong.length === 0, `${path} (${response.status}) has the security headers: wrong or missing ${wrong.join('; ')}`);
    }
    // And the browser gets them with the page.
    const reloaded = await ann.page.reload();
    const wrong = wrongHeaders(await reloaded.allHeaders());
    assert(wrong.length === 0, `the page the browser loads has the security headers: wrong or missing ${wrong.join('; ')}`);
    const metrics = await fetch(`${adminUrl}/metrics`);
    assert(metrics.status === 200 && /gofish_/.test(await metrics.text()), `/metrics answers on the operator port (${metrics.status})`);

    // Another origin frames the table.
    const table = `${baseUrl}/r/${code}`;
    other = http.createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><title>Another site</title><h1>Another site</h1>` +
        `<iframe id="game" src="${table}" width="900" height="600"></iframe>`);
    });
    await new Promise((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherUrl = `http://127.0.0.1:${other.address().port}/`;
    const context = await browser.newContext();
    // The refusal to frame the game is what this part is about.
    expectCspViolations(context);
    const page = await context.newPage();
    const sockets = [];
    const refusals = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    page.on('console', (m) => { if (/frame|ancestor/i.test(m.text())) refusals.push(m.text()); });
    await page.goto(otherUrl);
    assert((await page.textContent('h1')) === 'Another site', 'the other site\'s page loads');
    const frame = await waitFor('the iframe', async () => page.frames().find((f) => f !== page.mainFrame()));
    await frame.waitForLoadState('load').catch(() => {});
    // Long enough for the game to have opened its socket had it loaded (it
    // does at once: the page is online well within a second).
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const html = await frame.content().catch(() => '');
    const gameParts = await frame.locator('#conn, #screen-home, #screen-table, script[src="/js/app.js"]').count().catch(() => 0);
    log(`the framed table: ${frame.url()}, ${html.length} characters of HTML, ${gameParts} parts of the game; ` +
      `console: ${refusals.join(' | ') || 'nothing about framing'}`);
    assert(gameParts === 0 && !html.includes('/js/app.js') && !html.includes('Go Fish'),
      `the frame shows nothing of the game (${frame.url()}: ${html.slice(0, 200)})`);
    assert(frame.url() !== table, `the frame did not load the table (${frame.url()})`);
    assert(sockets.length === 0, `no WebSocket from the framing page: ${sockets.join(', ')}`);
    assert((await openConnections(adminUrl)) === 1, 'the server saw no connection from the frame (its gauge is still 1, Ann\'s)');
    await context.close();
    assert(ann.errors.length === 0, `no page errors: ${ann.errors}`);
  } finally {
    other?.close();
    await server.stop();
  }
}
