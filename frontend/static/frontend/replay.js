// @ts-check
// The replay viewer: rebuilds every position from the replay's deal and its action log,
// then steps, plays and scrubs through them. `#m=42` links to the position after step 42.
import { api, modeName } from "./api.js";
import { el } from "./dom.js";
import { Board } from "./board.js";
import { describeChange } from "./cards.js";
import { positions, publicState } from "./engine.js";
import { formatDollars, formatDuration, formatMoves, formatNumber, formatScore, gettext as _, interpolate as say, ngettext } from "./i18n.js";
import { actionLabel, analysisText } from "./messages.js";

const root = /** @type {HTMLElement} */ (document.querySelector("[data-replay]"));
// An element of the page's own markup: its kind (input, button, dialog) is the markup's.
/** @type {(selector: string) => any} */
const $ = (selector) => root.querySelector(selector);
const live = $("[data-live]");
const scrubber = $("[data-scrubber]");
const STEP_MS = 700; // at 1×

let replay = null;
let states = []; // states[k]: the public state after the first k log entries
let step = 0;
let timer = null;

const board = new Board($("[data-board]"), { interactive: false });

function notice(text) {
  $("[data-notice]").textContent = text;
  $("[data-notice]").hidden = !text;
}

function stepFromHash() {
  const match = location.hash.match(/m=(\d+)/);
  return match ? Math.min(Number(match[1]), states.length - 1) : 0;
}

/** Shows the position after `k` steps; `speak` describes the change for screen readers. */
function go(k, { speak = true } = {}) {
  k = Math.max(0, Math.min(states.length - 1, k));
  const before = states[step];
  step = k;
  board.render(states[k], { draw: replay.rules.draw, canRecycle: true });
  const entry = replay.actions[k - 1];
  $("[data-step]").textContent = `${formatNumber(k)}/${formatNumber(replay.actions.length)}`;
  $("[data-score]").textContent = entry ? scoreText(entry.score_after) : scoreText(replay.rules.scoring === "vegas" ? -52 : 0);
  $("[data-clock]").textContent = formatDuration(entry ? entry.at_ms / 1000 : 0);
  scrubber.value = String(k);
  for (const item of root.querySelectorAll(".move-list .current")) item.classList.remove("current");
  const item = $(`.move-list li:nth-child(${k})`);
  if (item) {
    item.classList.add("current");
    keepInView(item);
  }
  drawMarker();
  history.replaceState(null, "", k ? `#m=${k}` : location.pathname);
  if (speak) {
    const change = describeChange(before, states[k]);
    // The move as the move list words it, not the developer notation.
    const move = entry && actionLabel(entry.action, states[k - 1]);
    live.textContent = entry ? say(_("Step %(step)s: %(move)s. %(change)s"), { step: formatNumber(k), move, change }) : _("The deal, before the first move.");
  }
  if (k === states.length - 1) pause();
}

/** Scrolls the move list, and only it, so that `item` shows (scrollIntoView would scroll
 *  the whole page to it as well). */
function keepInView(item) {
  const list = item.parentElement;
  const shown = list.getBoundingClientRect();
  const at = item.getBoundingClientRect();
  if (at.top < shown.top) list.scrollTop -= shown.top - at.top;
  else if (at.bottom > shown.bottom) list.scrollTop += at.bottom - shown.bottom;
}

function scoreText(score) {
  if (score === null || score === undefined) return "";
  return replay.rules.scoring === "vegas" ? formatDollars(score) : formatNumber(score);
}

function play() {
  if (step >= states.length - 1) go(0);
  const speed = Number($("[data-speed]").value);
  $("[data-play]").textContent = _("Pause");
  clearInterval(timer);
  timer = setInterval(() => go(step + 1, { speak: false }), STEP_MS / speed);
}

function pause() {
  clearInterval(timer);
  timer = null;
  $("[data-play]").textContent = _("Play");
}

// ------------------------------------------------------------------ the side panel

const CHART_W = 300;
const CHART_H = 80;

function chartPoint(i, score, lo, hi) {
  const x = (i / Math.max(1, replay.actions.length)) * CHART_W;
  const y = CHART_H - 4 - ((score - lo) / Math.max(1, hi - lo)) * (CHART_H - 8);
  return `${x.toFixed(1)},${y.toFixed(1)}`;
}

function drawChart() {
  const chart = $("[data-chart]");
  const start = replay.rules.scoring === "vegas" ? -52 : 0;
  const scores = [start, ...replay.actions.map((a) => a.score_after)];
  if (replay.rules.scoring === "none") {
    chart.closest("section").hidden = true;
    return;
  }
  const lo = Math.min(...scores);
  const hi = Math.max(...scores);
  const ns = "http://www.w3.org/2000/svg";
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", scores.map((s, i) => chartPoint(i, s, lo, hi)).join(" "));
  line.setAttribute("class", "chart-line");
  const marker = document.createElementNS(ns, "line");
  marker.setAttribute("class", "chart-marker");
  marker.setAttribute("y1", "0");
  marker.setAttribute("y2", String(CHART_H));
  chart.replaceChildren(line, marker);
  chart.setAttribute("aria-label", say(_("Score after each step, from %(start)s to %(end)s; lowest %(lowest)s, highest %(highest)s"),
    { start: scoreText(start), end: scoreText(scores.at(-1)), lowest: scoreText(lo), highest: scoreText(hi) }));
}

function drawMarker() {
  const marker = root.querySelector(".chart-marker");
  if (!marker) return;
  const x = (step / Math.max(1, replay.actions.length)) * CHART_W;
  marker.setAttribute("x1", String(x));
  marker.setAttribute("x2", String(x));
}

function fillMoves() {
  $("[data-moves]").replaceChildren(...replay.actions.map((a, i) =>
    el("li", {}, el("button", { type: "button", class: "move", "data-step": String(i + 1), onclick: () => go(i + 1) },
      el("span", { text: actionLabel(a.action, states[i]), title: a.notation }), a.score_after === null ? null : el("span", { class: "muted", text: scoreText(a.score_after) })))));
  $("[data-text]").href = `/api/v1/games/${replay.id}/replay.txt`;
}

function fillAnalysis() {
  const analysis = replay.analysis;
  if (!analysis || !analysis.message) return;
  const text = $("[data-analysis-text]");
  const at = analysis.point_of_no_return;
  text.replaceChildren(analysisText(analysis, Number.isInteger(at) ? actionLabel(replay.actions[at].action, states[at]) : ""));
  if (Number.isInteger(at)) {
    const k = at + 1;
    text.append(" ", el("button", { class: "icon-button", type: "button", text: say(_("Show step %(step)s"), { step: formatNumber(k) }), onclick: () => go(k) }));
  }
  if (analysis.winning_line && analysis.winning_line.length) {
    const details = $("[data-winning-line]");
    details.querySelector(".line").textContent = analysis.winning_line.join(" ");
    details.hidden = false;
  }
  $("[data-analysis]").hidden = false;
}

// ------------------------------------------------------------------ wiring

$("[data-first]").addEventListener("click", () => { pause(); go(0); });
$("[data-back]").addEventListener("click", () => { pause(); go(step - 1); });
$("[data-forward]").addEventListener("click", () => { pause(); go(step + 1); });
$("[data-last]").addEventListener("click", () => { pause(); go(states.length - 1); });
$("[data-play]").addEventListener("click", () => (timer ? pause() : play()));
$("[data-speed]").addEventListener("change", () => timer && play());
scrubber.addEventListener("input", () => { pause(); go(Number(scrubber.value), { speak: false }); });
$("[data-share]").addEventListener("click", async () => {
  const url = `${location.origin}${location.pathname}#m=${step}`;
  try {
    await navigator.clipboard.writeText(url);
    live.textContent = _("Link copied.");
  } catch (_error) {
    window.prompt(_("Copy this link"), url); // no clipboard access over plain http
  }
});
window.addEventListener("hashchange", () => go(stepFromHash()));
document.addEventListener("keydown", (e) => {
  // Arrows step wherever the focus is (a button just clicked, too), except in a field that
  // uses them itself; Space stays a focused button's own click.
  if (!replay || /** @type {Element} */ (e.target).closest("input, select, textarea, dialog")) return;
  if (e.key === "ArrowLeft") go(step - 1);
  else if (e.key === "ArrowRight") go(step + 1);
  else if (e.key === " " && !/** @type {Element} */ (e.target).closest("button")) timer ? pause() : play();
  else return;
  e.preventDefault();
});

(async function start() {
  try {
    replay = await api("GET", `/api/v1/games/${root.dataset.gameId}/replay`);
  } catch (error) {
    notice(error.status === 404
      ? _("This replay is not available: the game is still being played, it is not yours, or it is a daily challenge whose board is not final yet.")
      : error.message);
    return;
  }
  states = positions(replay).map(publicState);
  if (replay.redacted) {
    notice(_("This daily challenge's board is not final yet: the replay shows only the cards you saw. The whole deal and its analysis open when the board is final."));
  }
  const result = replay.result;
  $("[data-title]").textContent = say(_("Replay · %(mode)s"), { mode: [modeName(replay.rules), replay.code].filter(Boolean).join(" · ") });
  const undos = say(ngettext("%(count)s undo", "%(count)s undos", result.undos), { count: formatNumber(result.undos) });
  $("[data-result]").textContent = [result.won ? _("Won") : _("Not won"), formatScore(result.score, result.score_display), formatMoves(result.moves), undos,
    formatDuration(result.elapsed_ms / 1000)].filter(Boolean).join(" · ");
  $("[data-score-wrap]").hidden = replay.rules.scoring === "none";
  scrubber.max = String(replay.actions.length);
  $("[data-player]").hidden = false;
  $("[data-side]").hidden = false;
  fillMoves();
  drawChart();
  fillAnalysis();
  step = stepFromHash();
  go(step, { speak: false });
})();
