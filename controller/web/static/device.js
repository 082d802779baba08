// This device: dark theme, sound and vibration (opt-in), the QR code for watchers.

import { api } from "./api.js";
import { $ } from "./dom.js";

// -- this device: dark theme, sound and vibration (opt-in), the QR code for watchers -----------------
export const PREFS = { dark: "tower-dark", signal: "tower-signal" };
export function pref(name) { try { return localStorage.getItem(PREFS[name]) === "on"; } catch (_) { return false; } }
export function setPref(name, on) { try { localStorage.setItem(PREFS[name], on ? "on" : "off"); } catch (_) { /* private mode */ } }

export function applyTheme() {
  let dark = pref("dark");
  try { if (localStorage.getItem(PREFS.dark) === null) dark = window.matchMedia("(prefers-color-scheme: dark)").matches; } catch (_) { /* */ }
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  $("pref-dark").checked = dark;
}

// A short tone and a buzz when the funnel opens and when the result is in, on devices that opted in.
export let audio = null;
export function signal(kind) {
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

export function setupDevice() {
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
