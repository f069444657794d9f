// @ts-check
// The board: draws a game state (the API's `state` shape), animates the change from the last
// one, and turns gestures and keys into API actions. It never decides what is legal: it reads
// the server's list of legal moves (`legal`, docs/api.md) only to tell a tap that acts from one
// that waits for its second half, and the page renders whatever the server answers (or, for a
// move in that list, draws it at once and then the answer: play.js).
import { el } from "./dom.js";
import { SUITS, cardElement, cardName, pileName } from "./cards.js";
import { formatNumber, gettext as _, interpolate as say, ngettext } from "./i18n.js";
import { legalTarget, pileIn } from "./engine.js";
import { fitColumns, measureBoard } from "./fit.js";

const COLUMNS = ["t1", "t2", "t3", "t4", "t5", "t6", "t7"];
const DOUBLE_TAP_MS = 300;
const DRAG_THRESHOLD_PX = 6;
const HOME_STEP_MS = 70; // between two cards of an automatic finish
const SHAKE = [0, -7, 6, -4, 2, 0].map((x) => ({ transform: `translateX(${x}px)` }));
const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");
// Smart tap (a setting, site.js): one tap plays a card wherever it goes best.
const smartTap = () => document.documentElement.classList.contains("s-smartTap");

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
    this.cursor = { pile: "t1", index: -1 };
    this.picked = null;
    this.press = null;
    this.lastTap = null;
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
    if (options.interactive) this.wireInput();
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
    const before = this.snapshot();
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
    this.clampCursor();
    this.showCursor();
    this.animateFrom(before);
    this.keepPress();
  }

  /** Draws `state` unless the board shows it already: a move drawn ahead of its answer and
   *  confirmed by it is left as it is (no redraw under a finger, no second frame). */
  update(state, { draw = this.draw, canRecycle = this.canRecycle, legal = this.legal } = {}) {
    const same = this.state && draw === this.draw && canRecycle === this.canRecycle
      && ["stock", "waste", "foundations", "tableau"].every((k) => JSON.stringify(state[k]) === JSON.stringify(this.state[k]));
    if (same) this.legal = legal;
    else this.render(state, { draw, canRecycle, legal });
  }

  /** An answer drawn while a finger or button is down: a drag ends (its cards were
   *  redrawn), but a press that has not moved yet stays a tap, so a quick tap landing while
   *  the last one's answer arrives is not lost. */
  keepPress() {
    const p = this.press;
    if (!p) return;
    if (p.dragging) {
      this.press = null;
      return;
    }
    const same = p.card && this.pileArray(p.pile)[p.index] === p.card;
    p.nodes = same ? [...this.piles[p.pile].querySelectorAll(".card")].filter((n) => Number(n.dataset.index) >= p.index) : [];
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
  snapshot() {
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

  // ---------------------------------------------------------------- pointer input

  wireInput() {
    const board = this.element;
    board.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    board.addEventListener("pointermove", (e) => this.onPointerMove(e));
    board.addEventListener("pointerup", (e) => this.onPointerUp(e));
    board.addEventListener("pointercancel", () => this.cancelDrag());
    board.addEventListener("keydown", (e) => this.onKey(e));
    // A drag must not start the browser's own image/text drag.
    board.addEventListener("dragstart", (e) => e.preventDefault());
  }

  /** The card (or else pile) under a point as the state lays them out. Cards in flight take
   *  no pointer events (CSS), so `target` is what lies beneath them; a card sliding or
   *  turning into its place counts as being there already. */
  hitTarget(target, x, y) {
    let best = null;
    for (const node of this.element.querySelectorAll(".card.moving")) {
      const pile = node.parentElement.getBoundingClientRect();
      const left = pile.left + node.offsetLeft;
      const top = pile.top + node.offsetTop;
      if (x < left || x > left + node.offsetWidth || y < top || y > top + node.offsetHeight) continue;
      if (!best || Number(node.style.zIndex) > Number(best.style.zIndex)) best = node;
    }
    if (best) {
      const under = target.closest(".card");
      // A card drawn above the flying one's place (a column's next card) still wins.
      if (!under || under.parentElement !== best.parentElement || Number(under.style.zIndex) < Number(best.style.zIndex)) return best;
    }
    return target;
  }

  onPointerDown(e) {
    if (e.button !== 0 || !this.state) return;
    const target = this.hitTarget(e.target, e.clientX, e.clientY);
    const pileNode = target.closest("[data-pile]");
    if (!pileNode) return;
    const pile = pileNode.dataset.pile;
    const cardNode = target.closest(".card.up");
    const press = { pile, x0: e.clientX, y0: e.clientY, dragging: false, nodes: [] };
    if (cardNode && pile !== "stock") {
      press.index = Number(cardNode.dataset.index);
      press.card = cardNode.dataset.card;
      const last = this.pileArray(pile).length - 1;
      // Only the top card of the waste and of a foundation moves; a column moves a run.
      if (pile[0] === "t" || press.index === last) {
        press.nodes = [...pileNode.querySelectorAll(".card")].filter((n) => Number(n.dataset.index) >= press.index);
      }
    }
    this.press = press;
    this.element.setPointerCapture(e.pointerId);
    e.preventDefault();
  }

  onPointerMove(e) {
    const p = this.press;
    if (!p || !p.nodes.length) return;
    const dx = e.clientX - p.x0;
    const dy = e.clientY - p.y0;
    if (!p.dragging && Math.hypot(dx, dy) < DRAG_THRESHOLD_PX) return;
    if (!p.dragging) {
      p.dragging = true;
      this.dropTap(); // a tap waiting for its second half did nothing; the drag replaces it
      for (const n of p.nodes) {
        // A card still sliding in is taken from its place: the finger moves it from now on.
        for (const a of n.getAnimations()) a.cancel();
        n.classList.remove("moving");
        n.classList.add("dragging");
      }
    }
    for (const n of p.nodes) n.style.transform = `translate(${dx}px, ${dy}px)`;
    const target = this.dropTarget(p);
    for (const name of Object.keys(this.piles)) this.piles[name].classList.toggle("drop-target", name === target);
  }

  /** The pile under the dragged card's upper middle (not the finger, which hides it). */
  dropTarget(p) {
    const r = p.nodes[0].getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 3;
    for (const [name, node] of Object.entries(this.piles)) {
      if (name === p.pile || name === "stock" || name === "waste") continue;
      const b = node.getBoundingClientRect();
      if (x >= b.left && x <= b.right && y >= b.top && y <= b.bottom) return name;
    }
    return null;
  }

  onPointerUp(e) {
    const p = this.press;
    if (!p) return;
    this.press = null;
    for (const node of this.element.querySelectorAll(".drop-target")) node.classList.remove("drop-target");
    if (p.dragging) {
      const target = this.dropTarget(p);
      if (!target) {
        this.render(this.state); // slides back
        return;
      }
      const body = { action: "move", from: p.pile, to: target[0] === "f" ? "f" : target };
      if (p.pile[0] === "t") body.count = this.pileArray(p.pile).length - p.index;
      this.send(body);
      return;
    }
    if (p.pile === "stock") {
      this.flushTap(); // a tap waiting on the waste goes first, on the card it was made on
      this.drawOrRecycle();
    } else if (p.card) this.tap(p.pile, p.index, p.card);
  }

  cancelDrag() {
    if (this.press && this.press.dragging) this.render(this.state);
    this.press = null;
  }

  /** Tap = to the foundation, double tap = quick placement (rules §5), and a double tap is
   *  one gesture: whatever its first half did, its second never acts on another card. A tap
   *  acts at once when the server's list sends its card home (Smart tap: always); then a
   *  second tap on that pile within DOUBLE_TAP_MS is that tap's other half, and does nothing.
   *  A tap that cannot go home (or is made while an answer is awaited, when the list is not
   *  known) waits for a second one to make a double tap of it, and, alone, is sent as a tap
   *  after all, for the server's answer. */
  tap(pile, index, card) {
    const now = performance.now();
    const last = this.lastTap;
    this.lastTap = null;
    if (last) clearTimeout(last.timer);
    const again = last && last.pile === pile && now - last.t < DOUBLE_TAP_MS;
    if (again && last.sent) {
      this.lastTap = last; // a third click is still the same gesture
      return;
    }
    if (last && !again) last.single(); // a tap waiting elsewhere goes first
    const arr = this.pileArray(pile);
    if (pile === "waste" || arr[index] !== card) {
      // Only the waste's top card plays; a card that has just gone leaves the pile's top.
      index = arr.length - 1;
      card = arr[index];
      if (!card) return;
    }
    const isTop = index === arr.length - 1;
    const entry = { pile, card, t: now, sent: true, single: () => {} };
    if (pile[0] === "f") entry.sent = false; // a foundation's card moves by drag only
    else if (again) this.send({ action: "double_tap", from: pile, card: last.card });
    else if (isTop && this.goesHome(pile)) this.send({ action: "tap", from: pile });
    else if (smartTap()) this.send({ action: "double_tap", from: pile, card });
    else {
      entry.sent = false;
      entry.single = () => {
        if (isTop) this.send({ action: "tap", from: pile });
        else this.say(_("Double-tap or drag to move this run."));
      };
      entry.timer = setTimeout(() => this.flushTap(), DOUBLE_TAP_MS);
    }
    this.lastTap = entry;
  }

  /** A tap waiting for its second half acts as a single tap now. */
  flushTap() {
    const last = this.lastTap;
    if (!last) return;
    this.lastTap = null;
    clearTimeout(last.timer);
    last.single();
  }

  dropTap() {
    if (this.lastTap) clearTimeout(this.lastTap.timer);
    this.lastTap = null;
  }

  drawOrRecycle() {
    if (!this.state) return;
    this.send({ action: this.state.stock ? "draw" : "recycle" });
  }

  /** Sends an action (the page queues it and draws its answer). */
  send(body) {
    this.picked = null;
    if (this.options.onAction) this.options.onAction(body);
  }

  say(text) {
    if (this.options.message) this.options.message(text);
  }

  status(text) {
    if (this.options.status) this.options.status(text);
  }

  // ---------------------------------------------------------------- keyboard input

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || !this.state) return;
    const handled = {
      ArrowLeft: () => this.moveCursor(-1, 0),
      ArrowRight: () => this.moveCursor(1, 0),
      ArrowUp: () => this.moveCursor(0, -1),
      ArrowDown: () => this.moveCursor(0, 1),
      Enter: () => this.enter(),
      " ": () => this.drawOrRecycle(),
      f: () => this.keyTap("tap"),
      d: () => this.keyTap("double_tap"),
      Escape: () => this.cancelPick(),
    }[e.key];
    if (!handled) return;
    e.preventDefault();
    handled();
  }

  faceUpStart(pile) {
    const arr = this.pileArray(pile);
    const i = arr.findIndex((c) => c !== null);
    return i < 0 ? arr.length - 1 : i;
  }

  clampCursor() {
    const { pile } = this.cursor;
    const last = this.pileArray(pile).length - 1;
    if (pile[0] !== "t" || this.cursor.index > last || this.cursor.index < this.faceUpStart(pile)) this.cursor.index = last;
  }

  /** Grid columns (first, last) of the top row's piles, as the layout draws them: the
   *  left-handed layout mirrors the top row, so arrows follow what the eye sees. */
  topSpans() {
    return document.documentElement.classList.contains("s-leftHanded")
      ? { f1: [1, 1], f2: [2, 2], f3: [3, 3], f4: [4, 4], waste: [5, 6], stock: [7, 7] }
      : { stock: [1, 1], waste: [2, 3], f1: [4, 4], f2: [5, 5], f3: [6, 6], f4: [7, 7] };
  }

  moveCursor(dx, dy) {
    let { pile, index } = this.cursor;
    const spans = this.topSpans();
    const inTop = pile in spans;
    if (dx) {
      const row = inTop ? Object.keys(spans) : COLUMNS;
      pile = row[Math.min(row.length - 1, Math.max(0, row.indexOf(pile) + dx))];
      index = Infinity;
    } else if (inTop && dy > 0) {
      pile = `t${spans[pile][0]}`;
      index = Infinity;
    } else if (!inTop && dy < 0 && index <= this.faceUpStart(pile)) {
      const n = Number(pile.slice(1));
      pile = Object.keys(spans).find((k) => spans[k][0] <= n && n <= spans[k][1]);
      index = Infinity;
    } else if (!inTop) {
      index += dy;
    }
    this.cursor = { pile, index };
    this.clampCursor();
    this.showCursor();
    this.status(this.describeCursor());
  }

  showCursor() {
    for (const node of this.element.querySelectorAll(".kbd")) node.classList.remove("kbd");
    for (const node of this.element.querySelectorAll(".picked")) node.classList.remove("picked");
    if (!this.options.interactive) return;
    const node = this.cursorNode(this.cursor);
    node.classList.add("kbd");
    if (this.picked) {
      const pickedPile = this.piles[this.picked.pile];
      for (const c of pickedPile.querySelectorAll(".card")) if (Number(c.dataset.index) >= this.picked.index) c.classList.add("picked");
    }
  }

  cursorNode({ pile, index }) {
    return this.piles[pile].querySelector(`.card[data-index="${index}"]`) || this.piles[pile];
  }

  describeCursor() {
    const { pile, index } = this.cursor;
    const arr = this.pileArray(pile);
    if (pile === "stock") {
      if (this.state.stock) return say(ngettext("Stock, %(count)s card", "Stock, %(count)s cards", this.state.stock), { count: formatNumber(this.state.stock) });
      return this.canRecycle ? _("Stock, empty, Enter turns the waste over") : _("Stock, empty, no passes left");
    }
    if (!arr.length) return say(_("%(pile)s, empty"), { pile: pileName(pile) });
    const downs = arr.filter((c) => c === null).length;
    const above = arr.length - 1 - index;
    // One sentence per case, so that each language words it whole.
    const values = { pile: pileName(pile), card: cardName(arr[index]), above: formatNumber(above), downs: formatNumber(downs) };
    const format = above
      ? (downs ? ngettext("%(pile)s: %(card)s, with %(above)s on it, %(downs)s face down", "%(pile)s: %(card)s, with %(above)s on it, %(downs)s face down", downs)
        : _("%(pile)s: %(card)s, with %(above)s on it"))
      : (downs ? ngettext("%(pile)s: %(card)s, %(downs)s face down", "%(pile)s: %(card)s, %(downs)s face down", downs) : "%(pile)s: %(card)s");
    return say(format, values);
  }

  enter() {
    const { pile, index } = this.cursor;
    if (pile === "stock") return this.drawOrRecycle();
    if (!this.picked) {
      const arr = this.pileArray(pile);
      const card = arr[index];
      if (!card || (pile[0] !== "t" && index !== arr.length - 1)) return this.status(_("Nothing to pick up here."));
      this.picked = { pile, index };
      this.showCursor();
      return this.status(say(arr.length - 1 - index
        ? _("Picked up %(card)s and the cards on it. Move to a pile and press Enter.")
        : _("Picked up %(card)s. Move to a pile and press Enter."), { card: cardName(card) }));
    }
    const from = this.picked;
    if (from.pile === pile) return this.cancelPick();
    const body = { action: "move", from: from.pile, to: pile[0] === "f" ? "f" : pile };
    if (from.pile[0] === "t") body.count = this.pileArray(from.pile).length - from.index;
    this.send(body);
  }

  cancelPick() {
    if (!this.picked) return;
    this.picked = null;
    this.showCursor();
    this.status(_("Put back."));
  }

  keyTap(action) {
    const { pile, index } = this.cursor;
    const card = this.pileArray(pile)[index];
    if (!card || pile === "stock") return this.status(_("No card here."));
    if (action === "tap" && index !== this.pileArray(pile).length - 1) return this.status(_("Only a top card goes to a foundation."));
    this.send(action === "tap" ? { action, from: pile } : { action, from: pile, card });
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
