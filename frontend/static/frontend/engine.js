// @ts-check
// Bookkeeping, not refereeing: no Klondike rule is here. Replays hold only server-checked
// actions, and a move is drawn ahead of its answer only if the server's `legal` list holds it.

/** From a replay's `deal`; the stock in draw order. */
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

/** Returns a new position; `pos` is left as it was. */
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

/** As the API's game `state`, so one renderer draws both. */
export function publicState(pos) {
  return {
    stock: pos.stock.length,
    waste: [...pos.waste],
    foundations: pos.foundations.map((f) => [...f]),
    tableau: pos.tableau.map((col) => col.map((c) => (c.up ? c.card : null))),
  };
}

/** positions[k] follows the first k log entries. A redacted replay (an open daily) has no deal:
 *  unseen cards are null until an entry's `revealed` fills them in. */
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

/** In the server's order: the waste bottom first, then t1 to t7. */
function reveal(pos, cards) {
  const queue = [...cards];
  pos.waste.forEach((card, i) => { if (card === null) pos.waste[i] = queue.shift(); });
  for (const col of pos.tableau) for (const slot of col) if (slot.up && slot.card === null) slot.card = queue.shift();
}

/** Where `body` sends its cards by `legal` (docs/api.md, "Games"); null when the list lacks it. */
export function legalTarget(legal, body) {
  const targets = (legal && legal.moves[body.from]) || {};
  const count = cardsMoved(body);
  if (body.action === "tap" || (body.action === "move" && body.to === "f")) {
    const home = Object.keys(targets).find((pile) => pile[0] === "f");
    return home && count === 1 ? home : null;
  }
  return body.action === "move" && targets[body.to] === count ? body.to : null;
}

const cardsMoved = (body) => (body.action === "move" && body.count) || 1;

/** The state after `body` if `legal` accepts it and the outcome is known (a move, tap or recycle;
 *  an uncovered card stays down until the answer). Null for a draw or double tap (the server
 *  decides) or an action the list lacks. */
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

/** By name ("waste", "f2", "t5"); null for another. */
export function pileIn(state, name) {
  if (name === "waste") return state.waste;
  if (/^f[1-4]$/.test(name)) return state.foundations[name[1] - 1];
  if (/^t[1-7]$/.test(name)) return state.tableau[name[1] - 1];
  return null;
}
