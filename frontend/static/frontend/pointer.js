// @ts-check
// The board's pointer input: presses, drags and taps (rules §5) turned into API actions.
import { gettext as _ } from "./i18n.js";

const DOUBLE_TAP_MS = 300;
const DRAG_THRESHOLD_PX = 6;
// Smart tap (site.js setting): one tap plays a card wherever it goes best.
const smartTap = () => document.documentElement.classList.contains("s-smartTap");

export class PointerInput {
  /** @param {BoardHost} board */
  constructor(board) {
    this.board = board;
    this.press = null; // pile, card, start and dragged nodes
    this.lastTap = null; // while a second tap would make it a double tap
    const element = board.element;
    element.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    element.addEventListener("pointermove", (e) => this.onPointerMove(e));
    element.addEventListener("pointerup", (e) => this.onPointerUp(e));
    element.addEventListener("pointercancel", () => this.cancelDrag());
    element.addEventListener("dragstart", (e) => e.preventDefault());
  }

  /** After a redraw a drag ends, but an unmoved press stays a tap, so a quick tap is not lost. */
  keepPress() {
    const p = this.press;
    if (!p) return;
    if (p.dragging) {
      this.press = null;
      return;
    }
    const same = p.card && this.board.pileArray(p.pile)[p.index] === p.card;
    p.nodes = same ? [.../** @type {NodeListOf<HTMLElement>} */ (this.board.piles[p.pile].querySelectorAll(".card"))].filter((n) => Number(n.dataset.index) >= p.index) : [];
  }

  /** Cards in flight take no pointer events (CSS); a card sliding into place counts as there already. */
  hitTarget(target, x, y) {
    let best = null;
    for (const node of /** @type {NodeListOf<HTMLElement>} */ (this.board.element.querySelectorAll(".card.moving"))) {
      const pile = node.parentElement.getBoundingClientRect();
      const left = pile.left + node.offsetLeft;
      const top = pile.top + node.offsetTop;
      if (x < left || x > left + node.offsetWidth || y < top || y > top + node.offsetHeight) continue;
      if (!best || Number(node.style.zIndex) > Number(best.style.zIndex)) best = node;
    }
    if (best) {
      const under = /** @type {HTMLElement | null} */ (target.closest(".card"));
      // A card drawn above its place (a column's next card) still wins.
      if (!under || under.parentElement !== best.parentElement || Number(under.style.zIndex) < Number(best.style.zIndex)) return best;
    }
    return target;
  }

  onPointerDown(e) {
    if (e.button !== 0 || !this.board.state) return;
    const target = this.hitTarget(e.target, e.clientX, e.clientY);
    const pileNode = target.closest("[data-pile]");
    if (!pileNode) return;
    const pile = pileNode.dataset.pile;
    const cardNode = target.closest(".card.up");
    const press = { pile, x0: e.clientX, y0: e.clientY, dragging: false, nodes: [] };
    if (cardNode && pile !== "stock") {
      press.index = Number(cardNode.dataset.index);
      press.card = cardNode.dataset.card;
      const last = this.board.pileArray(pile).length - 1;
      // Waste and foundation move their top card only; a column moves a run.
      if (pile[0] === "t" || press.index === last) {
        press.nodes = [...pileNode.querySelectorAll(".card")].filter((n) => Number(n.dataset.index) >= press.index);
      }
    }
    this.press = press;
    this.board.element.setPointerCapture(e.pointerId);
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
      this.dropTap(); // the drag replaces a waiting tap
      for (const n of p.nodes) {
        // A card still sliding in: the finger moves it from now on.
        for (const a of n.getAnimations()) a.cancel();
        n.classList.remove("moving");
        n.classList.add("dragging");
      }
    }
    for (const n of p.nodes) n.style.transform = `translate(${dx}px, ${dy}px)`;
    const target = this.dropTarget(p);
    for (const name of Object.keys(this.board.piles)) this.board.piles[name].classList.toggle("drop-target", name === target);
  }

  /** Under the card's upper middle, not the finger, which hides it. */
  dropTarget(p) {
    const r = p.nodes[0].getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 3;
    for (const [name, node] of Object.entries(this.board.piles)) {
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
    for (const node of this.board.element.querySelectorAll(".drop-target")) node.classList.remove("drop-target");
    if (p.dragging) {
      const target = this.dropTarget(p);
      if (!target) {
        this.board.render(this.board.state); // slides back
        return;
      }
      const body = { action: "move", from: p.pile, to: target[0] === "f" ? "f" : target };
      if (p.pile[0] === "t") body.count = this.board.pileArray(p.pile).length - p.index;
      this.board.send(body);
      return;
    }
    if (p.pile === "stock") {
      this.flushTap(); // a waiting tap goes first, on its own card
      this.board.drawOrRecycle();
    } else if (p.card) this.tap(p.pile, p.index, p.card);
  }

  cancelDrag() {
    if (this.press && this.press.dragging) this.board.render(this.board.state);
    this.press = null;
  }

  /** Tap = home, double tap = quick placement (rules §5); a double tap's second half never acts
   *  on another card. A tap acts at once if `legal` sends its card home (Smart tap: always),
   *  and its second half does nothing; otherwise it waits and, alone, is sent as a tap. */
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
    const arr = this.board.pileArray(pile);
    if (pile === "waste" || arr[index] !== card) {
      // Only the waste's top plays; a card just gone leaves the pile's top.
      index = arr.length - 1;
      card = arr[index];
      if (!card) return;
    }
    const isTop = index === arr.length - 1;
    const entry = { pile, card, t: now, sent: true, single: () => {} };
    if (pile[0] === "f") entry.sent = false; // a foundation's card moves by drag only
    else if (again) this.board.send({ action: "double_tap", from: pile, card: last.card });
    else if (isTop && this.board.goesHome(pile)) this.board.send({ action: "tap", from: pile });
    else if (smartTap()) this.board.send({ action: "double_tap", from: pile, card });
    else {
      entry.sent = false;
      entry.single = () => {
        if (isTop) this.board.send({ action: "tap", from: pile });
        else this.board.say(_("Double-tap or drag to move this run."));
      };
      entry.timer = setTimeout(() => this.flushTap(), DOUBLE_TAP_MS);
    }
    this.lastTap = entry;
  }

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
}
