// Small pieces of the page: counts as swatches, times, photos, the toast.

import { $, h, nonzero } from "./dom.js";
import { W, colourClass } from "./words.js";

export const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
export const label = (c) => c;  // one name per colour: the peasants' cubes are "green" everywhere
export function countsOf(reading) {
  if (!reading) return {};
  if (reading.cubes && typeof reading.cubes === "object") return reading.cubes;
  if (reading.counts && typeof reading.counts === "object") return reading.counts;
  return Object.fromEntries(Object.entries(reading).filter(([k, v]) => W.colours.includes(k) && typeof v === "number"));
}

export function swatches(counts, size) {
  const items = nonzero(counts).sort((a, b) => W.colours.indexOf(a[0]) - W.colours.indexOf(b[0]));
  if (!items.length) return h("p", { class: "muted", text: "nothing" });
  return h("ul", { class: `swatches ${size || ""}` }, items.map(([c, n]) =>
    h("li", { class: "swatch", "data-colour": c, "data-count": n },
      h("span", { class: `cube ${colourClass(c)}`, text: n }), h("span", { class: "name", text: label(c) }))));
}

export function inline(counts) {
  const items = nonzero(counts);
  if (!items.length) return [h("span", { class: "muted", text: "none" })];
  return items.map(([c, n]) => h("span", {}, h("span", { class: `dot ${colourClass(c)}` }), `${n} ${label(c)}  `));
}

export function imageUrl(rel) { return rel ? `/data/${String(rel).split("/").map(encodeURIComponent).join("/")}` : null; }
export function openImage(src, alt) { $("image-full").src = src; $("image-full").alt = alt; $("image-dialog").showModal(); }
export function when(ts) {
  if (!ts) return "";
  const d = typeof ts === "number" ? new Date(ts * 1000) : new Date(ts);
  return isNaN(d) ? String(ts) : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

// After a step that replaces the battle card (a plan, a login), its top is what the host reads next:
// "into the funnel", or the "New battle" button, never left scrolled past.
export function showTop(id) {
  const el = $(id);
  if (el && el.getBoundingClientRect().top < 0 || (el && el.getBoundingClientRect().top > window.innerHeight * 0.6)) {
    el.scrollIntoView({ block: "start" });
  }
}

export function toast(message, bad) {
  const t = $("toast");
  t.onclick = () => { t.hidden = true; };  // a tap puts it away; it never sits over a button for long
  t.textContent = message; t.classList.toggle("bad", !!bad); t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 5000);
}
