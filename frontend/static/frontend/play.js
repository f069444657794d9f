// The play page: one game at /play/<id>, or the new-game dialog at /play.
// The server is the referee: every action is POSTed with the last answer's `seq`, and the
// board shows what the server answers (the board animates the difference).
import { api, currentUser, el, formatClock, modeName, requireSignIn } from "./api.js";
import { Board } from "./board.js";
import { cardName, describeChange, pileName } from "./cards.js";
import { confirmDialog } from "./site.js";

const root = document.querySelector("[data-play]");
const $ = (selector) => root.querySelector(selector);
const live = $("[data-live]");
const noticeBox = $("[data-notice]");
const newGameDialog = document.getElementById("new-game-dialog");
const winDialog = document.getElementById("win-dialog");

let game = null;
let receivedAt = 0; // performance.now() when `game` arrived: the clock ticks on from there
let queue = Promise.resolve(); // actions go one at a time, each with the previous answer's seq

const board = new Board($("[data-board]"), { interactive: true, onAction: act, announce, message: notice });

function announce(text) {
  // Re-setting the same text is not re-read by screen readers; a blank first makes it so.
  live.textContent = "";
  requestAnimationFrame(() => (live.textContent = text));
}

function notice(text) {
  noticeBox.textContent = text;
  noticeBox.hidden = !text;
  if (text) announce(text);
}

const isPlaying = () => game && game.status === "playing";
const canRecycle = (g) => g.rules.passes === null || g.passes_used < g.rules.passes - 1;

/** Queues an action; resolves once its answer is drawn. Exposed for automation as
 *  `klondike.act({action: "draw"})`. */
function act(body) {
  const run = queue.then(() => send(body));
  queue = run.catch(() => {});
  return run;
}

async function send(body) {
  if (!isPlaying()) return;
  try {
    const next = await api("POST", `/api/v1/games/${game.id}/actions`, { ...body, seq: game.seq });
    notice("");
    show(next, body);
  } catch (error) {
    if (error.status === 409 && error.code === "seq_mismatch") {
      notice("This game moved on elsewhere (another tab?): it has been reloaded.");
      await load(game.id);
      return;
    }
    // Refused: the cards slide back to where they were, and the reason is shown.
    board.render(game.state);
    notice(error.message);
    if (error.code === "game_over") await load(game.id);
  }
}

/** Draws a game answer; with `body`, the action that led to it, for the announcement. */
function show(next, body) {
  const before = game;
  game = next;
  receivedAt = performance.now();
  board.render(next.state, { draw: next.rules.draw, canRecycle: canRecycle(next) });
  updateStatus();
  updateHead();
  if (body && before) {
    const change = describeChange(before.state, next.state);
    if (body.action === "undo") announce(`Undone${change ? `: ${change}` : ""}. Score ${next.score_display || "not kept"}.`);
    else if (body.action === "resign") announce("You resigned. The game is over.");
    else announce(change + (next.score !== before.score && next.score_display ? `. Score ${next.score_display}` : ""));
  }
  if (next.status === "won" && before && before.status === "playing") showWin();
  else if (next.status !== "playing") showOver();
}

function updateStatus() {
  $("[data-status]").hidden = false;
  $("[data-score-wrap]").hidden = game.rules.scoring === "none";
  $("[data-score]").textContent = game.score_display;
  $("[data-moves]").textContent = String(game.moves);
  const limited = game.rules.passes !== null;
  $("[data-passes]").textContent = limited ? `${game.passes_used + 1}/${game.rules.passes}` : String(game.passes_used + 1);
  $("[data-passes-wrap]").title = limited ? `Pass ${game.passes_used + 1} of ${game.rules.passes} through the stock` : "Unlimited passes through the stock";
  tick();
  $("[data-undo]").disabled = !isPlaying() || !game.can_undo;
  $("[data-resign]").disabled = !isPlaying();
  $("[data-hint]").hidden = game.kind === "daily";
  $("[data-hint]").disabled = !isPlaying();
}

function tick() {
  if (!game) return;
  $("[data-clock]").textContent = formatClock(game.elapsed_ms + (isPlaying() ? performance.now() - receivedAt : 0));
}

function updateHead() {
  const label = game.kind === "daily" ? `Daily challenge · ${modeName(game.rules)} · ranked` : modeName(game.rules);
  $("[data-deal-label]").textContent = label;
  $("[data-code-box]").hidden = !game.code;
  $("[data-code]").value = game.code || "";
  document.title = `${label} · Klondike Daily`;
}

function showOver() {
  const banner = $("[data-banner]");
  banner.replaceChildren(
    el("span", { text: game.status === "won" ? `Won with ${game.score_display || `${game.moves} moves`}.` : "Game over: resigned." }),
    el("a", { href: `/replay/${game.id}`, text: "Watch the replay" }),
    el("button", { class: "button small", type: "button", text: "New game", onclick: openNewGame }),
  );
  banner.hidden = false;
}

function showWin() {
  const rows = [["Moves", game.moves], ["Time", formatClock(game.elapsed_ms)]];
  if (game.rules.scoring !== "none") rows.unshift(["Score", game.score_display]);
  $("[data-banner]").hidden = true;
  winDialog.querySelector("[data-win-result]").replaceChildren(
    ...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: String(v), "data-win": k.toLowerCase() })]),
  );
  winDialog.querySelector("[data-win-links]").replaceChildren(
    el("a", { class: "button ghost", href: `/replay/${game.id}`, text: "Replay" }),
    game.kind === "daily"
      ? el("a", { class: "button ghost", href: `/leaderboards?mode=D${game.rules.draw}${game.rules.preset}`, text: "Leaderboard" })
      : null,
    el("button", { class: "button", value: "new", text: "New game" }),
  );
  winDialog.addEventListener("close", () => winDialog.returnValue === "new" ? openNewGame() : showOver(), { once: true });
  winDialog.showModal();
  announce(`You won! ${game.rules.scoring === "none" ? "" : `Score ${game.score_display}, `}${game.moves} moves.`);
}

async function load(id) {
  try {
    show(await api("GET", `/api/v1/games/${id}`));
  } catch (error) {
    if (error.status === 401) return requireSignIn();
    notice(error.status === 404 ? "No such game (or it is not yours)." : error.message);
  }
}

// ------------------------------------------------------------------ new game

async function openNewGame() {
  const form = newGameDialog.querySelector("form");
  form.querySelector("[data-error]").hidden = true;
  newGameDialog.showModal();
  // Unfinished games are worth offering: an abandoned game is never lost.
  try {
    const page = await api("GET", "/api/v1/games?mine=1");
    const open = page.results.filter((g) => g.status === "playing" && (!game || g.id !== game.id)).slice(0, 5);
    form.querySelector("[data-resume-list]").replaceChildren(...open.map((g) => el("li", {},
      el("a", { href: `/play/${g.id}`, text: `${g.kind === "daily" ? "Daily · " : ""}${modeName(g.rules)} · ${g.moves} moves` }))));
    form.querySelector("[data-resume]").hidden = !open.length;
  } catch (_) {
    form.querySelector("[data-resume]").hidden = true;
  }
}

newGameDialog.querySelector("form").addEventListener("submit", async (event) => {
  if (event.submitter && event.submitter.value !== "start") return;
  event.preventDefault();
  const form = event.target;
  const data = new FormData(form);
  const code = data.get("code").trim();
  const body = code ? { code } : { draw: Number(data.get("draw")), preset: data.get("preset") };
  const errorBox = form.querySelector("[data-error]");
  try {
    const created = await api("POST", "/api/v1/games", body);
    newGameDialog.close();
    history.pushState(null, "", `/play/${created.id}`);
    game = null;
    winDialog.open && winDialog.close();
    $("[data-banner]").hidden = true;
    notice("");
    show(created);
    announce(`New game: ${modeName(created.rules)}. ${created.code || ""}`);
    board.element.focus({ preventScroll: true });
  } catch (error) {
    if (error.status === 401) return requireSignIn();
    errorBox.textContent = error.message;
    errorBox.hidden = false;
  }
});

// ------------------------------------------------------------------ toolbar and keys

async function hint() {
  if (!isPlaying()) return null;
  try {
    const answer = await api("GET", `/api/v1/games/${game.id}/hint`);
    const move = answer.move;
    board.highlight(move);
    if (!move) notice("No productive move left.");
    else if (move.action === "move") {
      const from = board.pileArray(move.from);
      const count = move.count || 1;
      const card = from[from.length - count];
      announce(`Hint: ${cardName(card)}${count > 1 ? ` and the cards on it` : ""} to ${move.to === "f" ? "its foundation" : pileName(move.to)}`);
    } else announce(move.action === "draw" ? "Hint: draw from the stock" : "Hint: turn the waste over");
    return move;
  } catch (error) {
    notice(error.message);
    return null;
  }
}

function undo() {
  if (isPlaying() && game.can_undo) act({ action: "undo" });
}

$("[data-new]").addEventListener("click", openNewGame);
$("[data-undo]").addEventListener("click", undo);
$("[data-hint]").addEventListener("click", hint);
$("[data-resign]").addEventListener("click", async () => {
  const ranked = game.kind === "daily";
  const ok = await confirmDialog("Resign this game?", ranked
    ? "Your ranked attempt ends here and goes on the leaderboard as it stands. There is no second attempt."
    : "The game ends as it stands; you can watch its replay afterwards.", "Resign");
  if (ok) act({ action: "resign" });
});
$("[data-copy]").addEventListener("click", async () => {
  const input = $("[data-code]");
  try {
    await navigator.clipboard.writeText(input.value);
    announce("Deal code copied.");
    $("[data-copy]").textContent = "Copied";
    setTimeout(() => ($("[data-copy]").textContent = "Copy"), 1500);
  } catch (_) {
    input.select(); // no clipboard access (plain http): let the person copy it
  }
});

document.addEventListener("keydown", (e) => {
  if (e.target.closest("input, textarea, select") || document.querySelector("dialog[open]")) return;
  if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === "z") {
    e.preventDefault();
    undo();
  } else if (e.key === "?") {
    document.getElementById("help-dialog").showModal();
  } else if (e.key === "h" && !e.ctrlKey && !e.metaKey && game && game.kind !== "daily") {
    hint();
  }
});

setInterval(tick, 500);
window.addEventListener("popstate", () => location.reload());
// For automation (and the browser tests): the page's own action and hint functions.
window.klondike = { act, hint, game: () => game };

(async function start() {
  if (!(await currentUser())) return requireSignIn();
  if (root.dataset.gameId) await load(root.dataset.gameId);
  else openNewGame();
})();
