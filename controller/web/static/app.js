// The table's page (entry module): renders /api/state, follows /api/events and, for the host, sends
// plan / release / correct requests with the CSRF token from the login. ES modules, no framework and no
// build step; every text from the server goes in through textContent, never as HTML.

import { api, hostChanged, refresh } from "./api.js";
import { setupDevice } from "./device.js";
import { $ } from "./dom.js";
import { loadLanguage, t } from "./i18n.js";
import { connect } from "./live.js";
import { S, onChange } from "./state.js";
import { showTop, toast } from "./ui.js";
import { renderBattle } from "./views/battle.js";
import { renderHistory, renderLedger, renderRecords } from "./views/ledger.js";
import { loadWords } from "./words.js";

export function renderHost() {
  $("join-open").hidden = !S.host;  // the QR code is shown on the host's screen
  const b = $("host-button");
  b.dataset.host = String(S.host);
  b.textContent = S.host ? "Host ✓" : "Host";
}


export function render() { renderHost(); renderRecords(); renderBattle(); renderLedger(); renderHistory(); }

// What the lower modules announce (state.js), drawn here: the only module that knows every view.
onChange("all", render);
onChange("host", renderHost);
onChange("battle", (force) => renderBattle(force));
onChange("ledger", renderLedger);

// -- host login ------------------------------------------------------------------------------------
export function setupHost() {
  const dialog = $("pin-dialog");
  $("host-button").addEventListener("click", async () => {
    if (S.host) {
      if (confirm(t("Leave host mode on this device?"))) {
        await api("/api/host/logout", {}).catch(() => null);
        S.host = false; S.csrf = null; hostChanged(); render(); refresh();
      }
      return;
    }
    $("pin-error").hidden = true; $("pin-input").value = ""; dialog.showModal(); $("pin-input").focus();
  });
  $("pin-cancel").addEventListener("click", () => dialog.close());
  $("pin-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const res = await api("/api/host/login", { pin: $("pin-input").value });
      S.host = true; S.csrf = res.csrf; hostChanged(); dialog.close(); toast("You are the host on this device."); await refresh();
      if ($("new-battle")) $("new-battle").scrollIntoView({ block: "center" });
      else showTop("battle");
    } catch (err) { $("pin-error").textContent = err.message; $("pin-error").hidden = false; }
  });
}

// The game's words come from the engine (/api/words) before the first render, the language with them.
// The Host button answers from the start: a click while those still load (a slow phone, a busy
// station) was lost, and the PIN dialog never opened.
document.addEventListener("DOMContentLoaded", async () => {
  setupDevice();
  setupHost();
  await Promise.all([loadLanguage(), loadWords().catch((err) => toast(`Could not read the game's words: ${err.message}`, true))]);
  refresh(); connect();
});
