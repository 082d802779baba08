// What the page knows: the table's last state and what this device is doing (one object, S).

export const S = { data: null, host: false, csrf: null, releasing: null, showForm: false, correcting: null, busy: false, kind: "attack", panel: null, mismatch: null, lastError: null, online: null };

export function session() { return ((S.data && S.data.status) || {}).session || null; }
export function currentDrop() { return ((S.data && S.data.status) || {}).drop || null; }
export function players() { return ((session() || {}).players || []).slice(); }
export function whoAmI() { return localStorage.getItem("tower-who") || "host"; }

// The page's one hub for changes of the state: a module that changed S announces what needs drawing
// again ("all", "host", "battle", "ledger") or what happened ("offline"); app.js, the only module that
// knows the views, subscribes and redraws. So requests, live events and the views never import app.js
// and the imports point one way (a circle of ES modules would leave a binding undefined while it loads).
const subscribers = new Map();
export function onChange(what, fn) {
  if (!subscribers.has(what)) subscribers.set(what, []);
  subscribers.get(what).push(fn);
}
export function changed(what, ...args) { for (const fn of subscribers.get(what) || []) fn(...args); }
