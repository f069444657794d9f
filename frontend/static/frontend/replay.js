// @ts-check
// The replay viewer: rebuilds every position from the deal and log. `#m=42` links to step 42.
import { api, modeName } from "./api.js";
import { el, svg } from "./dom.js";
import { Board } from "./board.js";
import { describeChange } from "./cards.js";
import { applyAction, positions, publicState } from "./engine.js";
import { formatDollars, formatDuration, formatMoves, formatNumber, formatScore, gettext as _, interpolate as say, ngettext } from "./i18n.js";
import { actionLabel, analysisText } from "./messages.js";

const root = /** @type {HTMLElement} */ (document.querySelector("[data-replay]"));
// The markup decides each element's kind.
/** @type {(selector: string) => any} */
const $ = (selector) => root.querySelector(selector);
const live = $("[data-live]");
const scrubber = $("[data-scrubber]");
const STEP_MS = 700; // at 1×

let replay = null;
let full = []; // full[k]: the whole position after k entries (engine.js)
let states = []; // public states
let step = 0;
let timer = null;
// A solver's line shown instead of the game, from step `from`; states[0] is the game's position.
/** @type {{from: number, actions: any[], states: any[], labels?: string[]} | null} */
let line = null;
let lineStep = 0;

const board = new Board($("[data-board]"), { interactive: false });

function notice(text) {
  $("[data-notice]").textContent = text;
  $("[data-notice]").hidden = !text;
}

function stepFromHash() {
  const match = location.hash.match(/m=(\d+)/);
  return match ? Math.min(Number(match[1]), states.length - 1) : 0;
}

// The controls act on the game, or on the line shown.
const at = () => (line ? lineStep : step);
const last = () => (line ? line.states.length : states.length) - 1;

function stepTo(k, options = {}) {
  if (line) goLine(k);
  else go(k, options);
}

/** `speak` describes the change for screen readers. */
function go(k, { speak = true } = {}) {
  k = Math.max(0, Math.min(states.length - 1, k));
  const before = states[step];
  step = k;
  board.render(states[k], { draw: replay.rules.draw, canRecycle: true });
  const entry = replay.actions[k - 1];
  $("[data-step]").textContent = `${formatNumber(k)}/${formatNumber(replay.actions.length)}`;
  $("[data-score]").textContent = entry ? scoreText(entry.score_after) : scoreText(replay.rules.scoring === "vegas" ? -52 : 0);
  $("[data-clock]").textContent = formatDuration(entry ? entry.at_ms / 1000 : 0);
  markStep("[data-moves]", k);
  drawMarker();
  history.replaceState(null, "", k ? `#m=${k}` : location.pathname);
  if (speak) {
    const change = describeChange(before, states[k]);
    // As the move list words it, not the notation.
    const move = entry && actionLabel(entry.action, states[k - 1]);
    live.textContent = entry ? say(_("Step %(step)s: %(move)s. %(change)s"), { step: formatNumber(k), move, change }) : _("The deal, before the first move.");
  }
  if (k === states.length - 1) pause();
}

function markStep(list, k) {
  scrubber.value = String(k);
  for (const item of root.querySelectorAll(".move-list .current")) item.classList.remove("current");
  const item = $(`${list} li:nth-child(${k})`);
  if (item) {
    item.classList.add("current");
    keepInView(item);
  }
}

/** scrollIntoView would scroll the whole page as well. */
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
  if (at() >= last()) stepTo(0);
  const speed = Number($("[data-speed]").value);
  $("[data-play]").textContent = _("Pause");
  clearInterval(timer);
  timer = setInterval(() => stepTo(at() + 1, { speak: false }), STEP_MS / speed);
}

function pause() {
  clearInterval(timer);
  timer = null;
  $("[data-play]").textContent = _("Play");
}

// ---- side panel

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
  chart.replaceChildren(svg("polyline", { class: "chart-line", points: scores.map((s, i) => chartPoint(i, s, lo, hi)).join(" ") }),
    svg("line", { class: "chart-marker", y1: 0, y2: CHART_H }));
  const lost = noReturnStep();
  if (lost !== null) {
    // Point of no return: titled for assistive technology.
    const x = (lost / Math.max(1, replay.actions.length)) * CHART_W;
    chart.append(svg("line", { class: "chart-no-return", x1: x, x2: x, y1: 0, y2: CHART_H },
      svg("title", { text: say(_("Point of no return: step %(step)s"), { step: formatNumber(lost) }) })));
  }
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

/** The first step after which the deal is lost, by the analysis; else null. */
function noReturnStep() {
  const lost = replay.analysis && replay.analysis.point_of_no_return;
  return Number.isInteger(lost) ? lost + 1 : null;
}

function fillMoves() {
  const lost = noReturnStep();
  $("[data-moves]").replaceChildren(...replay.actions.map((a, i) =>
    el("li", { class: i + 1 === lost ? "no-return" : null },
      el("button", { type: "button", class: "move", "data-step": String(i + 1), onclick: () => leaveLine() || go(i + 1) },
        el("span", { text: actionLabel(a.action, states[i]), title: a.notation }),
        i + 1 === lost ? el("span", { class: "badge", text: _("point of no return") }) : null,
        a.score_after === null ? null : el("span", { class: "muted", text: scoreText(a.score_after) })))));
  $("[data-text]").href = `/api/v1/games/${replay.id}/replay.txt`;
}

// ---- winning line

function showLine(from, actions) {
  pause();
  const path = [full[from]];
  for (const action of actions) path.push(applyAction(path.at(-1), action, replay.rules.draw));
  line = { from, actions, states: path.map(publicState) };
  line.labels = actions.map((a, i) => actionLabel(a, line.states[i]));
  $("[data-line-title]").textContent = say(_("A winning line from step %(step)s"), { step: formatNumber(from) });
  $("[data-line-moves]").replaceChildren(...line.labels.map((text, i) =>
    el("li", {}, el("button", { type: "button", class: "move", onclick: () => goLine(i + 1) }, el("span", { text })))));
  showingLine(true);
  goLine(0);
}

function goLine(k) {
  lineStep = k = Math.max(0, Math.min(line.states.length - 1, k));
  board.render(line.states[k], { draw: replay.rules.draw, canRecycle: true });
  $("[data-step]").textContent = say(_("line %(step)s/%(count)s"), { step: formatNumber(k), count: formatNumber(line.actions.length) });
  markStep("[data-line-moves]", k);
  live.textContent = k ? line.labels[k - 1] : $("[data-line-title]").textContent;
  if (k === line.states.length - 1) pause();
}

function showingLine(on) {
  $("[data-line-section]").hidden = !on;
  $("[data-line-here]").textContent = on ? _("Back to the game") : _("Winning line from here");
  scrubber.max = String((on ? line.states : states).length - 1);
}

/** Returns false so a caller's own step follows: `leaveLine() || go(k)`. */
function leaveLine() {
  if (!line) return false;
  pause();
  const { from } = line;
  line = null;
  showingLine(false);
  go(from, { speak: false });
  return false;
}

async function lineFromHere() {
  if (line) return leaveLine();
  pause();
  const from = step;
  const note = $("[data-line-note]");
  note.hidden = true;
  try {
    const answer = await api("GET", `/api/v1/games/${replay.id}/replay/line?step=${from}`);
    if (step !== from || line) return; // the player moved on
    if (answer.line.length) return showLine(from, answer.line);
    note.textContent = { winnable: _("The game is won here."), lost: _("No play wins from here.") }[answer.status]
      || _("No winning line found from here in time; try again in a moment.");
  } catch (error) {
    note.textContent = error.message;
  }
  note.hidden = false;
  live.textContent = note.textContent;
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
  if (analysis.winning_line && analysis.winning_line.length && Number.isInteger(analysis.winning_line_after)) {
    const from = analysis.winning_line_after + 1;
    // The server answers this step with the analysis' own line.
    text.append(" ", el("button", { class: "icon-button", type: "button", "data-show-winning-line": "", text: say(_("Show a winning line from step %(step)s"), { step: formatNumber(from) }),
      onclick: () => { leaveLine(); go(from, { speak: false }); lineFromHere(); } }));
  }
  $("[data-analysis]").hidden = false;
}

// ---- wiring

$("[data-first]").addEventListener("click", () => { pause(); stepTo(0); });
$("[data-back]").addEventListener("click", () => { pause(); stepTo(at() - 1); });
$("[data-forward]").addEventListener("click", () => { pause(); stepTo(at() + 1); });
$("[data-last]").addEventListener("click", () => { pause(); stepTo(last()); });
$("[data-play]").addEventListener("click", () => (timer ? pause() : play()));
$("[data-speed]").addEventListener("change", () => timer && play());
$("[data-line-here]").addEventListener("click", lineFromHere);
scrubber.addEventListener("input", () => { pause(); stepTo(Number(scrubber.value), { speak: false }); });
$("[data-share]").addEventListener("click", async () => {
  const url = `${location.origin}${location.pathname}#m=${step}`;
  try {
    await navigator.clipboard.writeText(url);
    live.textContent = _("Link copied.");
  } catch (_error) {
    window.prompt(_("Copy this link"), url); // no clipboard access over plain http
  }
});
window.addEventListener("hashchange", () => leaveLine() || go(stepFromHash()));
document.addEventListener("keydown", (e) => {
  // Arrows step wherever the focus is, except in fields; Space stays a focused button's click.
  if (!replay || /** @type {Element} */ (e.target).closest("input, select, textarea, dialog")) return;
  if (e.key === "ArrowLeft") stepTo(at() - 1);
  else if (e.key === "ArrowRight") stepTo(at() + 1);
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
  full = positions(replay);
  states = full.map(publicState);
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
  $("[data-line-here]").disabled = replay.redacted; // no line of a deal still played
  fillMoves();
  drawChart();
  fillAnalysis();
  step = stepFromHash();
  go(step, { speak: false });
})();
