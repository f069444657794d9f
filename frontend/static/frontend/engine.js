// Just enough Klondike to rebuild a replay: the log holds only resolved, legal actions
// (rules were checked by the server), so applying one is bookkeeping, not refereeing. And
// just enough to draw a move before its answer comes (`predict`); the server still judges it.
import { SUITS, isRed, rankValue, suitOf } from "./cards.js";

/** The starting position from a replay's `deal`: every card known, the last of each column
 *  face up, the stock in draw order. */
export function initialPosition(deal) {
  return {
    tableau: deal.tableau.map((col) => col.map((card, i) => ({ card, up: i === col.length - 1 }))),
    stock: [...deal.stock],
    waste: [],
    foundations: [[], [], [], []],
    history: [],
  };
}

function copy(pos) {
  return {
    tableau: pos.tableau.map((col) => col.map((c) => ({ ...c }))),
    stock: [...pos.stock],
    waste: [...pos.waste],
    foundations: pos.foundations.map((f) => [...f]),
  };
}

/** Applies one logged action (the API's JSON form) and returns the new position; `draw` is
 *  the rules' 1 or 3. The input position is left as it was. */
export function applyAction(pos, action, draw) {
  if (action.action === "undo") {
    const history = pos.history.slice(0, -1);
    return { ...pos.history[pos.history.length - 1], history };
  }
  if (action.action === "resign") return pos;
  const { history, ...plain } = pos;
  const next = { ...copy(plain), history: [...history, plain] };
  if (action.action === "draw") {
    // The first card turned ends lowest, so the last one turned is on top (rules §3).
    next.waste.push(...next.stock.splice(0, draw));
  } else if (action.action === "recycle") {
    next.stock = next.waste;
    next.waste = [];
  } else if (action.action === "move") {
    const from = pileIn(next, action.from);
    const moved = from.splice(from.length - (action.count || 1));
    const to = pileIn(next, action.to);
    if (action.to[0] === "t") to.push(...moved.map((m) => (typeof m === "string" ? { card: m, up: true } : m)));
    else to.push(...moved.map((m) => (typeof m === "string" ? m : m.card)));
    // Auto-flip: uncovering a face-down card turns it up as part of the move (rules §2.7).
    if (action.from[0] === "t" && from.length && !from[from.length - 1].up) from[from.length - 1].up = true;
  } else {
    throw new Error(`unknown action ${action.action}`);
  }
  return next;
}

/** The position as the API's game `state` shows it, so one renderer draws both. */
export function publicState(pos) {
  return {
    stock: pos.stock.length,
    waste: [...pos.waste],
    foundations: pos.foundations.map((f) => [...f]),
    tableau: pos.tableau.map((col) => col.map((c) => (c.up ? c.card : null))),
  };
}

/** Every position of a replay: positions[k] follows the first k log entries. A redacted
 *  replay (a daily attempt whose board is still open) has no deal: it starts from what the
 *  player saw, with face-down cards and the stock unknown (null), and each entry's
 *  `revealed` cards fill in what it turned face up. */
export function positions(replay) {
  if (!replay.redacted) {
    const out = [initialPosition(replay.deal)];
    for (const entry of replay.actions) out.push(applyAction(out[out.length - 1], entry.action, replay.rules.draw));
    return out;
  }
  const out = [{
    tableau: replay.initial.tableau.map((col) => col.map((card) => ({ card, up: card !== null }))),
    stock: Array(replay.initial.stock).fill(null),
    waste: [],
    foundations: [[], [], [], []],
    history: [],
  }];
  for (const entry of replay.actions) {
    const next = applyAction(out[out.length - 1], entry.action, replay.rules.draw);
    // An undo goes back to a position already known; its `revealed` adds nothing.
    if (entry.action.action !== "undo") reveal(next, entry.revealed);
    out.push(next);
  }
  return out;
}

/** Puts `cards` on the unknown cards now in view, in the server's order: the waste bottom
 *  first, then the face-up cards of t1 to t7. */
function reveal(pos, cards) {
  const queue = [...cards];
  pos.waste.forEach((card, i) => { if (card === null) pos.waste[i] = queue.shift(); });
  for (const col of pos.tableau) for (const slot of col) if (slot.up && slot.card === null) slot.card = queue.shift();
}

/** Whether `card` may lie on `onto` in a column (`onto` undefined: an empty column). */
function fitsColumn(card, onto) {
  if (!onto) return rankValue(card) === 13;
  return isRed(card) !== isRed(onto) && rankValue(onto) === rankValue(card) + 1;
}

/** The public state after `body` (an action as the page sends it), when the page knows it
 *  without the server: a move between face-up cards or to a foundation that turns no card
 *  up, or a recycle. Null for anything else: a draw or a flip reveals what only the server
 *  knows, and a move the rules refuse is left for the server to refuse. `rules` is the
 *  game's, with `canRecycle`. The input state is left as it was. */
export function predict(state, body, rules) {
  if (body.action === "recycle") {
    return !state.stock && state.waste.length && rules.canRecycle ? { ...state, stock: state.waste.length, waste: [] } : null;
  }
  if ((body.action !== "move" && body.action !== "tap") || !body.from || body.from === "stock") return null;
  const next = {
    stock: state.stock,
    waste: [...state.waste],
    foundations: state.foundations.map((f) => [...f]),
    tableau: state.tableau.map((col) => [...col]),
  };
  const from = pileIn(next, body.from);
  const count = body.action === "move" ? body.count || 1 : 1;
  if (!from || from.length < count || (body.from[0] === "f" && !rules.foundation_return)) return null;
  const moved = from.splice(from.length - count);
  if (moved[0] === null || (body.from[0] === "t" && from.length && from[from.length - 1] === null)) return null;
  let to = body.action === "tap" ? "f" : body.to;
  if (to === "f") to = `f${SUITS.indexOf(suitOf(moved[0])) + 1}`;
  const dest = pileIn(next, to);
  if (!dest || to === body.from) return null;
  if (to[0] === "f") {
    if (count !== 1 || body.from[0] === "f" || to !== `f${SUITS.indexOf(suitOf(moved[0])) + 1}`) return null;
    if (dest.length !== rankValue(moved[0]) - 1) return null;
  } else if (!fitsColumn(moved[0], dest[dest.length - 1])) {
    return null;
  }
  dest.push(...moved);
  return next;
}

/** A pile's cards in a public state, by name ("waste", "f2", "t5"); null for another name. */
export function pileIn(state, name) {
  if (name === "waste") return state.waste;
  if (/^f[1-4]$/.test(name)) return state.foundations[name[1] - 1];
  if (/^t[1-7]$/.test(name)) return state.tableau[name[1] - 1];
  return null;
}
