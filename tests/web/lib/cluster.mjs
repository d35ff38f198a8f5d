// A gofish cluster for the browser tests: scripts/cluster.sh (a throwaway
// PostgreSQL, N nodes sharing it, HAProxy in front, all on 127.0.0.1) in a
// temporary directory. The test command runs it like the cluster tests in
// tests/cluster do; only processes cluster.sh recorded are ever signalled.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function startCluster(root, serverPath, { nodes = 2, serverFlags = [] } = {}) {
  const script = join(root, 'scripts', 'cluster.sh');
  const dir = mkdtempSync(join(tmpdir(), 'gofish-web-cluster-'));
  const run = (...args) => execFileSync(script, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
  try {
    run('up', dir, '--nodes', String(nodes), '--server', serverPath, '--', ...serverFlags);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`cluster.sh up failed: ${error.stdout ?? ''}${error.stderr ?? error}`);
  }
  // cluster.env: key=value, values escaped for bash (printf %q: a backslash
  // before each special character, in the values read here).
  const env = Object.fromEntries(readFileSync(join(dir, 'cluster.env'), 'utf8').split('\n').filter(Boolean)
    .map((line) => { const at = line.indexOf('='); return [line.slice(0, at), line.slice(at + 1).replace(/\\(.)/g, '$1')]; }));
  const sql = (query) => execFileSync('psql', [env.postgres_url, '-AtX', '-c', query], { encoding: 'utf8', timeout: 30_000 }).trim();
  return {
    baseUrl: env.proxy_url,
    dir,
    // The node id holding the room's lease ("nodeK"), or '' if none.
    holder: (code) => sql(`SELECT node FROM room_lease WHERE code = '${code.replace(/[^0-9A-Z]/g, '')}' AND expires_at > now()`),
    stopNode: (k) => run('stop-node', dir, String(k)),
    // flags: added to the node's command line for this start only.
    startNode: (k, flags = []) => run('start-node', dir, String(k), ...(flags.length ? ['--', ...flags] : [])),
    // SIGSTOP and SIGCONT: the node keeps its sockets and its leases but answers nothing.
    pauseNode: (k) => run('stop-node', dir, String(k), '--signal', 'STOP'),
    resumeNode: (k) => run('stop-node', dir, String(k), '--signal', 'CONT'),
    log: (k) => readFileSync(join(dir, `node${k}.log`), 'utf8'),
    // Whether HAProxy sends node k traffic (its health checks pass), from `cluster.sh status`.
    seenUp: (k) => new RegExp(`^node${k} .* haproxy UP$`, 'm').test(run('status', dir)),
    down: (keepLogs = false) => {
      try { run('down', dir); } catch { keepLogs = true; }
      if (!keepLogs) rmSync(dir, { recursive: true, force: true });
    },
  };
}
