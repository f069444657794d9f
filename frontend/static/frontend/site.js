// @ts-check
// Shared page code: account bar, auth forms, display settings, language picker.
import { api, currentUser } from "./api.js";
import { el } from "./dom.js";
import { gettext as _ } from "./i18n.js";

const SETTINGS_KEY = "klondike.settings";
export const SETTINGS = { fourColour: "Four-colour deck", leftHanded: "Left-handed layout", large: "Larger cards", smartTap: "Smart tap" };

// Casual games deal only solver-proven winnable deals unless turned off.
SETTINGS.winnable = "Winnable deals only";
SETTINGS.sounds = "Sounds";
// The first choice is the default; each is a class `s-<key>-<choice>` on <html>.
export const CHOICES = { back: ["blue", "red", "slate"], table: ["green", "blue", "wine"] };
const DEFAULTS = { winnable: true, back: "blue", table: "green" };

export function loadSettings() {
  try {
    return { ...DEFAULTS, ...JSON.parse(localStorage.getItem(SETTINGS_KEY)) };
  } catch (_) {
    return { ...DEFAULTS };
  }
}

/** Settings are classes on <html>, so every page (play, replay) draws cards the same way. */
export function applySettings(settings = loadSettings()) {
  const classes = document.documentElement.classList;
  for (const key of Object.keys(SETTINGS)) classes.toggle(`s-${key}`, !!settings[key]);
  for (const [key, choices] of Object.entries(CHOICES)) {
    for (const choice of choices) classes.toggle(`s-${key}-${choice}`, settings[key] === choice);
  }
}

export function saveSettings(settings) {
  try {
    localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings));
  } catch (_) {
    // Private mode: the settings last for this page only.
  }
  applySettings(settings);
}

/** Comes back here afterwards; a guest signing in from a game goes to /play (the game is not in that account). */
function accountLink(path, text, attrs = {}) {
  const target = () => {
    const form = /** @type {HTMLFormElement | null} */ (document.querySelector("[data-auth-form]"));
    const here = form ? form.dataset.next : location.pathname + location.search;
    const next = path === "/signin" && here.startsWith("/play/") ? "/play" : here;
    return `${path}?next=${encodeURIComponent(next)}`;
  };
  // At click time: the play page moves to /play/<id> without a reload.
  return el("a", { href: target(), text, ...attrs, onclick: (event) => (event.currentTarget.href = target()) });
}

/** Called again by the play page once it has made a guest. */
export async function showAccount(me) {
  const nav = document.querySelector("[data-account]");
  if (!nav) return;
  if (!me) {
    nav.replaceChildren(accountLink("/signin", _("Sign in")), accountLink("/signup", _("Sign up"), { class: "button small" }));
    return;
  }
  if (me.is_guest) {
    nav.replaceChildren(el("span", { class: "who", text: _("Guest") }), accountLink("/signin", _("Sign in")),
      accountLink("/signup", _("Sign up"), { class: "button small", title: _("Keep your games and play the ranked daily"), "data-guest-signup": "" }));
    const cta = document.querySelector("[data-cta]");
    if (cta) cta.replaceChildren(el("a", { class: "button", href: "/play", text: _("Play now") }), accountLink("/signup", _("Sign up to keep your games"), { class: "button ghost" }));
    return;
  }
  const profile = /** @type {HTMLAnchorElement | null} */ (document.querySelector("[data-nav-profile]"));
  if (profile) {
    profile.href = `/u/${encodeURIComponent(me.username)}`;
    profile.hidden = false;
  }
  const out = el("button", { class: "button small", type: "button", text: _("Sign out") });
  out.addEventListener("click", async () => {
    await api("POST", "/api/v1/auth/logout");
    location.assign("/");
  });
  nav.replaceChildren(el("span", { class: "who", text: me.username }), out);
  const cta = document.querySelector("[data-cta]");
  if (cta) {
    cta.replaceChildren(
      el("a", { class: "button", href: "/daily", text: _("Play today's challenge") }),
      el("a", { class: "button ghost", href: "/play", text: _("New casual game") }),
    );
  }
}

/** Errors show in the form's `[data-error]` box (per field when the API gives them). */
function onSubmit(form, submit) {
  const errorBox = form.querySelector("[data-error]");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    errorBox.hidden = true;
    try {
      await submit(Object.fromEntries(new FormData(form).entries()));
    } catch (error) {
      const fieldErrors = error.data && error.data.fields;
      errorBox.textContent = fieldErrors ? Object.values(fieldErrors).flat().join(" ") : error.message;
      errorBox.hidden = false;
    }
  });
}

function wireAuthForm() {
  const form = /** @type {HTMLFormElement | null} */ (document.querySelector("[data-auth-form]"));
  if (!form) return;
  onSubmit(form, async (fields) => {
    if (!fields.email) delete fields.email;
    const path = form.dataset.authForm === "signup" ? "/api/v1/auth/register" : "/api/v1/auth/login";
    await api("POST", path, fields);
    location.assign(form.dataset.next); // checked by the server (frontend.views)
  });
}

function wireResetForm() {
  const form = /** @type {HTMLFormElement | null} */ (document.querySelector("[data-reset-form]"));
  if (!form) return;
  onSubmit(form, async (fields) => {
    if (form.dataset.resetForm === "request") {
      await api("POST", "/api/v1/auth/password-reset", { email: fields.email });
    } else if (fields.new_password !== fields.repeat) {
      throw new Error(_("The two passwords differ."));
    } else {
      const { uid, token } = form.dataset;
      await api("POST", "/api/v1/auth/password-reset/confirm", { uid, token, new_password: fields.new_password });
    }
    form.hidden = true;
    /** @type {HTMLElement} */ (document.querySelector("[data-reset-done]")).hidden = false;
  });
}

function wireVerifyForm() {
  const form = /** @type {HTMLFormElement | null} */ (document.querySelector("[data-verify-form]"));
  if (!form) return;
  onSubmit(form, async () => {
    const { uid, token } = form.dataset;
    await api("POST", "/api/v1/auth/verify-email", { uid, token });
    form.hidden = true;
    /** @type {HTMLElement} */ (document.querySelector("[data-verify-done]")).hidden = false;
  });
}

function wireDialogs() {
  for (const button of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-open-dialog]"))) {
    button.addEventListener("click", () => /** @type {HTMLDialogElement} */ (document.getElementById(button.dataset.openDialog)).showModal());
  }
  const form = /** @type {HTMLFormElement | null} */ (document.querySelector("#settings-dialog form"));
  if (!form) return;
  const settings = loadSettings();
  for (const key of Object.keys(SETTINGS)) {
    const box = /** @type {HTMLInputElement} */ (form.elements.namedItem(key));
    box.checked = !!settings[key];
    box.addEventListener("change", () => {
      settings[key] = box.checked;
      saveSettings(settings);
    });
  }
  for (const key of Object.keys(CHOICES)) {
    const select = /** @type {HTMLSelectElement} */ (form.elements.namedItem(key));
    select.value = settings[key];
    select.addEventListener("change", () => {
      settings[key] = select.value;
      saveSettings(settings);
    });
  }
}

export function confirmDialog(title, text, okLabel) {
  const dialog = el("dialog", { class: "dialog", "aria-labelledby": "confirm-title" },
    el("form", { method: "dialog" },
      el("h2", { id: "confirm-title", text: title }),
      el("p", { text }),
      el("div", { class: "dialog-actions" },
        el("button", { class: "button ghost", value: "no", text: _("Cancel") }),
        el("button", { class: "button", value: "yes", text: okLabel, "data-confirm": "" }))));
  document.body.append(dialog);
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "yes");
      dialog.remove();
    });
  });
}

/** Sends on change. A signed-in player's choice goes on the profile first, to follow them to
 *  their next sign-in; a guest's lives in the cookie only. */
function wireLanguage() {
  const form = /** @type {HTMLFormElement | null} */ (document.querySelector("[data-language-form]"));
  if (!form) return;
  const field = (name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name));
  const send = async (language) => {
    field("language").value = language;
    // Read now: the play page moves to /play/<id> without a reload.
    field("next").value = location.pathname + location.search + location.hash;
    const me = await currentUser();
    if (me && !me.is_guest) await api("PATCH", "/api/v1/me", { language }).catch(() => null);
    // The page's token may be stale (signing in or becoming a guest renews it).
    const fresh = await api("GET", "/api/v1/auth/csrf").catch(() => null);
    if (fresh) field("csrfmiddlewaretoken").value = fresh.csrf_token;
    form.submit();
  };
  for (const select of /** @type {NodeListOf<HTMLSelectElement>} */ (document.querySelectorAll("[data-language-select]"))) {
    select.addEventListener("change", () => send(select.value));
  }
}

applySettings();
currentUser().then(showAccount);
wireLanguage();
wireAuthForm();
wireResetForm();
wireVerifyForm();
wireDialogs();
