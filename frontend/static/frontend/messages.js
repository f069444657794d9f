// What the play and replay pages tell a player in words, in one place, so that a translation
// catalog can replace the English sentences. A refusal is worded from the API's error `code`
// and details, and from what the page itself knows (the action it sent and the position it
// sent it in): the server's `message` names rules sections and piles for developers.
import { RANKS, SUITS, glyph, rankOf, suitOf } from "./cards.js";
import { pileIn } from "./engine.js";

/** "7♠", "10♥": a card as players write it. */
export const cardLabel = (card) => (card ? `${rankOf(card)}${glyph(suitOf(card))}` : "a face-down card");

/** "column 5", "the ♠ foundation", "the waste". */
export function pileLabel(pile) {
  if (pile[0] === "f") return `the ${glyph(SUITS[pile[1] - 1])} foundation`;
  if (pile[0] === "t") return `column ${pile.slice(1)}`;
  return `the ${pile}`;
}

/** The first card an action takes from its pile in `state` (null when the page cannot see it). */
function movedCard(state, action) {
  if (!state || !action.from) return null;
  if (action.card) return action.card;
  const pile = pileIn(state, action.from) || [];
  const count = action.action === "move" ? action.count || 1 : 1;
  return pile[pile.length - count] || null;
}

/** A logged action as a line of the replay's move list, from the position it was played in:
 *  "7♠ → column 5", "Draw", "Undo". */
export function actionLabel(action, state) {
  if (action.action === "draw") return "Draw";
  if (action.action === "recycle") return "Waste back to the stock";
  if (action.action === "undo") return "Undo";
  if (action.action === "resign") return "Resign";
  const card = movedCard(state, action);
  const count = action.count || 1;
  const what = card ? `${cardLabel(card)}${count > 1 ? ` +${count - 1}` : ""}` : pileLabel(action.from);
  const to = action.to[0] === "f" ? "foundation" : pileLabel(action.to);
  return `${action.auto ? "Auto: " : ""}${what} → ${to}`;
}

const cap = (text) => text[0].toUpperCase() + text.slice(1);
const c = cardLabel;

/** The 422's `reason` in plain words, from its `details` (docs/api.md, "Actions"). */
const REASONS = {
  column_build: (d) => `${c(d.card)} can't go on ${c(d.onto)}.`,
  empty_column_king: (d) => `Only a king goes in an empty column, not ${c(d.card)}.`,
  foundation_suit: (d) => `${c(d.card)} goes on the ${glyph(suitOf(d.card))} foundation.`,
  foundation_order: (d) => (d.next ? `${c(d.card)} can't go on its foundation yet: ${c(d.next)} comes first.` : `${c(d.card)} is already on its foundation.`),
  one_at_a_time: () => "Cards go to a foundation one at a time.",
  waste_top: () => "Only the waste's top card plays.",
  pile_empty: (d) => `${cap(pileLabel(d.pile))} is empty.`,
  face_up_only: () => "Only face-up cards move.",
  not_face_up: (d) => `${c(d.card)} is not a face-up card of ${pileLabel(d.pile)}.`,
  not_top: (d) => `${c(d.card)} is not the top card of ${pileLabel(d.pile)}.`,
  count_mismatch: () => "Those cards are not one run.",
  same_pile: () => "Drop the card on another pile.",
  not_a_target: (d) => `Cards can't be put on ${pileLabel(d.pile)}.`,
  no_place: (d) => `${c(d.card)} has nowhere to go.`,
  stock_empty: () => "The stock is empty: tap it to turn the waste over.",
  stock_not_empty: () => "Draw the stock's cards first.",
  nothing_to_recycle: () => "The stock and the waste are both empty.",
  no_pass_left: (d) => `No pass left: these rules allow ${d.passes} pass${d.passes === 1 ? "" : "es"} through the stock.`,
  no_foundation_return: () => "These rules keep cards on their foundations.",
  return_to_column: () => "A card taken from a foundation goes onto a column.",
  stock_draw_only: () => "Cards leave the stock only by drawing.",
  nothing_to_undo: () => "Nothing to undo.",
  undo_limit: (d) => `Undo goes back at most ${d.limit} moves.`,
  automatic: () => "Automatic moves are played by the game itself.",
  game_over: () => "This game is over.",
};

/** The reason the rules refuse `action` in `state`, as the page sees it, for an answer
 *  that names none the page knows: `[reason, details]` in the API's terms. */
function reasonOf(action, state, rules) {
  const kind = action.action;
  if (kind === "draw") return ["stock_empty", {}];
  if (kind === "recycle") return state.stock ? ["stock_not_empty", {}] : ["no_pass_left", { passes: rules.passes }];
  if (kind === "undo") return ["nothing_to_undo", {}];
  const card = movedCard(state, action);
  if (!card) return [null, {}];
  if (action.from[0] === "f" && !rules.foundation_return) return ["no_foundation_return", {}];
  if (kind === "double_tap") return ["no_place", { card }];
  const to = kind === "tap" ? "f" : action.to;
  if (to[0] === "f") {
    if (action.count > 1) return ["one_at_a_time", {}];
    const home = state.foundations[SUITS.indexOf(suitOf(card))];
    if (to !== "f" && SUITS[to[1] - 1] !== suitOf(card)) return ["foundation_suit", { card }];
    return ["foundation_order", { card, next: home.length < 13 ? `${RANKS[home.length]}${suitOf(card)}` : undefined }];
  }
  const column = pileIn(state, to) || [];
  return column.length ? ["column_build", { card, onto: column[column.length - 1] }] : ["empty_column_king", { card }];
}

/** A refused or failed request in plain words. `context` is `{action, state, rules}`: what
 *  was sent, and the position the page showed. */
export function errorText(error, context = {}) {
  switch (error.code) {
    case "illegal_move": {
      let [reason, details] = error.data && REASONS[error.data.reason] ? [error.data.reason, error.data.details || {}] : [null, {}];
      if (!reason && context.action && context.state) [reason, details] = reasonOf(context.action, context.state, context.rules);
      return reason ? REASONS[reason](details) : "That move isn't allowed.";
    }
    case "network":
      return "The server can't be reached. Check your connection.";
    case "game_over":
      return "This game is over.";
    case "seq_mismatch":
      return "This game moved on elsewhere (another tab?): here it is as it stands.";
    case "throttled":
      return `Too many actions at once: wait ${error.data && error.data.retry_after ? `${error.data.retry_after} s` : "a moment"}.`;
    case "not_authenticated":
    case "authentication_failed":
      return "You are signed out: sign in again to go on.";
    case "not_found":
      return "No such game (or it is not yours).";
    case "permission_denied":
      return "Not allowed here.";
    default:
      return error.status >= 500 || !error.status ? "The server had a problem. Try again in a moment." : error.message;
  }
}
