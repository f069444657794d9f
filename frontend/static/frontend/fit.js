// @ts-check
// Long columns fit the screen. A column's cards are fanned; when the longest column would run
// past the bottom of the window, its face-down cards close up first, then its face-up cards,
// down to the height of their corner index (a rank or suit is never hidden), and only then do
// the cards themselves get smaller (`--fit-cw`, which site.css folds into the card width). The
// page never scrolls mid-game. board.js calls these two whenever it lays its cards out.

const RATIO = 1.4; // a card's height over its width (site.css: --ch)
const DOWN = 0.14; // a face-down card's strip, in card heights, when there is room
const UP = 0.3; // a face-up card's strip
const DOWN_MIN = [0.05 * RATIO, 1.5]; // the narrowest face-down strip: a * width + b px
const PILE_EXTRA = 4; // px below a column's last card (the pile's min-height)
const MIN_CW = 24; // px: the smallest card width the fit goes down to

/** The board's geometry for the present size (reading it forces a layout, so board.js keeps
 *  it until the size changes): the card width, the columns' top (page coordinates), the
 *  lowest point a column may reach, and the corner index's height as a function of the card
 *  width (from any face-up card's `.ix`; its font size follows the card width). */
export function measureBoard(board, column) {
  const cw = column.getBoundingClientRect().width || 60;
  const top = column.getBoundingClientRect().top + window.scrollY;
  const main = board.closest("main") || document.body;
  const below = parseFloat(getComputedStyle(board).paddingBottom) + parseFloat(getComputedStyle(main).paddingBottom);
  const bottom = window.scrollY + document.documentElement.clientHeight - below;
  let index = { offset: 3, perCw: 0.33 * 1.2 }; // until a face-up card is drawn
  const ix = board.querySelector(".card.up .ix");
  if (ix) {
    const box = ix.getBoundingClientRect();
    index = { offset: box.top - ix.parentElement.getBoundingClientRect().top, perCw: box.height / cw };
  }
  return { cw, top, bottom, index };
}

/** Sets the cards' place in each column (`piles`, column elements holding `.card`s), and the
 *  board's `--fit-cw` when only smaller cards fit; returns the card width laid out for. `m` is
 *  `measureBoard`'s answer. */
export function fitColumns(board, piles, m) {
  const columns = piles.map((pile) => {
    const cards = [...pile.children].filter((n) => n.classList.contains("card"));
    const above = cards.slice(0, -1); // every card but the last shows only a strip
    const downs = above.filter((n) => n.classList.contains("down")).length;
    return { pile, cards, downs, ups: above.length - downs };
  });
  const upMin = (cw) => m.index.offset + m.index.perCw * cw + 1;
  const downMin = (cw) => DOWN_MIN[0] * cw + DOWN_MIN[1];

  // The widest card with which every column fits at its narrowest strips. The top row grows
  // with the card too, moving the columns down: `reach` is the room below the board's top row.
  const reach = m.bottom - PILE_EXTRA - m.top + RATIO * m.cw;
  let fitCw = Infinity;
  for (const { downs, ups } of columns) {
    const fixed = downs * DOWN_MIN[1] + ups * (m.index.offset + 1);
    fitCw = Math.min(fitCw, (reach - fixed) / (2 * RATIO + downs * DOWN_MIN[0] + ups * m.index.perCw));
  }
  fitCw = Math.max(MIN_CW, Math.floor(fitCw));
  const fitValue = Number.isFinite(fitCw) ? `${fitCw}px` : "";
  if (board.style.getPropertyValue("--fit-cw") !== fitValue) {
    // The board changes size, so its ResizeObserver measures and lays out again; until then
    // the cards are placed for the width they will have.
    board.style.setProperty("--fit-cw", fitValue);
  }
  const cw = Math.min(m.cw, fitCw);
  const ch = cw * RATIO;
  const room = m.bottom - PILE_EXTRA - (m.top - RATIO * (m.cw - cw)) - ch;

  for (const { pile, cards, downs, ups } of columns) {
    let down = DOWN * ch;
    let up = Math.max(UP * ch, upMin(cw)); // large cards have a taller index
    if (downs && downs * down + ups * up > room) down = Math.max(downMin(cw), Math.min(down, (room - ups * up) / downs));
    if (ups && downs * down + ups * up > room) up = Math.max(upMin(cw), (room - downs * down) / ups);
    let y = 0;
    let lastY = 0;
    cards.forEach((card, i) => {
      card.style.top = `${y}px`;
      card.style.zIndex = String(i + 1);
      lastY = y;
      y += card.classList.contains("down") ? down : up;
    });
    pile.style.minHeight = `${lastY + ch + PILE_EXTRA}px`;
  }
  return cw;
}
