// Live events (server-sent) and the connection in words.

import { scheduleRefresh } from "./api.js";
import { signal } from "./device.js";
import { $ } from "./dom.js";
import { S, changed, onChange } from "./state.js";

// -- live events -----------------------------------------------------------------------------------
// The table's events are the records it commits: {"type": kind, "drop_id", "phase"}.
export function stepOf(event) {
  const t = event.type || "";
  if (t === "release_started") return 0;
  if (t === "released") return 1;
  if (t === "reading") return 2;
  return null;
}

export function onEvent(event) {
  if (event.type === "hello") { scheduleRefresh(); return; }
  if (event.type === "release_started" || event.type === "resolution") signal(event.type);
  if (event.type === "web_release_started") {
    S.releasing = { drop_id: event.drop_id, step: 0 }; S.showForm = false; changed("battle");
    return;
  }
  if (event.type === "web_release_finished") { S.releasing = null; scheduleRefresh(); return; }
  const step = stepOf(event);
  if (S.releasing && step !== null && step > S.releasing.step) { S.releasing.step = step; changed("battle"); }
  if (!S.releasing || step === null) scheduleRefresh();
}

// The connection, in words as well as a coloured dot: "connected" or "offline, reconnecting".
export function setLive(online) {
  const live = $("live");
  const was = S.online;
  S.online = online;
  live.dataset.state = online ? "live" : "offline";
  live.textContent = online ? "connected" : "offline, reconnecting…";
  if (online && was === false) scheduleRefresh();  // back after a restart: the table may have moved on
}

onChange("offline", () => setLive(false));  // a request found no answer at all

export function connect() {
  const source = new EventSource("/api/events");
  source.onopen = () => setLive(true);
  source.onerror = () => {
    setLive(false);
    if (source.readyState === EventSource.CLOSED) { setTimeout(connect, 3000); }  // the browser gave up: try again
  };
  source.onmessage = (m) => { try { onEvent(JSON.parse(m.data)); } catch (_) { /* a keep-alive */ } };
}
