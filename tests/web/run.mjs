#!/usr/bin/env node
// Runs the browser client's end-to-end tests: starts the real gofish-server
// on 127.0.0.1 (a free port, its own temporary storage, no bot delay), then
// each e2e/*.mjs test in turn (those marked `alongside` beside the rest), each
// in a fresh headless Chromium.
//   node run.mjs [--server PATH] [--web-root DIR] [--fault-fs PATH] [--only NAME,...] [--except NAME,...]
// --only runs just the named tests, --except all but them (ctest runs the
// suite as a few such groups, so that they can run beside other tests).
// --web-root is the built page the server serves (clients/web/CMakeLists.txt
// builds it); by default the web folder of the server's build tree, beside
// server/. --fault-fs names the store-failing shim (libgofish_fault_fs.so, the target
// gofish_fault_fs) that paused.mjs preloads into a server of its own; by
// default it is looked for in the server's build tree.
// A test fails too when the page's Content-Security-Policy refused anything
// in its browser (lib/harness.mjs watches every page for it).
// The last line is "N passed, M failed"; the exit code is non-zero on any failure.

import { existsSync, readdirSync } from 'node:fs';
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
const faultFs = resolve(option('--fault-fs', join(dirname(serverPath), '..', 'tests', 'server', 'libgofish_fault_fs.so')));
const webRoot = resolve(option('--web-root', join(dirname(serverPath), '..', 'web')));
const list = (name) => option(name, null)?.split(',').filter(Boolean) ?? null;
const only = list('--only');
const except = list('--except') ?? [];

async function main() {
  if (!existsSync(join(here, 'node_modules', 'playwright-core'))) {
    throw new Error('playwright-core is not installed: run `npm ci --prefix tests/web` (scripts/test.sh does)');
  }
  const { launchBrowser } = await import('./lib/harness.mjs');
  if (!existsSync(serverPath)) throw new Error(`no server binary at ${serverPath} (build it, or pass --server)`);
  const all = readdirSync(join(here, 'e2e')).filter((f) => f.endsWith('.mjs')).sort();
  const unknown = [...(only ?? []), ...except].filter((name) => !all.includes(`${name}.mjs`));
  if (unknown.length > 0) throw new Error(`no test named ${unknown.join(', ')}`);
  const files = all.filter((f) => (!only || only.includes(f.replace(/\.mjs$/, ''))) && !except.includes(f.replace(/\.mjs$/, '')));
  if (files.length === 0) throw new Error('no test left to run');
  const { startServer } = await import('./lib/server.mjs');
  if (!existsSync(join(webRoot, 'index.html'))) throw new Error(`no built page in ${webRoot} (build the target gofish_web, or pass --web-root)`);
  const server = await startServer(serverPath, webRoot);
  console.log(`gofish-server at ${server.baseUrl}; ${files.length} tests`);
  let passed = 0;
  let failed = 0;
  const began = Date.now();
  const run = async (file, test) => {
    const name = file.replace(/\.mjs$/, '');
    const t0 = Date.now();
    const { browser, close, violations } = await launchBrowser();
    try {
      await test.default({ baseUrl: server.baseUrl, browser, root, serverPath, webRoot, faultFs,
        log: (...m) => console.log(`    ${name}:`, ...m) });
      // Whatever else it checks, no test may see the page's
      // Content-Security-Policy refuse something (lib/harness.mjs).
      if (violations.length > 0) {
        throw new Error(`the page's Content-Security-Policy refused ${violations.length} thing(s):\n  ${[...new Set(violations)].join('\n  ')}`);
      }
      passed += 1;
      console.log(`ok      ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    } catch (error) {
      failed += 1;
      console.log(`FAILED  ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s): ${error?.stack ?? error}`);
    } finally {
      await close();
    }
  };
  // A test that mostly waits on the clock (a real game at the page's own
  // pace, on a server of its own) says `export const alongside = true` and
  // runs beside the others instead of after them.
  const tests = await Promise.all(files.map(async (file) => [file, await import(pathToFileURL(join(here, 'e2e', file)).href)]));
  const beside = Promise.all(tests.filter(([, t]) => t.alongside).map(([file, t]) => run(file, t)));
  for (const [file, test] of tests.filter(([, t]) => !t.alongside)) await run(file, test);
  await beside;
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
