// @ts-check
// A player's profile: public stats, streaks and ratings; on your own, your game history too.
import { api, currentUser, modeName, provisionalText, requireSignIn } from "./api.js";
import { el, svg } from "./dom.js";
import {
  gettext as _, pgettext, interpolate as say, ngettext, formatDate, formatDateTime, formatDuration, formatNumber, formatRating, formatRatingBand, formatScore,
} from "./i18n.js";

const root = /** @type {HTMLElement} */ (document.querySelector("[data-profile]"));
// The markup decides each element's kind.
/** @type {(selector: string) => any} */
const $ = (selector) => root.querySelector(selector);
let page = 1;

const pct = (rate) => (rate === null || rate === undefined ? "—" : formatNumber(Math.round(rate * 100) / 100, { style: "percent" }));
const orDash = (value) => (value === null || value === undefined ? "—" : formatNumber(value));
const time = (ms) => (ms === null || ms === undefined ? "—" : formatDuration(ms / 1000));
const score = (value, display) => formatScore(value, display) || "—";

function stat(label, value) {
  return el("div", {}, el("dt", { text: label }), el("dd", { text: value }));
}

function showStats(profile) {
  const s = profile.stats;
  const streaks = Object.values(s.streaks || {});
  const best = (key) => (streaks.length ? Math.max(...streaks.map((x) => x[key])) : 0);
  $("[data-name]").textContent = profile.username;
  $("[data-joined]").textContent = say(_("Playing since %(date)s"), { date: formatDate(profile.date_joined) });
  $("[data-stats]").replaceChildren(
    stat(_("Played"), formatNumber(s.played)), stat(pgettext("games won", "Won"), formatNumber(s.won)), stat(_("Win rate"), pct(s.win_rate)),
    stat(_("Best score"), score(s.best_score, s.best_score_display)), stat(_("Fewest moves"), orDash(s.fewest_moves)),
    stat(_("Fastest win"), time(s.fastest_win_ms)), stat(_("Daily streak"), formatNumber(best("current"))),
    stat(_("Longest streak"), formatNumber(best("longest"))));
  const modes = Object.entries(s.modes || {});
  const heads = columnNames("[data-modes-table]");
  $("[data-modes]").replaceChildren(...modes.map(([mode, m]) => {
    const streak = (s.streaks || {})[mode] || { current: 0, longest: 0 };
    return el("tr", {}, el("td", { text: modeName(mode) }), ...[formatNumber(m.played), formatNumber(m.won), pct(m.win_rate), score(m.best_score, m.best_score_display),
      orDash(m.fewest_moves), time(m.fastest_win_ms), formatNumber(streak.current), formatNumber(streak.longest)].map((v, i) => el("td", { class: "num", text: v, "data-label": heads[i + 1] })));
  }));
  $("[data-modes-section]").hidden = !modes.length;
}

/** A board's UTC day, as the player's language writes it. */
const boardDay = (date) => formatDate(`${date}T00:00:00Z`, { dateStyle: "medium", timeZone: "UTC" });

/** The rating in each draw: its figures and place, and its history's chart, whose box is
 *  there at once (the chart fills it when the history arrives: nothing moves). */
function showRatings(profile) {
  const list = profile.ratings || [];
  $("[data-ratings-head]").hidden = !list.length;
  $("[data-no-ratings]").hidden = !!list.length;
  $("[data-ratings]").replaceChildren(...list.map((r) => {
    const draw = r.draw === 1 ? _("Draw 1") : _("Draw 3");
    const chart = svg("svg", { class: "chart", viewBox: "0 0 300 80", preserveAspectRatio: "none", role: "img", "aria-label": say(_("Rating history, %(draw)s"), { draw }) });
    chartHistory(profile.username, r.draw, draw, chart);
    const place = r.rank
      ? el("a", { href: `/leaderboards?board=ratings&draw=${r.draw}&page=${Math.ceil(r.rank / 20)}`, text: say(_("#%(rank)s on the rating board"), { rank: formatNumber(r.rank) }) })
      : provisionalText();
    // Where it stands among the draw's established ratings (none while provisional).
    const share = r.percentile !== null && r.percentile !== undefined && say(_("level with or ahead of %(percent)s of established ratings"), {
      percent: formatNumber(Math.round(r.percentile) / 100, { style: "percent" }),
    });
    return el("figure", { class: "rating", "data-draw": r.draw },
      el("figcaption", {}, el("strong", { text: draw }), ` ${formatRatingBand(r)} · `, place,
        share ? el("span", { "data-percentile": "" }, ` · ${share}`) : null), chart);
  }));
  $("[data-ratings-section]").hidden = false;
}

/** The rating after each board, its deviation a band around it, drawn into `chart` as the
 *  replay draws its score (site.css, `.chart`). */
async function chartHistory(name, drawNumber, draw, chart) {
  const { points } = await api("GET", `/api/v1/users/${encodeURIComponent(name)}/ratings/${drawNumber}`).catch(() => ({ points: [] }));
  if (!points.length) return;
  const values = points.map((p) => p.rating);
  const [low, high] = [Math.min(...values), Math.max(...values)];
  // The box holds the history and today's band, so the band narrows as the rating settles.
  const last = points.at(-1);
  const [bottom, top] = [Math.min(low, last.rating - last.deviation), Math.max(high, last.rating + last.deviation)];
  const room = top - bottom;
  const drawn = points.length > 1 ? points : [points[0], points[0]]; // one board: a level line
  const line = (sign) => drawn.map((p, i) => `${(4 + (i * 292) / (drawn.length - 1)).toFixed(1)},${(4 + ((top - p.rating - sign * p.deviation) * 72) / room).toFixed(1)}`);
  // The band reaches past the box while the deviation is large: the box cuts it.
  chart.append(svg("polygon", { class: "chart-band", points: [...line(1), ...line(-1).reverse()].join(" ") }),
    svg("polyline", { class: "chart-line", points: line(0).join(" ") }));
  chart.setAttribute("aria-label", `${chart.getAttribute("aria-label")}: ${say(_("%(first)s %(from)s, %(last)s %(to)s; highest %(high)s, lowest %(low)s"), {
    first: boardDay(points[0].date), from: formatRating(values[0]), last: boardDay(last.date), to: formatRating(last.rating), high: formatRating(high), low: formatRating(low),
  })}`);
}

/** The followers and following counts, and Follow / Unfollow on another's profile (a visitor
 *  is sent to sign in, a guest to sign up). */
function showFollow(profile, me) {
  const own = me && me.username.toLowerCase() === profile.username.toLowerCase();
  const counts = () => [
    say(ngettext("%(count)s follower", "%(count)s followers", profile.followers), { count: formatNumber(profile.followers) }),
    say(ngettext("follows %(count)s player", "follows %(count)s players", profile.following), { count: formatNumber(profile.following) }),
  ].join(" · ");
  $("[data-follow-counts]").textContent = counts();
  if (own) return;
  const name = profile.username;
  const button = el("button", { class: "button small ghost", type: "button", "data-follow": "" });
  const label = () => {
    button.textContent = profile.followed ? _("Unfollow") : _("Follow");
    button.setAttribute("aria-pressed", String(!!profile.followed));
    button.setAttribute("aria-label", say(profile.followed ? _("Unfollow %(name)s") : _("Follow %(name)s"), { name }));
  };
  label();
  button.addEventListener("click", async () => {
    if (!me) return requireSignIn();
    if (me.is_guest) return location.assign(`/signup?next=${encodeURIComponent(location.pathname)}`);
    button.disabled = true;
    try {
      await api(profile.followed ? "DELETE" : "PUT", `/api/v1/users/${encodeURIComponent(name)}/follow`);
      profile.followers += profile.followed ? -1 : 1;
      profile.followed = !profile.followed;
      label();
      $("[data-follow-counts]").textContent = counts();
      $("[data-follow-status]").textContent = say(profile.followed ? _("You follow %(name)s.") : _("You no longer follow %(name)s."), { name });
    } catch (error) {
      $("[data-notice]").textContent = error.message;
      $("[data-notice]").hidden = false;
    }
    button.disabled = false;
  });
  $("[data-follow-line]").append(button);
}

/** The badges earned, oldest first: each its name, day and mode; what it rewards as its
 *  tooltip and for screen readers. */
function showBadges(profile) {
  const badges = profile.badges || [];
  $("[data-no-badges]").hidden = !!badges.length;
  $("[data-badges]").replaceChildren(...badges.map((b) => el("li", { title: b.description, "data-badge": b.kind },
    el("strong", { text: b.name }), el("span", { class: "sr-only", text: `: ${b.description}. ` }),
    el("span", { class: "muted", text: `${boardDay(b.earned_on)} · ${modeName(b.mode)}` }))));
  $("[data-badges-section]").hidden = false;
}

/** On one's own profile: the private profile's checkbox, saved as it changes. */
function showPrivacy(me) {
  const box = $("[data-private]");
  const said = $("[data-privacy-status]");
  box.checked = !!me.profile_private;
  box.addEventListener("change", async () => {
    box.disabled = true;
    try {
      const saved = await api("PATCH", "/api/v1/me", { profile_private: box.checked });
      box.checked = saved.profile_private;
      said.textContent = saved.profile_private ? _("Your profile is private.") : _("Your profile is public.");
    } catch (error) {
      box.checked = !box.checked;
      said.textContent = error.message;
    }
    box.disabled = false;
  });
  $("[data-privacy]").hidden = false;
}

/** Each cell names its column for a phone's card layout (site.css, `table.cards`). */
const columnNames = (table) => [...root.querySelectorAll(`${table} th`)].map((th) => th.textContent);

function gameRow(g, heads) {
  const result = { playing: _("In progress"), won: _("Won"), resigned: _("Resigned") }[g.status] || g.status;
  const link = g.status === "playing"
    ? el("a", { href: `/play/${g.id}`, text: _("Continue") })
    : el("a", { href: `/replay/${g.id}`, text: _("Replay") });
  const cell = (i, attrs, child = null) => el("td", { ...attrs, "data-label": heads[i] }, child);
  return el("tr", { "data-game": String(g.id) },
    cell(0, { text: formatDateTime(g.started_at, { dateStyle: "short", timeStyle: "short" }) }),
    cell(1, { text: g.kind === "daily" ? say(_("Daily · %(mode)s"), { mode: modeName(g.rules) }) : modeName(g.rules) }),
    cell(2, { text: result }),
    cell(3, { class: "num", text: score(g.score, g.score_display) }),
    cell(4, { class: "num", text: formatNumber(g.moves) }),
    cell(5, { class: "num", text: formatDuration(g.elapsed_ms / 1000) }),
    cell(6, {}, link));
}

async function loadGames() {
  const list = await api("GET", `/api/v1/games?mine=1&page=${page}`);
  const heads = columnNames("[data-games-table]");
  $("[data-games]").replaceChildren(...list.results.map((g) => gameRow(g, heads)));
  $("[data-history]").hidden = false;
  const pages = Math.max(1, Math.ceil(list.count / 20));
  $("[data-pager]").hidden = pages <= 1;
  $("[data-page]").textContent = say(_("Page %(page)s of %(pages)s"), { page: formatNumber(page), pages: formatNumber(pages) });
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
    showFollow(profile, me);
    showRatings(profile);
    showBadges(profile);
    if (me && me.username.toLowerCase() === profile.username.toLowerCase()) {
      await loadGames();
      showPrivacy(me);
    }
  } catch (error) {
    $("[data-notice]").textContent = error.status === 404 ? say(_("There is no player called “%(name)s”."), { name }) : error.message;
    $("[data-notice]").hidden = false;
  }
})();
