// "Advanced" on the create screen: every rules field a host may change,
// filled in with the chosen game's values, and the fields changed from it.
// Loaded when the create screen first opens: a game against the computer
// never needs it.

import { el } from './dom.js';

const $ = (id) => document.getElementById(id);

// Each preset's rules, as the server spells them (docs/RULES.md); the e2e
// tests compare these with the rooms the server makes.
const BASE = {
  min_players: 2, max_players: 6, small_table_players: 2, small_table_cards: 7, cards_dealt: 5,
  deal_whole_pack: false, dealer: 'random', first_player: 'random', ask_for: 'rank', may_ask_held_card: false,
  give: 'all', set_size: 4, lucky_draw: 'ask_again', play_again_after_set: false, sets_face_up: false,
  after_miss: 'to_asked', empty_hand: 'ends_game', stock_out_ends_game: true, tie_break: 'shared', table_rules: false,
};
export const PRESET_RULES = {
  classic: { ...BASE },
  'specific-card': { ...BASE, ask_for: 'card', give: 'named' },
  'keep-playing': { ...BASE, empty_hand: 'draw_else_sit_out', stock_out_ends_game: false },
  bicycle: { ...BASE, max_players: 5, small_table_players: 3, dealer: 'ceremony', first_player: 'left_of_dealer',
    lucky_draw: 'turn_ends', play_again_after_set: true, sets_face_up: true, after_miss: 'to_left',
    empty_hand: 'draw_else_out', stock_out_ends_game: false },
  authors: { ...BASE, min_players: 3, small_table_players: 3, deal_whole_pack: true, dealer: 'ceremony',
    first_player: 'left_of_dealer', ask_for: 'card', give: 'named', after_miss: 'to_left', empty_hand: 'out',
    stock_out_ends_game: false },
  pairs: { ...BASE, small_table_players: 0, first_player: 'left_of_dealer', give: 'one', set_size: 2,
    after_miss: 'to_left', stock_out_ends_game: false, tie_break: 'fewest_cards_in_hand' },
};

// The fields of "Advanced", with words a grown-up can follow. `table_rules`
// has its own checkbox; `preset` is the game chosen above.
const yesNo = [[true, 'yes'], [false, 'no']];
export const RULE_FIELDS = [
  ['min_players', 'Fewest players', 'int', 2, 6],
  ['max_players', 'Most players', 'int', 2, 6],
  ['small_table_players', 'A small table has up to this many players', 'int', 0, 6],
  ['small_table_cards', 'Cards each at a small table', 'int', 1, 26],
  ['cards_dealt', 'Cards each at a bigger table', 'int', 1, 26],
  ['deal_whole_pack', 'Deal every card (no pond)', yesNo],
  ['dealer', 'Who deals', [['random', 'picked at random'], ['ceremony', 'lowest card drawn']]],
  ['first_player', 'Who asks first', [['random', 'picked at random'], ['left_of_dealer', 'the player left of the dealer']]],
  ['ask_for', 'Players ask for', [['rank', 'a kind of card (all 7s)'], ['card', 'one exact card']]],
  ['may_ask_held_card', 'May ask for a card you hold (exact-card games)', yesNo],
  ['give', 'The asked player gives', [['all', 'every card of that kind'], ['one', 'one card of that kind'], ['named', 'the exact card asked for']]],
  ['set_size', 'Cards in a set', [[4, 'four (sets of four)'], [2, 'two (pairs)']]],
  ['lucky_draw', 'Fishing the card you asked for', [['ask_again', 'lets you ask again'], ['turn_ends', 'ends your turn']]],
  ['play_again_after_set', 'A set made from the pond keeps your turn', yesNo],
  ['sets_face_up', 'Sets lie face up', yesNo],
  ['after_miss', 'After "Go fish!" the turn goes to', [['to_asked', 'the player who said it'], ['to_left', 'the next player on the left']]],
  ['empty_hand', 'A player with no cards', [['ends_game', 'ends the game'], ['draw_else_sit_out', 'takes a card, or sits out'],
    ['draw_else_out', 'takes a card, or is out'], ['out', 'is out at once']]],
  ['stock_out_ends_game', 'The game ends when the pond is empty', yesNo],
  ['tie_break', 'A tie', [['shared', 'is shared'], ['fewest_cards_in_hand', 'goes to the fewest cards in hand']]],
];

// "Advanced": every rules field, filled in with the chosen game's values.
export function renderAdvanced(preset) {
  const values = PRESET_RULES[preset] ?? PRESET_RULES.classic;
  const box = $('advanced-fields');
  box.dataset.preset = preset;
  box.replaceChildren(...RULE_FIELDS.map(([name, label, kind, min, max]) => {
    const id = `rule-${name}`;
    const value = values[name];
    let input;
    if (kind === 'int') {
      input = el('input', { id, type: 'number', min: String(min), max: String(max), value: String(value), 'data-rule': name, 'data-kind': 'int' });
    } else {
      input = el('select', { id, 'data-rule': name, 'data-kind': typeof kind[0][0] },
        ...kind.map(([v, text]) => el('option', { value: String(v), text, selected: v === value })));
    }
    return el('div', { class: 'rule-field', 'data-field': name },
      el('label', { for: id, text: label }), input,
      el('span', { class: 'error field-error', id: `${id}-error`, role: 'status' }));
  }));
}

// The fields changed from the preset, as create_room's rules object wants them.
export function changedRules(preset) {
  const values = PRESET_RULES[preset] ?? PRESET_RULES.classic;
  const changed = {};
  for (const input of $('advanced-fields').querySelectorAll('[data-rule]')) {
    const name = input.dataset.rule;
    let v = input.value;
    if (input.dataset.kind === 'int' || input.dataset.kind === 'number') v = Number(v);
    else if (input.dataset.kind === 'boolean') v = v === 'true';
    if (v !== values[name]) changed[name] = v;
  }
  return changed;
}

// The server's words for a refused rule name fields and values by their
// codes ("min_players cannot be larger than max_players."); the page says
// them with the labels people see on the fields ("Fewest players" ...).
export function ruleMessage(message) {
  const fields = new Map(RULE_FIELDS.map((f) => [f[0], f]));
  const optionText = (field, value) => (Array.isArray(field[2]) ? field[2].find(([v]) => String(v) === value)?.[1] : null);
  return String(message ?? '')
    .replace(/\b([a-z_]+) = ([a-z_0-9]+)/g, (all, name, value) =>
      (fields.has(name) ? `"${fields.get(name)[1]}" is "${optionText(fields.get(name), value) ?? value}"` : all))
    .replace(/\b([a-z_]+) must be one of: ([a-z_0-9, ]+)\./g, (all, name, list) => (fields.has(name)
      ? `"${fields.get(name)[1]}" must be one of: ${list.split(', ').map((v) => `"${optionText(fields.get(name), v) ?? v}"`).join(', ')}.` : all))
    .replace(/\b[a-z]+_[a-z_]+\b/g, (name) => (fields.has(name) ? `"${fields.get(name)[1]}"` : name));
}
