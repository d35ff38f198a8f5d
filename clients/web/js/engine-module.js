// The rules engine in this browser: the WebAssembly module under /engine/
// (clients/wasm), loaded the first time a game on this device needs it (or
// kept by the service worker, sw.js, for a visit with no network). Each call
// takes one JSON object and answers one, as clients/wasm/README.md lists them.

// The web root's folder of the module (served under /engine/), and its loader.
const kEngineDir = '/engine/';
const kEngine = `${kEngineDir}gofish-engine.mjs`;

let loading = null;

// Resolves with { call(name, request) -> answer }; a failed load may be tried again.
export function loadEngine() {
  loading ??= import(/* the loader is not bundled: it is the module's own */ kEngine)
    .then(({ default: create }) => create())
    .then((module) => ({
      call: (name, request) => JSON.parse(module.ccall(`gofish_${name}`, 'string', ['string'], [JSON.stringify(request)])),
    }));
  loading.catch(() => { loading = null; });
  return loading;
}
