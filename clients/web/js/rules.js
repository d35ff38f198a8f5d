// The games in plain words: what each preset is, and a summary of a room's
// rules built from its rules fields (so a changed field shows up too).

import { numberWord } from './cards.js';

export const PRESET_LINES = {
  classic: 'The usual game: ask for cards like yours, catch them or go fish. Most sets of four wins.',
  'specific-card': 'Ask for one exact card, a kind and a suit, instead of every card of a kind.',
  'keep-playing': 'Play goes on after the pond is empty, until all 13 sets of four are made.',
  bicycle: 'Only a catch or a new set keeps your turn; play passes to the left.',
  authors: 'No pond: all the cards are dealt, and you ask for exact cards you need.',
  pairs: 'Collect pairs instead of sets of four. Good for younger players.',
};

export const PRESET_TITLES = {
  classic: 'Classic', 'specific-card': 'Ask for one card', 'keep-playing': 'Keep playing',
  bicycle: 'Bicycle', authors: 'Authors', pairs: 'Pairs',
};

export const presetTitle = (name) => PRESET_TITLES[name] ?? name;
// "set" (of four) or "pair": the word a child reads for a book.
export const setWord = (rules) => (rules?.set_size === 2 ? 'pair' : 'set');
export const setsWord = (rules, n = 2) => (n === 1 ? setWord(rules) : `${setWord(rules)}s`);
// "sets of four" / "pairs", for headings
export const setsTitle = (rules) => (rules?.set_size === 2 ? 'Pairs' : 'Sets of four');

export function rulesSummary(rules) {
  const lines = [];
  const set = setWord(rules);
  if (rules.deal_whole_pack) {
    lines.push('All the cards are dealt, so there is no pond.');
  } else {
    lines.push(`Everyone gets ${numberWord(rules.cards_dealt)} cards ` +
      `(${numberWord(rules.small_table_cards)} when there are ${numberWord(rules.small_table_players)} players or fewer); ` +
      'the other cards make the pond.');
  }
  if (rules.ask_for === 'card') {
    lines.push('On your turn, ask another player for one exact card, of a kind you hold' +
      (rules.may_ask_held_card ? ' (you may ask for a card you hold yourself, but that is a miss).' : '.'));
  } else {
    lines.push('On your turn, ask another player for a kind of card you hold, like 7s.');
  }
  lines.push({
    all: 'If they have any, they give you all of them and you ask again.',
    one: 'If they have any, they give you one of them and you ask again.',
    named: 'If they have that card, they give it to you and you ask again.',
  }[rules.give] ?? 'If they have it, they give it to you and you ask again.');
  if (!rules.deal_whole_pack) {
    lines.push(rules.lucky_draw === 'ask_again'
      ? 'If not, they say "Go fish!" and you take a card from the pond; if it is the one you asked for, show it and ask again.'
      : 'If not, they say "Go fish!" and you take a card from the pond.');
  }
  lines.push(rules.after_miss === 'to_asked'
    ? 'After a "Go fish!" it is the turn of the player who said it.'
    : 'After a "Go fish!" the turn passes to the left.');
  lines.push(rules.set_size === 2
    ? 'Two cards of a kind make a pair, put down at once.'
    : 'Four cards of a kind make a set of four, put down at once.');
  if (rules.play_again_after_set) lines.push(`Making a ${set} also keeps your turn.`);
  if (rules.table_rules) {
    lines.push('Table rules: you answer asks yourself and put down your own sets. Asking out of turn, ' +
      'asking for something you may not, or saying "Go fish!" when you have the cards costs a penalty.');
  }
  if (rules.empty_hand === 'ends_game') {
    lines.push(rules.stock_out_ends_game
      ? 'The game ends when someone has no cards left or the pond is empty.'
      : 'The game ends when someone has no cards left.');
  } else {
    lines.push({
      draw_else_sit_out: 'With no cards left you take one from the pond on your turn; when the pond is empty you sit out.',
      draw_else_out: 'With no cards left you take one from the pond on your turn; when the pond is empty you are out.',
      out: 'A player with no cards left is out of the game (their sets still count).',
    }[rules.empty_hand] ?? 'Players with no cards take one from the pond when they can.');
    lines.push(rules.set_size === 2 ? 'The game ends when every pair is down.' : 'The game ends when all 13 sets of four are down.');
  }
  lines.push(`Most ${set}s wins.` + (rules.tie_break === 'shared' ? ' A tie is shared.'
    : ' A tie goes to the player with the fewest cards left in hand.'));
  return lines;
}

export function tieBreakText(rules) {
  if (!rules) return '';
  return rules.tie_break === 'shared'
    ? 'So they share the win.'
    : 'So the one with the fewest cards left in hand wins; if that is equal too, they share the win.';
}
