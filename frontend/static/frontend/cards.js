// @ts-check
// Cards as data ("10H", null for face down), as words for screen readers, and as DOM.
import { el } from "./dom.js";
import { gettext, interpolate, ngettext } from "./i18n.js";

export const SUITS = ["S", "H", "D", "C"]; // the fixed foundation order f1..f4 (rules §1)
export const COLUMNS = ["t1", "t2", "t3", "t4", "t5", "t6", "t7"]; // the tableau, left to right
const SUIT_GLYPH = { S: "♠", H: "♥", D: "♦", C: "♣" };
// Functions, so that each word is looked up in the catalog when it is said.
const SUIT_WORD = { S: () => gettext("spades"), H: () => gettext("hearts"), D: () => gettext("diamonds"), C: () => gettext("clubs") };
const RANK_WORD = { A: () => gettext("ace"), J: () => gettext("jack"), Q: () => gettext("queen"), K: () => gettext("king") };
export const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

export const rankOf = (card) => card.slice(0, -1);
export const suitOf = (card) => card.slice(-1);
export const rankValue = (card) => RANKS.indexOf(rankOf(card)) + 1;
export const isRed = (card) => "HD".includes(suitOf(card));
export const glyph = (suit) => SUIT_GLYPH[suit];

/** "ace of spades", "10 of hearts" in the page's language. */
export function cardName(card) {
  if (!card) return gettext("face-down card");
  const rank = rankOf(card);
  return interpolate(gettext("%(rank)s of %(suit)s"), { rank: RANK_WORD[rank] ? RANK_WORD[rank]() : rank, suit: SUIT_WORD[suitOf(card)]() });
}

/** A pile in words: "column 5", "the spades foundation", "the stock". */
export function pileName(pile) {
  if (pile === "stock") return gettext("the stock");
  if (pile === "waste") return gettext("the waste");
  if (pile[0] === "f") return interpolate(gettext("the %(suit)s foundation"), { suit: SUIT_WORD[SUITS[pile[1] - 1]]() });
  return interpolate(gettext("column %(number)s"), { number: pile.slice(1) });
}

/** "to column 5": the case differs from `pileName`'s in Croatian, Slovak and Polish. */
export function pileTarget(pile) {
  if (pile === "stock") return gettext("to the stock");
  if (pile === "waste") return gettext("to the waste");
  if (pile[0] === "f") return interpolate(gettext("to the %(suit)s foundation"), { suit: SUIT_WORD[SUITS[pile[1] - 1]]() });
  return interpolate(gettext("to column %(number)s"), { number: pile.slice(1) });
}

/** The corner index stays readable when cards overlap. */
export function cardElement(card) {
  if (!card) return el("div", { class: "card down", "data-card": "", "aria-hidden": "true" });
  const suit = suitOf(card);
  return el(
    "div",
    { class: `card up suit-${suit}${isRed(card) ? " red" : ""}`, "data-card": card, role: "img", "aria-label": cardName(card) },
    el("span", { class: "ix", "aria-hidden": "true" }, el("span", { text: rankOf(card) }), el("span", { text: glyph(suit) })),
    el("span", { class: "pip", "aria-hidden": "true", text: glyph(suit) }),
  );
}

function locate(state) {
  const where = new Map();
  state.waste.forEach((c) => where.set(c, "waste"));
  state.foundations.forEach((pile, i) => pile.forEach((c) => where.set(c, `f${i + 1}`)));
  state.tableau.forEach((col, i) => col.forEach((c) => c && where.set(c, `t${i + 1}`)));
  return where;
}

/** For the live region; from two states alone, so any change (drag, tap, undo, replay step)
 *  reads the same. */
export function describeChange(before, after) {
  const was = locate(before);
  const now = locate(after);
  const parts = [];
  if (after.stock < before.stock && after.waste.length > before.waste.length) {
    const drawn = after.waste.slice(before.waste.length);
    // More than a draw can turn: a recycle being undone.
    parts.push(drawn.length > 3 ? gettext("Waste laid out again") : interpolate(gettext("Drew %(cards)s"), { cards: drawn.map(cardName).join(", ") }));
  } else if (after.stock > before.stock && after.waste.length < before.waste.length) {
    parts.push(after.waste.length ? gettext("Cards put back on the stock") : gettext("Waste turned over into the stock"));
  }
  // Moved cards grouped by (from, to), so a run reads "9 of hearts and 2 more to column 4".
  const moves = new Map();
  for (const [card, pile] of now) {
    const from = was.get(card);
    if (from && from !== pile) {
      const key = `${from}>${pile}`;
      if (!moves.has(key)) moves.set(key, []);
      moves.get(key).push(card);
    }
  }
  for (const [key, cards] of moves) {
    const values = { card: cardName(cards[0]), to: pileTarget(key.split(">")[1]), more: cards.length - 1 };
    // Translators: %(to)s is a place with its preposition: "to column 3".
    parts.push(interpolate(cards.length > 1
      ? ngettext("%(card)s and %(more)s more %(to)s", "%(card)s and %(more)s more %(to)s", cards.length - 1)
      : gettext("%(card)s %(to)s"), values));
  }
  // Never seen before, outside the waste: turned up in a column.
  after.tableau.forEach((col, i) => {
    col.forEach((c, j) => {
      if (c && !was.has(c) && before.tableau[i][j] === null) parts.push(interpolate(gettext("%(card)s turned up"), { card: cardName(c) }));
    });
  });
  // Undoing a flip turns a card face down again.
  after.tableau.forEach((col, i) => {
    col.forEach((c, j) => {
      const old = before.tableau[i][j];
      if (c === null && old) parts.push(interpolate(gettext("%(card)s turned face down"), { card: cardName(old) }));
    });
  });
  const text = parts.join(", ");
  return text ? text[0].toUpperCase() + text.slice(1) : "";
}
