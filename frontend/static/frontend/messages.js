// What the play and replay pages tell a player in words, in one place, so that a translation
// catalog can replace the English sentences. A refusal is worded from the API's error `code`
// and details, and from what the page itself knows (the action it sent and the position it
// sent it in): the server's `message` names rules sections and piles for developers.
import { RANKS, SUITS, glyph, rankOf, suitOf } from "./cards.js";
import { pileIn } from "./engine.js";
import { formatNumber, gettext, interpolate, ngettext } from "./i18n.js";

const _ = gettext;
/** A translated sentence with its `%(name)s` places filled. */
const say = (format, values) => interpolate(format, values);

/** "7♠", "10♥": a card as players write it. */
export const cardLabel = (card) => (card ? `${rankOf(card)}${glyph(suitOf(card))}` : _("a face-down card"));

/** "column 5", "the ♠ foundation", "the waste". */
export function pileLabel(pile) {
  if (pile[0] === "f") return say(_("the %(suit)s foundation"), { suit: glyph(SUITS[pile[1] - 1]) });
  if (pile[0] === "t") return say(_("column %(number)s"), { number: pile.slice(1) });
  return pile === "stock" ? _("the stock") : _("the waste");
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
  if (action.action === "draw") return _("Draw");
  if (action.action === "recycle") return _("Waste back to the stock");
  if (action.action === "undo") return _("Undo");
  if (action.action === "resign") return _("Resign");
  const card = movedCard(state, action);
  const count = action.count || 1;
  const what = card ? `${cardLabel(card)}${count > 1 ? ` +${count - 1}` : ""}` : pileLabel(action.from);
  const to = action.to[0] === "f" ? _("foundation") : pileLabel(action.to);
  return say(action.auto ? _("Auto: %(what)s → %(to)s") : "%(what)s → %(to)s", { what, to });
}

const cap = (text) => text[0].toUpperCase() + text.slice(1);
const c = cardLabel;

/** The 422's `reason` in plain words, from its `details` (docs/api.md, "Actions"). */
const REASONS = {
  column_build: (d) => say(_("%(card)s can't go on %(onto)s."), { card: c(d.card), onto: c(d.onto) }),
  empty_column_king: (d) => say(_("Only a king goes in an empty column, not %(card)s."), { card: c(d.card) }),
  foundation_suit: (d) => say(_("%(card)s goes on the %(suit)s foundation."), { card: c(d.card), suit: glyph(suitOf(d.card)) }),
  foundation_order: (d) => (d.next
    ? say(_("%(card)s can't go on its foundation yet: %(next)s comes first."), { card: c(d.card), next: c(d.next) })
    : say(_("%(card)s is already on its foundation."), { card: c(d.card) })),
  one_at_a_time: () => _("Cards go to a foundation one at a time."),
  waste_top: () => _("Only the waste's top card plays."),
  pile_empty: (d) => cap(say(_("%(pile)s is empty."), { pile: pileLabel(d.pile) })),
  face_up_only: () => _("Only face-up cards move."),
  not_face_up: (d) => say(_("%(card)s is not a face-up card of %(pile)s."), { card: c(d.card), pile: pileLabel(d.pile) }),
  not_top: (d) => say(_("%(card)s is not the top card of %(pile)s."), { card: c(d.card), pile: pileLabel(d.pile) }),
  count_mismatch: () => _("Those cards are not one run."),
  same_pile: () => _("Drop the card on another pile."),
  not_a_target: (d) => say(_("Cards can't be put on %(pile)s."), { pile: pileLabel(d.pile) }),
  no_place: (d) => say(_("%(card)s has nowhere to go."), { card: c(d.card) }),
  stock_empty: () => _("The stock is empty: tap it to turn the waste over."),
  stock_not_empty: () => _("Draw the stock's cards first."),
  nothing_to_recycle: () => _("The stock and the waste are both empty."),
  no_pass_left: (d) => say(ngettext("No pass left: these rules allow %(passes)s pass through the stock.",
    "No pass left: these rules allow %(passes)s passes through the stock.", d.passes), { passes: formatNumber(d.passes) }),
  no_foundation_return: () => _("These rules keep cards on their foundations."),
  return_to_column: () => _("A card taken from a foundation goes onto a column."),
  stock_draw_only: () => _("Cards leave the stock only by drawing."),
  nothing_to_undo: () => _("Nothing to undo."),
  undo_limit: (d) => say(ngettext("Undo goes back at most %(limit)s move.", "Undo goes back at most %(limit)s moves.", d.limit), { limit: formatNumber(d.limit) }),
  undo_reveal: () => _("In a ranked game an undo can't hide a card you have already seen."),
  automatic: () => _("Automatic moves are played by the game itself."),
  game_over: () => _("This game is over."),
};

/** The replay's analysis (docs/api.md, "Replays") in words, keyed on its `status`; `move` is
 *  the point of no return as the move list words it. The server's `message` is English. */
export function analysisText(analysis, move) {
  switch (analysis.status) {
    case "won":
      return _("The game was won.");
    case "still_winnable":
      return _("The last position reached can still be won.");
    case "point_of_no_return":
      return say(_("After step %(step)s (%(move)s) the deal could no longer be won."), { step: formatNumber(analysis.point_of_no_return + 1), move });
    case "unwinnable_from_start":
      return _("No play wins this deal: there is no point of no return.");
    case "inconclusive":
      return _("The solver could not decide every position it needed within its budget.");
    default:
      return analysis.message;
  }
}

/** Why Undo is off where the rules alone would allow it: the game resource's `undo_refusal`
 *  (a refusal `reason`, docs/api.md) in words; "" for none. */
export const undoRefusalText = (reason) => (reason && REASONS[reason] ? REASONS[reason]({}) : "");

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
      return reason ? REASONS[reason](details) : _("That move isn't allowed.");
    }
    case "network":
      return _("The server can't be reached. Check your connection.");
    case "game_over":
      return REASONS.game_over();
    case "seq_mismatch":
      return _("This game moved on elsewhere (another tab?): here it is as it stands.");
    case "throttled":
      return error.data && error.data.retry_after
        ? say(_("Too many actions at once: wait %(seconds)s s."), { seconds: formatNumber(error.data.retry_after) })
        : _("Too many actions at once: wait a moment.");
    case "not_authenticated":
    case "authentication_failed":
      return _("You are signed out: sign in again to go on.");
    case "not_found":
      return _("No such game (or it is not yours).");
    case "permission_denied":
      return _("Not allowed here.");
    default:
      return error.status >= 500 || !error.status ? _("The server had a problem. Try again in a moment.") : error.message;
  }
}
