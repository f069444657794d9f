// @ts-check
// The daily page: today's challenges, your standing on each, and the one ranked attempt.
import { api, currentUser, modeName, requireSignIn } from "./api.js";
import { el } from "./dom.js";
import {
  gettext as _, pgettext, interpolate as say, ngettext, formatCloseTime, formatDate, formatDuration, formatMoves, formatNumber, formatRatingChange, formatScore,
} from "./i18n.js";
import { shareButton } from "./share.js";
import { confirmDialog } from "./site.js";

const root = /** @type {HTMLElement} */ (document.querySelector("[data-daily]"));
const list = root.querySelector("[data-challenges]");
const noticeBox = /** @type {HTMLElement} */ (root.querySelector("[data-notice]"));
const offerBox = /** @type {HTMLElement} */ (root.querySelector("[data-verify-offer]"));

function notice(text) {
  noticeBox.textContent = text;
  noticeBox.hidden = !text;
}

/** The daily's UTC day as the player's language writes a date ("1 December 2026"). */
function dayName(date) {
  return formatDate(`${date}T00:00:00Z`, { dateStyle: "long", timeZone: "UTC" });
}

/** The day line: the close on the player's own clock, and how long until then. */
function dayLine(day) {
  const date = dayName(day.date);
  const left = new Date(day.closes_at).getTime() - Date.now();
  if (!day.open) return say(_("%(date)s (UTC) · closed to new attempts"), { date });
  if (left <= 0) return say(_("%(date)s (UTC) · new attempts close now"), { date });
  return say(_("%(date)s (UTC) · new attempts close at %(time)s, in %(left)s"), {
    date, time: formatCloseTime(day.closes_at), left: formatDuration(left / 1000),
  });
}

/** What became of the player's attempt: "Your attempt: won. Score 35. 120 moves." */
function attemptText(mine) {
  if (mine.status === "playing") {
    return say(ngettext("Your attempt is in progress: %(count)s move so far.", "Your attempt is in progress: %(count)s moves so far.", mine.moves),
      { count: formatNumber(mine.moves) });
  }
  const parts = [mine.status === "won" ? _("Your attempt: won.") : _("Your attempt: resigned.")];
  const score = formatScore(mine.score, mine.score_display);
  if (score) parts.push(say(_("Score %(score)s."), { score }));
  parts.push(`${formatMoves(mine.moves)}.`);
  return parts.join(" ");
}

function challengeTile(day, challenge, me) {
  const mine = challenge.my_game;
  const board = `/leaderboards?date=${day.date}&mode=${challenge.mode}`;
  const facts = el("dl", { class: "facts" },
    el("div", {}, el("dt", { text: _("Par") }), el("dd", { text: formatMoves(challenge.par) })),
    el("div", {}, el("dt", { text: _("Players") }), el("dd", { text: formatNumber(challenge.players) })));
  const tile = el("article", { class: "tile", "data-mode": challenge.mode },
    el("h2", { text: modeName(challenge.mode) }), facts);
  if (mine) {
    tile.append(el("p", { "data-my-status": mine.status, text: attemptText(mine) }));
    // The owner's private note: the public board shows no mark.
    if (mine.under_review) tile.append(el("p", { class: "muted", "data-my-review": "", text: _("A reviewer is checking this attempt: until then it counts for no rating.") }));
    // Only once the board is final and rated: an open board says nothing of a rating.
    if (mine.rating) tile.append(el("p", { "data-my-rating": "", text: say(_("Rating %(rating)s"), { rating: formatRatingChange(mine.rating) }) }));
    if (mine.status === "playing") tile.append(el("a", { class: "button", href: `/play/${mine.id}`, text: _("Continue your attempt") }));
    else {
      const [share, shared] = shareButton(mine.id);
      tile.append(el("p", { class: "tile-actions" }, el("a", { class: "button ghost", href: `/replay/${mine.id}`, text: _("Watch your replay") }), share), shared);
    }
  } else if (!day.open) {
    tile.append(el("p", { class: "muted", text: _("New attempts are closed for today.") }));
  } else if (!me) {
    tile.append(el("a", { class: "button", href: `/signin?next=/daily`, text: _("Sign in to play") }));
  } else if (me.is_guest) {
    // Ranks are for accounts: a guest signs up first (and keeps its casual games).
    tile.append(el("a", { class: "button", href: "/signup?next=/daily", text: _("Sign up to play ranked"), "data-guest-signup": "" }));
  } else {
    tile.append(el("button", { class: "button", type: "button", "data-start": challenge.mode, text: _("Start ranked attempt"),
      onclick: () => start(day, challenge) }));
  }
  tile.append(el("p", {}, el("a", { href: board, text: _("Leaderboard") })),
    el("p", { class: "commit", title: _("sha256 of the deal code and salt"), text: say(_("Commitment %(hash)s"), { hash: challenge.commitment }) }));
  return tile;
}

async function start(day, challenge) {
  const ok = await confirmDialog(
    _("Start your ranked attempt?"),
    say(_("You get one attempt at today's %(mode)s deal. Its clock starts as soon as you start it, there are no hints, and leaving it does not reset it: resigning or the end of the day ends it as it stands."),
      { mode: modeName(challenge.mode) }),
    _("Start my attempt"),
  );
  if (!ok) return;
  try {
    const game = await api("POST", `/api/v1/daily/${day.date}/${challenge.mode}/start`);
    location.assign(`/play/${game.id}`);
  } catch (error) {
    if (error.status === 401) return requireSignIn();
    if (error.code === "account_required") return location.assign("/signup?next=/daily");
    if (error.code === "email_unverified") return offerVerification(error.message);
    notice(error.message);
    load();
  }
}

/** A ranked start refused for an unverified e-mail (403 `email_unverified`): the player retries
 *  once the link is opened. */
async function offerVerification(message) {
  const me = await currentUser();
  const form = el("form", { novalidate: true }, el("p", { text: message }));
  if (!me || !me.email) {
    form.append(el("label", { for: "verify-email", text: _("Your e-mail address") }),
      el("input", { id: "verify-email", name: "email", type: "email", required: true, maxlength: "254", autocomplete: "email" }));
  }
  const button = el("button", { class: "button", type: "submit", text: _("Send me the link") });
  const said = el("p", { role: "status", "data-verify-status": "" });
  form.append(button, said);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    try {
      const field = form.elements.email;
      const sent = field
        ? await api("POST", "/api/v1/me/email", { email: field.value })
        : await api("POST", "/api/v1/me/email/verification");
      said.textContent = sent.email_verified
        ? _("Your address is verified: start your attempt again.")
        : say(_("The link is on its way to %(email)s. Open it, then start your attempt."), { email: sent.email });
    } catch (error) {
      const fields = error.data && error.data.fields;
      said.textContent = fields ? Object.values(fields).flat().join(" ") : error.message;
    } finally {
      button.disabled = false;
    }
  });
  notice("");
  offerBox.replaceChildren(form);
  offerBox.hidden = false;
  (form.elements.email || button).focus();
}

/** What became of yesterday's attempt once its board is final: "Draw 1 · Normal: ✓ won · score 35
 *  · #3 · Rating 1623 (+23)". */
function yesterdayText(challenge) {
  const mode = modeName(challenge.mode);
  const mine = challenge.mine;
  if (!challenge.final) return say(_("%(mode)s: the board is not final yet."), { mode });
  if (!mine) return say(_("%(mode)s: not played."), { mode });
  const parts = [mine.result === "won" ? `✓ ${pgettext("calendar", "won")}` : `✗ ${pgettext("calendar", "lost")}`];
  const score = formatScore(mine.score, mine.score_display);
  if (score) parts.push(say(_("score %(score)s"), { score }));
  if (mine.rank) parts.push(say(_("#%(rank)s"), { rank: formatNumber(mine.rank) }));
  if (mine.rating) parts.push(say(_("Rating %(rating)s"), { rating: formatRatingChange(mine.rating) }));
  return `${mode}: ${parts.join(" · ")}`;
}

/** Yesterday's results, from the calendar of its month (one request): today's board is still
 *  open, yesterday's is final from 01:00 UTC. Each line keeps its place (daily.html). */
async function showYesterday(today) {
  const box = root.querySelector("[data-yesterday]");
  if (!box) return;
  const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86400000).toISOString().slice(0, 10);
  const calendar = await api("GET", `/api/v1/daily/calendar?month=${yesterday.slice(0, 7)}`).catch(() => null);
  const day = calendar && calendar.days.find((d) => d.date === yesterday);
  const lines = [...box.querySelectorAll("li")];
  if (!day) {
    lines.forEach((li, i) => (li.textContent = i ? "" : _("No daily challenges yesterday.")));
    return;
  }
  for (const li of lines) {
    const challenge = day.challenges.find((c) => c.mode === li.dataset.mode);
    li.textContent = challenge ? yesterdayText(challenge) : "";
    if (challenge && challenge.mine) li.dataset.result = challenge.mine.result;
  }
}

async function load() {
  try {
    const [day, me] = await Promise.all([api("GET", "/api/v1/daily"), currentUser()]);
    root.querySelector("[data-day]").textContent = dayLine(day);
    list.replaceChildren(...day.challenges.map((c) => challengeTile(day, c, me)));
    showYesterday(day.date);
  } catch (error) {
    list.replaceChildren();
    notice(error.message);
  }
  list.removeAttribute("aria-busy");
}

load();
