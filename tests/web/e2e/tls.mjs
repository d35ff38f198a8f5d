// The page over https (issue 33): a gofish-server of this test's own speaks
// only TLS (--tls-cert, --tls-key) with a certificate for 127.0.0.1 and
// localhost that a throwaway authority signed (lib/certificates.mjs, the
// openssl command), and a Chromium whose fresh profile trusts that authority
// (certutil into its $HOME/.pki/nssdb). No certificate error is ignored: the
// page loads only because the certificate checks out. Measured: the page is
// at https: (at 127.0.0.1 and at localhost) and says Strict-Transport-Security; its socket is wss: to the
// same host and port; a whole short game (pairs, against an easy computer
// player) is played to its end over it; no page error, nothing refused by
// the page's Content-Security-Policy. A browser that does not trust the
// authority is refused the page (so the trust is what lets it in).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCertificates, trustAuthority } from '../lib/certificates.mjs';
import { assert, createRoom, launchBrowser, openPage, playToEnd, waitGame } from '../lib/harness.mjs';
import { startServer } from '../lib/server.mjs';

export default async function ({ browser: untrusting, serverPath, webRoot, log }) {
  const dir = mkdtempSync(join(tmpdir(), 'gofish-web-tls-'));
  let server = null;
  let trusting = null;
  try {
    const certificates = makeCertificates(dir);
    server = await startServer(serverPath, webRoot, { tls: certificates });
    const { baseUrl } = server;
    assert(baseUrl.startsWith('https://127.0.0.1:'), `the server is at ${baseUrl}`);

    // run.mjs's browser knows nothing of the authority: the page is refused.
    const stranger = await untrusting.newPage();
    const refused = await stranger.goto(baseUrl).then(() => 'loaded', (e) => String(e).split('\n')[0]);
    assert(/ERR_CERT_AUTHORITY_INVALID/.test(refused), `a browser that does not trust the authority is refused: ${refused}`);
    await stranger.close();

    trusting = await launchBrowser({ prepareHome: (home) => trustAuthority(home, certificates.ca) });
    const uma = await openPage(trusting.browser, baseUrl);
    // Loaded again with a watch on its socket, to see where it goes.
    const sockets = [];
    uma.page.on('websocket', (ws) => sockets.push(ws.url()));
    const response = await uma.page.reload();
    const hsts = (await response.allHeaders())['strict-transport-security'];
    assert(hsts === 'max-age=31536000', `the page says Strict-Transport-Security: max-age=31536000 (${hsts})`);
    const protocol = await uma.page.evaluate(() => location.protocol);
    assert(protocol === 'https:', `the page is at ${protocol}`);
    // The certificate names localhost too.
    const byName = await uma.context.newPage();
    const named = await byName.goto(baseUrl.replace('127.0.0.1', 'localhost'));
    assert(named.ok() && (await byName.evaluate(() => location.origin)).startsWith('https://localhost:'),
      `the page loads at https://localhost too (${named.status()})`);
    await byName.close();

    await createRoom(uma.page, 'Uma', { preset: 'pairs', others: ['easy'] });
    await uma.page.click('#start-game');
    await waitGame(uma.page, 1);
    const asks = await playToEnd([uma.page]);
    const scores = await uma.page.$$eval('#scores tbody tr', (rows) => rows.length);
    assert(scores === 2, `the game-over screen scores both players (${scores} rows)`);

    const wss = `wss://127.0.0.1:${server.port}/ws`;
    assert(sockets.length >= 1 && sockets.every((url) => url.startsWith(wss)), `the page's socket is ${wss}: ${sockets.join(', ')}`);
    const over = uma.frames.filter((f) => f.payload.includes('"game_over"')).length;
    assert(over >= 1, 'the game_over came over that socket');
    assert(uma.errors.length === 0, `no page errors: ${uma.errors}`);
    assert(trusting.violations.length === 0, `nothing refused by the Content-Security-Policy: ${trusting.violations}`);
    log(`over ${sockets[0]}: a game of pairs played to its end in ${asks} asks; ${hsts}`);
  } finally {
    await trusting?.close();
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
