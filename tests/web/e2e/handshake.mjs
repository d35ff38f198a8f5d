// A new connection handed to a frozen server: a proxy may send it to a
// server whose port still takes connections but never answers. Through a
// TCP relay that goes silent, every connection is cut while the player is
// at the table; each new one the page makes is accepted and never answered.
// Measured: the page gives such a socket up and tries again within the
// handshake timeout (the next socket opens less than 6 s after the one
// before, with the backoff; the heartbeat alone would take over 6.5 s), says it is reconnecting
// meanwhile, and once the relay answers again takes its seat back and plays
// the game to its end.
import { assert, ENABLED_RANK, online, openPage, playToEnd, waitFor, waitScreen } from '../lib/harness.mjs';
import { relay } from '../lib/relay.mjs';

export default async function ({ baseUrl, browser, log }) {
  const tunnel = await relay(Number(new URL(baseUrl).port));
  try {
    const kay = await openPage(browser, tunnel.url);
    await online(kay.page);
    await kay.page.click('#play-computer');
    await waitScreen(kay.page, 'table');
    await kay.page.waitForFunction((s) => !window.gofish.pacer.busy && (!!document.querySelector(s) || document.body.dataset.screen === 'over'),
      ENABLED_RANK);

    const opened = [];
    kay.page.on('websocket', (ws) => {
      const socket = { at: Date.now(), closed: null };
      opened.push(socket);
      ws.on('close', () => { socket.closed = Date.now(); });
    });
    tunnel.freeze();
    tunnel.drop();
    const t0 = Date.now();
    await waitFor('three sockets to the frozen server', () => opened.length >= 3, 20_000);
    const gaps = opened.slice(1, 3).map((s, i) => s.at - opened[i].at);
    assert(gaps.every((g) => g < 6000), `a socket that gets no welcome is given up within the handshake timeout (${gaps} ms apart)`);
    assert(opened[0].closed !== null && opened[0].closed <= opened[1].at + 50, 'the silent socket was closed before the next one');
    const badge = await kay.page.textContent('#conn .conn-text');
    assert(!(await kay.page.$('#conn.online')), `the page does not claim to be connected ("${badge}")`);
    assert(await kay.page.evaluate(() => document.body.dataset.screen === 'table'), 'the table stays on screen');

    tunnel.thaw();
    const t1 = Date.now();
    await online(kay.page);
    const back = Date.now() - t1;
    await kay.page.waitForFunction(() => /\(you\)/.test(document.getElementById('me-name').textContent));
    await playToEnd([kay.page]);
    const errors = kay.errors.filter((e) => !/WebSocket/.test(e));
    assert(errors.length === 0, `no page errors: ${errors}`);
    log(`sockets to the frozen server ${gaps.join(' and ')} ms apart (the first ${opened[0].at - t0} ms after the cut); ` +
      `online ${back} ms after it answered again; the game played to its end`);
  } finally {
    tunnel.close();
  }
}
