// What each preset is, in a line, and a rules summary built from the room's
// rules fields (so a changed field shows up too).

import { numberWord } from './cards.js';

export const PRESET_LINES = {
  classic: 'The usual game: ask for a rank, catch or draw, most books wins.',
  'specific-card': 'Ask for one exact card, naming its rank and suit, instead of a whole rank.',
  'keep-playing': 'The game goes on after the stock runs out, until all 13 books are made.',
  bicycle: 'Only a catch or a new book keeps your turn; play passes to the left.',
  authors: 'No stock: all cards are dealt and you ask for exact cards you lack.',
  pairs: 'Collect pairs instead of books of four; for younger players.',
};

export const PRESET_TITLES = {
  classic: 'Classic', 'specific-card': 'Specific card', 'keep-playing': 'Keep playing',
  bicycle: 'Bicycle', authors: 'Authors', pairs: 'Pairs',
};

export const presetTitle = (name) => PRESET_TITLES[name] ?? name;
export const setWord = (rules) => (rules?.set_size === 2 ? 'pair' : 'book');

export function rulesSummary(rules) {
  const lines = [];
  const set = setWord(rules);
  if (rules.deal_whole_pack) {
    lines.push('The whole pack is dealt; there is no stock.');
  } else {
    lines.push(`Each player gets ${numberWord(rules.cards_dealt)} cards ` +
      `(${numberWord(rules.small_table_cards)} with ${numberWord(rules.small_table_players)} or fewer players); ` +
      'the rest is the stock.');
  }
  if (rules.ask_for === 'card') {
    lines.push('On your turn, ask another player for one exact card of a rank you hold' +
      (rules.may_ask_held_card ? ' (asking for a card you hold yourself is allowed, but it is a miss).' : '.'));
  } else {
    lines.push('On your turn, ask another player for a rank you hold.');
  }
  lines.push({
    all: 'If they have any, they give you every card of that rank and you ask again.',
    one: 'If they have any, they give you one card of that rank and you ask again.',
    named: 'If they have that card, they give it to you and you ask again.',
  }[rules.give] ?? 'If they have it, they give it to you and you ask again.');
  if (!rules.deal_whole_pack) {
    lines.push(rules.lucky_draw === 'ask_again'
      ? 'If not, they say "Go fish!" and you draw; if you draw what you asked for, show it and ask again.'
      : 'If not, they say "Go fish!" and you draw a card.');
  }
  lines.push(rules.after_miss === 'to_asked'
    ? 'After a miss the turn goes to the player who said "Go fish".'
    : 'After a miss the turn passes to the left.');
  lines.push(rules.set_size === 2
    ? 'Two cards of a rank make a pair, laid down at once.'
    : 'Four cards of a rank make a book, laid down at once.');
  if (rules.play_again_after_set) lines.push(`Making a ${set} also keeps your turn.`);
  if (rules.empty_hand === 'ends_game') {
    lines.push(rules.stock_out_ends_game
      ? 'The game ends when someone runs out of cards or the stock is empty.'
      : 'The game ends when someone runs out of cards.');
  } else {
    lines.push({
      draw_else_sit_out: 'With an empty hand you draw a card on your turn; with no stock left you sit out.',
      draw_else_out: 'With an empty hand you draw a card on your turn; with no stock left you are out.',
      out: 'A player whose hand is empty is out of the game (and keeps their sets).',
    }[rules.empty_hand] ?? 'Players with an empty hand draw when they can.');
    lines.push(`The game ends when all 13 ${set}s are down.`.replace('13 pairs', 'pairs'));
  }
  lines.push(`Most ${set}s wins.` + (rules.tie_break === 'shared' ? ' A tie is shared.'
    : ' A tie goes to the player with the fewest cards left in hand.'));
  return lines;
}

export function tieBreakText(rules) {
  if (!rules) return '';
  return rules.tie_break === 'shared'
    ? 'Players with the same number of sets share the win.'
    : 'When sets are tied, the player with the fewest cards left in hand wins; a remaining tie is shared.';
}
