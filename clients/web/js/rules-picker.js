// The rules a new table is played by: the preset list, its "Advanced" fields
// and the table-rules box. The room's create screen and the class's create
// screen share the one set of controls (index.html's #rules-picker): each
// form moves it into its own #…-rules slot when it opens.

import { session } from './session.js';

const $ = (id) => document.getElementById(id);

// advanced.js is imported when a create screen first opens (the built page's
// one bundle holds it already; served unbundled, it is fetched then).
export async function loadAdvanced() {
  if (session.advanced) return;
  session.advanced = await import('./advanced.js');
  session.advanced.renderAdvanced(chosenPreset());
}

export const chosenPreset = () => document.querySelector('input[name=preset]:checked')?.value ?? 'classic';

// Puts the controls into the form that is opening (a slot element's id).
export function placeRulesPicker(slotId) {
  const picker = $('rules-picker');
  if (picker.parentElement !== $(slotId)) $(slotId).append(picker);
}

// The `rules` object of create_room and create_event: the preset and the fields changed from it.
export function chosenRules() {
  const preset = chosenPreset();
  const rules = { preset, ...(session.advanced?.changedRules(preset) ?? {}) };
  if ($('table-rules').checked) rules.table_rules = true;
  return rules;
}

// A refusal of the rules, said with the labels people see, in the form's
// error line and beside the field it names (opening "Advanced" to show it).
export function showRulesError(reply, errorId) {
  for (const e of document.querySelectorAll('#rules-picker .field-error')) e.textContent = '';
  const words = session.advanced ? session.advanced.ruleMessage(reply.message) : reply.message;
  $(errorId).textContent = words;
  const field = reply.field && $(`rule-${reply.field}`);
  if (field) {
    $('advanced').open = true;
    $(`rule-${reply.field}-error`).textContent = words;
    field.focus();
  }
}

export function wireRulesPicker() {
  $('preset-list').addEventListener('change', (e) => { if (e.target.name === 'preset') session.advanced?.renderAdvanced(e.target.value); });
}
