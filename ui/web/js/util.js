/* The page's small pieces, with no state of their own: `$` and `el` (build an element from props
 * and children), words for ids (`pretty`, `joinNames`, `ordinal`), the clock face (`mmss`),
 * random ids (`rand`, `txPrefix`: the 128-bit tx prefix, protocol section 5.1), localStorage
 * (`load`, `save`), `vibrate`, the toast, `redraw` (replace a panel's children and give a
 * half-typed field its focus back) and `post` (a JSON POST to the table that throws the table's
 * own error). Everything else imports from here; this imports nothing. */

export const $ = (sel) => document.querySelector(sel);
export function el(tag, props, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "data") {
      for (const [dk, dv] of Object.entries(v)) if (dv !== undefined && dv !== null) e.dataset[dk] = dv;
    } else if (k in e && typeof v !== "string") e[k] = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) {
    if (k === null || k === undefined || k === false) continue;
    e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  }
  return e;
}
export function pretty(id) {
  if (id === null || id === undefined) return "—";
  if (typeof id === "boolean") return id ? "yes" : "no";
  if (typeof id !== "string") return String(id);
  const caps = { pvp: "PvP", gdp: "GDP", vp: "VP", hp: "HP" };   // "PvP Trigger", not "Pvp Trigger"
  return id.replace(/[-_]+/g, " ").replace(/\b\w+/g, (w) => caps[w.toLowerCase()] || (w[0].toUpperCase() + w.slice(1)));
}
export function rand(n) {
  const a = new Uint8Array(n);
  (window.crypto || window.msCrypto).getRandomValues(a);
  return Array.from(a, (b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("");
}
// A tx prefix: 128 random bits as 32 hex digits, drawn per page load (docs/protocol.md 5.1:
// a billion page loads over a club's lifetime share one with a chance of about 1 in 10^21).
export function txPrefix() {
  const a = new Uint8Array(16);
  (window.crypto || window.msCrypto).getRandomValues(a);
  return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}
export function mmss(s) {
  s = Math.max(0, Math.ceil(s));
  return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
}
export function fingerprint(hex) {
  return (hex || "").slice(0, 16).replace(/(.{4})/g, "$1 ").trim();
}
export function load(key, fallback) {
  try { return JSON.parse(localStorage.getItem(key)) || fallback; } catch (e) { return fallback; }
}
export function save(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode */ }
}
export function vibrate(p) { if (navigator.vibrate) { try { navigator.vibrate(p); } catch (e) { /* no */ } } }
export function joinNames(names) {
  if (names.length <= 1) return names.join("");
  return names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
}

export function clamp(n, lo, hi) { return Math.max(lo, Math.min(hi, n)); }

export function ordinal(n) { return n + (n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"); }

let toastTimer = null;
export function toast(text) {
  const t = $("#toast");
  t.textContent = text;
  t.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.classList.remove("show"), 2600);
}

// Redraw a panel without taking a half-typed field from the player: the focused input (by
// id or data-arg) gets its focus and caret back in the new drawing.
export function redraw(box, kids) {
  const a = document.activeElement;
  const key = a && box.contains(a) && a.tagName === "INPUT" ? (a.id ? "#" + a.id : (a.dataset.arg ? "input[data-arg='" + a.dataset.arg + "']" : null)) : null;
  const caret = key ? [a.selectionStart, a.selectionEnd] : null;
  box.replaceChildren(...kids);
  if (key) {
    const b = box.querySelector(key);
    if (b) { b.focus(); try { b.setSelectionRange(caret[0], caret[1]); } catch (e) { /* not text */ } }
  }
}

export async function post(path, body) {
  const r = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify(Object.assign({ v: 1 }, body)), cache: "no-store" });
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok || (data && data.error)) {
    const err = new Error((data && data.error && data.error.message) || ("The table answered " + r.status + "."));
    err.code = data && data.error && data.error.code;
    err.seats = (data && data.error && data.error.seats) || [];
    err.status = r.status;
    throw err;
  }
  return data;
}
