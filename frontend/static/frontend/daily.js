// The daily page: today's challenges, your standing on each, and the one ranked attempt.
import { api, currentUser, el, formatClock, modeName, requireSignIn } from "./api.js";
import { confirmDialog } from "./site.js";

const root = document.querySelector("[data-daily]");
const list = root.querySelector("[data-challenges]");
const noticeBox = root.querySelector("[data-notice]");

function notice(text) {
  noticeBox.textContent = text;
  noticeBox.hidden = !text;
}

function until(iso) {
  const ms = new Date(iso) - Date.now();
  return ms > 0 ? formatClock(ms) : "now";
}

function challengeTile(day, challenge, me) {
  const mine = challenge.my_game;
  const board = `/leaderboards?date=${day.date}&mode=${challenge.mode}`;
  const facts = el("dl", { class: "facts" },
    el("div", {}, el("dt", { text: "Par" }), el("dd", { text: String(challenge.par) })),
    el("div", {}, el("dt", { text: "Players" }), el("dd", { text: String(challenge.players) })));
  const tile = el("article", { class: "tile", "data-mode": challenge.mode },
    el("h2", { text: modeName(challenge.mode) }), facts);
  if (mine) {
    const over = mine.status !== "playing";
    tile.append(el("p", { "data-my-status": mine.status, text: over
      ? `Your attempt: ${mine.status === "won" ? "won" : "resigned"}${mine.score_display ? ` · score ${mine.score_display}` : ""} · ${mine.moves} moves.`
      : `Your attempt is in progress: ${mine.moves} moves so far.` }));
    tile.append(over
      ? el("a", { class: "button ghost", href: `/replay/${mine.id}`, text: "Watch your replay" })
      : el("a", { class: "button", href: `/play/${mine.id}`, text: "Continue your attempt" }));
  } else if (!day.open) {
    tile.append(el("p", { class: "muted", text: "New attempts are closed for today." }));
  } else if (!me) {
    tile.append(el("a", { class: "button", href: `/signin?next=/daily`, text: "Sign in to play" }));
  } else if (me.is_guest) {
    // Ranks are for accounts: a guest signs up first (and keeps its casual games).
    tile.append(el("a", { class: "button", href: "/signup?next=/daily", text: "Sign up to play ranked", "data-guest-signup": "" }));
  } else {
    tile.append(el("button", { class: "button", type: "button", "data-start": challenge.mode, text: "Start ranked attempt",
      onclick: () => start(day, challenge) }));
  }
  tile.append(el("p", {}, el("a", { href: board, text: "Leaderboard" })),
    el("p", { class: "commit", title: "sha256 of the deal code and salt", text: `Commitment ${challenge.commitment}` }));
  return tile;
}

async function start(day, challenge) {
  const ok = await confirmDialog(
    "Start your ranked attempt?",
    `You get one attempt at today's ${modeName(challenge.mode)} deal. Its clock starts as soon as you start it, ` +
      "there are no hints, and leaving it does not reset it: resigning or the end of the day ends it as it stands.",
    "Start my attempt",
  );
  if (!ok) return;
  try {
    const game = await api("POST", `/api/v1/daily/${day.date}/${challenge.mode}/start`);
    location.assign(`/play/${game.id}`);
  } catch (error) {
    if (error.status === 401) return requireSignIn();
    if (error.code === "account_required") return location.assign("/signup?next=/daily");
    notice(error.message);
    load();
  }
}

async function load() {
  try {
    const [day, me] = await Promise.all([api("GET", "/api/v1/daily"), currentUser()]);
    root.querySelector("[data-day]").textContent = day.open
      ? `${day.date} (UTC) · new attempts close in ${until(day.closes_at)}`
      : `${day.date} (UTC) · closed to new attempts`;
    list.replaceChildren(...day.challenges.map((c) => challengeTile(day, c, me)));
  } catch (error) {
    list.replaceChildren();
    notice(error.message);
  }
  list.removeAttribute("aria-busy");
}

load();
