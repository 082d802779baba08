// What the page knows: the table's last state and what this device is doing (one object, S).

export const S = { data: null, host: false, csrf: null, releasing: null, showForm: false, correcting: null, busy: false, kind: "attack", panel: null, mismatch: null, lastError: null, online: null };

export function session() { return ((S.data && S.data.status) || {}).session || null; }
export function currentDrop() { return ((S.data && S.data.status) || {}).drop || null; }
export function players() { return ((session() || {}).players || []).slice(); }
export function whoAmI() { return localStorage.getItem("tower-who") || "host"; }
