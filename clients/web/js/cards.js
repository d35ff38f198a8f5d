// Cards: parsing, names for people and screen readers, and drawing with CSS.

export const RANKS = ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A'];
export const SUITS = ['C', 'D', 'H', 'S'];
const SUIT = {
  C: { name: 'clubs', symbol: '♣', red: false },
  D: { name: 'diamonds', symbol: '♦', red: true },
  H: { name: 'hearts', symbol: '♥', red: true },
  S: { name: 'spades', symbol: '♠', red: false },
};
const RANK_WORD = { J: 'jack', Q: 'queen', K: 'king', A: 'ace' };
const NUMBER_WORD = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten',
  'eleven', 'twelve', 'thirteen'];

export const rankOf = (card) => card.slice(0, -1);
export const suitOf = (card) => card.slice(-1);
export const numberWord = (n) => NUMBER_WORD[n] ?? String(n);

// "9", "jack"
export const rankWord = (rank) => RANK_WORD[rank] ?? rank;
// "9s", "jacks"
export const rankPlural = (rank) => `${rankWord(rank)}s`;
// "the 9 of hearts"
export const cardName = (card) => `${rankWord(rankOf(card))} of ${SUIT[suitOf(card)].name}`;
// "two 9s", "one 9"
export const countOfRank = (n, rank) => `${numberWord(n)} ${n === 1 ? rankWord(rank) : rankPlural(rank)}`;

export const cardOrder = (a, b) =>
  RANKS.indexOf(rankOf(a)) - RANKS.indexOf(rankOf(b)) || SUITS.indexOf(suitOf(a)) - SUITS.indexOf(suitOf(b));

// A face-up card. The suit is a shape as well as a colour, so it never
// depends on colour alone; screen readers get "queen of hearts".
export function cardFace(card, { small = false } = {}) {
  const rank = rankOf(card);
  const suit = SUIT[suitOf(card)];
  const el = document.createElement('span');
  el.className = `card face ${suit.red ? 'red' : 'black'}${small ? ' small' : ''}`;
  el.setAttribute('role', 'img');
  el.setAttribute('aria-label', cardName(card));
  el.title = cardName(card);
  el.innerHTML =
    `<span class="corner" aria-hidden="true">${rank}<br>${suit.symbol}</span>` +
    `<span class="pip" aria-hidden="true">${suit.symbol}</span>` +
    `<span class="corner low" aria-hidden="true">${rank}<br>${suit.symbol}</span>`;
  return el;
}

function cardBack({ small = false } = {}) {
  const el = document.createElement('span');
  el.className = `card back${small ? ' small' : ''}`;
  el.setAttribute('aria-hidden', 'true');
  return el;
}

// A fan of card backs for a hand size, with the count as text.
export function backsFan(count) {
  const fan = document.createElement('span');
  fan.className = 'fan';
  const backs = document.createElement('span');
  backs.className = 'backs';
  for (let i = 0; i < Math.min(count, 12); i++) backs.append(cardBack({ small: true }));
  const label = document.createElement('span');
  label.className = 'count';
  label.textContent = `${count} ${count === 1 ? 'card' : 'cards'}`;
  fan.append(backs, label);
  return fan;
}
