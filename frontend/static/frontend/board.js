// @ts-check
// The board: draws a game state (the API's `state` shape) and animates the change from the last
// one; on the play page its input (pointer.js, keys.js) turns gestures and keys into API actions,
// which it sends. It never decides what is legal: it keeps the server's list of legal moves
// (`legal`, docs/api.md) only to tell a tap that acts from one that waits for its second half,
// and the page renders whatever the server answers (or, for a move in that list, draws it at
// once and then the answer: play.js).
import { el } from "./dom.js";
import { COLUMNS, SUITS, cardElement, pileName } from "./cards.js";
import { gettext as _ } from "./i18n.js";
import { legalTarget, pileIn } from "./engine.js";
import { fitColumns, measureBoard } from "./fit.js";
import { KeyInput } from "./keys.js";
import { PointerInput } from "./pointer.js";

const HOME_STEP_MS = 70; // between two cards of an automatic finish
const SHAKE = [0, -7, 6, -4, 2, 0].map((x) => ({ transform: `translateX(${x}px)` }));
const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");

/** @implements {BoardHost} */
export class Board {
  /**
   * @param {HTMLElement} root where the board goes
   * @param {object} options `interactive`; `onAction(body)` sends an action (returns a
   *   promise); `message(text)` shows a passing tip; `status(text)` shows where the keyboard
   *   cursor is (and speaks it).
   */
  constructor(root, options = {}) {
    this.options = options;
    this.state = null;
    this.draw = 1;
    this.canRecycle = true;
    this.legal = null; // the server's legal moves of `state`; null while an answer is awaited
    this.piles = {};
    // A labelled pile is a group (a div's aria-label alone is not allowed: Lighthouse, axe).
    const pileEl = (name, cls, label) => (this.piles[name] = el("div", { class: `pile ${cls}`, "data-pile": name, role: "group", "aria-label": label }));
    const top = el("div", { class: "top-row" },
      pileEl("stock", "stock", _("Stock")),
      pileEl("waste", "waste", _("Waste")),
      ...SUITS.map((s, i) => pileEl(`f${i + 1}`, `found found-${s}`, pileName(`f${i + 1}`))),
    );
    const tableau = el("div", { class: "tableau" }, ...COLUMNS.map((t) => pileEl(t, "col", pileName(t))));
    this.element = el("div", {
      class: `board${options.interactive ? " interactive" : ""}`,
      tabindex: options.interactive ? "0" : null,
      role: options.interactive ? "application" : "group",
      "aria-roledescription": _("solitaire board"),
      "aria-label": options.interactive
        ? _("Game board. Arrow keys move between piles, Enter picks up and drops, Space draws. Press ? for all keys.")
        : _("Board"),
    }, top, tableau);
    root.replaceChildren(this.element);
    // Input, on a board that takes it: pointer.js and keys.js, which send through `send`.
    this.pointer = options.interactive ? new PointerInput(this) : null;
    this.keys = options.interactive ? new KeyInput(this) : null;
    // Column fans depend on the card size and on the viewport's height.
    const relayout = () => {
      this.metrics = null;
      if (this.state) this.layout();
    };
    // A frame later: the fit may resize the board itself, which within the observer's callback
    // is a "ResizeObserver loop" error event.
    new ResizeObserver(() => requestAnimationFrame(relayout)).observe(this.element);
    window.addEventListener("resize", relayout);
    // A setting (larger cards) changes the corner index, which the fit keeps in view.
    new MutationObserver(relayout).observe(document.documentElement, { attributeFilter: ["class"] });
  }

  // ---------------------------------------------------------------- drawing

  /** Draws `state`; cards that were on screen before slide from where they were (including
   *  where a drag left them), so a server answer reads as motion, not as a redraw. `legal`
   *  is the server's list for `state` (null for a state drawn ahead of its answer). */
  render(state, { draw = this.draw, canRecycle = this.canRecycle, legal = this.legal } = {}) {
    const before = this.cardRects();
    this.state = state;
    this.draw = draw;
    this.canRecycle = canRecycle;
    this.legal = legal;
    this.clearHint();
    for (const name of Object.keys(this.piles)) {
      this.piles[name].replaceChildren(...this.pileCards(name));
      // The whole pile's size: the waste and foundations only draw their top cards.
      this.piles[name].dataset.count = String(name === "stock" ? state.stock : this.pileArray(name).length);
    }
    this.layout();
    this.keys?.clampCursor();
    this.keys?.showCursor();
    this.animateFrom(before);
    this.pointer?.keepPress();
  }

  /** Draws `state` unless the board shows it already: a move drawn ahead of its answer and
   *  confirmed by it is left as it is (no redraw under a finger, no second frame). */
  update(state, { draw = this.draw, canRecycle = this.canRecycle, legal = this.legal } = {}) {
    const same = this.state && draw === this.draw && canRecycle === this.canRecycle
      && ["stock", "waste", "foundations", "tableau"].every((k) => JSON.stringify(state[k]) === JSON.stringify(this.state[k]));
    if (same) this.legal = legal;
    else this.render(state, { draw, canRecycle, legal });
  }

  pileCards(name) {
    const s = this.state;
    if (name === "stock") {
      if (s.stock) return [el("div", { class: "card down" }), el("span", { class: "count", text: String(s.stock) })];
      return [el("span", { class: "empty-mark", "aria-hidden": "true", text: this.canRecycle && s.waste.length ? "↻" : "✕" })];
    }
    if (name === "waste") {
      // Draw 3 fans the last three turned; draw 1 keeps one beneath, so playing the top
      // card uncovers something.
      const shown = s.waste.slice(this.draw === 3 ? -3 : -2);
      return shown.map((c, i) => this.cardAt(c, s.waste.length - shown.length + i));
    }
    if (name[0] === "f") {
      const pile = s.foundations[name[1] - 1];
      return pile.slice(-2).map((c, i) => this.cardAt(c, pile.length - Math.min(2, pile.length) + i));
    }
    return s.tableau[name[1] - 1].map((c, i) => this.cardAt(c, i));
  }

  cardAt(card, index) {
    const node = cardElement(card);
    node.dataset.index = String(index);
    return node;
  }

  /** Places cards inside their piles: fanned columns fitted to the screen (fit.js). The
   *  geometry is measured again only when the size changed, not on every answer (measuring
   *  forces the browser to lay the page out). */
  layout() {
    this.metrics ??= measureBoard(this.element, this.piles.t1);
    const cw = fitColumns(this.element, COLUMNS.map((name) => this.piles[name]), this.metrics);
    const fan = this.draw === 3 ? cw * 0.45 : 0;
    [...this.piles.waste.querySelectorAll(".card")].forEach((card, i) => {
      card.style.left = `${i * fan}px`;
      card.style.zIndex = String(i + 1);
    });
  }

  /** Where each face-up card is on screen, and which column places hold a face-down card
   *  (to tell a card turned up from one that just arrived). Empty before the first render. */
  cardRects() {
    const rects = new Map();
    if (!this.state) return rects;
    for (const node of this.element.querySelectorAll(".card.up")) rects.set(node.dataset.card, node.getBoundingClientRect());
    for (const node of this.element.querySelectorAll(".col .card.down")) rects.set(`${node.parentElement.dataset.pile}:${node.dataset.index}`, null);
    rects.set("stock", this.piles.stock.getBoundingClientRect());
    return rects;
  }

  animateFrom(before) {
    if (reducedMotion.matches || !before.size) return;
    const nodes = [...this.element.querySelectorAll(".card.up")];
    const rects = nodes.map((node) => node.getBoundingClientRect()); // one layout, then no more
    const stock = before.get("stock");
    nodes.forEach((node, i) => {
      const now = rects[i];
      const then = before.get(node.dataset.card);
      let from;
      if (then) {
        const dx = then.left - now.left;
        const dy = then.top - now.top;
        if (Math.abs(dx) + Math.abs(dy) < 1) return;
        from = `translate(${dx}px, ${dy}px)`;
      } else if (node.parentElement === this.piles.waste || node.parentElement.classList.contains("found")) {
        // Drawn, or gone home straight from the stock (an automatic finish).
        from = `translate(${stock.left - now.left}px, ${stock.top - now.top}px)`;
      } else if (before.has(`${node.parentElement.dataset.pile}:${node.dataset.index}`)) {
        from = "rotateY(90deg)"; // turned up
      } else {
        return;
      }
      node.classList.add("moving");
      node.animate([{ transform: from }, { transform: "none" }], { duration: 160, easing: "cubic-bezier(.2,.7,.3,1)" })
        .finished.then(() => node.classList.remove("moving"), () => {});
    });
  }

  /** Draws `state` (with `options` as `render` takes them) after a refused move: the cards
   *  slide back to `pile`, then shake. */
  refuse(state, options, pile, count = 1) {
    this.render(state, options);
    if (reducedMotion.matches || !this.piles[pile]) return;
    const nodes = [...this.piles[pile].querySelectorAll(".card.up")].slice(-count);
    Promise.all(nodes.flatMap((n) => n.getAnimations().map((a) => a.finished))).then(() => {
      for (const node of nodes) {
        if (!node.isConnected) continue;
        node.classList.add("moving");
        node.animate(SHAKE, { duration: 320, easing: "ease-in-out" }).finished
          .then(() => node.classList.remove("moving"), () => {});
      }
    }, () => {});
  }

  /** Draws an automatic finish card by card: each card that `after` has on a foundation and
   *  the board does not goes there in turn, level by level as the foundations hold them (so
   *  lowest first); then `after` itself. */
  async playHome(after, options) {
    const have = new Set(this.state ? this.state.foundations.flat() : []);
    const coming = [];
    for (let level = 0; level < 13; level++) {
      after.foundations.forEach((pile, f) => pile[level] && !have.has(pile[level]) && coming.push([pile[level], f]));
    }
    if (reducedMotion.matches || !this.state || coming.length < 2) return this.render(after, options);
    let s = this.state;
    for (const [card, f] of coming) {
      s = laidOn(s, card, f);
      this.render(s, options);
      await new Promise((resolve) => setTimeout(resolve, HOME_STEP_MS));
    }
    this.render(after, options);
  }

  // ---------------------------------------------------------------- hints

  /** Marks the suggested move: its cards and the pile they go to. */
  highlight(move) {
    this.clearHint();
    if (!move) return;
    if (move.action === "draw" || move.action === "recycle") {
      this.piles.stock.classList.add("hint");
      return;
    }
    const from = this.piles[move.from];
    const cards = [...from.querySelectorAll(".card.up")];
    cards.slice(-(move.count || 1)).forEach((c) => c.classList.add("hint"));
    const to = move.to === "f" ? null : this.piles[move.to];
    if (to) to.classList.add("hint-target");
  }

  clearHint() {
    for (const node of this.element.querySelectorAll(".hint, .hint-target")) node.classList.remove("hint", "hint-target");
  }

  // ---------------------------------------------------------------- what the server allows
  // Used only to choose between gestures (does a tap act at once, or wait for a second
  // one?); the server still judges every action.

  pileArray(name) {
    return pileIn(this.state, name) || []; // the stock's cards are not known
  }

  /** Whether the server's list sends `pile`'s top card home now (false while it is unknown). */
  goesHome(pile) {
    return !!legalTarget(this.legal, { action: "tap", from: pile });
  }

  // ---------------------------------------------------------------- actions

  drawOrRecycle() {
    if (!this.state) return;
    this.send({ action: this.state.stock ? "draw" : "recycle" });
  }

  /** Sends an action (the page queues it and draws its answer). */
  send(body) {
    if (this.keys) this.keys.picked = null;
    if (this.options.onAction) this.options.onAction(body);
  }

  say(text) {
    if (this.options.message) this.options.message(text);
  }

  status(text) {
    if (this.options.status) this.options.status(text);
  }
}

/** `state` with `card` laid on foundation `f` (an index) from wherever it lies: the waste, a
 *  column, or the stock when it is not in view. */
function laidOn(state, card, f) {
  const next = {
    stock: state.stock,
    waste: state.waste.filter((c) => c !== card),
    foundations: state.foundations.map((pile) => [...pile]),
    tableau: state.tableau.map((col) => col.filter((c) => c !== card)),
  };
  const seen = next.waste.length !== state.waste.length || next.tableau.some((col, i) => col.length !== state.tableau[i].length);
  if (!seen) next.stock = Math.max(0, next.stock - 1);
  next.foundations[f].push(card);
  return next;
}
