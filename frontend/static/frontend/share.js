// @ts-check
// Sharing a finished ranked attempt (docs/daily.md, "Sharing"): the server's spoiler-free text
// and link, through the system's share sheet where the browser has one, else the clipboard.
// Loaded when a Share button is pressed (the play and daily pages import it then).
import { api } from "./api.js";
import { el } from "./dom.js";
import { gettext as _ } from "./i18n.js";

/** Shares game `id`'s result; `status` says what happened ("Copied"), for the eye and for screen
 *  readers. Resolves to "shared", "copied", "cancelled" or "failed". */
export async function shareGame(id, status) {
  const say = (text) => (status.textContent = text);
  let share;
  try {
    share = await api("GET", `/api/v1/games/${id}/share`);
  } catch (error) {
    say(error.message);
    return "failed";
  }
  if (navigator.share) {
    // The link goes as the link: the text without its last line (the same link).
    const text = share.text.endsWith(share.url) ? share.text.slice(0, -share.url.length).trimEnd() : share.text;
    try {
      await navigator.share({ text, url: share.url });
      say(_("Shared."));
      return "shared";
    } catch (error) {
      if (error.name === "AbortError") return "cancelled";
      // Refused (no gesture left, nothing to share with): the clipboard, then.
    }
  }
  try {
    await navigator.clipboard.writeText(share.text);
    say(_("Copied: paste it anywhere."));
    return "copied";
  } catch {
    // No clipboard (plain http): the text, selected, to copy by hand.
    const box = el("textarea", { readonly: true, rows: "5", "aria-label": _("Your result to share") });
    box.value = share.text;
    status.replaceChildren(box);
    box.select();
    return "failed";
  }
}

/** A Share button with its status line under it: `[button, status]`. */
export function shareButton(id, attrs = {}) {
  const status = el("p", { class: "share-status small", role: "status", "data-share-status": "" });
  const button = el("button", { class: "button ghost", type: "button", "data-share": String(id), text: _("Share"), ...attrs });
  button.addEventListener("click", async () => {
    button.disabled = true;
    await shareGame(id, status);
    button.disabled = false;
  });
  return [button, status];
}
