// @ts-check
// Leaderboards: a day's board in a mode, or a draw's rating board (the template's
// data-ratings); your row is highlighted; pages of 20.
import { api, currentUser, modeName, provisionalText, winShare } from "./api.js";
import { el } from "./dom.js";
import {
  gettext as _, interpolate as say, ngettext, formatDuration, formatMoves, formatNumber, formatRatingBand, formatRatingChange, formatRatingRange, formatScore,
} from "./i18n.js";

const root = /** @type {HTMLElement} */ (document.querySelector("[data-leaderboard]"));
/** @type {(selector: string) => any} */
const $ = (selector) => root.querySelector(selector);
const ratings = "ratings" in root.dataset;
const form = $("[data-controls]");
const params = new URLSearchParams(location.search);
let page = Number(params.get("page")) || 1;
let me = null;
// The following view (`?following=1`): you and the players you follow, among yourselves.
let following = params.get("following") === "1" && !!$("[data-who]");

function notice(text) {
  $("[data-notice]").textContent = text;
  $("[data-notice]").hidden = !text;
}

/** The modes offered that day (the configured daily modes), with `selected` kept if known. */
async function fillModes(date, selected) {
  const select = form.elements.mode;
  let modes = [...select.options].map((o) => o.value);
  try {
    modes = (await api("GET", `/api/v1/daily/${date}`)).challenges.map((c) => c.mode);
  } catch (_) {
    // A day without challenges: keep the list we have.
  }
  if (selected && !modes.includes(selected)) modes.push(selected);
  select.replaceChildren(...modes.map((m) => el("option", { value: m, text: `${modeName(m)} (${m})` })));
  if (selected) select.value = selected;
}

/** A row: the rank, the player (you marked) with `notes` under the name, then `cells`. */
function row(entry, notes, cells) {
  const mine = me && entry.user.toLowerCase() === me.username.toLowerCase();
  // In the following view, beside the rank among you: the rank on the whole board.
  const onBoard = following && entry.board_rank && el("span", { class: "board-rank", title: _("Rank on the whole board"), "data-board-rank": "" },
    el("span", { class: "sr-only", text: `${_("Rank on the whole board")} ` }), say(_("#%(rank)s"), { rank: formatNumber(entry.board_rank) }));
  return el("tr", { class: mine ? "me" : null, "aria-current": mine ? "true" : null, "data-user": entry.user },
    el("td", { class: "num" }, String(entry.rank), onBoard),
    el("td", { class: "player" }, el("a", { href: `/u/${encodeURIComponent(entry.user)}`, text: entry.user, title: entry.user }), mine ? el("span", { class: "sr-only", text: ` ${_("(you)")}` }) : null, ...notes),
    ...cells);
}

function dailyRow(entry, final) {
  return row(entry, [
    // Only on a final board, once rated: the rating after it, and what it did.
    entry.rating && el("span", { class: "rating-change" }, el("span", { class: "sr-only", text: `${_("Rating")} ` }), formatRatingChange(entry.rating)),
  ], [
    // A phone shows the short form (site.css), so that every column fits its width.
    el("td", { class: "outcome", "data-short": entry.won ? "✓" : "✗", text: entry.won ? _("Won") : _("Not won") }),
    el("td", { class: "num", text: formatScore(entry.score, entry.score_display) || "—" }),
    el("td", { class: "num", text: formatNumber(entry.moves) }),
    el("td", { class: "num", text: formatNumber(entry.undos) }),
    el("td", { class: "num", text: formatDuration(entry.elapsed_ms / 1000) }),
    // Only once the board is final: before, a replay would solve the deal others still play.
    el("td", {}, final ? el("a", { class: "replay-link", href: `/replay/${entry.game}`, text: _("Replay"), "aria-label": say(_("Replay of %(user)s's game"), { user: entry.user }) }) : null),
  ]);
}

/** A rating's cell: the rating, and under it the band where the skill likely lies; read aloud
 *  (and in its title) as words: "1620, likely between 1540 and 1700". A private profile's
 *  entry has its name and rank only, its figures null ("—"). */
const ratingCell = (entry) => entry.rating === null ? el("td", { class: "num", text: "—" })
  : el("td", { class: "num", title: formatRatingBand(entry), "data-rating": "" },
    el("span", { "aria-hidden": "true", text: formatNumber(entry.rating, { useGrouping: false }) }),
    el("span", { class: "band", "aria-hidden": "true", text: formatRatingRange(entry) }),
    el("span", { class: "sr-only", text: formatRatingBand(entry) }));

const ratingRow = (entry) => row(entry, [], [
  ratingCell(entry),
  el("td", { class: "num", text: entry.boards === null ? "—" : formatNumber(entry.boards) }),
]);

/** "#4 of 120, level with or ahead of 97% of players": a ranked `me`. */
const standing = (mine) => say(_("you: #%(rank)s of %(count)s, level with or ahead of %(percent)s of players"), {
  rank: formatNumber(mine.rank), count: formatNumber(mine.count),
  percent: formatNumber(Math.round(mine.percentile) / 100, { style: "percent" }),
});

/** "Par: 104 moves · Win rate: 38% of 312 counted entries": how hard a final, rated board
 *  was (the API's `difficulty`); "" before. */
function difficultyText(difficulty) {
  if (!difficulty) return "";
  return [`${_("Par")}: ${formatMoves(difficulty.par)}`,
    difficulty.entries && `${_("Win rate")}: ${winShare(difficulty)}`].filter(Boolean).join(" · ");
}

/** The line above the table: how many, and where you stand. */
function summary(board) {
  const among = following ? `${_("You and the players you follow")}: ` : "";
  return among + counts(board);
}

function counts(board) {
  const players = say(ngettext("%(count)s player", "%(count)s players", board.count), { count: formatNumber(board.count) });
  const mine = board.me;
  if (ratings) {
    const you = mine && [say(_("your rating %(rating)s"), { rating: formatRatingBand(mine) }),
      mine.rank ? standing(mine) : provisionalText()];
    return [board.count ? players : _("No rating is established yet."), ...(you || [])].join(" · ");
  }
  if (!board.count) return following ? _("Nobody you follow has finished this deal yet. Follow players from their profiles.") : _("Nobody has finished this deal yet.");
  return [players, board.final ? _("final") : _("still open"), mine && standing(mine),
    mine && mine.rating && say(_("your rating %(rating)s"), { rating: formatRatingChange(mine.rating) })].filter(Boolean).join(" · ");
}

async function load(query = `page=${page}`) {
  const { date, mode, draw } = Object.fromEntries(new FormData(form));
  const [path, search] = ratings ? [`ratings/${draw}`, `board=ratings&draw=${draw}`] : [`daily/${date}/${mode}`, `date=${date}&mode=${mode}`];
  if (!ratings && !(date && mode)) return;
  notice("");
  const who = following ? "&following=1" : "";
  history.replaceState(null, "", `?${search}${who}&page=${page}`);
  try {
    const board = await api("GET", `/api/v1/leaderboards/${path}?${query}${who}`);
    page = board.page;
    history.replaceState(null, "", `?${search}${who}&page=${page}`);
    $("[data-rows]").replaceChildren(...board.entries.map((e) => (ratings ? ratingRow(e) : dailyRow(e, board.final))));
    $("[data-table]").hidden = !board.entries.length;
    $("[data-summary]").textContent = summary(board);
    if (!ratings) {
      $("[data-difficulty]").textContent = difficultyText(board.difficulty);
      $("[data-difficulty]").hidden = !board.difficulty;
    }
    // A provisional rating has no row to find yet.
    $("[data-around]").hidden = !(board.me && board.me.rank);
    $("[data-pager]").hidden = board.pages <= 1;
    $("[data-page]").textContent = say(_("Page %(page)s of %(pages)s"), { page: formatNumber(board.page), pages: formatNumber(board.pages) });
    $("[data-prev]").disabled = board.page <= 1;
    $("[data-next]").disabled = board.page >= board.pages;
  } catch (error) {
    $("[data-rows]").replaceChildren();
    $("[data-table]").hidden = true;
    $("[data-summary]").textContent = "";
    if (!ratings) $("[data-difficulty]").hidden = true;
    notice(error.status === 404 && !ratings ? _("No leaderboard for that day and mode.") : error.message);
  }
}

form.addEventListener("change", async (event) => {
  page = 1;
  if (event.target.name === "date") await fillModes(form.elements.date.value, form.elements.mode.value);
  load();
});
form.addEventListener("submit", (event) => event.preventDefault());
$("[data-around]").addEventListener("click", () => load("around=me"));
for (const [key, value] of /** @type {[string, boolean][]} */ ([["all", false], ["following", true]])) {
  const button = $(`[data-who-${key}]`);
  if (!button) continue;
  button.setAttribute("aria-pressed", String(following === value));
  button.addEventListener("click", () => {
    following = value;
    for (const other of root.querySelectorAll("[data-who] button")) other.setAttribute("aria-pressed", String(other === button));
    page = 1;
    load();
  });
}
$("[data-prev]").addEventListener("click", () => { page -= 1; load(); });
$("[data-next]").addEventListener("click", () => { page += 1; load(); });

(async function start() {
  me = await currentUser();
  if (ratings) {
    if (params.get("draw")) form.elements.draw.value = params.get("draw");
    return load();
  }
  const today = new Date().toISOString().slice(0, 10);
  form.elements.date.value = params.get("date") || today;
  form.elements.date.max = today;
  await fillModes(form.elements.date.value, params.get("mode"));
  load();
})();
