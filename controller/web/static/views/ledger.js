// Where every cube is, the round, the host's buttons, and this session's drops.

import { act, scheduleRefresh } from "../api.js";
import { $, h } from "../dom.js";
import { S, currentDrop, players, session, whoAmI } from "../state.js";
import { countsOf, imageUrl, inline, label, openImage } from "../ui.js";
import { courtForm, endGame, newGameForm, roundForm, trayPlaceForm, undoLast } from "./host.js";
import { battleTitle, immunities } from "./parts.js";
import { correctionTag } from "./result.js";
import { PROTECTS, colourClass, eventLabel } from "../words.js";

// -- ledger and history ----------------------------------------------------------------------------
export function renderLedger() {
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
    h("div", {}, h("strong", { text: "Event: " }), round.event ? eventLabel(round.event) : "none"),
    h("div", {}, h("strong", { text: "Bonus tiles: " }), `attack +1 ${tiles.attack_plus_one || "–"}, defence +1 ${tiles.defence_plus_one || "–"}`),
    Object.keys(immunities(round)).length ? h("div", { id: "immune" }, h("strong", { text: "Immune: " }),
      Object.entries(immunities(round)).map(([p, a]) => `${p} (${PROTECTS()[a] || a})`).join(", ")) : null,
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

export function renderHistory() {
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


// Damaged records keep the station read-only until the host acknowledges them (tower log acknowledge).
export function renderRecords() {
  const box = $("records-warning");
  const health = ((S.data && S.data.status) || {}).records || {};
  box.hidden = !health.read_only;
  if (!health.read_only) { box.replaceChildren(); return; }
  const ack = S.host ? h("button", { class: "secondary", id: "acknowledge-damage", type: "button",
    onclick: () => act("Acknowledge", "/api/records/acknowledge", { who: whoAmI() }).then(() => scheduleRefresh()) },
  "I have looked: acknowledge") : null;
  box.replaceChildren(h("p", { class: "notice warn", text: `Read-only: ${health.message}` }), ...(ack ? [ack] : []));
}
