// @ts-check
// The play page: one game at /play/<id>, or the new-game dialog at /play.
// The server is the referee: every action is POSTed with the last answer's `seq`, and the
// board shows what the server answers (the board animates the difference). Actions go one at a
// time; when its turn comes, one that the last answer's list of legal moves holds (engine.js
// `expected`) is drawn at once, then replaced by its answer: the same picture, with any card it
// uncovered turned up. The page's state is one object, `play`.
import { api, currentUser, modeName, requireSignIn } from "./api.js";
import { el } from "./dom.js";
import { Board } from "./board.js";
import { cardName, describeChange, pileTarget } from "./cards.js";
import { expected, legalTarget } from "./engine.js";
import { formatDuration, formatMoves, formatNumber, formatScore, gettext as _, interpolate as say, ngettext } from "./i18n.js";
import { errorText } from "./messages.js";
import { confirmDialog, loadSettings, showAccount } from "./site.js";
import { sound } from "./sound.js";

const root = /** @type {HTMLElement} */ (document.querySelector("[data-play]"));
// An element of the page's own markup: its kind (input, button, dialog) is the markup's.
/** @type {(selector: string) => any} */
const $ = (selector) => root.querySelector(selector);
const live = $("[data-live]");
const toastBox = $("[data-toast]");
const statusLine = $("[data-board-status]");
const newGameDialog = /** @type {HTMLDialogElement} */ (document.getElementById("new-game-dialog"));
const winDialog = /** @type {HTMLDialogElement} */ (document.getElementById("win-dialog"));
const winStatus = winDialog.querySelector("[data-win-status]");
const TOAST_MS = 4000;
const WAITING_AFTER_MS = 120; // a quicker answer shows no pending state
const reducedMotion = matchMedia("(prefers-reduced-motion: reduce)");

/** The page's state in one place: the game as the server last answered it, and what the page
 *  keeps of its own about it. */
const play = {
  game: null,
  receivedAt: 0, // performance.now() when `game` arrived: the clock ticks on from there
  offlineSince: null, // performance.now() when the server stopped answering: the clock stops
  queue: Promise.resolve(), // actions go one at a time, each with the previous answer's seq
  inFlight: 0, // actions sent and not answered yet
  timers: { waiting: null, toast: null, hintAgain: null },
};

const board = new Board($("[data-board]"), { interactive: true, onAction: act, message: toast, status: boardStatus });
// Why Undo is off when the rules alone would allow it (a ranked attempt's undo may not hide a
// card seen, docs/daily.md): the button's title, and its description for screen readers.
const undoNote = el("span", { class: "sr-only", id: "undo-note", "data-undo-note": "" });
$("[data-undo]").closest(".toolbar").after(undoNote);

function announce(text) {
  // Re-setting the same text is not re-read by screen readers; a blank first makes it so.
  live.textContent = "";
  requestAnimationFrame(() => (live.textContent = text));
}

/** A message over the page, never in its flow (nothing moves); `action` is a button
 *  `{label, run}`, and keeps the message until it is clicked or replaced. */
function toast(text, action = null) {
  clearTimeout(play.timers.toast);
  toastBox.replaceChildren(el("span", { text }));
  if (action) {
    toastBox.append(el("button", { class: "button small", type: "button", text: action.label, "data-toast-action": "",
      onclick: () => { toast(""); action.run(); } }));
  }
  toastBox.hidden = !text;
  if (!text) return;
  announce(text);
  if (!action) play.timers.toast = setTimeout(() => (toastBox.hidden = true), TOAST_MS);
}

/** Where the keyboard cursor is, and hints: a line of its own over the page's foot. */
function boardStatus(text) {
  statusLine.textContent = text;
  statusLine.hidden = !text;
  if (text) announce(text);
}

const isPlaying = () => play.game && play.game.status === "playing";
/** How the board draws a game answer: its draw, the stock's mark, its legal moves. */
const boardOptions = (g) => ({ draw: g.rules.draw, canRecycle: g.legal.stock === "recycle", legal: g.legal });
/** The game's score in the page's formats ("" when its rules keep none). */
const scoreOf = (g) => formatScore(g.score, g.score_display);

/** Queues an action; resolves once its answer is drawn. Exposed for automation as
 *  `klondike.act({action: "draw"})`. */
function act(body) {
  const run = play.queue.then(() => send(body));
  play.queue = run.catch(() => {});
  return run;
}

/** The pending state: after a moment without an answer, the board says it is waiting. */
function waiting(on) {
  play.inFlight += on ? 1 : -1;
  clearTimeout(play.timers.waiting);
  if (play.inFlight) play.timers.waiting = setTimeout(() => board.element.classList.add("waiting"), WAITING_AFTER_MS);
  else board.element.classList.remove("waiting");
  board.element.setAttribute("aria-busy", String(play.inFlight > 0));
}

/** Sends one action, its turn come: `game` is the last answer. A move the answer's legal list
 *  holds is drawn now (not while the server is away: the Retry resends); a drag it lacks
 *  slides back now, and the answer says why. */
async function send(body) {
  if (!isPlaying()) return;
  const online = play.offlineSince === null;
  const drawn = online && expected(play.game.state, play.game.legal, body);
  if (drawn) board.render(drawn, { legal: null });
  else if (body.action === "move") board.render(play.game.state);
  waiting(true);
  try {
    const path = `/api/v1/games/${play.game.id}/actions`;
    // A gesture the list refuses: the server says why, as an answer, not a failed request.
    if (online && !drawn && refusedByList(body)) {
      const check = await api("POST", `${path}/check`, { ...body, seq: play.game.seq });
      if (!check.legal) return refusal(body, check.message);
    }
    await show(await api("POST", path, { ...body, seq: play.game.seq }), body);
  } catch (error) {
    await refused(error, body);
  } finally {
    waiting(false);
  }
}

/** Whether the last answer's legal list refuses a move, a tap or a double tap (which needs
 *  some place for its card). */
function refusedByList(body) {
  const legal = play.game.legal;
  if (!legal || !body.from) return false;
  if (body.action === "double_tap") return !Object.keys(legal.moves[body.from] || {}).length;
  return (body.action === "move" || body.action === "tap") && !legalTarget(legal, body);
}

/** A refused action: its cards slide back to their pile and shake, and `text` says why. */
function refusal(body, text) {
  board.refuse(play.game.state, boardOptions(play.game), body.from, body.count || 1);
  sound("refusal");
  toast(text);
}

/** A refused or failed action: the board goes back to the server's state (the cards slide
 *  back and shake), and a message says why in plain words. Resolves once the game is
 *  reloaded when it moved on elsewhere, so the next action goes with the right `seq`. */
async function refused(error, body) {
  if (error.code === "illegal_move") return refusal(body, errorText(error));
  board.refuse(play.game.state, boardOptions(play.game), body.from, body.count || 1);
  if (error.code === "network") {
    play.offlineSince ??= performance.now();
    tick();
    toast(errorText(error), { label: _("Retry"), run: () => act(body) });
    return;
  }
  toast(errorText(error));
  if (error.code === "seq_mismatch" || error.code === "game_over") await load(play.game.id);
}

/** Draws a game answer; with `body`, the action that led to it, for the announcement. */
async function show(next, body) {
  const before = play.game;
  play.game = next;
  play.receivedAt = performance.now();
  play.offlineSince = null;
  const options = boardOptions(next);
  updateStatus();
  updateHead();
  if (body) boardStatus(""); // a hint or the cursor's words are about the last position
  if (body && before) {
    if (body.action !== "resign") sound(next.status === "won" ? "win" : "move");
    const change = describeChange(before.state, next.state);
    const score = scoreOf(next) || _("not kept");
    if (body.action === "undo") announce(change ? say(_("Undone: %(change)s. Score %(score)s."), { change, score }) : say(_("Undone. Score %(score)s."), { score }));
    else if (body.action === "resign") announce(_("You resigned. The game is over."));
    else announce(next.score !== before.score && scoreOf(next) ? say(_("%(change)s. Score %(score)s"), { change, score }) : change);
  }
  // Automatic moves (preset R) came with the answer: the cards go home one by one.
  const automatic = before && body && body.action !== "undo" && next.seq - before.seq > 1;
  if (automatic) await board.playHome(next.state, options);
  else board.update(next.state, options);
  if (next.status === "won" && before && before.status === "playing") showWin();
  else if (next.status !== "playing") showOver();
}

function updateStatus() {
  $("[data-status]").hidden = false;
  $("[data-score-wrap]").hidden = play.game.rules.scoring === "none";
  $("[data-score]").textContent = scoreOf(play.game);
  $("[data-moves]").textContent = formatNumber(play.game.moves);
  const limited = play.game.rules.passes !== null;
  const pass = { pass: formatNumber(play.game.passes_used + 1), passes: formatNumber(play.game.rules.passes) };
  $("[data-passes]").textContent = limited ? `${pass.pass}/${pass.passes}` : pass.pass;
  $("[data-passes-wrap]").title = limited ? say(_("Pass %(pass)s of %(passes)s through the stock"), pass) : _("Unlimited passes through the stock");
  tick();
  const undoButton = $("[data-undo]");
  const undoWhy = (isPlaying() && play.game.undo_refusal_message) || "";
  undoButton.disabled = !isPlaying() || !play.game.can_undo;
  undoNote.textContent = undoWhy;
  for (const [name, value] of [["title", undoWhy], ["aria-describedby", undoNote.id]]) {
    if (undoWhy) undoButton.setAttribute(name, value);
    else undoButton.removeAttribute(name);
  }
  $("[data-resign]").disabled = !isPlaying();
  $("[data-hint]").hidden = play.game.kind === "daily";
  $("[data-hint]").disabled = !isPlaying();
}

function tick() {
  if (!play.game) return;
  const now = play.offlineSince ?? performance.now();
  // The server's clock, ticked on as the server would count it: a casual game's stops a
  // minute after its last action (`clock_stops_in_ms`), a ranked attempt's runs to the end.
  const runs = Math.min(now - play.receivedAt, play.game.clock_stops_in_ms ?? Infinity);
  $("[data-clock]").textContent = formatDuration((play.game.elapsed_ms + runs) / 1000);
}

function updateHead() {
  const label = play.game.kind === "daily" ? say(_("Daily challenge · %(mode)s · ranked"), { mode: modeName(play.game.rules) }) : modeName(play.game.rules);
  $("[data-deal-label]").textContent = label;
  $("[data-code-box]").hidden = !play.game.code;
  $("[data-code]").value = play.game.code || "";
  document.title = `${label} · Klondike Daily`;
}

function showOver() {
  const banner = $("[data-banner]");
  banner.replaceChildren(
    el("span", { text: play.game.status === "won" ? say(_("Won with %(result)s."), { result: scoreOf(play.game) || formatMoves(play.game.moves) }) : _("Game over: resigned.") }),
    el("a", { href: `/replay/${play.game.id}`, text: _("Watch the replay") }),
    // A ranked attempt's result may be shared; what was done says so in a message.
    play.game.kind === "daily" ? shareButton("button small", (text) => toast(text)) : "",
    el("button", { class: "button small", type: "button", text: _("New game"), onclick: openNewGame }),
  );
  banner.hidden = false;
}

/** A Share button for the game shown (share.js, loaded when pressed); `tell` says what it did. */
function shareButton(style, tell) {
  const id = play.game.id;
  const said = el("span");
  return el("button", { class: style, type: "button", "data-share": String(id), text: _("Share"), onclick: async (/** @type {Event} */ event) => {
    const button = /** @type {HTMLButtonElement} */ (event.currentTarget);
    button.disabled = true;
    const { shareGame } = await import("./share.js");
    if (await shareGame(id, said) !== "cancelled" && said.textContent) tell(said.textContent);
    button.disabled = false;
  } });
}

function showWin() {
  // [key, label, value]: the key names the row for dailyResult and the tests.
  const rows = [["moves", _("Moves"), formatNumber(play.game.moves)], ["time", _("Time"), formatDuration(play.game.elapsed_ms / 1000)]];
  if (play.game.rules.scoring !== "none") rows.unshift(["score", _("Score"), scoreOf(play.game)]);
  if (play.game.kind === "daily") rows.push(["rank", _("Rank"), "…"], ["par", _("Par"), "…"], ["streak", _("Streak"), "…"]);
  $("[data-banner]").hidden = true;
  winDialog.querySelector("[data-win-result]").replaceChildren(
    ...rows.flatMap(([key, k, v]) => [el("dt", { text: k }), el("dd", { text: v, "data-win": key })]),
  );
  const links = [
    el("a", { class: "button ghost", href: `/replay/${play.game.id}`, text: _("Replay") }),
    play.game.kind === "daily"
      && el("a", { class: "button ghost", href: `/leaderboards?mode=D${play.game.rules.draw}${play.game.rules.preset}`, text: _("Leaderboard") }),
    play.game.kind === "daily" && shareButton("button ghost", (text) => (winStatus.textContent = text)),
    el("button", { class: "button", value: "new", text: _("New game") }),
  ];
  // replaceChildren writes a null as the text "null": only elements go in.
  winDialog.querySelector("[data-win-links]").replaceChildren(...links.filter(Boolean));
  winStatus.textContent = "";
  winDialog.addEventListener("close", () => winDialog.returnValue === "new" ? openNewGame() : showOver(), { once: true });
  winDialog.showModal();
  celebrate();
  const moves = formatMoves(play.game.moves);
  announce(play.game.rules.scoring === "none" ? say(_("You won! %(moves)s."), { moves }) : say(_("You won! Score %(score)s, %(moves)s."), { score: scoreOf(play.game), moves }));
  if (play.game.kind === "daily") dailyResult(play.game);
}

/** Confetti over the win dialog; none when the player asked for less motion. */
function celebrate() {
  if (reducedMotion.matches) return;
  const colours = ["#ffd23f", "#ff5d73", "#4fe3ff", "#7cf29c", "#b28dff", "#fff"];
  const layer = el("div", { class: "confetti", "aria-hidden": "true" });
  const pieces = Array.from({ length: 70 }, (_, i) => {
    const piece = el("i");
    piece.style.left = `${Math.random() * 100}%`;
    piece.style.background = colours[i % colours.length];
    return piece;
  });
  layer.append(...pieces);
  winDialog.append(layer);
  const falls = pieces.map((piece) => piece.animate([
    { transform: `translate(0, -10vh) rotate(0deg)` },
    { transform: `translate(${(Math.random() - 0.5) * 30}vw, 110vh) rotate(${Math.random() * 1440 - 720}deg)` },
  ], { duration: 1800 + Math.random() * 1600, delay: Math.random() * 700, easing: "cubic-bezier(.3,.1,.6,1)", fill: "backwards" }).finished);
  Promise.all(falls).then(() => layer.remove(), () => layer.remove());
}

/** A daily win's rank, the deal's par and the updated streak, in the win dialog. */
async function dailyResult(won) {
  const mode = `D${won.rules.draw}${won.rules.preset}`;
  const day = new Date(won.started_at).toISOString().slice(0, 10); // a ranked attempt starts on its day
  const [daily, board, me] = await Promise.all([
    api("GET", `/api/v1/daily/${day}`),
    api("GET", `/api/v1/leaderboards/daily/${day}/${mode}?around=me`),
    api("GET", "/api/v1/me"),
  ].map((p) => p.catch(() => null)));
  const put = (key, text) => (winDialog.querySelector(`[data-win="${key}"]`).textContent = text);
  const challenge = daily && daily.challenges.find((c) => c.mode === mode);
  put("par", challenge ? formatMoves(challenge.par) : "–");
  put("rank", board && board.me ? say(_("%(rank)s of %(count)s"), { rank: formatNumber(board.me.rank), count: formatNumber(board.me.count) }) : _("on the board in a moment"));
  const streak = me && me.stats.streaks[mode];
  put("streak", streak ? say(ngettext("%(count)s day", "%(count)s days", streak.current), { count: formatNumber(streak.current) }) : "–");
}

async function load(id) {
  try {
    show(await api("GET", `/api/v1/games/${id}`));
  } catch (error) {
    if (error.status === 401) return requireSignIn();
    toast(errorText(error), error.code === "network" ? { label: _("Retry"), run: () => load(id) } : null);
  }
}

// ------------------------------------------------------------------ new game

async function openNewGame() {
  const form = /** @type {HTMLFormElement} */ (newGameDialog.querySelector("form"));
  /** @type {HTMLElement} */ (form.querySelector("[data-error]")).hidden = true;
  $("[data-deal-label]").textContent ||= _("New game");
  newGameDialog.showModal();
  // Unfinished games are worth offering: an abandoned game is never lost.
  try {
    const page = await api("GET", "/api/v1/games?mine=1");
    const open = page.results.filter((g) => g.status === "playing" && (!play.game || g.id !== play.game.id)).slice(0, 5);
    form.querySelector("[data-resume-list]").replaceChildren(...open.map((g) => el("li", {},
      el("a", { href: `/play/${g.id}`, text: say(g.kind === "daily" ? _("Daily · %(mode)s · %(moves)s") : "%(mode)s · %(moves)s", { mode: modeName(g.rules), moves: formatMoves(g.moves) }) }))));
    /** @type {HTMLElement} */ (form.querySelector("[data-resume]")).hidden = !open.length;
  } catch {
    /** @type {HTMLElement} */ (form.querySelector("[data-resume]")).hidden = true;
  }
}

// Cancel is a plain button, so Enter in the deal-code field submits the form: it deals.
newGameDialog.querySelector("[data-cancel]").addEventListener("click", () => newGameDialog.close());
newGameDialog.querySelector("form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.target);
  const data = new FormData(form);
  const code = String(data.get("code")).trim();
  const body = code ? { code } : { draw: Number(data.get("draw")), preset: data.get("preset"), winnable: !!loadSettings().winnable };
  const errorBox = /** @type {HTMLElement} */ (form.querySelector("[data-error]"));
  try {
    const created = await api("POST", "/api/v1/games", body);
    newGameDialog.close();
    history.pushState(null, "", `/play/${created.id}`);
    play.game = null;
    winDialog.open && winDialog.close();
    $("[data-banner]").hidden = true;
    toast("");
    show(created);
    sound("deal");
    if (created.winnable === false) toast(_("No deal proven winnable was ready in time: this random one may not be winnable."));
    announce(say(_("New game: %(mode)s. %(code)s"), { mode: modeName(created.rules), code: created.code || "" }));
    // Keys work at once; the focus ring waits for a key (a new deal is not a keyboard's doing).
    board.element.focus({ preventScroll: true, focusVisible: false });
  } catch (error) {
    if (error.status === 401) return requireSignIn();
    errorBox.textContent = error.code === "network" ? errorText(error) : error.message;
    errorBox.hidden = false;
  }
});

// ------------------------------------------------------------------ toolbar and keys

// A hint whose position the server goes on searching outside the request (`searching`) is
// asked for again every HINT_AGAIN_MS while the game stays where it was, so that the move of a
// winning line replaces the heuristic one as soon as the search finds it. The server's search
// takes up to 10 s after its wait in the queue; the asking stops after HINT_AGAIN_MAX tries.
const HINT_AGAIN_MS = 2000;
const HINT_AGAIN_MAX = 15;

/** Asks for a hint and shows it; resolves to its move. Exposed for automation as
 *  `klondike.hint()`. `again`: how many times this position's hint was asked for already. */
async function hint(again = 0) {
  clearTimeout(play.timers.hintAgain);
  if (!isPlaying()) return null;
  const asked = { id: play.game.id, seq: play.game.seq };
  const still = () => isPlaying() && play.game.id === asked.id && play.game.seq === asked.seq;
  try {
    const answer = await api("GET", `/api/v1/games/${asked.id}/hint`);
    if (!still()) return answer.move; // a move or another game meanwhile: not this one's
    showHint(answer.move, answer.searching, answer.reason_message);
    if (answer.searching && again < HINT_AGAIN_MAX) {
      play.timers.hintAgain = setTimeout(() => still() && hint(again + 1), HINT_AGAIN_MS);
    }
    return answer.move;
  } catch (error) {
    if (!again) toast(errorText(error)); // asking again is the page's own idea: no toast
    return null;
  }
}

/** The hint on the board and in its status line: the move, then `reason` (the server's words). */
function showHint(move, searching, reason) {
  board.highlight(move);
  let text;
  if (!move) text = _("No productive move left.");
  else if (move.action === "move") {
    const from = board.pileArray(move.from);
    const count = move.count || 1;
    const to = move.to === "f" ? _("to its foundation") : pileTarget(move.to);
    // Translators: %(to)s is a place with its preposition: "to column 3".
    text = say(count > 1 ? _("Hint: %(card)s and the cards on it %(to)s") : _("Hint: %(card)s %(to)s"), { card: cardName(from[from.length - count]), to });
  } else text = move.action === "draw" ? _("Hint: draw from the stock") : _("Hint: turn the waste over");
  // Translators: %(hint)s is a hint such as "Hint: 10♥ to column 3"; %(reason)s says why, such as "frees a face-down card".
  if (move && reason) text = say(_("%(hint)s — %(reason)s"), { hint: text, reason });
  // Translators: %(hint)s is a hint such as "Hint: draw from the stock".
  boardStatus(searching ? say(_("%(hint)s (no winning line found yet; still looking)"), { hint: text }) : text);
}

/** Undo, from the button or the keyboard; a key pressed where the game refuses it says why. */
function undo() {
  if (!isPlaying()) return;
  if (play.game.can_undo) act({ action: "undo" });
  else if (play.game.undo_refusal_message) toast(play.game.undo_refusal_message);
}

$("[data-new]").addEventListener("click", openNewGame);
$("[data-undo]").addEventListener("click", undo);
$("[data-hint]").addEventListener("click", () => hint());
$("[data-resign]").addEventListener("click", async () => {
  const ranked = play.game.kind === "daily";
  const ok = await confirmDialog(_("Resign this game?"), ranked
    ? _("Your ranked attempt ends here and goes on the leaderboard as it stands. There is no second attempt.")
    : _("The game ends as it stands; you can watch its replay afterwards."), _("Resign"));
  if (ok) act({ action: "resign" });
});
$("[data-copy]").addEventListener("click", async () => {
  const input = $("[data-code]");
  try {
    await navigator.clipboard.writeText(input.value);
    announce(_("Deal code copied."));
    const label = $("[data-copy]").textContent;
    $("[data-copy]").textContent = _("Copied");
    setTimeout(() => ($("[data-copy]").textContent = label), 1500);
  } catch {
    input.select(); // no clipboard access (plain http): let the person copy it
  }
});

document.addEventListener("keydown", (e) => {
  if (/** @type {Element} */ (e.target).closest("input, textarea, select") || document.querySelector("dialog[open]")) return;
  if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === "z") {
    e.preventDefault();
    undo();
  } else if (e.key === "?") {
    /** @type {HTMLDialogElement} */ (document.getElementById("help-dialog")).showModal();
  } else if (e.key === "h" && !e.ctrlKey && !e.metaKey && play.game && play.game.kind !== "daily") {
    hint();
  }
});

setInterval(tick, 500);
window.addEventListener("popstate", () => location.reload());
// For automation (and the browser tests): the page's own action and hint functions.
/** @type {any} */ (window).klondike = { act, hint, game: () => play.game };

/** A newcomer plays at once, as a guest (a server-side account bound to this browser's
 *  session: the server stays the referee); signing up later keeps the guest's games. */
async function startGuest() {
  try {
    const { user } = await api("POST", "/api/v1/auth/guest");
    showAccount(user);
    return user;
  } catch (error) {
    toast(error.message);
    return null;
  }
}

(async function start() {
  const me = await currentUser();
  const guest = me ? null : await startGuest();
  if (!me && !guest) return;
  if (root.dataset.gameId) await load(root.dataset.gameId);
  else if (guest) newGameDialog.querySelector("form").requestSubmit(); // Play → a board: deal at once
  else openNewGame();
})();
