// @ts-check
// The daily calendar: a month of dailies with your result on each (won, lost, playing, not
// played: a sign and a word, never a colour alone), your streaks, and a final deal to practise.
import { api, currentUser, modeName, winShare } from "./api.js";
import { el } from "./dom.js";
import {
  gettext as _, pgettext, interpolate as say, ngettext, formatDate, formatDuration, formatMoves, formatNumber, formatRatingChange, formatScore,
} from "./i18n.js";

const root = /** @type {HTMLElement} */ (document.querySelector("[data-calendar]"));
/** @type {(selector: string) => any} */
const $ = (selector) => root.querySelector(selector);
const month = root.dataset.month;
const today = new Date().toISOString().slice(0, 10);

// Each result's sign (the cell) and word (the cell's label, the day's list).
const RESULTS = {
  won: ["✓", () => pgettext("calendar", "won")],
  lost: ["✗", () => pgettext("calendar", "lost")],
  playing: ["◔", () => pgettext("calendar", "playing")],
  none: ["·", () => pgettext("calendar", "not played")],
};

function notice(text) {
  $("[data-notice]").textContent = text;
  $("[data-notice]").hidden = !text;
}

/** A UTC day as the language writes it: "3 December 2026". */
/** @param {string} date @param {"long" | "full"} [dateStyle] */
const dayName = (date, dateStyle = "long") => formatDate(`${date}T00:00:00Z`, { dateStyle, timeZone: "UTC" });

/** "Draw 1 · Normal: won, #3": a challenge as one cell's label says it. */
function cellText(challenge, signedIn) {
  const mine = challenge.mine;
  if (!signedIn) return modeName(challenge.mode);
  const words = [RESULTS[mine ? mine.result : "none"][1]()];
  if (mine && mine.rank) words.push(say(_("#%(rank)s"), { rank: formatNumber(mine.rank) }));
  const score = mine && formatScore(mine.score, mine.score_display);
  if (score) words.push(say(_("score %(score)s"), { score }));
  return `${modeName(challenge.mode)}: ${words.join(", ")}`;
}

function fillGrid(days, signedIn) {
  for (const day of days) {
    const button = /** @type {HTMLButtonElement | null} */ (root.querySelector(`[data-date="${day.date}"]`));
    if (!button) continue;
    const texts = day.challenges.map((c) => cellText(c, signedIn));
    for (const challenge of day.challenges) {
      const mark = /** @type {HTMLElement | null} */ (button.querySelector(`.mark[data-mode="${challenge.mode}"]`));
      if (!mark) continue; // a mode no longer played
      const result = signedIn ? (challenge.mine ? challenge.mine.result : "none") : "";
      mark.dataset.result = result;
      mark.textContent = result ? `${mark.dataset.label}${RESULTS[result][0]}` : mark.dataset.label;
    }
    button.disabled = false;
    button.setAttribute("aria-label", `${dayName(day.date)}: ${texts.join("; ")}`);
    button.title = texts.join("\n");
    button.addEventListener("click", () => pick(day, signedIn));
  }
}

/** A fact of the day's list: `label` and `value`, left out without a value. */
const fact = (label, value) => value && el("div", {}, el("dt", { text: label }), el("dd", { text: value }));

/** The day's challenge in the list: your result and its figures, and what to do next. */
function challengeItem(day, challenge, signedIn) {
  const mine = challenge.mine;
  const result = mine ? mine.result : "none";
  const actions = el("p", { class: "actions" });
  if (mine) {
    actions.append(mine.result === "playing"
      ? el("a", { class: "button", href: `/play/${mine.game}`, text: _("Continue your attempt") })
      : el("a", { class: "button ghost", href: `/replay/${mine.game}`, text: _("Watch your replay") }));
  }
  if (challenge.code) {
    actions.append(el("button", { class: "button ghost", type: "button", "data-practise": challenge.code, text: _("Practise"),
      title: _("Play this deal again as a casual game: it does not count for the board."),
      onclick: (/** @type {Event} */ event) => practise(challenge.code, /** @type {HTMLButtonElement} */ (event.currentTarget)) }));
  }
  actions.append(el("a", { href: `/leaderboards?date=${day.date}&mode=${challenge.mode}`, text: _("Leaderboard") }));
  return el("article", { class: "day-mode", "data-mode": challenge.mode, "data-result": signedIn ? result : null },
    el("h3", { text: modeName(challenge.mode) }),
    signedIn ? el("p", { class: "result" }, el("span", { class: "sign", "aria-hidden": "true", text: RESULTS[result][0] }), ` ${RESULTS[result][1]()}`) : null,
    el("dl", { class: "facts" }, ...[
      mine && fact(_("Score"), formatScore(mine.score, mine.score_display)),
      mine && fact(_("Moves"), formatNumber(mine.moves)),
      mine && fact(_("Time"), formatDuration(mine.elapsed_ms / 1000)),
      mine && mine.rank && fact(_("Rank"), formatNumber(mine.rank)),
      mine && mine.rating && fact(_("Rating"), formatRatingChange(mine.rating)),
      fact(_("Par"), formatMoves(challenge.par)),
      // How hard the board was, once final and rated: its win rate among the counted entries.
      challenge.difficulty && challenge.difficulty.entries && fact(_("Win rate"), winShare(challenge.difficulty)),
    ].filter(Boolean)),
    challenge.final ? null : el("p", { class: "muted small", text: _("The board is still open: its rank and deal come once it is final.") }),
    actions);
}

function pick(day, signedIn) {
  for (const button of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll("[data-date]"))) button.setAttribute("aria-pressed", String(button.dataset.date === day.date));
  $("[data-detail-day]").textContent = dayName(day.date, "full");
  $("[data-detail-list]").replaceChildren(...day.challenges.map((c) => challengeItem(day, c, signedIn)));
}

/** A final deal, dealt again as a casual game (a visitor plays it as a guest, as /play does). */
async function practise(code, button) {
  button.disabled = true;
  try {
    let game;
    try {
      game = await api("POST", "/api/v1/games", { code });
    } catch (error) {
      if (error.status !== 401) throw error;
      await api("POST", "/api/v1/auth/guest");
      game = await api("POST", "/api/v1/games", { code });
    }
    location.assign(`/play/${game.id}`);
  } catch (error) {
    notice(error.message);
    button.disabled = false;
  }
}

/** "Draw 1 · Normal: 3 days (longest 5)" for each mode; a hint to sign in instead. */
function streakLine(streaks, me) {
  const line = $("[data-streaks]");
  if (!me || me.is_guest) {
    const next = encodeURIComponent(location.pathname + location.search);
    line.replaceChildren(me ? el("a", { href: `/signup?next=${next}`, text: _("Sign up to play the dailies ranked and see your results here.") })
      : el("a", { href: `/signin?next=${next}`, text: _("Sign in to see your results and streaks.") }));
    return;
  }
  const days = (count) => say(ngettext("%(count)s day", "%(count)s days", count), { count: formatNumber(count) });
  const parts = Object.entries(streaks || {}).map(([mode, s]) => say(_("%(mode)s: %(current)s (longest %(longest)s)"),
    { mode: modeName(mode), current: days(s.current), longest: days(s.longest) }));
  line.textContent = parts.length ? say(_("Your streaks: %(streaks)s"), { streaks: parts.join(" · ") }) : _("No streak yet: win a daily challenge to start one.");
}

(async function start() {
  try {
    const [calendar, me] = await Promise.all([api("GET", `/api/v1/daily/calendar?month=${month}`), currentUser()]);
    const signedIn = !!me && !me.is_guest;
    for (const [key, target] of [["prev", calendar.previous], ["next", calendar.next]]) {
      if (target) $(`[data-${key}]`).href = `?month=${target}`;
    }
    streakLine(calendar.streaks, me);
    fillGrid(calendar.days, signedIn);
    const first = calendar.days.find((d) => d.date === today) || calendar.days.at(-1);
    if (first) pick(first, signedIn);
    else $("[data-detail-day]").textContent = _("No daily challenges this month.");
  } catch (error) {
    notice(error.message);
    // A month without a calendar (before the first daily, or to come): back to this one.
    if (error.status === 404 || error.status === 400) $("[data-notice]").append(" ", el("a", { href: "/daily/calendar", text: _("This month") }));
  }
})();
