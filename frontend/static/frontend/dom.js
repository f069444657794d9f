// @ts-check
// The page's one DOM helper: an element with its attributes, listeners and children.

/** @template {Element} T @param {T} node @param {object} attrs @param {any[]} children @returns {T} */
function fill(node, attrs, children) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/** `el("a", {href: "/x", class: "btn", onclick: f}, "text", child)`: attributes that are
 * undefined, null or false are left out, `true` sets an empty one; `text` sets textContent. */
export function el(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

/** The same for SVG's elements: `svg("path", {d: "M0 0h9"})`. */
export function svg(tag, attrs = {}, ...children) {
  return fill(document.createElementNS("http://www.w3.org/2000/svg", tag), attrs, children);
}
