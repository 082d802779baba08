// The table's page: renders /api/state, follows /api/events (server-sent events) and, for the host,
// sends plan / release / correct requests with the CSRF token from the login. No framework and no
// build step; every text from the server goes in through textContent, never as HTML.
"use strict";

const COLOURS = ["red", "blue", "yellow", "purple", "black", "green"];
const KINDS = [
  ["attack", "Attack"], ["revolt", "Revolt"], ["winter_revolt", "Winter revolt"], ["initial_fill", "Initial fill"],
];
const STEPS = ["Opening the funnel", "Cubes falling; waiting for a still tray and reading it", "Resolving the battle"];
// Phases of a drop (controller.cycle): planned -> releasing -> released -> counted -> resolved -> closed.
const BUSY_PHASES = ["releasing", "released"];
const EVENTS = ["neutral_two_peasants", "palace_defender_plus_one", "churches_safe", "tax_max_5", "tax_min_6",
  "grain_min_4", "grain_max_3", "deploy_reduced", "trading_post_removes_revolt"];
const S = { data: null, host: false, csrf: null, releasing: null, showForm: false, correcting: null, busy: false, kind: "attack", panel: null, mismatch: null, lastError: null };

// -- small DOM helper -----------------------------------------------------------------------------
function h(tag, attrs, ...children) {
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
const $ = (id) => document.getElementById(id);
const colourClass = (c) => (COLOURS.includes(c) ? `c-${c}` : "c-other");
const cap = (s) => String(s).charAt(0).toUpperCase() + String(s).slice(1);
const nonzero = (m) => Object.entries(m || {}).filter(([, n]) => Number(n) !== 0);
const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
const label = (c) => c;  // one name per colour: the peasants' cubes are "green" everywhere

function countsOf(reading) {
  if (!reading) return {};
  if (reading.cubes && typeof reading.cubes === "object") return reading.cubes;
  if (reading.counts && typeof reading.counts === "object") return reading.counts;
  return Object.fromEntries(Object.entries(reading).filter(([k, v]) => COLOURS.includes(k) && typeof v === "number"));
}

function swatches(counts, size) {
  const items = nonzero(counts).sort((a, b) => COLOURS.indexOf(a[0]) - COLOURS.indexOf(b[0]));
  if (!items.length) return h("p", { class: "muted", text: "nothing" });
  return h("ul", { class: `swatches ${size || ""}` }, items.map(([c, n]) =>
    h("li", { class: "swatch", "data-colour": c, "data-count": n },
      h("span", { class: `cube ${colourClass(c)}`, text: n }), h("span", { class: "name", text: label(c) }))));
}

function inline(counts) {
  const items = nonzero(counts);
  if (!items.length) return [h("span", { class: "muted", text: "none" })];
  return items.map(([c, n]) => h("span", {}, h("span", { class: `dot ${colourClass(c)}` }), `${n} ${label(c)}  `));
}

function imageUrl(rel) { return rel ? `/data/${String(rel).split("/").map(encodeURIComponent).join("/")}` : null; }
function openImage(src, alt) { $("image-full").src = src; $("image-full").alt = alt; $("image-dialog").showModal(); }
function when(ts) {
  if (!ts) return "";
  const d = typeof ts === "number" ? new Date(ts * 1000) : new Date(ts);
  return isNaN(d) ? String(ts) : d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
}

// After a step that replaces the battle card (a plan, a login), its top is what the host reads next:
// "into the funnel", or the "New battle" button, never left scrolled past.
function showTop(id) {
  const el = $(id);
  if (el && el.getBoundingClientRect().top < 0 || (el && el.getBoundingClientRect().top > window.innerHeight * 0.6)) {
    el.scrollIntoView({ block: "start" });
  }
}

function toast(message, bad) {
  const t = $("toast");
  t.onclick = () => { t.hidden = true; };  // a tap puts it away; it never sits over a button for long
  t.textContent = message; t.classList.toggle("bad", !!bad); t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 5000);
}

// -- talking to the station -----------------------------------------------------------------------
async function api(path, body) {
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
    setLive(false);
    throw err;
  }
  let data = null;
  try { data = await res.json(); } catch (_) { data = null; }
  if (!res.ok) {
    const err = new Error((data && (data.error || data.detail)) || `${res.status} ${res.statusText}`);
    err.status = res.status;
    err.data = data;
    if (res.status === 403 && S.host && path !== "/api/host/login") { S.host = false; S.csrf = null; renderHost(); }
    throw err;
  }
  return data;
}

let refreshTimer = null;
function scheduleRefresh() { clearTimeout(refreshTimer); refreshTimer = setTimeout(refresh, 120); }
async function refresh() {
  try {
    const data = await api("/api/state");
    S.data = data; S.host = data.host; S.csrf = data.csrf || S.csrf;
    render();
  } catch (err) { toast(`Could not read the table: ${err.message}`, true); }
}

async function act(what, path, body) {
  if (S.busy) return null;
  S.busy = true; S.lastError = null; render();
  try { return await api(path, body); }
  catch (err) { S.lastError = err; toast(`${what}: ${err.message}`, true); return null; }
  finally { S.busy = false; render(); }
}

// -- live events -----------------------------------------------------------------------------------
// The table's events are the records it commits: {"type": kind, "drop_id", "phase"}.
function stepOf(event) {
  const t = event.type || "";
  if (t === "release_started") return 0;
  if (t === "released") return 1;
  if (t === "reading") return 2;
  return null;
}

function onEvent(event) {
  if (event.type === "hello") { scheduleRefresh(); return; }
  if (event.type === "release_started" || event.type === "resolution") signal(event.type);
  if (event.type === "web_release_started") {
    S.releasing = { drop_id: event.drop_id, step: 0 }; S.showForm = false; renderBattle();
    return;
  }
  if (event.type === "web_release_finished") { S.releasing = null; scheduleRefresh(); return; }
  const step = stepOf(event);
  if (S.releasing && step !== null && step > S.releasing.step) { S.releasing.step = step; renderBattle(); }
  if (!S.releasing || step === null) scheduleRefresh();
}

// The connection, in words as well as a coloured dot: "connected" or "offline, reconnecting".
function setLive(online) {
  const live = $("live");
  const was = S.online;
  S.online = online;
  live.dataset.state = online ? "live" : "offline";
  live.textContent = online ? "connected" : "offline, reconnecting…";
  if (online && was === false) scheduleRefresh();  // back after a restart: the table may have moved on
}

function connect() {
  const source = new EventSource("/api/events");
  source.onopen = () => setLive(true);
  source.onerror = () => {
    setLive(false);
    if (source.readyState === EventSource.CLOSED) { setTimeout(connect, 3000); }  // the browser gave up: try again
  };
  source.onmessage = (m) => { try { onEvent(JSON.parse(m.data)); } catch (_) { /* a keep-alive */ } };
}

// -- the battle card -------------------------------------------------------------------------------
function session() { return ((S.data && S.data.status) || {}).session || null; }
function currentDrop() { return ((S.data && S.data.status) || {}).drop || null; }
function players() { return ((session() || {}).players || []).slice(); }

function renderBattle(force) {
  const card = $("battle");
  // A live update must not wipe what the host is typing: an open form stays as it is, unless the
  // drop it belongs to has moved on (another device planned a battle, or the drop was closed).
  const open = currentDrop();
  if (S.showForm && open && open.phase !== "resolved") S.showForm = false;
  if (S.correcting !== null && (!open || open.drop_id !== S.correcting || !["counted", "resolved"].includes(open.phase))) S.correcting = null;
  if (S.mismatch && (!S.host || (open && open.phase !== "resolved"))) S.mismatch = null;
  if (!force && !S.releasing && ((S.showForm && S.host && $("battle-form")) || (S.correcting !== null && $("correction-form"))
    || (S.mismatch && $("tray-form")))) return;
  card.replaceChildren();
  if (!S.data) { card.append(h("p", { class: "muted", text: "Loading the table…" })); return; }
  const ses = session();
  if (!ses) {
    card.append(h("h2", { text: "No game yet" }));
    if (S.host) card.append(newGameForm());
    else card.append(h("p", { text: "Waiting for the host to start a game." }));
    return;
  }
  if (S.data.status.ended) { card.append(...gameEndView(S.data.status.ended)); return; }
  const drop = currentDrop();
  const phase = drop && drop.phase;
  if (S.releasing) { card.append(progressView(S.releasing.step, drop)); return; }
  // The table answers status() only between its steps, so a drop seen in these phases is not
  // moving: its reading failed (a camera error) and waits for the host to read the tray again.
  if (drop && BUSY_PHASES.includes(phase)) { card.append(...stuckView(drop)); return; }
  if (drop && phase === "planned") { card.append(...funnelView(drop)); return; }
  if (drop && phase === "release_unknown") { card.append(...unknownReleaseView(drop)); return; }
  if (S.mismatch && S.host) { card.append(...mismatchView(S.mismatch)); return; }
  if (S.showForm && S.host) { card.append(battleForm()); return; }
  const record = drop || (S.data.history || []).find((d) => d.resolution || d.reading) || null;
  if (record) card.append(...resultView(record));
  else card.append(h("h2", { text: "Ready" }), h("p", { class: "muted", text: "No drop in this session yet." }));
  if (ses.empty_before_fill) {
    card.append(h("p", { class: "notice warn", id: "empty-first",
      text: "Before the initial fill, empty the tower (turn it over and shake it), the tray and the funnel: the station counts the tower from empty." }));
  }
  const waiting = drop && phase !== "resolved";  // a doubted reading: confirm or correct it first
  if (waiting) {
    if (!S.host) card.append(h("p", { class: "muted", text: "Waiting for the host to check the reading." }));
  } else if (S.host && S.correcting === null) {
    card.append(h("div", { class: "row" },
      h("button", { class: "primary", id: "new-battle", type: "button", onclick: () => { S.showForm = true; S.correcting = null; renderBattle(true); } },
        ses.filled ? "New battle" : "Initial fill")));
  } else if (!S.host) {
    card.append(h("p", { class: "muted", text: "Waiting for the host to start the next battle." }));
  }
}

// -- the game's end ---------------------------------------------------------------------------------
function gameEndView(ended) {
  const sum = ended.summary || {};
  const wins = Object.entries(sum.wins || {}).sort((a, b) => b[1] - a[1]);
  const out = [h("h2", { id: "game-end-title", text: "The game's end" }),
    h("p", { class: "summary", id: "game-end-text", text: `${plural((sum.battles || []).length, t("battle"), t("battles"))} ${t("in this game.")}` }),
    h("div", { class: "game-end", id: "game-end" },
      h("h3", { text: "Who won what" }),
      wins.length ? h("ul", {}, wins.map(([who, n]) => h("li", { "data-winner": who }, `${cap(t(who))}: ${plural(n, t("battle"), t("battles"))}`)))
        : h("p", { class: "muted", text: "No battle was won." }),
      h("h3", { text: "Armies lost" }), swatches(sum.armies_lost || {}),
      h("h3", { text: "In the tower" }), swatches(sum.tower || {}),
      h("h3", { text: "The battles" }),
      h("ul", { class: "game-end-battles" }, (sum.battles || []).map((b) => h("li", { "data-drop": b.drop_id, text: b.text }))))];
  if (S.host) {
    out.push(h("h3", { text: "A new game" }), newGameForm());
  } else {
    out.push(h("p", { class: "muted", text: "Waiting for the host to start a new game." }));
  }
  return out;
}

async function undoLast(text) {
  if (!confirm(`${t("Undo")}: ${text}?`)) return;
  const done = await act("Undo", "/api/undo", { who: "host" });
  if (done) { toast(cap(done.message)); await refresh(); }
}

async function endGame() {
  if (!confirm(t("End the game? Its summary is kept in the records."))) return;
  const done = await act("End the game", "/api/session/end", { who: "host" });
  if (done) { toast("The game has ended."); await refresh(); }
}

function battleTitle(battle) {
  if (!battle) return "Battle";
  const kind = (KINDS.find(([k]) => k === battle.battle) || [null, cap(battle.battle || "battle")])[1];
  if (battle.battle === "attack") {
    return tf("{attacker} attacks {defender}",
      { attacker: cap(t(battle.attacker)), defender: battle.defender ? cap(t(battle.defender)) : t("a neutral county") });
  }
  if (battle.battle === "revolt" || battle.battle === "winter_revolt") return tf("{kind} against {defender}", { kind: t(kind), defender: cap(t(battle.defender)) });
  return t(kind);
}

// Where the rulebooks are silent and the engine's decision shapes this battle (engine/decisions.py).
function notesList(record) {
  const notes = (record && record.notes) || [];
  // an empty fragment, not null: Element.append(null) would show the word "null" on the page
  return notes.length ? h("ul", { class: "notice notes", id: "notes" }, notes.map((n) => h("li", { text: n })))
    : document.createDocumentFragment();
}

// The round's immune players as {player: "A" | "B" | "both"} (older records keep a list: both).
function immunities(round) {
  const immune = (round || {}).immune || {};
  return Array.isArray(immune) ? Object.fromEntries(immune.map((p) => [p, "both"])) : immune;
}
const PROTECTS = { A: "Combat/Movement A", B: "Combat/Movement B", both: "A and B" };

function funnelView(drop) {
  const plan = drop.plan || {};
  const funnel = plan.drop || drop.funnel || {};
  const total = nonzero(funnel).reduce((s, [, n]) => s + Number(n), 0);
  const parts = [
    h("div", { class: "battle-head" }, h("h2", { text: battleTitle(drop.battle) }), h("span", { class: "tag", text: `drop ${drop.drop_id}` })),
    h("h3", { text: `Into the funnel · ${plural(total, "cube", "cubes")}` }),
    swatches(funnel, "big"),
    h("ul", { class: "sources" },
      h("li", {}, h("span", { class: "label", text: "from the supplies" }), ...inline(plan.from_supply)),
      h("li", {}, h("span", { class: "label", text: "from the county" }), ...inline(plan.from_county)),
      h("li", {}, h("span", { class: "label", text: "all of the tray" }), ...inline(plan.from_tray))),
    notesList(drop),
    ...oddsView(drop.odds),
  ];
  if (S.host) {
    parts.push(h("button", {
      class: "release", id: "release", type: "button", disabled: S.busy,
      onclick: () => release(drop.drop_id),
    }, "Release"), h("div", { class: "row center" }, h("button", {
      class: "quiet", id: "cancel-drop", type: "button",
      onclick: () => { if (confirm(t("Give up this battle? Its cubes go back where they came from."))) act("Cancel", `/api/drops/${drop.drop_id}/cancel`, {}).then(refresh); },
    }, "Cancel this battle")));
  } else {
    parts.push(h("p", { class: "notice", text: "Put these cubes into the funnel. The host releases them." }));
  }
  return parts;
}

// The odds computed before the release (controller/odds.py): a bar of the three outcomes, the
// expected cubes in the tray, and the tower model they come from.
function oddsView(odds) {
  if (!odds) return [];
  if (odds.error) return [h("p", { class: "muted", id: "odds", text: odds.error })];
  const pct = (p) => `${(100 * Number(p)).toFixed(1)} %`;
  const side = (c) => (c === "green" ? "Peasants" : cap(c));
  const rows = [
    ["attacker", `${side(odds.attacker)} wins`, odds.attacker_wins, colourClass(odds.attacker)],
    ["tie", "Tie", odds.tie, "c-tie"],
    ["defender", `${side(odds.defender)} wins`, odds.defender_wins, colourClass(odds.defender)],
  ];
  const how = odds.method === "exact" ? "exact" : `simulated, ${Number(odds.samples || 0).toLocaleString("en")} drops`;
  const expected = odds.expected_in_tray || {};
  return [h("section", { class: "odds", id: "odds" },
    h("h3", { text: "Odds before the drop" }),
    h("div", { class: "odds-bar", role: "img", "aria-label": rows.map(([, t, p]) => `${t} ${pct(p)}`).join(", ") },
      rows.map(([k, , p, cls]) => {
        // The CSP forbids style attributes; setting the width through the CSSOM is allowed.
        const seg = h("span", { class: `seg ${cls}`, "data-side": k });
        seg.style.width = `${(100 * Number(p)).toFixed(2)}%`;
        return seg;
      })),
    h("ul", { class: "odds-list" }, rows.map(([k, t, p, cls]) =>
      h("li", { "data-side": k }, h("span", { class: `dot ${cls}` }), h("span", { text: t }), h("strong", { text: pct(p) })))),
    h("p", { class: "muted" }, `Expected in the tray: ${side(odds.attacker)} ${Number(expected.attacker).toFixed(1)}, `
      + `${side(odds.defender)} ${Number(expected.defender).toFixed(1)}`),
    h("p", { class: "muted", id: "odds-model", text: `Tower model: ${odds.model} (${how})` }),
    odds.note ? h("p", { class: "notice", text: odds.note }) : null)];
}

function unknownReleaseView(drop) {
  const answer = (fell) => act("Answer", `/api/drops/${drop.drop_id}/release-answer`, { fell, who: whoAmI() }).then(refresh);
  return [
    h("div", { class: "battle-head" }, h("h2", { text: battleTitle(drop.battle) }), h("span", { class: "tag confirm", text: "check the funnel" })),
    h("p", { class: "notice warn", text: "The station stopped while the funnel was opening and cannot tell whether the cubes fell. It will not release again on a guess." }),
    S.host ? h("div", { class: "row" },
      h("button", { class: "secondary", type: "button", onclick: () => answer(false) }, "Cubes still in the funnel"),
      h("button", { class: "primary", type: "button", onclick: () => answer(true) }, "The funnel is empty"))
      : h("p", { class: "muted", text: "Waiting for the host to look at the funnel." }),
  ];
}

function stuckView(drop) {
  return [
    h("div", { class: "battle-head" }, h("h2", { text: battleTitle(drop.battle) }), h("span", { class: "tag confirm", text: "not read yet" })),
    h("p", { class: "notice warn", text: "The funnel was released but the tray has not been read yet. The station reads it again; it never releases twice." }),
    S.host ? h("div", { class: "row" }, h("button", {
      class: "primary", id: "read-again", type: "button", disabled: S.busy,
      onclick: () => act("Reading", "/api/resume", {}).then(refresh),
    }, "Read the tray again")) : h("p", { class: "muted", text: "Waiting for the host." }),
  ];
}

function whoAmI() { return localStorage.getItem("tower-who") || "host"; }

function progressView(step, drop) {
  const title = drop ? battleTitle(drop.battle) : "Releasing";
  const fill = h("div", { class: "bar-fill" });
  fill.style.width = `${Math.round(((step + 0.5) / STEPS.length) * 100)}%`; // CSSOM: allowed by the CSP
  return h("div", { class: "progress", id: "progress" },
    h("div", { class: "battle-head" }, h("h2", { text: title }), h("span", { class: "tag", text: "in progress" })),
    h("div", { class: "bar-track" }, fill),
    h("ol", { class: "steps" }, STEPS.map((s, i) => h("li", { class: i < step ? "done" : i === step ? "now" : "" }, s))));
}

function instructionList(record) {
  if (!record.resolution) return [h("li", { class: "muted", text: "Not resolved yet." })];
  const out = [];
  const add = (cls, verb, rest) => out.push(h("li", { class: cls }, h("span", { class: "verb", text: verb }), ` ${rest}`));
  const ins = record.instructions;
  if (Array.isArray(ins) && ins.length) {
    for (const item of ins) {
      const text = typeof item === "string" ? item : (item.text || item.say || JSON.stringify(item));
      const low = text.toLowerCase();
      const cls = low.startsWith("return") || (low.startsWith("take") && low.includes("back to")) ? "return"
        : low.startsWith("place") || low.includes("courtier") ? "place" : low.startsWith("remove") ? "remove" : "";
      out.push(h("li", { class: cls, text }));
    }
    return out;
  }
  const res = record.resolution || {};
  const countText = (m) => nonzero(m).map(([c, n]) => `${n} ${label(c)}`).join(", ");
  if (nonzero(res.to_supply).length) add("return", "Return", `${countText(res.to_supply)} from the tray to their supplies.`);
  if (nonzero(res.to_county).length) add("place", "Place", `${countText(res.to_county)} in the county.`);
  if (nonzero(res.tray_remaining).length) add("", "Leave", `${countText(res.tray_remaining)} in the tray.`);
  return out;
}

const sameCounts = (a, b) => JSON.stringify(nonzero(a).sort()) === JSON.stringify(nonzero(b).sort());
function changedBy(record) { return correctionsOf(record).some((c) => !sameCounts(c.before, c.after)); }
function correctionTag(record, id) {
  if (!correctionsOf(record).length) return null;
  return changedBy(record) ? h("span", { class: "tag corrected", id, text: "corrected" })
    : h("span", { class: "tag confirmed", id, text: "confirmed" });
}

function correctionsOf(record) {
  return record.corrections || [];
}

function resultView(record) {
  const parts = [];
  const corr = correctionsOf(record).filter(Boolean);
  const battle = record.battle;
  parts.push(h("div", { class: "battle-head" },
    h("h2", { text: battleTitle(battle) }),
    h("span", {}, correctionTag(record, "corrected-tag"),
      " ", h("span", { class: "tag", text: `drop ${record.drop_id}` }))));
  if (record.summary) parts.push(h("p", { class: "outcome", id: "outcome", text: record.summary }));
  if (record.resolution) parts.push(notesList(record));
  const settled = record.reconciliation && record.reconciliation.cubes && !record.needs_confirmation;
  if (settled) {
    parts.push(h("div", { class: "notice", id: "reconciled" },
      h("strong", { text: "Settled without asking: " }), record.reconciliation.reason));
  }
  const question = questionView(record);
  if (question) parts.push(question);
  else if (record.needs_confirmation) {
    parts.push(h("div", { class: "notice warn", id: "doubts" },
      h("strong", { text: "The station is not sure of this reading. " }), "Check the photo, then confirm or correct the counts.",
      h("ul", {}, (record.doubts || []).map((d) => h("li", { text: d })))));
  }
  const src = imageUrl(record.annotated || record.image);
  const left = h("div", {},
    src ? h("button", { class: "photo", type: "button", onclick: () => openImage(src, "The tray after the drop") },
      h("img", { id: "annotated", src, alt: `The tray after drop ${record.drop_id}, with every cube marked` })) : null);
  const tray = record.tray_after || countsOf(record.reading);
  const right = h("div", {},
    h("h3", { text: "In the tray" }), swatches(tray),
    ...corr.map((c) => h("div", { class: "notice", "data-testid": "correction-note" },
      h("strong", { text: `${sameCounts(c.before, c.after) ? "Confirmed" : "Corrected"} by ${c.who} at ${when(c.when)}` }),
      h("div", {}, "The station read: ", ...inline(c.before)),
      sameCounts(c.before, c.after) ? null : h("div", {}, "Corrected to: ", ...inline(c.after)))),
    h("h3", { text: "At the table" }),
    h("ol", { class: "todo", id: "instructions" }, instructionList(record)));
  parts.push(h("div", { class: "result-grid" }, left, right));
  if (S.host && S.correcting === record.drop_id) parts.push(correctionForm(record, tray));
  else if (S.host && record === currentDrop() && record.reading) {
    parts.push(h("div", { class: "row" },
      record.needs_confirmation ? h("button", {
        class: "primary", id: "confirm", type: "button",
        onclick: () => act("Confirmation", `/api/drops/${record.drop_id}/confirm`, { who: whoAmI() }).then(refresh),
      }, "Confirm as read") : null,
      h("button", {
        class: "secondary", id: "correct", type: "button",
        onclick: () => { S.correcting = record.drop_id; renderBattle(true); },
      }, "Correct the reading")));
  }
  return parts;
}

// The station's question about the colours it cannot tell apart ("Is it 6 or 7 red?"): one button
// per count that still fits; with several colours asked, the answer goes once each has a pick.
function questionText(q) {
  const one = (c) => { const n = q[c].map(String); return `${n.length > 1 ? n.slice(0, -1).join(", ") + " or " + n[n.length - 1] : n[0]} ${label(c)}`; };
  return `Is it ${Object.keys(q).sort().map(one).join(", and ")}?`;
}

function questionView(record) {
  const q = (record.needs_confirmation && record.question) || {};
  const colours = Object.keys(q).sort();
  if (!colours.length) return null;
  const picks = {};
  const mine = S.host && record === currentDrop();
  const rows = colours.map((c) => h("div", { class: "answer-row", "data-colour": c },
    h("span", { class: "answer-colour" }, h("span", { class: `dot ${colourClass(c)}` }), cap(label(c))),
    ...q[c].map((n) => h("button", {
      class: "answer", type: "button", id: `answer-${c}-${n}`, disabled: !mine || S.busy,
      onclick: async (e) => {
        picks[c] = n;
        for (const b of e.target.parentNode.querySelectorAll("button")) b.classList.toggle("picked", b === e.target);
        if (colours.every((k) => k in picks)) {
          const done = await act("Answer", `/api/drops/${record.drop_id}/answer`, { counts: picks, who: whoAmI() });
          if (done) { toast("Answer saved."); await refresh(); }
        }
      },
    }, String(n)))));
  const others = (record.doubts || []).filter((d) => !d.startsWith("Is it "));  // a doubt besides the question
  return h("div", { class: "notice warn question", id: "question" },
    h("strong", { class: "question-text", id: "question-text", text: questionText(q) }),
    others.length ? h("ul", {}, others.map((d) => h("li", { text: d }))) : null,
    h("p", { text: mine ? "The patch in doubt is circled on the photo. Look at the tray and tap the count."
      : "The patch in doubt is circled on the photo; the host answers." }),
    ...rows);
}

function correctionForm(record, tray) {
  const colours = [...players(), "green"].filter((c, i, a) => a.indexOf(c) === i);
  for (const c of Object.keys(tray)) if (!colours.includes(c)) colours.push(c);
  const form = h("form", { class: "battle-form", id: "correction-form" },
    h("h3", { text: "What really lies in the tray" }),
    h("div", { class: "grid2" }, colours.map((c) => h("label", { class: "field" },
      h("span", {}, h("span", { class: `dot ${colourClass(c)}` }), cap(label(c))),
      h("input", { type: "number", name: c, min: 0, max: 62, inputmode: "numeric", value: tray[c] || 0 })))),
    h("label", { class: "field" }, "Who corrects",
      h("input", { type: "text", name: "who", maxlength: 40, required: true, value: whoAmI() })),
    h("div", { class: "row" },
      h("button", { class: "secondary", type: "button", onclick: () => { S.correcting = null; renderBattle(); } }, "Cancel"),
      h("button", { class: "primary", type: "submit", id: "correction-submit" }, "Save the correction")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const fd = new FormData(form);
    const counts = {};
    for (const c of colours) counts[c] = Number(fd.get(c) || 0);
    const who = String(fd.get("who") || "host").trim();
    localStorage.setItem("tower-who", who);
    const done = await act("Correction", `/api/drops/${record.drop_id}/correct`, { counts, who });
    if (done) { S.correcting = null; toast("Correction saved."); await refresh(); }
  });
  return form;
}

// -- planning a battle -----------------------------------------------------------------------------
function battleForm() {
  const ses = session() || {};
  const ps = players();
  const kinds = !ses.filled ? KINDS.filter(([k]) => k === "initial_fill") : KINDS.filter(([k]) => k !== "initial_fill");
  if (!kinds.some(([k]) => k === S.kind)) S.kind = kinds[0][0];
  const playerSelect = (name, withNeutral, chosen) => h("select", { name },
    withNeutral ? h("option", { value: "", text: "neutral county" }) : null,
    ps.map((p) => h("option", { value: p, selected: p === chosen, text: cap(p) })));
  const num = (name, text, value, min) => h("label", { class: "field" }, text,
    h("input", { type: "number", name, min: min ?? 0, max: 62, value, inputmode: "numeric", required: true }));
  const fields = [];
  if (S.kind === "attack") {
    // The action card matters only against a defender whose favor card (#10, #11, #18) protects
    // against one of the two actions this round: then the page asks for it.
    const immune = immunities(((S.data && S.data.status) || {}).round);
    const action = h("label", { class: "field", id: "action-field" }, "Action card",
      h("select", { name: "action" }, h("option", { value: "A", text: "Combat/Movement A" }), h("option", { value: "B", text: "Combat/Movement B" })));
    const hint = h("p", { class: "muted", id: "action-hint" });
    const showAction = (defender) => {
      const protects = immune[defender];
      action.hidden = !(protects === "A" || protects === "B");
      if (!action.hidden) action.querySelector("select").value = protects === "A" ? "B" : "A";
      hint.textContent = protects === "both" ? `${cap(defender)} cannot be attacked this round (a favor card).`
        : protects ? `${cap(defender)} cannot be attacked with ${PROTECTS[protects]} this round (a favor card).` : "";
      hint.hidden = !protects;
    };
    const defender = playerSelect("defender", true, ps[1]);
    defender.addEventListener("change", () => showAction(defender.value));
    showAction(ps[1]);
    fields.push(h("div", { class: "grid2" },
      h("label", { class: "field" }, "Attacker", playerSelect("attacker", false, ps[0])),
      num("attacking_armies", "Armies moving in", 3, 1),
      h("label", { class: "field" }, "Defender", defender),
      num("defending_armies", "Armies defending", 2), action), hint);
  } else if (S.kind === "revolt" || S.kind === "winter_revolt") {
    fields.push(h("div", { class: "grid2" },
      h("label", { class: "field" }, "County owner", playerSelect("defender", false, ps[0])),
      num("defending_armies", "Armies in the county", 2),
      S.kind === "winter_revolt" ? num("unsupplied_counties", "Unsupplied counties", 1, 1) : null));
  } else {
    fields.push(h("p", {}, "The first drop of the game: 7 cubes of every player and 10 green (the peasants). ",
      ses.emperors_court ? "Courtiers go to the entrance hall from the tray." : ""));
  }
  if (S.kind !== "initial_fill") {
    fields.push(h("div", { class: "grid2" }, num("revolt_markers", "Revolt markers", 0)),
      h("fieldset", { class: "checks" }, h("legend", { text: "Buildings in the county" }),
        [["palace", "Palace"], ["church", "Church"], ["trading_post", "Trading post"]].map(([v, t]) =>
          h("label", {}, h("input", { type: "checkbox", name: "buildings", value: v }), t))));
  }
  const form = h("form", { class: "battle-form", id: "battle-form" },
    h("h2", { text: "New battle" }),
    h("fieldset", { class: "kinds" }, kinds.map(([k, t]) => h("label", {},
      h("input", { type: "radio", name: "kind", value: k, checked: k === S.kind, onchange: () => { S.kind = k; renderBattle(true); } }), t))),
    ...fields,
    h("div", { class: "row" },
      h("button", { class: "secondary", type: "button", onclick: () => { S.showForm = false; renderBattle(); } }, "Cancel"),
      h("button", { class: "primary", type: "submit", id: "plan-submit", disabled: S.busy }, "Plan the drop")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const fd = new FormData(form);
    const battle = { battle: S.kind };
    const int = (k) => Number(fd.get(k));
    if (S.kind === "attack") {
      Object.assign(battle, { attacker: fd.get("attacker"), attacking_armies: int("attacking_armies"),
        defender: fd.get("defender") || null, defending_armies: int("defending_armies") });
      const actionField = form.querySelector("#action-field");
      if (actionField && !actionField.hidden) battle.action = fd.get("action");
    } else if (S.kind !== "initial_fill") {
      Object.assign(battle, { defender: fd.get("defender"), defending_armies: int("defending_armies") });
      if (S.kind === "winter_revolt") battle.unsupplied_counties = int("unsupplied_counties");
    }
    if (S.kind !== "initial_fill") {
      battle.revolt_markers = int("revolt_markers");
      battle.buildings = fd.getAll("buildings");
    }
    const planned = await act("Planning", "/api/battles", battle);
    if (planned) { S.showForm = false; await refresh(); showTop("battle"); return; }
    const data = S.lastError && S.lastError.data;
    if (data && data.tray_mismatch) { S.mismatch = { ...data.tray_mismatch, message: data.error }; S.showForm = false; renderBattle(true); }
  });
  return form;
}

// -- the tray before a battle: the host's word where the camera misreads it -------------------------
function mismatchView(mismatch) {
  const colours = [...players(), "green"].filter((c, i, a) => a.indexOf(c) === i);
  const seen = mismatch.seen || {};
  const done = (answer) => {
    if (!answer) return;
    S.mismatch = null; S.showForm = true;
    toast("Saved: the next battle trusts this tray."); refresh();
  };
  const form = h("form", { class: "battle-form", id: "tray-form" },
    h("h3", { text: "Or: the tray really holds" }),
    h("div", { class: "grid2" }, colours.map((c) => h("label", { class: "field" },
      h("span", {}, h("span", { class: `dot ${colourClass(c)}` }), cap(label(c))),
      h("input", { type: "number", name: c, min: 0, max: 62, inputmode: "numeric", value: seen[c] || 0 })))),
    h("div", { class: "row" },
      h("button", { class: "secondary", type: "button", onclick: () => { S.mismatch = null; renderBattle(true); } }, "Cancel"),
      h("button", { class: "secondary", type: "submit", id: "tray-set" }, "The tray holds these")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const fd = new FormData(form);
    const counts = {};
    for (const c of colours) counts[c] = Number(fd.get(c) || 0);
    done(await act("Tray", "/api/tray/confirm", { counts, who: whoAmI() }));
  });
  return [
    h("div", { class: "battle-head" }, h("h2", { text: "Check the tray" }), h("span", { class: "tag confirm", text: "tray differs" })),
    h("p", { class: "notice warn", id: "tray-mismatch", text: "The tray does not hold what the station expects. Clear it as listed and plan again, or, if the camera misreads it, say what it holds." }),
    h("div", { class: "result-grid" },
      h("div", {}, h("h3", { text: "The station expects" }), swatches(mismatch.expected)),
      h("div", {}, h("h3", { text: "The camera sees" }), swatches(seen))),
    h("div", { class: "row" }, h("button", {
      class: "primary", id: "tray-confirm", type: "button", disabled: S.busy,
      onclick: async () => done(await act("Tray", "/api/tray/confirm", { who: whoAmI() })),
    }, "The tray holds what the station expects")),
    form,
  ];
}

async function release(dropId) {
  if (S.online === false) { toast("Offline, nothing was released: the page reconnects by itself.", true); return; }
  S.releasing = { drop_id: dropId, step: 0 };
  renderBattle();
  let offline = false;
  S.busy = true;
  try { await api(`/api/drops/${dropId}/release`, {}); }
  catch (err) {
    offline = !!err.offline;
    toast(offline ? "Offline, nothing was released: the page reconnects by itself." : `Release: ${err.message}`, true);
  } finally { S.busy = false; S.releasing = null; render(); }
  if (!offline) await refresh();
}

// -- the game and the round (the host) ------------------------------------------------------------
function newGameForm() {
  const form = h("form", { class: "battle-form", id: "game-form" },
    h("fieldset", { class: "checks" }, h("legend", { text: "Players" }),
      COLOURS.filter((c) => c !== "green").map((c) => h("label", {},
        h("input", { type: "checkbox", name: "players", value: c }), h("span", { class: `dot ${colourClass(c)}` }), cap(c)))),
    h("fieldset", { class: "checks" }, h("label", {}, h("input", { type: "checkbox", name: "emperors_court" }), "The Emperor's Court is in play")),
    h("div", { class: "row" }, h("button", { class: "primary", type: "submit", id: "game-submit" }, "Start the game")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const fd = new FormData(form);
    const done = await act("New game", "/api/session", { players: fd.getAll("players"), emperors_court: fd.get("emperors_court") === "on", force: true });
    if (done) {
      S.panel = null;
      toast(done.emptied ? "Game started; the simulated hands emptied the tower and the tray."
        : "Game started. Empty the tower, the tray and the funnel before the initial fill.");
      await refresh();
    }
  });
  return form;
}

function roundForm() {
  const round = ((S.data && S.data.status) || {}).round || {};
  const tiles = round.bonus_tiles || {};
  const immune = immunities(round);
  const court = !!(session() || {}).emperors_court;
  const parry = ((S.data && S.data.status) || {}).parry_card || "";
  const owner = (name, chosen) => h("select", { name },
    h("option", { value: "", text: "nobody" }), players().map((p) => h("option", { value: p, selected: p === chosen, text: cap(p) })));
  const form = h("form", { class: "battle-form", id: "round-form" },
    h("h3", { text: "This round" }),
    h("label", { class: "field" }, "Event card", h("select", { name: "event" },
      h("option", { value: "", text: "none" }),
      EVENTS.map((ev) => h("option", { value: ev, selected: ev === round.event, text: ev.replaceAll("_", " ") })))),
    h("div", { class: "grid2" },
      h("label", { class: "field" }, "Attack +1 tile", owner("attack_plus_one", tiles.attack_plus_one)),
      h("label", { class: "field" }, "Defence +1 tile", owner("defence_plus_one", tiles.defence_plus_one))),
    h("fieldset", { class: "checks" }, h("legend", { text: "Cannot be attacked this round (favor cards #10, #11, #18)" }),
      players().map((p) => h("label", {}, h("input", { type: "checkbox", name: "immune", value: p, checked: p in immune }), cap(p),
        h("select", { name: `immune-${p}`, "aria-label": `${cap(p)} is protected against` },
          Object.entries(PROTECTS).map(([v, t]) => h("option", { value: v, selected: v === (immune[p] || "both"), text: t })))))),
    court ? h("label", { class: "field" }, "Favor card #4 kept by (parries the next revolt marker)",
      h("select", { name: "parry_card" }, h("option", { value: "", text: "nobody" }),
        players().map((p) => h("option", { value: p, selected: p === parry, text: cap(p) })))) : null,
    h("div", { class: "row" },
      h("button", { class: "secondary", type: "button", onclick: () => { S.panel = null; renderLedger(); } }, "Cancel"),
      h("button", { class: "primary", type: "submit", id: "round-submit" }, "Save the round")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const fd = new FormData(form);
    const body = { event: fd.get("event") || null,
      immune: Object.fromEntries(fd.getAll("immune").map((p) => [p, fd.get(`immune-${p}`) || "both"])),
      bonus_tiles: { attack_plus_one: fd.get("attack_plus_one") || null, defence_plus_one: fd.get("defence_plus_one") || null } };
    let done = await act("Round", "/api/round", body);
    if (done && court && (fd.get("parry_card") || "") !== parry) done = await act("Favor card #4", "/api/parry", { player: fd.get("parry_card") || null });
    if (done) { S.panel = null; await refresh(); }
  });
  return form;
}

function courtForm() {
  const form = h("form", { class: "battle-form", id: "court-form" },
    h("h3", { text: "Dice-tower card" }),
    h("p", { class: "muted", text: "A player's own cubes lying in the tray become courtiers." }),
    h("div", { class: "grid2" },
      h("label", { class: "field" }, "Player", h("select", { name: "player" }, players().map((p) => h("option", { value: p, text: cap(p) })))),
      h("label", { class: "field" }, "Cubes", h("select", { name: "cubes" }, [1, 2, 3].map((n) => h("option", { value: n, text: n }))))),
    h("div", { class: "row" },
      h("button", { class: "secondary", type: "button", onclick: () => { S.panel = null; renderLedger(); } }, "Cancel"),
      h("button", { class: "primary", type: "submit", id: "court-submit" }, "Convert")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const fd = new FormData(form);
    const done = await act("Dice-tower card", "/api/court/convert", { player: fd.get("player"), cubes: Number(fd.get("cubes")) });
    if (done) { S.panel = null; toast(done.performed ? "Courtiers placed." : `Not performed: ${done.message}`, !done.performed); await refresh(); }
  });
  return form;
}

function trayPlaceForm() {
  const court = !!(session() || {}).emperors_court;
  const sources = court ? [["favor", "Favor card (#3, #8, #14)"], ["bonus", "Bonus card"]] : [["bonus", "Bonus card"]];
  const form = h("form", { class: "battle-form", id: "tray-place-form" },
    h("h3", { text: "Armies into the tray" }),
    h("p", { class: "muted", text: "A card puts armies from the player's own supply into the tray; they fall with the next battle." }),
    h("div", { class: "grid2" },
      h("label", { class: "field" }, "Player", h("select", { name: "player" }, players().map((p) => h("option", { value: p, text: cap(p) })))),
      h("label", { class: "field" }, "Armies", h("input", { type: "number", name: "armies", min: 1, max: 62, value: 1, inputmode: "numeric", required: true })),
      h("label", { class: "field" }, "Card", h("select", { name: "source" }, sources.map(([v, t]) => h("option", { value: v, text: t }))))),
    h("div", { class: "row" },
      h("button", { class: "secondary", type: "button", onclick: () => { S.panel = null; renderLedger(); } }, "Cancel"),
      h("button", { class: "primary", type: "submit", id: "tray-place-submit" }, "Place into the tray")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const fd = new FormData(form);
    const done = await act("Armies into the tray", "/api/tray/place",
      { player: fd.get("player"), armies: Number(fd.get("armies")), source: fd.get("source"), who: whoAmI() });
    if (done) { S.panel = null; toast([done.message, ...(done.notes || [])].join(" · "), done.placed < done.armies); await refresh(); }
  });
  return form;
}

// -- ledger and history ----------------------------------------------------------------------------
function renderLedger() {
  const body = $("ledger-body");
  if (S.panel && body.querySelector("form")) return;  // the host is filling it in
  body.replaceChildren();
  const st = (S.data && S.data.status) || {};
  const supply = st.supply || {};
  const tray = st.tray || {};
  const tower = st.tower || {};
  const board = st.board || {};
  const courtiers = st.courtiers || {};
  const colours = [...players(), "green"].filter((c, i, a) => a.indexOf(c) === i);
  if (!session()) { body.append(h("p", { class: "muted", text: "No session yet." })); return; }
  const court = !!session().emperors_court;
  const row = (c) => h("tr", { "data-colour": c },
    h("td", {}, h("span", { class: `dot ${colourClass(c)}` }), label(c)),
    h("td", { text: supply[c] ?? 0 }), h("td", { text: board[c] ?? 0 }), h("td", { text: tray[c] ?? 0 }),
    h("td", { text: tower[c] ?? 0 }), court ? h("td", { text: c === "green" ? "–" : courtiers[c] ?? 0 }) : null);
  const sum = (m) => Object.values(m).reduce((s, n) => s + Number(n || 0), 0);
  body.append(h("div", { class: "table-wrap" }, h("table", { class: "ledger", id: "ledger-table" },
    h("thead", {}, h("tr", {}, h("th", { text: "colour" }), h("th", { text: "supply" }), h("th", { text: "map" }),
      h("th", { text: "tray" }), h("th", { text: "tower" }), court ? h("th", { text: "court" }) : null)),
    h("tbody", {}, colours.map(row)),
    h("tfoot", {}, h("tr", {}, h("td", { text: "total" }), h("td", { text: sum(supply) }), h("td", { text: sum(board) }),
      h("td", { text: sum(tray) }), h("td", { text: sum(tower) }), court ? h("td", { text: sum(courtiers) }) : null)))));
  const round = st.round || {};
  const tiles = round.bonus_tiles || {};
  body.append(h("div", { class: "round" },
    h("div", {}, h("strong", { text: "Event: " }), round.event ? round.event.replaceAll("_", " ") : "none"),
    h("div", {}, h("strong", { text: "Bonus tiles: " }), `attack +1 ${tiles.attack_plus_one || "–"}, defence +1 ${tiles.defence_plus_one || "–"}`),
    Object.keys(immunities(round)).length ? h("div", { id: "immune" }, h("strong", { text: "Immune: " }),
      Object.entries(immunities(round)).map(([p, a]) => `${p} (${PROTECTS[a] || a})`).join(", ")) : null,
    st.parry_card ? h("div", { id: "parry-card" }, h("strong", { text: "Favor card #4: " }), `${st.parry_card} parries the next revolt marker`) : null));
  if (!S.host) return;
  if (S.panel === "round") { body.append(roundForm()); return; }
  if (S.panel === "game") {
    body.append(h("h3", { text: "A new game" }), h("p", { class: "muted", text: "The records of this game stay in the log." }), newGameForm(),
      h("div", { class: "row" }, h("button", { class: "secondary", type: "button", onclick: () => { S.panel = null; renderLedger(); } }, "Cancel")));
    return;
  }
  if (S.panel === "court") { body.append(courtForm()); return; }
  if (S.panel === "tray") { body.append(trayPlaceForm()); return; }
  body.append(h("div", { class: "row" },
    h("button", { class: "secondary", type: "button", id: "round-open", onclick: () => { S.panel = "round"; renderLedger(); } }, "Set the round"),
    court ? h("button", { class: "secondary", type: "button", id: "court-open", onclick: () => { S.panel = "court"; renderLedger(); } }, "Dice-tower card") : null,
    session().filled ? h("button", { class: "secondary", type: "button", id: "tray-open", onclick: () => { S.panel = "tray"; renderLedger(); } }, "Armies into the tray") : null,
    h("button", { class: "secondary", type: "button", id: "game-open", onclick: () => { S.panel = "game"; renderLedger(); } }, "New game"),
    st.undo ? h("button", { class: "secondary", type: "button", id: "undo", title: `Undo: ${st.undo}`, onclick: () => undoLast(st.undo) }, "Undo") : null,
    session().filled && !st.ended && (!currentDrop() || currentDrop().phase === "resolved") ? h("button", { class: "secondary", type: "button", id: "end-game", onclick: endGame }, "End the game") : null));
  if (st.undo) body.append(h("p", { class: "muted", id: "undo-what", text: `Undo takes back: ${st.undo}` }));
}

function renderHistory() {
  const list = $("history-list");
  list.replaceChildren();
  const history = (S.data && S.data.history) || [];
  if (!history.length) { list.append(h("li", { class: "muted", text: "No drops yet." })); return; }
  for (const d of history) {
    const src = imageUrl(d.annotated || d.image);
    list.append(h("li", { "data-drop": d.drop_id },
      src ? h("button", { class: "thumb", type: "button", onclick: () => openImage(src, `Drop ${d.drop_id}`) },
        h("img", { src, alt: `Drop ${d.drop_id}`, loading: "lazy" })) : h("span", { class: "thumb" }),
      h("div", {},
        h("div", { class: "what" }, `${d.drop_id}. ${battleTitle(d.battle)} `, correctionTag(d, null)),
        h("div", { text: d.summary || `(${d.phase})` }),
        h("div", { class: "meta" }, inline(d.tray_read || countsOf(d.reading))))));
  }
}

function renderHost() {
  $("join-open").hidden = !S.host;  // the QR code is shown on the host's screen
  const b = $("host-button");
  b.dataset.host = String(S.host);
  b.textContent = S.host ? "Host ✓" : "Host";
}

function render() { renderHost(); renderRecords(); renderBattle(); renderLedger(); renderHistory(); }

// Damaged records keep the station read-only until the host acknowledges them (tower log acknowledge).
function renderRecords() {
  const box = $("records-warning");
  const health = ((S.data && S.data.status) || {}).records || {};
  box.hidden = !health.read_only;
  if (!health.read_only) { box.replaceChildren(); return; }
  const ack = S.host ? h("button", { class: "secondary", id: "acknowledge-damage", type: "button",
    onclick: () => act("Acknowledge", "/api/records/acknowledge", { who: whoAmI() }).then(() => scheduleRefresh()) },
  "I have looked: acknowledge") : null;
  box.replaceChildren(h("p", { class: "notice warn", text: `Read-only: ${health.message}` }), ...(ack ? [ack] : []));
}

// -- host login ------------------------------------------------------------------------------------
function setupHost() {
  const dialog = $("pin-dialog");
  $("host-button").addEventListener("click", async () => {
    if (S.host) {
      if (confirm(t("Leave host mode on this device?"))) { await api("/api/host/logout", {}).catch(() => null); S.host = false; S.csrf = null; render(); }
      return;
    }
    $("pin-error").hidden = true; $("pin-input").value = ""; dialog.showModal(); $("pin-input").focus();
  });
  $("pin-cancel").addEventListener("click", () => dialog.close());
  $("pin-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const res = await api("/api/host/login", { pin: $("pin-input").value });
      S.host = true; S.csrf = res.csrf; dialog.close(); toast("You are the host on this device."); await refresh();
      if ($("new-battle")) $("new-battle").scrollIntoView({ block: "center" });
      else showTop("battle");
    } catch (err) { $("pin-error").textContent = err.message; $("pin-error").hidden = false; }
  });
}

// -- this device: dark theme, sound and vibration (opt-in), the QR code for watchers -----------------
const PREFS = { dark: "tower-dark", signal: "tower-signal" };
function pref(name) { try { return localStorage.getItem(PREFS[name]) === "on"; } catch (_) { return false; } }
function setPref(name, on) { try { localStorage.setItem(PREFS[name], on ? "on" : "off"); } catch (_) { /* private mode */ } }

function applyTheme() {
  let dark = pref("dark");
  try { if (localStorage.getItem(PREFS.dark) === null) dark = window.matchMedia("(prefers-color-scheme: dark)").matches; } catch (_) { /* */ }
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  $("pref-dark").checked = dark;
}

// A short tone and a buzz when the funnel opens and when the result is in, on devices that opted in.
let audio = null;
function signal(kind) {
  if (!pref("signal")) return;
  const result = kind === "resolution";
  if (navigator.vibrate) navigator.vibrate(result ? [80, 60, 80] : 120);
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = result ? 880 : 520;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.35);
    osc.connect(gain).connect(audio.destination);
    osc.start(); osc.stop(audio.currentTime + 0.35);
  } catch (_) { /* no sound on this device: the vibration (or nothing) */ }
  document.body.dataset.signal = kind;  // what was signalled last (tests read it)
}

function setupDevice() {
  applyTheme();
  $("pref-dark").addEventListener("change", (e) => { setPref("dark", e.target.checked); applyTheme(); });
  $("pref-signal").checked = pref("signal");
  $("pref-signal").addEventListener("change", (e) => {
    setPref("signal", e.target.checked);
    if (e.target.checked) signal("release_started");  // the tap that opts in also unlocks the sound
  });
  $("join-open").addEventListener("click", async () => {
    $("join-qr").src = `/api/join.svg?t=${Date.now()}`;
    try { $("join-url").textContent = (await api("/api/join")).url; } catch (_) { $("join-url").textContent = location.href; }
    $("join-dialog").showModal();
  });
}

// -- the page's language ---------------------------------------------------------------------------
// The server negotiates the browser's Accept-Language against its gettext catalogues (English,
// German) and sends {English: translation}. Every text node the page shows is looked up as it is
// added, so the render functions above stay in English and no string is translated twice.
const T = {};
function t(s) { return T[s] || s; }
function tf(template, values) { return t(template).replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m)); }

function translateText(node) {
  const text = node.nodeValue;
  if (T[text] && T[text] !== text) { node.nodeValue = T[text]; return; }  // "Event: ", trailing space and all
  const key = text.trim();
  if (key && T[key] && T[key] !== key) node.nodeValue = text.replace(key, T[key]);
}

function translateTree(root) {
  if (root.nodeType === Node.TEXT_NODE) { translateText(root); return; }
  if (root.nodeType !== Node.ELEMENT_NODE) return;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) translateText(n);
  for (const el of [root, ...root.querySelectorAll("[aria-label], [title], [alt]")]) {
    for (const attr of ["aria-label", "title", "alt"]) {
      const v = el.getAttribute && el.getAttribute(attr);
      if (v && T[v]) el.setAttribute(attr, T[v]);
    }
  }
}

async function loadLanguage() {
  try {
    const data = await api("/api/i18n");
    Object.assign(T, data.messages || {});
    document.documentElement.lang = data.lang || "en";
  } catch (_) { /* English: the page's own words */ }
  if (!Object.keys(T).length) return;
  document.title = t(document.title);
  translateTree(document.body);
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "characterData") translateText(r.target);
      else r.addedNodes.forEach(translateTree);
    }
  }).observe(document.body, { subtree: true, childList: true, characterData: true });
}

document.addEventListener("DOMContentLoaded", async () => { setupDevice(); await loadLanguage(); setupHost(); refresh(); connect(); });
