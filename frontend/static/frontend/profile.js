// A player's profile: public stats and streaks; on your own, your game history too.
import { api, currentUser, el, formatClock, formatDate, modeName } from "./api.js";

const root = document.querySelector("[data-profile]");
const $ = (selector) => root.querySelector(selector);
let page = 1;

const pct = (rate) => (rate === null || rate === undefined ? "—" : `${Math.round(rate * 100)}%`);
const orDash = (value) => (value === null || value === undefined ? "—" : String(value));
const time = (ms) => (ms === null || ms === undefined ? "—" : formatClock(ms));

function stat(label, value) {
  return el("div", {}, el("dt", { text: label }), el("dd", { text: value }));
}

function showStats(profile) {
  const s = profile.stats;
  const streaks = Object.values(s.streaks || {});
  const best = (key) => (streaks.length ? Math.max(...streaks.map((x) => x[key])) : 0);
  $("[data-name]").textContent = profile.username;
  $("[data-joined]").textContent = `Playing since ${new Date(profile.date_joined).toLocaleDateString()}`;
  $("[data-stats]").replaceChildren(
    stat("Played", String(s.played)), stat("Won", String(s.won)), stat("Win rate", pct(s.win_rate)),
    stat("Best score", s.best_score_display || "—"), stat("Fewest moves", orDash(s.fewest_moves)),
    stat("Fastest win", time(s.fastest_win_ms)), stat("Daily streak", String(best("current"))),
    stat("Longest streak", String(best("longest"))));
  const modes = Object.entries(s.modes || {});
  $("[data-modes]").replaceChildren(...modes.map(([mode, m]) => {
    const streak = (s.streaks || {})[mode] || { current: 0, longest: 0 };
    return el("tr", {}, el("td", { text: modeName(mode) }), ...[m.played, m.won, pct(m.win_rate), m.best_score_display || "—",
      orDash(m.fewest_moves), time(m.fastest_win_ms), streak.current, streak.longest].map((v) => el("td", { class: "num", text: String(v) })));
  }));
  $("[data-modes-section]").hidden = !modes.length;
}

function gameRow(g) {
  const result = { playing: "In progress", won: "Won", resigned: "Resigned" }[g.status] || g.status;
  const link = g.status === "playing"
    ? el("a", { href: `/play/${g.id}`, text: "Continue" })
    : el("a", { href: `/replay/${g.id}`, text: "Replay" });
  return el("tr", { "data-game": String(g.id) },
    el("td", { text: formatDate(g.started_at) }),
    el("td", { text: `${g.kind === "daily" ? "Daily · " : ""}${modeName(g.rules)}` }),
    el("td", { text: result }),
    el("td", { class: "num", text: g.score_display || "—" }),
    el("td", { class: "num", text: String(g.moves) }),
    el("td", { class: "num", text: formatClock(g.elapsed_ms) }),
    el("td", {}, link));
}

async function loadGames() {
  const list = await api("GET", `/api/v1/games?mine=1&page=${page}`);
  $("[data-games]").replaceChildren(...list.results.map(gameRow));
  $("[data-history]").hidden = false;
  const pages = Math.max(1, Math.ceil(list.count / 20));
  $("[data-pager]").hidden = pages <= 1;
  $("[data-page]").textContent = `Page ${page} of ${pages}`;
  $("[data-prev]").disabled = !list.previous;
  $("[data-next]").disabled = !list.next;
}

$("[data-prev]").addEventListener("click", () => { page -= 1; loadGames(); });
$("[data-next]").addEventListener("click", () => { page += 1; loadGames(); });

(async function start() {
  const name = root.dataset.username;
  try {
    const [profile, me] = await Promise.all([api("GET", `/api/v1/users/${encodeURIComponent(name)}`), currentUser()]);
    showStats(profile);
    if (me && me.username.toLowerCase() === profile.username.toLowerCase()) await loadGames();
  } catch (error) {
    $("[data-notice]").textContent = error.status === 404 ? `There is no player called “${name}”.` : error.message;
    $("[data-notice]").hidden = false;
  }
})();
