// @ts-check
// The page's one DOM helper: an element with its attributes, listeners and children.

/** `el("a", {href: "/x", class: "btn", onclick: f}, "text", child)`: attributes that are
 * undefined, null or false are left out, `true` sets an empty one; `text` sets textContent. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}
