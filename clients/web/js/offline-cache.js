// Once the page has loaded and is idle, it asks the browser to keep it for
// visits with no network (the service worker, /sw.js): the engine's module
// is fetched then, in the background, not before the start page is usable.

export function keepForOffline() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  const register = () => navigator.serviceWorker.register('/sw.js').catch(() => { /* the page works without it */ });
  const idle = () => (window.requestIdleCallback ? requestIdleCallback(register, { timeout: 5000 }) : setTimeout(register, 1000));
  if (document.readyState === 'complete') idle();
  else addEventListener('load', idle, { once: true });
}
