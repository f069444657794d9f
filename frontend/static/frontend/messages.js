// @ts-check
// The play and replay pages' words in one place. A refusal's `message` is the server's (already
// translated); the page words only what no server said (no answer, a stale tab, a throttle).
import { glyph, pileName, rankOf, suitOf } from "./cards.js";
import { pileIn } from "./engine.js";
import { formatNumber, gettext, interpolate } from "./i18n.js";

const _ = gettext;
const say = (format, values) => interpolate(format, values);

/** "7♠", "10♥": a card as players write it. */
export const cardLabel = (card) => (card ? `${rankOf(card)}${glyph(suitOf(card))}` : _("a face-down card"));

/** Null when the page cannot see it. */
function movedCard(state, action) {
  if (!state || !action.from) return null;
  if (action.card) return action.card;
  const pile = pileIn(state, action.from) || [];
  const count = action.action === "move" ? action.count || 1 : 1;
  return pile[pile.length - count] || null;
}

/** A line of the replay's move list: "7♠ → column 5", "Draw". */
export function actionLabel(action, state) {
  if (action.action === "draw") return _("Draw");
  if (action.action === "recycle") return _("Waste back to the stock");
  if (action.action === "undo") return _("Undo");
  if (action.action === "resign") return _("Resign");
  const card = movedCard(state, action);
  const count = action.count || 1;
  const what = card ? `${cardLabel(card)}${count > 1 ? ` +${count - 1}` : ""}` : pileName(action.from);
  const to = action.to[0] === "f" ? _("foundation") : pileName(action.to);
  return say(action.auto ? _("Auto: %(what)s → %(to)s") : "%(what)s → %(to)s", { what, to });
}

/** The analysis (docs/api.md, "Replays") by `status`: the server's `message` is English. */
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

/** A refusal (`illegal_move`, `game_over`) as the server worded it. */
export function errorText(error) {
  switch (error.code) {
    case "network":
      return _("The server can't be reached. Check your connection.");
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
