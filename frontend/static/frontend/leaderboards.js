// @ts-check
// Daily leaderboards: pick a day and a mode; your row is highlighted; pages of 20.
import { api, currentUser, modeName } from "./api.js";
import { el } from "./dom.js";
import { gettext as _, interpolate as say, ngettext, formatDuration, formatNumber, formatScore } from "./i18n.js";

const root = document.querySelector("[data-leaderboard]");
const $ = (selector) => root.querySelector(selector);
const form = $("[data-controls]");
const params = new URLSearchParams(location.search);
let page = Number(params.get("page")) || 1;
let me = null;

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

function row(entry, showReplays) {
  const mine = me && entry.user.toLowerCase() === me.username.toLowerCase();
  return el("tr", { class: mine ? "me" : null, "aria-current": mine ? "true" : null, "data-user": entry.user },
    el("td", { class: "num", text: String(entry.rank) }),
    el("td", { class: "player" }, el("a", { href: `/u/${encodeURIComponent(entry.user)}`, text: entry.user, title: entry.user }), mine ? el("span", { class: "sr-only", text: ` ${_("(you)")}` }) : null,
      entry.under_review ? el("span", { class: "muted review", text: ` ${_("under review")}` }) : null),
    // A phone shows the short form (site.css), so that every column fits its width.
    el("td", { class: "outcome", "data-short": entry.won ? "✓" : "✗", text: entry.won ? _("Won") : _("Not won") }),
    el("td", { class: "num", text: formatScore(entry.score, entry.score_display) || "—" }),
    el("td", { class: "num", text: formatNumber(entry.moves) }),
    el("td", { class: "num", text: formatNumber(entry.undos) }),
    el("td", { class: "num", text: formatDuration(entry.elapsed_ms / 1000) }),
    el("td", {}, showReplays ? el("a", { class: "replay-link", href: `/replay/${entry.game}`, text: _("Replay"), "aria-label": say(_("Replay of %(user)s's game"), { user: entry.user }) }) : null));
}

async function load(query = `page=${page}`) {
  const date = form.elements.date.value;
  const mode = form.elements.mode.value;
  if (!date || !mode) return;
  notice("");
  history.replaceState(null, "", `?date=${date}&mode=${mode}&page=${page}`);
  try {
    const board = await api("GET", `/api/v1/leaderboards/daily/${date}/${mode}?${query}`);
    page = board.page;
    history.replaceState(null, "", `?date=${date}&mode=${mode}&page=${page}`);
    // Only once the board is final: before, a replay would solve the deal others still play.
    const showReplays = board.final;
    $("[data-rows]").replaceChildren(...board.entries.map((e) => row(e, showReplays)));
    $("[data-table]").hidden = !board.entries.length;
    $("[data-review-note]").hidden = !board.entries.some((e) => e.under_review);
    const players = say(ngettext("%(count)s player", "%(count)s players", board.count), { count: formatNumber(board.count) });
    const state = board.final ? _("final") : _("still open");
    const you = board.me ? say(_("you: #%(rank)s of %(count)s, level with or ahead of %(percent)s of players"), {
      rank: formatNumber(board.me.rank), count: formatNumber(board.me.count),
      percent: formatNumber(Math.round(board.me.percentile) / 100, { style: "percent" }),
    }) : "";
    $("[data-summary]").textContent = board.count ? [players, state, you].filter(Boolean).join(" · ") : _("Nobody has finished this deal yet.");
    $("[data-around]").hidden = !board.me;
    $("[data-pager]").hidden = board.pages <= 1;
    $("[data-page]").textContent = say(_("Page %(page)s of %(pages)s"), { page: formatNumber(board.page), pages: formatNumber(board.pages) });
    $("[data-prev]").disabled = board.page <= 1;
    $("[data-next]").disabled = board.page >= board.pages;
  } catch (error) {
    $("[data-rows]").replaceChildren();
    $("[data-table]").hidden = true;
    $("[data-summary]").textContent = "";
    notice(error.status === 404 ? _("No leaderboard for that day and mode.") : error.message);
  }
}

form.addEventListener("change", async (event) => {
  page = 1;
  if (event.target.name === "date") await fillModes(form.elements.date.value, form.elements.mode.value);
  load();
});
form.addEventListener("submit", (event) => event.preventDefault());
$("[data-around]").addEventListener("click", () => load("around=me"));
$("[data-prev]").addEventListener("click", () => { page -= 1; load(); });
$("[data-next]").addEventListener("click", () => { page += 1; load(); });

(async function start() {
  me = await currentUser();
  const today = new Date().toISOString().slice(0, 10);
  form.elements.date.value = params.get("date") || today;
  form.elements.date.max = today;
  await fillModes(form.elements.date.value, params.get("mode"));
  load();
})();
