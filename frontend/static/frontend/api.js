// @ts-check
// The page's only door to the server: the public JSON API, with the session cookie and CSRF.
import { formatNumber, gettext, interpolate, ngettext } from "./i18n.js";

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

/** Rejects with the server's `error.message`, `status` and `code` (`code` "network", `status` 0, when no answer came). */
export async function api(method, path, body) {
  let response;
  try {
    if (method !== "GET" && !csrfToken()) await fetch("/api/v1/auth/csrf", { credentials: "same-origin" });
    response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken(), Accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (_) {
    // No answer at all (server stopped, connection lost): not the browser's "Failed to fetch".
    throw Object.assign(new Error("The server can't be reached."), { status: 0, code: "network" });
  }
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const error = data && data.error;
    const message = error ? error.message : `Request failed (${response.status})`;
    throw Object.assign(new Error(message), { status: response.status, code: error && error.code, data: error });
  }
  return data;
}

let mePromise;
/** Asked once per page; not at all when base.html's data-signed-in says no (no 401 in the console). */
export function currentUser() {
  const signedOut = document.body.dataset.signedIn === "0";
  mePromise ??= signedOut ? Promise.resolve(null) : api("GET", "/api/v1/me").catch(() => null);
  return mePromise;
}

/** Sends a signed-out visitor to sign in, coming back here afterwards. */
export function requireSignIn() {
  const next = encodeURIComponent(location.pathname + location.search + location.hash);
  location.assign(`/signin?next=${next}`);
}

// Functions, so that each name is looked up in the catalog when it is shown.
const PRESET_NAMES = { N: () => gettext("Normal"), V: () => gettext("Vegas"), C: () => gettext("Classic"), R: () => gettext("Relaxed") };

/** "Draw 3 · Vegas" from a rules object or a mode like "D3V". */
export function modeName(rulesOrMode) {
  const [draw, preset] = typeof rulesOrMode === "string"
    ? [rulesOrMode[1], rulesOrMode[2]]
    : [rulesOrMode.draw, rulesOrMode.preset];
  return interpolate(gettext("Draw %(draw)s · %(preset)s"), { draw, preset: PRESET_NAMES[preset] ? PRESET_NAMES[preset]() : preset });
}

/** "provisional, still settling": a rating whose deviation is above the API's
 *  `provisional_deviation`, shown but not on the rating board. */
export function provisionalText() {
  return gettext("provisional, still settling");
}

/** "38% of 312 counted entries": a final board's win rate among the entries that counted for
 *  ratings (the API's `difficulty`). */
export function winShare({ win_rate: rate, entries }) {
  return interpolate(ngettext("%(percent)s of %(count)s counted entry", "%(percent)s of %(count)s counted entries", entries), {
    percent: formatNumber(Math.round(rate) / 100, { style: "percent" }), count: formatNumber(entries),
  });
}
