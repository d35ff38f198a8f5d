// Starts the real gofish-server on 127.0.0.1 (a free port, its own temporary
// storage) for the end-to-end tests. run.mjs starts one with no bot delay
// for every test; a test about pacing starts its own with the server's
// default delay.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function startServer(serverPath, webRoot, { botDelayMs = 0, extraArgs = [] } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'gofish-web-e2e-'));
  const args = ['--port', '0', '--bind', '127.0.0.1', '--data-dir', dataDir, '--web-root', webRoot, '--threads', '2', ...extraArgs];
  if (botDelayMs !== null) args.push('--bot-delay-ms', String(botDelayMs));
  const child = spawn(serverPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const port = await new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 30_000);
    const onData = (chunk) => {
      log += chunk;
      const m = log.match(/listening on 127\.0\.0\.1:(\d+)/);
      if (m) { clearTimeout(timer); resolvePort(Number(m[1])); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited (${code}):\n${log}`)); });
  });
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    log: () => log,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
