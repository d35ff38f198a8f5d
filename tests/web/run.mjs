#!/usr/bin/env node
// The browser client's end-to-end tests: starts the real gofish-server on
// 127.0.0.1 with a free port and its own temporary storage, runs every
// e2e/*.mjs test in turn in headless Chromium, prints each result and a final
// "N passed, M failed" line, and exits non-zero when anything failed.
//
//   node run.mjs --server ../../build/server/gofish-server [--only NAME] [--keep-going]

import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchBrowser } from './lib/harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '..', '..');

function parseArgs(argv) {
  const args = { server: null, webRoot: join(repo, 'clients', 'web'), only: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--server') args.server = argv[++i];
    else if (a === '--web-root') args.webRoot = argv[++i];
    else if (a === '--only') args.only = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.server) throw new Error('usage: node run.mjs --server PATH_TO_gofish-server [--web-root DIR] [--only NAME]');
  return args;
}

// Starts the server and resolves with its base URL once it says where it listens.
function startServer(binary, webRoot, dataDir) {
  const child = spawn(binary, [
    '--bind', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--web-root', webRoot,
    '--bot-delay-ms', '60', '--threads', '2', '--log-level', 'info',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const url = new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 30_000);
    const onData = (chunk) => {
      log += chunk;
      const m = log.match(/listening on 127\.0\.0\.1:(\d+)/);
      if (m) { clearTimeout(timer); resolveUrl(`http://127.0.0.1:${m[1]}`); }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited (${code}):\n${log}`)); });
  });
  return { child, url, log: () => log };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const dataDir = mkdtempSync(join(tmpdir(), 'gofish-web-e2e-'));
  const server = startServer(resolve(args.server), resolve(args.webRoot), dataDir);
  let passed = 0;
  let failed = 0;
  let browser = null;
  try {
    const baseUrl = await server.url;
    console.log(`server at ${baseUrl}`);
    browser = await launchBrowser();
    const files = readdirSync(join(here, 'e2e')).filter((f) => f.endsWith('.mjs')).sort();
    for (const file of files) {
      const mod = await import(pathToFileURL(join(here, 'e2e', file)).href);
      for (const test of mod.tests) {
        if (args.only && !test.name.includes(args.only)) continue;
        const started = Date.now();
        const ctx = { baseUrl, browser: browser.browser, repo, cleanups: [] };
        try {
          await test.run(ctx);
          passed += 1;
          console.log(`PASS ${test.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
        } catch (e) {
          failed += 1;
          console.log(`FAIL ${test.name} (${((Date.now() - started) / 1000).toFixed(1)} s)\n  ${String(e.stack ?? e).replaceAll('\n', '\n  ')}`);
        } finally {
          for (const c of ctx.cleanups.reverse()) await c().catch(() => {});
        }
      }
    }
  } catch (e) {
    failed += 1;
    console.log(`FAIL setup\n  ${String(e.stack ?? e)}`);
  } finally {
    if (browser) await browser.close();
    if (server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await new Promise((r) => { server.child.once('exit', r); setTimeout(r, 10_000); });
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (failed && process.env.GOFISH_E2E_SERVER_LOG) console.log(server.log());
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}

main().catch((e) => {
  console.log(`FAIL runner\n  ${String(e.stack ?? e)}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
