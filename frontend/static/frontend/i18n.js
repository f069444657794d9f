// @ts-check
// Words and formats (docs/i18n.md): words from Django's catalog (global `django`, loaded by
// base.html; without it English shows); formats via Intl in <html lang>.

const catalog = globalThis.django;

export const language = document.documentElement.lang || "en";

export function gettext(msgid) {
  return catalog ? catalog.gettext(msgid) : msgid;
}

export function ngettext(singular, plural, count) {
  if (catalog) return catalog.ngettext(singular, plural, count);
  return count === 1 ? singular : plural;
}

/** `context` tells the sense ("Won": games won, or a result). */
export function pgettext(context, msgid) {
  return catalog ? catalog.pgettext(context, msgid) : msgid;
}

/** `%(name)s` from an object, or `%s` in order from an array. */
export function interpolate(format, values) {
  if (Array.isArray(values)) {
    let next = 0;
    return format.replace(/%s/g, () => String(values[next++]));
  }
  return format.replace(/%\(([^)]+)\)s/g, (match, name) => (name in values ? String(values[name]) : match));
}

export function formatMoves(count) {
  return interpolate(ngettext("%(count)s move", "%(count)s moves", count), { count: formatNumber(count) });
}

export function formatNumber(value, options = {}) {
  return new Intl.NumberFormat(language, options).format(value);
}

// A rating's figures as players write them: no group separator ("1623", not "1,623").
const whole = (value, options = {}) => formatNumber(value, { useGrouping: false, ...options });

/** "1623 ± 140": a rating and its deviation, never broken over two lines; "1623" alone. */
export function formatRating(rating, deviation) {
  return deviation === undefined ? whole(rating) : `${whole(rating)}\u00a0±\u00a0${whole(deviation)}`;
}

/** "1620, likely between 1540 and 1700": a rating and where the skill likely lies (the API's
 *  `low` and `high`, two deviations either side), in words a player reads. */
export function formatRatingBand({ rating, low, high }) {
  return interpolate(gettext("%(rating)s, likely between %(low)s and %(high)s"), { rating: signed(rating), low: signed(low), high: signed(high) });
}

/** "1540–1700": the band alone, where a table's cell has no room for the words. */
export function formatRatingRange({ low, high }) {
  return `${signed(low)}\u2013${signed(high)}`;
}

// A figure that may be negative (a band's low end), with a real minus.
const signed = (value) => whole(value).replace("-", "\u2212");

/** "1623 (+23)", "1600 (−9)": a rating and what one board did to it, with a real minus. */
export function formatRatingChange({ rating, change }) {
  return `${whole(rating)} (${whole(change, { signDisplay: "exceptZero" }).replace("-", "−")})`;
}

/** "+$208", "$0", "-$52"; "+208 $" in Croatian. */
export function formatDollars(amount) {
  return formatNumber(amount, {
    style: "currency",
    currency: "USD",
    currencyDisplay: "narrowSymbol",
    signDisplay: "exceptZero",
    maximumFractionDigits: 0,
  });
}

/** From the API's `score` and `score_display`; "" when the rules keep no score. */
export function formatScore(score, display) {
  if (!display || score === null || score === undefined) return display || "";
  return display.includes("$") ? formatDollars(score) : formatNumber(score);
}

/** @param {Date | string} value @param {Intl.DateTimeFormatOptions} [options] */
export function formatDate(value, options = { dateStyle: "medium" }) {
  return new Intl.DateTimeFormat(language, options).format(new Date(value));
}

/** @param {Date | string} value @param {Intl.DateTimeFormatOptions} [options] */
export function formatTime(value, options = { timeStyle: "short" }) {
  return new Intl.DateTimeFormat(language, options).format(new Date(value));
}

/** @param {Date | string} value @param {Intl.DateTimeFormatOptions} [options] */
export function formatDateTime(value, options = { dateStyle: "medium", timeStyle: "short" }) {
  return new Intl.DateTimeFormat(language, options).format(new Date(value));
}

/** The daily's close in the player's zone, named: "1:00 AM CET". */
export function formatCloseTime(value) {
  return formatTime(value, { hour: "numeric", minute: "2-digit", timeZoneName: "short" });
}

/** "4:05", "1:02:03" in every language here. */
export function formatDuration(seconds) {
  const total = Math.max(0, Math.floor(seconds));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}
