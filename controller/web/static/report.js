// The luck report page: renders /api/report (controller/report.py). Every text from the server goes in
// through textContent, never as HTML; the page's words are translated like the table's (i18n.js).

import { cap, h } from "./dom.js";
import { loadLanguage } from "./i18n.js";
import { plural } from "./ui.js";
import { W, colourClass, loadWords } from "./words.js";

const side = (c) => (c === W.peasants ? "Peasants" : cap(c));
const OUTCOME = { attacker_wins: "the attacker won", tie: "a tie", defender_wins: "the defender won" };

function render(r) {
  const card = document.getElementById("report");
  const params = Object.entries(r.model.params).map(([k, v]) => `${k} ${Number(v).toPrecision(3)}`).join(", ");
  const rows = r.players.map((p) => h("tr", { "data-player": p.player },
    h("td", {}, h("span", { class: `dot ${colourClass(p.player)}` }), side(p.player)),
    h("td", { class: "num col-battles", text: p.battles }),
    h("td", { class: "num", text: p.came_out }),
    h("td", { class: "num", text: Number(p.expected).toFixed(1) }),
    h("td", { class: "num", text: `${p.difference >= 0 ? "+" : ""}${Number(p.difference).toFixed(1)}` }),
    h("td", { class: "num", text: p.p_value === null ? "—" : Number(p.p_value).toFixed(3) }),
    h("td", { class: p.verdict && p.verdict.startsWith("unusually") ? "verdict unusual" : "verdict", text: p.verdict || "no battles" })));
  const upsets = r.upsets.length
    ? h("ol", { class: "upsets", id: "upsets" }, r.upsets.map((u) => h("li", {},
      h("strong", { text: `Drop ${u.drop_id}: ` }),
      `${side(u.attacker)} against ${side(u.defender)}, ${OUTCOME[u.outcome] || u.outcome}, with a `,
      h("strong", { text: `${(100 * u.chance).toFixed(1)} %` }), ` chance (${u.model})`)))
    : h("p", { class: "muted", text: "No battle with stored odds yet." });
  const plot = (key, alt) => (r.plots[key] ? h("img", { class: "plot", src: `/data/${r.plots[key]}?v=${r.drops}`, alt }) : null);
  card.replaceChildren(
    h("div", { class: "battle-head" }, h("h2", { text: `Session ${r.session}` }), h("span", { class: "tag", text: `${r.drops} drops` })),
    h("p", { class: "muted", id: "report-model", text: `Tower model: ${r.model.name} (${r.model.family}: ${params})` }),
    r.model_note ? h("p", { class: "notice", text: r.model_note }) : null,
    h("h3", { text: "Cubes out of each side's battles" }),
    h("div", { class: "table-wrap" }, h("table", { class: "luck", id: "luck-table" },
      h("thead", {}, h("tr", {}, [["Side"], ["Battles", "col-battles"], ["Out"], ["Exp."], ["Diff."], ["p"], ["Verdict"]]
        .map(([t, cls]) => h("th", { class: cls || null, text: t })))),
      h("tbody", {}, rows))),
    h("p", { class: "notice", id: "not-cheating", text: r.not_cheating }),
    plot("luck_png", "Each side's cubes out minus expected, drop by drop"),
    h("h3", { text: "Upsets: the least likely outcomes" }),
    upsets,
    h("h3", { text: "Retention" }),
    plot("retention_png", "Cubes thrown in, out, and inside the tower after each drop"),
    r.station ? stationSection(r.station) : null);
}

// How the station itself did: the figures of the CLI's tower model reads (this session) and beam
// (every session's drops), in the CLI's own sentences, so that the catalogue translates both alike.
const percent = (n, total) => `${(100 * n / total).toFixed(1)} %`;
const drops = (n) => plural(n, "drop", "drops");

function stationSection(st) {
  const reads = st.reads;
  const asked = reads.by_how["asked the host"];
  const how = ["as read", "after shaking the tray", "with the break-beam and the ledger"];
  const tally = reads.drops
    ? [h("p", { class: "muted", text: `the station's reads of ${drops(reads.drops)}:` }),
      h("ul", { class: "measures", id: "station-reads" },
        h("li", { text: `acted on without asking: ${reads.without_asking} (${percent(reads.without_asking, reads.drops)})` },
          h("ul", {}, how.map((k) => h("li", { text: `${k}: ${reads.by_how[k]}` })))),
        h("li", { text: `asked the host: ${asked} (${percent(asked, reads.drops)})` }),
        h("li", { text: `photos read per drop: ${Number(reads.reads_mean).toFixed(1)} on average, ${reads.reads_most} at most` }),
        h("li", { text: `trays the host changed after the station had acted on them: ${reads.corrected_after.length}` },
          reads.corrected_after.length ? h("ul", {}, reads.corrected_after.map((c) => h("li", { text: c.text }))) : null))]
    : [h("p", { class: "muted", id: "station-reads", text: "no drop on record was read and resolved yet" })];
  const b = st.beam;
  const beam = b
    ? [`break-beam clump rate: ${b.rate.toFixed(3)} (95 % interval ${b.low.toFixed(3)} to ${b.high.toFixed(3)}), from ${drops(b.drops)}: ${b.short} of ${b.chances} cubes after each drop's first not counted`,
      b.configured === null ? null : b.configured_fits
        ? `the station is set to ${b.configured.toFixed(3)} (board.beam_clump): within the interval, keep it`
        : `the station is set to ${b.configured.toFixed(3)} (board.beam_clump): outside the interval; set board.beam_clump = ${b.rate.toFixed(3)} in the station's config`]
    : [st.beam_note];
  return h("div", { id: "station-measures" },
    h("h3", { text: "How the station read the tray" }),
    ...tally,
    h("h3", { text: "The break-beam" }),
    h("ul", { class: "measures", id: "station-beam" }, beam.filter(Boolean).map((t) => h("li", { text: t }))));
}


async function load() {
  const card = document.getElementById("report");
  try {
    const answer = await fetch("/api/report", { headers: { Accept: "application/json" } });
    const body = await answer.json();
    if (!answer.ok) { card.replaceChildren(h("h2", { text: "No report yet" }), h("p", { class: "muted", text: body.error || answer.statusText })); return; }
    render(body);
  } catch (err) {
    card.replaceChildren(h("p", { class: "error", text: `The station did not answer: ${err}` }));
  }
}
document.addEventListener("DOMContentLoaded", async () => {
  await Promise.all([loadLanguage(), loadWords().catch(() => null)]);
  load();
});
