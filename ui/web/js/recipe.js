/* The commitment recipe (protocol section 4.4): `canonical` JSON (sorted keys, no spaces),
 * `commitment` (SHA-256 of the canonical {choice, salt, seat, window}, with the vendored
 * js-sha256 as window.sha256: crypto.subtle does not exist on plain http) and `same` (equal by
 * canonical JSON). tests/net/test_web.py runs `canonical` in node against the core's own
 * commitment, so keep it self-contained. */

export function canonical(v) {
  if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
  if (v !== null && typeof v === "object") {
    return "{" + Object.keys(v).sort()
      .map((k) => JSON.stringify(k) + ":" + canonical(v[k])).join(",") + "}";
  }
  return JSON.stringify(v);
}
export function commitment(windowId, seat, choice, salt) {
  return window.sha256(canonical({ choice: choice, salt: salt, seat: seat, window: windowId }));
}
export const same = (a, b) => canonical(a) === canonical(b);
