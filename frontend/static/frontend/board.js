// @ts-check
// The board: draws the API's `state`, animates each change, and sends input as API actions.
// It never decides legality: the server's `legal` list only tells a tap that acts from one that waits.
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
   * @param {HTMLElement} root
   * @param {object} options `interactive`, `onAction(body)` (a promise), `message(text)`, `status(text)`
   */
  constructor(root, options = {}) {
    this.options = options;
    this.state = null;
    this.draw = 1;
    this.canRecycle = true;
    this.legal = null; // null while an answer is awaited
    this.piles = {};
    // A group: a div's aria-label alone fails axe.
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
    this.pointer = options.interactive ? new PointerInput(this) : null;
    this.keys = options.interactive ? new KeyInput(this) : null;
    // Fans depend on card size and viewport height.
    const relayout = () => {
      this.metrics = null;
      if (this.state) this.layout();
    };
    // A frame later: the fit resizing the board inside the callback is a "ResizeObserver loop" error.
    new ResizeObserver(() => requestAnimationFrame(relayout)).observe(this.element);
    window.addEventListener("resize", relayout);
    // Larger cards change the corner index the fit keeps in view.
    new MutationObserver(relayout).observe(document.documentElement, { attributeFilter: ["class"] });
  }

  // ---- drawing

  /** Cards slide from where they were (or a drag left them), so an answer reads as motion. */
  render(state, { draw = this.draw, canRecycle = this.canRecycle, legal = this.legal } = {}) {
    const before = this.cardRects();
    this.state = state;
    this.draw = draw;
    this.canRecycle = canRecycle;
    this.legal = legal;
    this.clearHint();
    for (const name of Object.keys(this.piles)) {
      this.piles[name].replaceChildren(...this.pileCards(name));
      // Waste and foundations draw only their top cards.
      this.piles[name].dataset.count = String(name === "stock" ? state.stock : this.pileArray(name).length);
    }
    this.layout();
    this.keys?.clampCursor();
    this.keys?.showCursor();
    this.animateFrom(before);
    this.pointer?.keepPress();
  }

  /** A move drawn ahead and confirmed by its answer is not redrawn (not under a finger). */
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
      // Draw 1 keeps one beneath, so playing the top card uncovers something.
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

  /** Measures only after a resize, not per answer: measuring forces a layout. */
  layout() {
    this.metrics ??= measureBoard(this.element, this.piles.t1);
    const cw = fitColumns(this.element, COLUMNS.map((name) => this.piles[name]), this.metrics);
    const fan = this.draw === 3 ? cw * 0.45 : 0;
    [...this.piles.waste.querySelectorAll(".card")].forEach((card, i) => {
      card.style.left = `${i * fan}px`;
      card.style.zIndex = String(i + 1);
    });
  }

  /** Face-up cards' rects, and face-down column places (to tell a card turned up from one that arrived). */
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
        // Drawn, or home from the stock (automatic finish).
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

  /** After a refused move: the cards slide back to `pile`, then shake. */
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

  /** Draws an automatic finish card by card, lowest first, then `after`. */
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

  // ---- hints

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

  // ---- legality: only to choose between gestures; the server judges every action.

  pileArray(name) {
    return pileIn(this.state, name) || []; // the stock's cards are not known
  }

  /** False while `legal` is unknown. */
  goesHome(pile) {
    return !!legalTarget(this.legal, { action: "tap", from: pile });
  }

  // ---- actions

  drawOrRecycle() {
    if (!this.state) return;
    this.send({ action: this.state.stock ? "draw" : "recycle" });
  }

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

/** `state` with `card` moved to foundation index `f` from the waste, a column or the stock. */
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
