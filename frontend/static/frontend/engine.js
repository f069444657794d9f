// @ts-check
// Bookkeeping, not refereeing: no rule of Klondike is written here. A replay's log holds only
// resolved, legal actions (the server checked them), so applying one moves cards; and a move
// is drawn before its answer only when the server's own list of legal moves holds it.

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

/** The pile that `body` (a move or a tap, as the page sends it) sends its cards to, by the
 *  server's `legal` list of the position (docs/api.md, "Games"); null when the list lacks it.
 *  A tap and a move to "f" go to the foundation the list names for the pile. */
export function legalTarget(legal, body) {
  const targets = (legal && legal.moves[body.from]) || {};
  const count = cardsMoved(body);
  if (body.action === "tap" || (body.action === "move" && body.to === "f")) {
    const home = Object.keys(targets).find((pile) => pile[0] === "f");
    return home && count === 1 ? home : null;
  }
  return body.action === "move" && targets[body.to] === count ? body.to : null;
}

/** How many cards `body` moves: a move's `count` (1 by default), one for a tap. */
const cardsMoved = (body) => (body.action === "move" && body.count) || 1;

/** The public state after `body` when the server's `legal` list for `state` accepts it and
 *  the page knows the outcome: a move or a tap (a face-down card it uncovers stays face down
 *  until the answer turns it up), or a recycle. Null for anything else: a draw turns up
 *  what only the server knows, a double tap's target is the server's choice, and an action
 *  the list lacks is the server's to refuse. The input state is left as it was. */
export function expected(state, legal, body) {
  if (!legal) return null;
  if (body.action === "recycle") return legal.stock === "recycle" ? { ...state, stock: state.waste.length, waste: [] } : null;
  const to = legalTarget(legal, body);
  if (!to) return null;
  const next = {
    stock: state.stock,
    waste: [...state.waste],
    foundations: state.foundations.map((f) => [...f]),
    tableau: state.tableau.map((col) => [...col]),
  };
  const from = pileIn(next, body.from);
  pileIn(next, to).push(...from.splice(from.length - cardsMoved(body)));
  return next;
}

/** A pile's cards in a public state, by name ("waste", "f2", "t5"); null for another name. */
export function pileIn(state, name) {
  if (name === "waste") return state.waste;
  if (/^f[1-4]$/.test(name)) return state.foundations[name[1] - 1];
  if (/^t[1-7]$/.test(name)) return state.tableau[name[1] - 1];
  return null;
}
