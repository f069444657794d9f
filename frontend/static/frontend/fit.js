// @ts-check
// Long columns fit the screen, which never scrolls mid-game: face-down strips close up first,
// then face-up ones down to the corner index (never hidden), and only then do cards shrink (`--fit-cw`).

const RATIO = 1.4; // a card's height over its width (site.css: --ch)
const DOWN = 0.14; // a face-down strip, in card heights, when there is room
const UP = 0.3; // a face-up card's strip
const DOWN_MIN = [0.05 * RATIO, 1.5]; // narrowest face-down strip: a * width + b px
const PILE_EXTRA = 4; // px below a column's last card (the pile's min-height)
const MIN_CW = 24; // px

/** Reading forces a layout, so board.js keeps this until a resize. `rowAbove`: the stock's row
 *  is above the columns (beside them on a landscape phone), so its height moves them. */
export function measureBoard(board, column) {
  const box = column.getBoundingClientRect();
  const cw = box.width || 60;
  const top = box.top + window.scrollY;
  const stock = board.querySelector(".stock");
  const rowAbove = !stock || stock.getBoundingClientRect().bottom <= box.top + 1;
  const main = board.closest("main") || document.body;
  const below = parseFloat(getComputedStyle(board).paddingBottom) + parseFloat(getComputedStyle(main).paddingBottom);
  const bottom = window.scrollY + document.documentElement.clientHeight - below;
  let index = { offset: 3, perCw: 0.33 * 1.2 }; // until a face-up card is drawn
  const ix = board.querySelector(".card.up .ix");
  if (ix) {
    const box = ix.getBoundingClientRect();
    index = { offset: box.top - ix.parentElement.getBoundingClientRect().top, perCw: box.height / cw };
  }
  return { cw, top, rowAbove, bottom, index };
}

/** Places the cards and sets `--fit-cw` when only smaller cards fit; returns the card width. */
export function fitColumns(board, piles, m) {
  const columns = piles.map((pile) => {
    const cards = [...pile.children].filter((n) => n.classList.contains("card"));
    const above = cards.slice(0, -1); // every card but the last shows only a strip
    const downs = above.filter((n) => n.classList.contains("down")).length;
    return { pile, cards, downs, ups: above.length - downs };
  });
  const upMin = (cw) => m.index.offset + m.index.perCw * cw + 1;
  const downMin = (cw) => DOWN_MIN[0] * cw + DOWN_MIN[1];

  // The widest card that fits at the narrowest strips; a top row grows with the card too.
  const above = m.rowAbove ? RATIO : 0; // per card width
  const reach = m.bottom - PILE_EXTRA - m.top + above * m.cw;
  let fitCw = Infinity;
  for (const { downs, ups } of columns) {
    const fixed = downs * DOWN_MIN[1] + ups * (m.index.offset + 1);
    fitCw = Math.min(fitCw, (reach - fixed) / (above + RATIO + downs * DOWN_MIN[0] + ups * m.index.perCw));
  }
  fitCw = Math.max(MIN_CW, Math.floor(fitCw));
  const fitValue = Number.isFinite(fitCw) ? `${fitCw}px` : "";
  if (board.style.getPropertyValue("--fit-cw") !== fitValue) {
    // The ResizeObserver lays out again; meanwhile place for the coming width.
    board.style.setProperty("--fit-cw", fitValue);
  }
  const cw = Math.min(m.cw, fitCw);
  const ch = cw * RATIO;
  const room = m.bottom - PILE_EXTRA - (m.top - above * (m.cw - cw)) - ch;

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
