// The side panel beside the table: the chat (typed, or a phrase) and "What
// happened", a sheet of its own on a phone.

import { act } from './room-actions.js';

const $ = (id) => document.getElementById(id);

export function wireSide() {
  $('chat-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = $('chat-text').value.trim();
    if (!text) return;
    const reply = await act({ type: 'chat', text });
    if (reply.type !== 'error') $('chat-text').value = '';
  });
  $('chat-phrases').addEventListener('click', (e) => {
    const phrase = e.target.closest('[data-phrase]')?.dataset.phrase;
    if (!phrase) return;
    act({ type: 'chat', phrase });
    $('chat-phrases').hidden = true;
    $('say-toggle').setAttribute('aria-expanded', 'false');
    $('say-toggle').focus();
  });
  $('say-toggle').addEventListener('click', () => {
    const open = $('chat-phrases').hidden;
    $('chat-phrases').hidden = !open;
    $('say-toggle').setAttribute('aria-expanded', String(open));
    if (open) $('chat-phrases').querySelector('button')?.focus();
  });
  const storySheet = (open) => {
    $('story-toggle').setAttribute('aria-expanded', String(open));
    $('side').classList.toggle('open', open);
    (open ? $('story') : $('story-toggle')).focus();
  };
  $('story-toggle').addEventListener('click', () => storySheet($('story-toggle').getAttribute('aria-expanded') !== 'true'));
  $('story-close').addEventListener('click', () => storySheet(false));
}
