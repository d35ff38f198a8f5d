// The top bar answers the person: "Retry now" while the page is not
// connected, and the settings (what screen readers hear, the pace of the
// game, sound and vibration on one's turn).

import { session, settings } from './session.js';

const $ = (id) => document.getElementById(id);
const { alerts } = session;

export function wireTopBar() {
  $('conn-retry').addEventListener('click', () => session.conn.reconnectNow());
  $('settings-button').addEventListener('click', () => {
    for (const r of document.querySelectorAll('input[name=verbosity]')) r.checked = r.value === settings.get('verbosity', 'brief');
    for (const r of document.querySelectorAll('input[name=pace]')) r.checked = r.value === String(session.pacer.pace);
    $('set-sound').checked = settings.get('sound', '0') === '1';
    $('set-vibrate').checked = settings.get('vibrate', '1') === '1';
    $('settings-dialog').showModal();
  });
  $('settings-dialog').addEventListener('change', (e) => {
    const t = e.target;
    if (t.name === 'verbosity') settings.set('verbosity', t.value);
    if (t.name === 'pace') { settings.set('pace', t.value); session.pacer.pace = Number(t.value); }
    if (t.id === 'set-sound') { settings.set('sound', t.checked ? '1' : '0'); if (t.checked) alerts.beep(); }
    if (t.id === 'set-vibrate') settings.set('vibrate', t.checked ? '1' : '0');
  });
}
