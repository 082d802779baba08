// What several views show alike: a battle's title, the engine's notes, the round's immune players.
// Views import it; it imports no view, so the views' imports point one way.

import { cap, h } from "../dom.js";
import { t, tf } from "../i18n.js";
import { KINDS } from "../words.js";

export function battleTitle(battle) {
  if (!battle) return "Battle";
  const kind = (KINDS().find(([k]) => k === battle.battle) || [null, cap(battle.battle || "battle")])[1];
  if (battle.battle === "attack") {
    return tf("{attacker} attacks {defender}",
      { attacker: cap(t(battle.attacker)), defender: battle.defender ? cap(t(battle.defender)) : t("a neutral county") });
  }
  if (battle.battle === "revolt" || battle.battle === "winter_revolt") return tf("{kind} against {defender}", { kind: t(kind), defender: cap(t(battle.defender)) });
  return t(kind);
}

// Where the rulebooks are silent and the engine's decision shapes this battle (engine/decisions.py).
export function notesList(record) {
  const notes = (record && record.notes) || [];
  // an empty fragment, not null: Element.append(null) would show the word "null" on the page
  return notes.length ? h("ul", { class: "notice notes", id: "notes" }, notes.map((n) => h("li", { text: n })))
    : document.createDocumentFragment();
}

// The round's immune players as {player: "A" | "B" | "both"} (older records keep a list: both).
export function immunities(round) {
  const immune = (round || {}).immune || {};
  return Array.isArray(immune) ? Object.fromEntries(immune.map((p) => [p, "both"])) : immune;
}
