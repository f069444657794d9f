// @ts-check
// The page's words and formats (docs/i18n.md). The words come from Django's JavaScript catalog
// (/jsi18n/<language>.js), which base.html loads before the modules as the global `django`;
// without it (a page that did not load it, or a failed load) the English source text shows.
// Formats follow the page's language (<html lang>) through Intl, in the player's time zone.

const catalog = globalThis.django;

/** The page's language, as the server chose it: "en", "hr", "sk" or "pl". */
export const language = document.documentElement.lang || "en";

/** The translation of `msgid`, or `msgid` itself. */
export function gettext(msgid) {
  return catalog ? catalog.gettext(msgid) : msgid;
}

/** The plural form of `singular`/`plural` that `count` takes in the page's language. */
export function ngettext(singular, plural, count) {
  if (catalog) return catalog.ngettext(singular, plural, count);
  return count === 1 ? singular : plural;
}

/** The translation of `msgid` where `context` tells its sense ("Won": the games won, or a game's result). */
export function pgettext(context, msgid) {
  return catalog ? catalog.pgettext(context, msgid) : msgid;
}

/**
 * Fills a translated format: `%(name)s` from an object, or `%s` in order from an array.
 * interpolate(ngettext("%(count)s move", "%(count)s moves", n), {count: n})
 */
export function interpolate(format, values) {
  if (Array.isArray(values)) {
    let next = 0;
    return format.replace(/%s/g, () => String(values[next++]));
  }
  return format.replace(/%\(([^)]+)\)s/g, (match, name) => (name in values ? String(values[name]) : match));
}

/** "1 move", "2 moves" in the page's language, the count formatted. */
export function formatMoves(count) {
  return interpolate(ngettext("%(count)s move", "%(count)s moves", count), { count: formatNumber(count) });
}

/** A number with the locale's digit grouping and decimal sign: 1,234.5 / 1.234,5 / 1 234,5. */
export function formatNumber(value, options = {}) {
  return new Intl.NumberFormat(language, options).format(value);
}

/** Vegas dollars, signed, whole: "+$208", "$0", "-$52" in English; "+208 $" in Croatian. */
export function formatDollars(amount) {
  return formatNumber(amount, {
    style: "currency",
    currency: "USD",
    currencyDisplay: "narrowSymbol",
    signDisplay: "exceptZero",
    maximumFractionDigits: 0,
  });
}

/**
 * A score as its rules write it, from the API's `score` and `score_display` (which tells the
 * rules): "1,234"; Vegas "+$208", "+208 $"; "" when the rules keep no score.
 */
export function formatScore(score, display) {
  if (!display || score === null || score === undefined) return display || "";
  return display.includes("$") ? formatDollars(score) : formatNumber(score);
}

/** A date (a Date, or an ISO 8601 string) in the player's time zone: "Dec 1, 2026", "1. pro 2026.".
 *  @param {Date | string} value @param {Intl.DateTimeFormatOptions} [options] */
export function formatDate(value, options = { dateStyle: "medium" }) {
  return new Intl.DateTimeFormat(language, options).format(new Date(value));
}

/** A time of day in the player's time zone: "1:00 AM", "01:00".
 *  @param {Date | string} value @param {Intl.DateTimeFormatOptions} [options] */
export function formatTime(value, options = { timeStyle: "short" }) {
  return new Intl.DateTimeFormat(language, options).format(new Date(value));
}

/** A date and time in the player's time zone.
 *  @param {Date | string} value @param {Intl.DateTimeFormatOptions} [options] */
export function formatDateTime(value, options = { dateStyle: "medium", timeStyle: "short" }) {
  return new Intl.DateTimeFormat(language, options).format(new Date(value));
}

/**
 * The daily's close (a UTC instant from the API) as the player's own clock shows it, with the
 * zone named: "1:00 AM CET", "01:00 SEČ".
 */
export function formatCloseTime(value) {
  return formatTime(value, { hour: "numeric", minute: "2-digit", timeZoneName: "short" });
}

/** A duration in whole seconds as a clock, the same in every language here: "4:05", "1:02:03". */
export function formatDuration(seconds) {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}
