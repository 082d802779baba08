// The game's word lists, as the rules engine names them: the colours, the kinds of battle, the event
// cards, the buildings, the bonus tiles and what a favor card protects against. The station serves them
// from the engine's own constants (/api/words), so the page never restates them; the page keeps only
// its own English labels for them (translated like every other text on the page).

import { cap } from "./dom.js";

export const W = { colours: [], players: [], peasants: "green", battle_kinds: [], events: [], buildings: [],
  bonus_tiles: [], immunities: [], actions: [] };

export async function loadWords() {
  const answer = await fetch("/api/words", { headers: { Accept: "application/json" } });
  if (!answer.ok) throw new Error(`${answer.status} ${answer.statusText}`);
  Object.assign(W, await answer.json());
}

export const colourClass = (c) => (W.colours.includes(c) ? `c-${c}` : "c-other");
const words = (id) => cap(String(id).replaceAll("_", " "));
export const eventLabel = (ev) => String(ev).replaceAll("_", " ");
// [kind, label] for each kind of battle the engine knows, in its order.
export const KINDS = () => W.battle_kinds.map((k) => [k, words(k)]);
// What a favor card (#10, #11, #18) protects against: the engine's values, the page's words.
const PROTECT_WORDS = { A: "Combat/Movement A", B: "Combat/Movement B", both: "A and B" };
export const PROTECTS = () => Object.fromEntries(W.immunities.map((v) => [v, PROTECT_WORDS[v] || v]));
// The page's own steps of a release, and the drop phases (controller.cycle) in which a drop is moving.
export const STEPS = ["Opening the funnel", "Cubes falling; waiting for a still tray and reading it", "Resolving the battle"];
export const BUSY_PHASES = ["releasing", "released"];
