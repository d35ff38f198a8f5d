// The service worker: it keeps the page and the rules engine's module in
// this browser, so that after one visit the page opens with no network at
// all, and "Play with the computer" plays on the device (js/local-room.js).
// Registered by js/offline-cache.js once the page is idle, so the first
// visit's start page waits for none of this.
//
// Network first: while the server answers, the page is what it serves
// (revalidated by the browser's HTTP cache, so a repeat visit moves a few
// hundred bytes) and each answer refreshes the copy kept here; only when
// the network fails is the kept copy used. So an update of the server
// reaches the next visit, and nothing kept here ever hides it.

const kCache = 'gofish-page';
// What the page needs to start and to play on the device; js/classroom.js
// (the class screens) is kept once it has been used.
const kEngineDir = '/engine/';   // the module's folder in the web root (clients/wasm)
const kKept = ['/', '/js/app.js', '/js/local-room.js', '/js/pass-play.js', '/style.css', `${kEngineDir}gofish-engine.mjs`,
  `${kEngineDir}gofish-engine.wasm`, '/manifest.webmanifest', '/icons/icon.svg', '/icons/icon-192.png', '/icons/icon-512.png'];
const keptPath = (path) => kKept.includes(path) || path === '/js/classroom.js';

self.addEventListener('install', (event) => {
  // Each file on its own: a server built without the engine (GOFISH_WASM=OFF)
  // still has its page kept.
  event.waitUntil(caches.open(kCache)
    .then((cache) => Promise.all(kKept.map((path) => cache.add(path).catch(() => {}))))
    .then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => { event.waitUntil(self.clients.claim()); });

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  // Every address of the page (/, /r/CODE, /?event=...) is the same page.
  const page = request.mode === 'navigate';
  if (!page && !keptPath(url.pathname)) return;   // the socket, the API, source maps: not kept
  const key = page ? '/' : url.pathname;
  event.respondWith(fetch(request).then((response) => {
    const html = (response.headers.get('Content-Type') ?? '').startsWith('text/html');
    if (response.ok && (!page || html)) {
      const copy = response.clone();
      event.waitUntil(caches.open(kCache).then((cache) => cache.put(key, copy)));
    }
    return response;
  }, () => caches.match(key).then((kept) => kept ?? Response.error())));
});
