// A drop's result: the photo, the tray, what to do at the table, the station's question, a correction.

import { act, refresh } from "../api.js";
import { cap, h, nonzero } from "../dom.js";
import { S, changed, currentDrop, players, whoAmI } from "../state.js";
import { countsOf, imageUrl, inline, label, openImage, swatches, toast, when } from "../ui.js";
import { battleTitle, notesList } from "./parts.js";
import { colourClass } from "../words.js";

export function instructionList(record) {
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

export const sameCounts = (a, b) => JSON.stringify(nonzero(a).sort()) === JSON.stringify(nonzero(b).sort());
export function changedBy(record) { return correctionsOf(record).some((c) => !sameCounts(c.before, c.after)); }
export function correctionTag(record, id) {
  if (!correctionsOf(record).length) return null;
  return changedBy(record) ? h("span", { class: "tag corrected", id, text: "corrected" })
    : h("span", { class: "tag confirmed", id, text: "confirmed" });
}

export function correctionsOf(record) {
  return record.corrections || [];
}

export function resultView(record) {
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
      h("strong", { text: sameCounts(c.before, c.after) ? `Confirmed by ${c.who} at ${when(c.when)}` : `Corrected by ${c.who} at ${when(c.when)}` }),
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
        onclick: () => { S.correcting = record.drop_id; changed("battle", true); },
      }, "Correct the reading")));
  }
  return parts;
}

// The station's question about the colours it cannot tell apart ("Is it 6 or 7 red?"): one button
// per count that still fits; with several colours asked, the answer goes once each has a pick.
export function questionText(q) {
  const one = (c) => { const n = q[c].map(String); return `${n.length > 1 ? n.slice(0, -1).join(", ") + " or " + n[n.length - 1] : n[0]} ${label(c)}`; };
  return `Is it ${Object.keys(q).sort().map(one).join(", and ")}?`;
}

export function questionView(record) {
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
    h("p", { text: lookHint(record, mine) }),
    ...rows);
}

// Where the host should look: the circled patch, or the tray itself for a colour the photo circles no
// patch of (the reads of a shaken tray disagreed on it, or colour no patch explains made it doubtful).
function lookHint(record, mine) {
  const bare = (record.question_uncircled || []).map(label);
  if (!bare.length) {
    return mine ? "The patch in doubt is circled on the photo. Look at the tray and tap the count."
      : "The patch in doubt is circled on the photo; the host answers.";
  }
  const colours = bare.length > 1 ? bare.slice(0, -1).join(", ") + " and " + bare[bare.length - 1] : bare[0];
  return mine ? `The photo circles no patch of ${colours}: look at the tray and tap the count.`
    : `The photo circles no patch of ${colours}; the host looks at the tray and answers.`;
}

export function correctionForm(record, tray) {
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
      h("button", { class: "secondary", type: "button", onclick: () => { S.correcting = null; changed("battle"); } }, "Cancel"),
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
