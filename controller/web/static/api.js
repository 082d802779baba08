// Talking to the station: JSON requests with the host's CSRF token, the refresh, one change at a time.
// It draws nothing itself: it announces what changed (state.js) and app.js redraws.

import { S, changed } from "./state.js";
import { toast } from "./ui.js";

// -- talking to the station -----------------------------------------------------------------------
export async function api(path, body) {
  const opts = { method: body === undefined ? "GET" : "POST", headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    if (S.csrf) opts.headers["X-CSRF-Token"] = S.csrf;
    opts.body = JSON.stringify(body);
  }
  let res;
  try { res = await fetch(path, opts); } catch (_) {  // no answer at all: the server is down or the network is
    const err = new Error("the station is offline; the page reconnects by itself");
    err.offline = true;
    changed("offline");  // live.js shows the connection as lost
    throw err;
  }
  let data = null;
  try { data = await res.json(); } catch (_) { data = null; }
  if (!res.ok) {
    const err = new Error((data && (data.error || data.detail)) || `${res.status} ${res.statusText}`);
    err.status = res.status;
    err.data = data;
    if (res.status === 403 && S.host && path !== "/api/host/login") { S.host = false; S.csrf = null; hostChanged(); changed("host"); }
    throw err;
  }
  return data;
}

export let refreshTimer = null;
export function scheduleRefresh() { clearTimeout(refreshTimer); refreshTimer = setTimeout(refresh, 120); }
// Answers to /api/state may arrive out of order (a busy station, several connections): each refresh
// is numbered, and an answer older than the one shown, or asked before this device logged in or out
// (it would say the host is still, or not yet, logged in), is dropped; the refresh after it shows the truth.
let refreshes = 0, shown = 0, hostSince = 0;
export function hostChanged() { hostSince = ++refreshes; }

export async function refresh() {
  const mine = ++refreshes;
  try {
    const data = await api("/api/state");
    if (mine < shown || mine < hostSince) return;
    shown = mine;
    S.data = data; S.host = data.host; S.csrf = data.csrf || S.csrf;
    changed("all");
  } catch (err) { toast(`Could not read the table: ${err.message}`, true); }
}

export async function act(what, path, body) {
  if (S.busy) return null;
  S.busy = true; S.lastError = null; changed("all");
  try { return await api(path, body); }
  catch (err) { S.lastError = err; toast(`${what}: ${err.message}`, true); return null; }
  finally { S.busy = false; changed("all"); }
}
