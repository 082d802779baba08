// The one small DOM helper the table's page and the luck report share: h(tag, attrs, ...children) builds
// an element; texts go in as text nodes (textContent), never as HTML.

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
export const $ = (id) => document.getElementById(id);
export const cap = (s) => String(s).charAt(0).toUpperCase() + String(s).slice(1);
export const nonzero = (m) => Object.entries(m || {}).filter(([, n]) => Number(n) !== 0);
