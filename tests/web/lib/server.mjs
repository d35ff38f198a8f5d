// Starts the real gofish-server on 127.0.0.1 (a free port, its own temporary
// storage) for the end-to-end tests. run.mjs starts one with no bot delay
// for every test; a test about pacing starts its own with the server's
// default delay.
//
// With `faultFs` (the path of tests/server/fault_fs.c built as
// libgofish_fault_fs.so) the server's SQLite store fails on demand: the shim
// is preloaded, and `fault('full' | 'eio' | 'rofs' | 'off')` makes every write
// under the data directory fail as a full disk, a failing disk or a
// read-only file system would, or go through again.
//
// With `tls: { cert, key }` (PEM files) the server speaks only TLS on its
// port (--tls-cert, --tls-key), and baseUrl is https://127.0.0.1:PORT.
// adminUrl() is the address of its operator endpoints (/metrics; a free port
// of their own) once the server has said it, or null.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export async function startServer(serverPath, webRoot, { botDelayMs = 0, extraArgs = [], faultFs = null, tls = null } = {}) {
  // Canonical: the shim compares it with the paths of open files.
  const dataDir = realpathSync(mkdtempSync(join(tmpdir(), 'gofish-web-e2e-')));
  const args = ['--port', '0', '--bind', '127.0.0.1', '--data-dir', dataDir, '--web-root', webRoot, '--threads', '2', ...extraArgs];
  if (botDelayMs !== null) args.push('--bot-delay-ms', String(botDelayMs));
  if (tls) args.push('--tls-cert', tls.cert, '--tls-key', tls.key);
  const env = { ...process.env };
  const control = faultFs ? join(realpathSync(mkdtempSync(join(tmpdir(), 'gofish-web-fault-'))), 'fault') : null;
  if (faultFs) {
    if (!existsSync(faultFs)) throw new Error(`no fault shim at ${faultFs} (build the target gofish_fault_fs, or pass --fault-fs)`);
    writeFileSync(control, 'off');
    Object.assign(env, { LD_PRELOAD: faultFs, GOFISH_FAULT_DIR: dataDir, GOFISH_FAULT_CONTROL: control });
  }
  const child = spawn(serverPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
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
    baseUrl: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    log: () => log,
    adminUrl: () => {
      const m = log.match(/operator endpoints on ([\d.]+):(\d+)/);
      return m ? `http://${m[1]}:${m[2]}` : null;
    },
    // The shim reads the word again within 10 ms.
    fault: (word) => {
      if (!control) throw new Error('this server was started without faultFs');
      writeFileSync(control, word);
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
      if (control) rmSync(join(control, '..'), { recursive: true, force: true });
    },
  };
}
