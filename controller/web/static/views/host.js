// The host's forms between battles: a new game, the round, the dice-tower card, armies into the tray.

import { act, refresh } from "../api.js";
import { cap, h } from "../dom.js";
import { t } from "../i18n.js";
import { S, changed, players, session, whoAmI } from "../state.js";
import { toast } from "../ui.js";
import { immunities } from "./parts.js";
import { PROTECTS, W, colourClass, eventLabel } from "../words.js";

// -- the host's undo and the game's end (buttons under the ledger) ----------------------------------
export async function undoLast(text) {
  if (!confirm(`${t("Undo")}: ${text}?`)) return;
  const done = await act("Undo", "/api/undo", { who: "host" });
  if (done) { toast(cap(done.message)); await refresh(); }
}

export async function endGame() {
  if (!confirm(t("End the game? Its summary is kept in the records."))) return;
  const done = await act("End the game", "/api/session/end", { who: "host" });
  if (done) { toast("The game has ended."); await refresh(); }
}

// -- the game and the round (the host) ------------------------------------------------------------
export function newGameForm() {
  const form = h("form", { class: "battle-form", id: "game-form" },
    h("fieldset", { class: "checks" }, h("legend", { text: "Players" }),
      W.players.map((c) => h("label", {},
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

export function roundForm() {
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
      W.events.map((ev) => h("option", { value: ev, selected: ev === round.event, text: eventLabel(ev) })))),
    h("div", { class: "grid2" },
      h("label", { class: "field" }, "Attack +1 tile", owner("attack_plus_one", tiles.attack_plus_one)),
      h("label", { class: "field" }, "Defence +1 tile", owner("defence_plus_one", tiles.defence_plus_one))),
    h("fieldset", { class: "checks" }, h("legend", { text: "Cannot be attacked this round (favor cards #10, #11, #18)" }),
      players().map((p) => h("label", {}, h("input", { type: "checkbox", name: "immune", value: p, checked: p in immune }), cap(p),
        h("select", { name: `immune-${p}`, "aria-label": `${cap(p)} is protected against` },
          Object.entries(PROTECTS()).map(([v, t]) => h("option", { value: v, selected: v === (immune[p] || "both"), text: t })))))),
    court ? h("label", { class: "field" }, "Favor card #4 kept by (parries the next revolt marker)",
      h("select", { name: "parry_card" }, h("option", { value: "", text: "nobody" }),
        players().map((p) => h("option", { value: p, selected: p === parry, text: cap(p) })))) : null,
    h("div", { class: "row" },
      h("button", { class: "secondary", type: "button", onclick: () => { S.panel = null; changed("ledger"); } }, "Cancel"),
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

export function courtForm() {
  const form = h("form", { class: "battle-form", id: "court-form" },
    h("h3", { text: "Dice-tower card" }),
    h("p", { class: "muted", text: "A player's own cubes lying in the tray become courtiers." }),
    h("div", { class: "grid2" },
      h("label", { class: "field" }, "Player", h("select", { name: "player" }, players().map((p) => h("option", { value: p, text: cap(p) })))),
      h("label", { class: "field" }, "Cubes", h("select", { name: "cubes" }, [1, 2, 3].map((n) => h("option", { value: n, text: n }))))),
    h("div", { class: "row" },
      h("button", { class: "secondary", type: "button", onclick: () => { S.panel = null; changed("ledger"); } }, "Cancel"),
      h("button", { class: "primary", type: "submit", id: "court-submit" }, "Convert")));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const fd = new FormData(form);
    const done = await act("Dice-tower card", "/api/court/convert", { player: fd.get("player"), cubes: Number(fd.get("cubes")) });
    if (done) { S.panel = null; toast(done.performed ? "Courtiers placed." : `Not performed: ${done.message}`, !done.performed); await refresh(); }
  });
  return form;
}

export function trayPlaceForm() {
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
      h("button", { class: "secondary", type: "button", onclick: () => { S.panel = null; changed("ledger"); } }, "Cancel"),
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
