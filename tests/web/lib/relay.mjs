// A TCP relay to the server that can go silent without closing anything,
// like a train going into a tunnel, or like a proxy in front of a frozen
// server: a connection made while it is frozen is accepted and never
// answered. drop() cuts every connection open now.
import net from 'node:net';

export async function relay(port) {
  let frozen = false;
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    const forward = (from, to) => from.on('data', (d) => { if (!frozen) to.write(d); });
    forward(client, upstream);
    forward(upstream, client);
    const end = () => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream); };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    freeze: () => { frozen = true; },
    thaw: () => { frozen = false; },
    drop: () => { for (const s of sockets) s.destroy(); },
    close: () => { for (const s of sockets) s.destroy(); server.close(); },
  };
}
