#!/usr/bin/env node
// Runs the browser client's end-to-end tests: starts the real gofish-server
// on 127.0.0.1 (a free port, its own temporary storage, no bot delay), then
// each e2e/*.mjs test in turn, each in a fresh headless Chromium.
//   node run.mjs [--server PATH] [--only NAME]
// The last line is "N passed, M failed"; the exit code is non-zero on any failure.

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const serverPath = resolve(option('--server', join(root, 'build', 'server', 'gofish-server')));
const only = option('--only', null);

async function startServer() {
  const dataDir = mkdtempSync(join(tmpdir(), 'gofish-web-e2e-'));
  const child = spawn(serverPath, ['--port', '0', '--bind', '127.0.0.1', '--data-dir', dataDir,
    '--web-root', join(root, 'clients', 'web'), '--bot-delay-ms', '0', '--threads', '2'],
  { stdio: ['ignore', 'pipe', 'pipe'] });
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

async function main() {
  if (!existsSync(join(here, 'node_modules', 'playwright-core'))) {
    throw new Error('playwright-core is not installed: run `npm ci --prefix tests/web` (scripts/test.sh does)');
  }
  const { launchBrowser } = await import('./lib/harness.mjs');
  if (!existsSync(serverPath)) throw new Error(`no server binary at ${serverPath} (build it, or pass --server)`);
  const files = readdirSync(join(here, 'e2e')).filter((f) => f.endsWith('.mjs')).sort()
    .filter((f) => !only || f.replace(/\.mjs$/, '') === only);
  if (files.length === 0) throw new Error(`no test named ${only}`);
  const server = await startServer();
  console.log(`gofish-server at ${server.baseUrl}; ${files.length} tests`);
  let passed = 0;
  let failed = 0;
  const began = Date.now();
  for (const file of files) {
    const name = file.replace(/\.mjs$/, '');
    const t0 = Date.now();
    const { browser, close } = await launchBrowser();
    try {
      const test = await import(pathToFileURL(join(here, 'e2e', file)).href);
      await test.default({ baseUrl: server.baseUrl, browser, root, log: (...m) => console.log(`    ${name}:`, ...m) });
      passed += 1;
      console.log(`ok      ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    } catch (error) {
      failed += 1;
      console.log(`FAILED  ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s): ${error?.stack ?? error}`);
    } finally {
      await close();
    }
  }
  await server.stop();
  if (failed) console.log(`server log (last lines):\n${server.log().split('\n').slice(-30).join('\n')}`);
  console.log(`(${((Date.now() - began) / 1000).toFixed(1)} s)`);
  return { passed, failed };
}

main().then(({ passed, failed }) => {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}, (error) => {
  console.log(`FAILED  runner: ${error?.stack ?? error}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
