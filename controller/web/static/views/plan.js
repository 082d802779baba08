// Planning a battle, and the tray's check before it.

import { act, refresh } from "../api.js";
import { cap, h } from "../dom.js";
import { S, changed, players, session, whoAmI } from "../state.js";
import { label, showTop, swatches, toast } from "../ui.js";
import { immunities } from "./parts.js";
import { KINDS, PROTECTS, W, colourClass } from "../words.js";

// -- planning a battle -----------------------------------------------------------------------------
export function battleForm() {
  const ses = session() || {};
  const ps = players();
  const kinds = !ses.filled ? KINDS().filter(([k]) => k === "initial_fill") : KINDS().filter(([k]) => k !== "initial_fill");
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
        : protects ? `${cap(defender)} cannot be attacked with ${PROTECTS()[protects]} this round (a favor card).` : "";
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
        W.buildings.map((v) => [v, cap(v.replaceAll("_", " "))]).map(([v, t]) =>
          h("label", {}, h("input", { type: "checkbox", name: "buildings", value: v }), t))));
  }
  const form = h("form", { class: "battle-form", id: "battle-form" },
    h("h2", { text: "New battle" }),
    h("fieldset", { class: "kinds" }, kinds.map(([k, t]) => h("label", {},
      h("input", { type: "radio", name: "kind", value: k, checked: k === S.kind, onchange: () => { S.kind = k; changed("battle", true); } }), t))),
    ...fields,
    h("div", { class: "row" },
      h("button", { class: "secondary", type: "button", onclick: () => { S.showForm = false; changed("battle"); } }, "Cancel"),
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
    if (data && data.tray_mismatch) { S.mismatch = { ...data.tray_mismatch, message: data.error }; S.showForm = false; changed("battle", true); }
  });
  return form;
}

// -- the tray before a battle: the host's word where the camera misreads it -------------------------
export function mismatchView(mismatch) {
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
      h("button", { class: "secondary", type: "button", onclick: () => { S.mismatch = null; changed("battle", true); } }, "Cancel"),
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
