// The battle card: what the table shows between, before and during a drop.

import { act, api, refresh } from "../api.js";
import { $, cap, h, nonzero } from "../dom.js";
import { t } from "../i18n.js";
import { S, changed, currentDrop, session, whoAmI } from "../state.js";
import { inline, plural, swatches, toast } from "../ui.js";
import { newGameForm } from "./host.js";
import { battleTitle, notesList } from "./parts.js";
import { battleForm, mismatchView } from "./plan.js";
import { resultView } from "./result.js";
import { BUSY_PHASES, STEPS, colourClass } from "../words.js";

// -- the battle card -------------------------------------------------------------------------------

export function renderBattle(force) {
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
export function gameEndView(ended) {
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

export function funnelView(drop) {
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
export function oddsView(odds) {
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
    h("p", { class: "muted", text: `Expected in the tray: ${side(odds.attacker)} ${Number(expected.attacker).toFixed(1)}, ${side(odds.defender)} ${Number(expected.defender).toFixed(1)}` }),
    h("p", { class: "muted", id: "odds-model", text: `Tower model: ${odds.model} (${how})` }),
    odds.note ? h("p", { class: "notice", text: odds.note }) : null)];
}

export function unknownReleaseView(drop) {
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

export function stuckView(drop) {
  return [
    h("div", { class: "battle-head" }, h("h2", { text: battleTitle(drop.battle) }), h("span", { class: "tag confirm", text: "not read yet" })),
    h("p", { class: "notice warn", text: "The funnel was released but the tray has not been read yet. The station reads it again; it never releases twice." }),
    S.host ? h("div", { class: "row" }, h("button", {
      class: "primary", id: "read-again", type: "button", disabled: S.busy,
      onclick: () => act("Reading", "/api/resume", {}).then(refresh),
    }, "Read the tray again")) : h("p", { class: "muted", text: "Waiting for the host." }),
  ];
}


export function progressView(step, drop) {
  const title = drop ? battleTitle(drop.battle) : "Releasing";
  const fill = h("div", { class: "bar-fill" });
  fill.style.width = `${Math.round(((step + 0.5) / STEPS.length) * 100)}%`; // CSSOM: allowed by the CSP
  return h("div", { class: "progress", id: "progress" },
    h("div", { class: "battle-head" }, h("h2", { text: title }), h("span", { class: "tag", text: "in progress" })),
    h("div", { class: "bar-track" }, fill),
    h("ol", { class: "steps" }, STEPS.map((s, i) => h("li", { class: i < step ? "done" : i === step ? "now" : "" }, s))));
}

export async function release(dropId) {
  if (S.online === false) { toast("Offline, nothing was released: the page reconnects by itself.", true); return; }
  S.releasing = { drop_id: dropId, step: 0 };
  renderBattle();
  let offline = false;
  S.busy = true;
  try { await api(`/api/drops/${dropId}/release`, {}); }
  catch (err) {
    offline = !!err.offline;
    toast(offline ? "Offline, nothing was released: the page reconnects by itself." : `Release: ${err.message}`, true);
  } finally { S.busy = false; S.releasing = null; changed("all"); }
  if (!offline) await refresh();
}
