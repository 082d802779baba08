// The page's language. The station negotiates the browser's Accept-Language against its gettext
// catalogues (English, German) and sends {English: translation} (/api/i18n). Every text node the page
// shows is looked up as it is added, so the views stay in English and nothing is translated twice.
// A text made of parts ("Drop 3: red attacks blue") is matched against the catalogue's {placeholder}
// msgids, and what filled each placeholder is translated the same way; this is the rule of
// controller/i18n.py's translate(), which the server uses for its own sentences. The views write numbers
// in English form too ("47.4 %"); the translation puts them in the page's language ("47,4 %").

const T = {};
let TEMPLATES = [];
const PLACEHOLDER = /\{(\w+)\}/g;
const SEPARATORS = ["\n", " · ", "; ", ". ", ": ", ", ", " and ", " -> ", " (", ")"];
const WIDE = new Set(["text", "round", "hint", "reason", "why", "doubt", "what"]);
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const group = (name) => (["n", "m", "k"].includes(name) || name.startsWith("n_") ? "-?\\d[\\d.,]*"
  : WIDE.has(name) ? "[\\s\\S]+?" : "(?:(?!; |: )[\\s\\S])+?");

function compile() {
  TEMPLATES = Object.entries(T).filter(([id]) => /\{\w+\}/.test(id)).map(([id, translation]) => {
    const names = [...id.matchAll(PLACEHOLDER)].map((m) => m[1]);
    if (new Set(names).size !== names.length) return null;
    const parts = id.split(PLACEHOLDER);
    const source = parts.map((p, i) => (i % 2 === 0 ? escape(p) : `(?<${p}>${group(p)})`)).join("");
    const anchored = Number(!id.startsWith("{")) + Number(!id.endsWith("}"));
    return { pattern: new RegExp(`^${source}$`), anchored, literal: id.replace(PLACEHOLDER, "").length, translation };
  }).filter(Boolean).sort((a, b) => b.anchored - a.anchored || b.literal - a.literal);  // as controller/i18n.py
}

// A number as the English texts write it ("2.3", "-0.25", "20,000", "47.4 %"), as controller/i18n.py's
// ENGLISH_NUMBER: put in the page's form by Intl.NumberFormat with as many decimals ("2,3", "20.000").
const ENGLISH_NUMBER = /^([+\-\u2212]?)([1-9]\d{0,2}(?:,\d{3})+|\d+)(?:\.(\d+))?(\s?%)?$/;
let LANG = "en";

export function localNumber(text) {
  const m = ENGLISH_NUMBER.exec(text);
  if (!m) return null;
  const frac = m[3] || "";
  if (!frac && !m[2].includes(",")) return text;
  const value = Number(m[2].replace(/,/g, "") + (frac ? `.${frac}` : ""));
  const digits = { minimumFractionDigits: frac.length, maximumFractionDigits: frac.length };
  return m[1] + new Intl.NumberFormat(LANG, digits).format(value) + (m[4] || "");
}

// A decimal number inside text no msgid matched, as controller/i18n.py's DECIMAL: not part of a word, a
// path, a version or an address; written in the page's form as a number alone is.
const DECIMAL = /(?<![\p{L}\p{N}_./])\p{Nd}+\.(\p{Nd}+)(?![\p{L}\p{N}_/]|\.\p{Nd})/gu;
const localDecimals = (text) => text.replace(DECIMAL, (m) => localNumber(m) ?? m);

function translate(text, depth) {
  if (T[text] !== undefined) return T[text];
  const core = text.trim();
  if (!core || depth > 60) return text;
  const lead = text.slice(0, text.length - text.trimStart().length);
  const trail = text.slice(text.trimEnd().length);
  if (T[core] !== undefined) return lead + T[core] + trail;
  const number = localNumber(core);  // a number alone, or what filled a {n} of a sentence
  if (number !== null) return lead + number + trail;
  for (const tpl of TEMPLATES) {
    const m = tpl.pattern.exec(core);
    if (m) {
      const values = Object.fromEntries(Object.entries(m.groups || {}).map(([k, v]) => [k, translate(v, depth + 1)]));
      return lead + tpl.translation.replace(PLACEHOLDER, (all, k) => (k in values ? values[k] : all)) + trail;
    }
  }
  const lower = core.charAt(0).toLowerCase() + core.slice(1);  // "Red" on a button: the catalogue's "red"
  if (lower !== core && T[lower] !== undefined) return lead + T[lower].charAt(0).toUpperCase() + T[lower].slice(1) + trail;
  const count = /^(\d+) (.+)$/.exec(core);
  if (count && T[count[2]] !== undefined) return `${lead}${count[1]} ${T[count[2]]}${trail}`;
  const tally = /^(.+) (\d+)$/.exec(core);  // "revolt 10": something the catalogue names, counted
  if (tally && T[tally[1]] !== undefined) return `${lead}${T[tally[1]]} ${tally[2]}${trail}`;
  const valued = /^(.+) (\S+)$/.exec(core);  // "p_new 0.667": a name and its value, a decimal
  const value = valued && localNumber(valued[2]);
  if (value !== null && value !== valued[2]) return `${lead}${translate(valued[1], depth + 1)} ${value}${trail}`;
  for (const sep of SEPARATORS) {
    if (!core.includes(sep)) continue;
    const parts = core.split(sep);
    const done = parts.map((p) => translate(p, depth + 1));
    if (done.some((d, i) => d !== localDecimals(parts[i]))) return lead + done.join(T[sep] || sep) + trail;  // words, not only numbers
  }
  return localDecimals(text);  // nothing matched: the words stay, the decimals take the page's form
}

export function t(s) { return T[s] || s; }
export function tf(template, values) { return t(template).replace(PLACEHOLDER, (m, k) => (k in values ? String(values[k]) : m)); }
// Any English text of the page or the station in the page's language (exact, {placeholder} or by parts).
export function tr(text) { return Object.keys(T).length && text ? translate(String(text), 0) : text; }

// What this module wrote into a text node: its change comes back as a mutation and is not translated
// again (a word would stay as it is, but "0,144" is not an English number any more).
const WRITTEN = new WeakMap();

function translateText(node) {
  const text = node.nodeValue;
  if (WRITTEN.get(node) === text) return;
  const done = tr(text);
  if (done !== text) { WRITTEN.set(node, done); node.nodeValue = done; }
}

function translateTree(root) {
  if (root.nodeType === Node.TEXT_NODE) { translateText(root); return; }
  if (root.nodeType !== Node.ELEMENT_NODE) return;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) translateText(n);
  for (const el of [root, ...root.querySelectorAll("[aria-label], [title], [alt]")]) {
    for (const attr of ["aria-label", "title", "alt"]) {
      const v = el.getAttribute && el.getAttribute(attr);
      if (v && tr(v) !== v) el.setAttribute(attr, tr(v));
    }
  }
}

export async function loadLanguage() {
  try {
    const answer = await fetch("/api/i18n", { headers: { Accept: "application/json" } });
    const data = await answer.json();
    Object.assign(T, data.messages || {});
    LANG = data.lang || "en";
    document.documentElement.lang = LANG;
  } catch (_) { /* English: the page's own words */ }
  if (!Object.keys(T).length) return;
  compile();
  document.title = tr(document.title);
  translateTree(document.body);
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "characterData") translateText(r.target);
      else r.addedNodes.forEach(translateTree);
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}
