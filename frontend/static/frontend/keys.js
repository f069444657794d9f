// @ts-check
// The board's keyboard input: a cursor over the piles, Enter picks up and drops, f/d tap.
import { COLUMNS, cardName, pileName } from "./cards.js";
import { formatNumber, gettext as _, interpolate as say, ngettext } from "./i18n.js";

export class KeyInput {
  /** @param {BoardHost} board */
  constructor(board) {
    this.board = board;
    this.cursor = { pile: "t1", index: -1 };
    this.picked = null; // pile and first index
    board.element.addEventListener("keydown", (e) => this.onKey(e));
  }

  onKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || !this.board.state) return;
    const handled = {
      ArrowLeft: () => this.moveCursor(-1, 0),
      ArrowRight: () => this.moveCursor(1, 0),
      ArrowUp: () => this.moveCursor(0, -1),
      ArrowDown: () => this.moveCursor(0, 1),
      Enter: () => this.enter(),
      " ": () => this.board.drawOrRecycle(),
      f: () => this.keyTap("tap"),
      d: () => this.keyTap("double_tap"),
      Escape: () => this.cancelPick(),
    }[e.key];
    if (!handled) return;
    e.preventDefault();
    handled();
  }

  faceUpStart(pile) {
    const arr = this.board.pileArray(pile);
    const i = arr.findIndex((c) => c !== null);
    return i < 0 ? arr.length - 1 : i;
  }

  clampCursor() {
    const { pile } = this.cursor;
    const last = this.board.pileArray(pile).length - 1;
    if (pile[0] !== "t" || this.cursor.index > last || this.cursor.index < this.faceUpStart(pile)) this.cursor.index = last;
  }

  /** Grid columns as drawn: left-handed mirrors the top row, and arrows follow the eye. */
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
    this.board.status(this.describeCursor());
  }

  showCursor() {
    for (const node of this.board.element.querySelectorAll(".kbd")) node.classList.remove("kbd");
    for (const node of this.board.element.querySelectorAll(".picked")) node.classList.remove("picked");
    const node = this.cursorNode(this.cursor);
    node.classList.add("kbd");
    if (this.picked) {
      const pickedPile = this.board.piles[this.picked.pile];
      for (const c of /** @type {NodeListOf<HTMLElement>} */ (pickedPile.querySelectorAll(".card"))) if (Number(c.dataset.index) >= this.picked.index) c.classList.add("picked");
    }
  }

  cursorNode({ pile, index }) {
    return this.board.piles[pile].querySelector(`.card[data-index="${index}"]`) || this.board.piles[pile];
  }

  describeCursor() {
    const { pile, index } = this.cursor;
    const arr = this.board.pileArray(pile);
    if (pile === "stock") {
      if (this.board.state.stock) return say(ngettext("Stock, %(count)s card", "Stock, %(count)s cards", this.board.state.stock), { count: formatNumber(this.board.state.stock) });
      return this.board.canRecycle ? _("Stock, empty, Enter turns the waste over") : _("Stock, empty, no passes left");
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
    if (pile === "stock") return this.board.drawOrRecycle();
    if (!this.picked) {
      const arr = this.board.pileArray(pile);
      const card = arr[index];
      if (!card || (pile[0] !== "t" && index !== arr.length - 1)) return this.board.status(_("Nothing to pick up here."));
      this.picked = { pile, index };
      this.showCursor();
      return this.board.status(say(arr.length - 1 - index
        ? _("Picked up %(card)s and the cards on it. Move to a pile and press Enter.")
        : _("Picked up %(card)s. Move to a pile and press Enter."), { card: cardName(card) }));
    }
    const from = this.picked;
    if (from.pile === pile) return this.cancelPick();
    const body = { action: "move", from: from.pile, to: pile[0] === "f" ? "f" : pile };
    if (from.pile[0] === "t") body.count = this.board.pileArray(from.pile).length - from.index;
    this.board.send(body);
  }

  cancelPick() {
    if (!this.picked) return;
    this.picked = null;
    this.showCursor();
    this.board.status(_("Put back."));
  }

  keyTap(action) {
    const { pile, index } = this.cursor;
    const card = this.board.pileArray(pile)[index];
    if (!card || pile === "stock") return this.board.status(_("No card here."));
    if (action === "tap" && index !== this.board.pileArray(pile).length - 1) return this.board.status(_("Only a top card goes to a foundation."));
    this.board.send(action === "tap" ? { action, from: pile } : { action, from: pile, card });
  }
}
