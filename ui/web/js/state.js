/* The phone page's state, one object `S` (also `window.tc`, for people debugging at the table and
 * the browser tests): the seat's credentials, the MQTT client, the newest public `state` and seat
 * `view`, the pending command, the answers being picked, the commitment book, the clock. Also the
 * storage keys and URL flags, half an answer kept across a reload (`saveDrafts`, sessionStorage),
 * which document to draw (`doc`, `stale`: keep the newest by `rev`), the redraw-if-changed guard
 * (`changed`), and `draw`, the panels a lower piece asks to draw again (a picker's tap redraws
 * the moves panel, which act.js fills in, so pickers.js need not import act.js and the modules
 * import each other in one direction only). */

import { load, txPrefix } from "./util.js";
import { CLEARED } from "./choices.js";

export const KEEPALIVE = 2;            // s: the broker notices a vanished phone within ~3-5 s
export const STORE = "tc.seat." + location.host;
export const COMMITS = "tc.commits." + location.host;
export const SUMMARIES = "tc.locked." + location.host;
export const TIME_UP_MS = 3000;        // "Time!" stays at least this long (the buzzer moment)
export const PARAMS = new URLSearchParams(location.search);
export const DEV = PARAMS.get("dev") === "1";

export const S = {
  creds: null, client: null, connected: false, hubOnline: null,
  state: null, view: null, viewAt: 0, stateAt: 0, presence: {},
  pending: null, result: null, answers: {}, openMove: {}, sigs: {},
  commits: load(COMMITS, {}), summaries: load(SUMMARIES, {}), authFails: 0,
  failures: 0, reclaiming: false, awake: false, txPrefix: txPrefix(), txN: 0,
  lastPromptSig: null, timeUp: null, seenTimeUpRev: null, moments: [], renaming: false, dev: DEV,
};
window.tc = S;       // for people debugging at the table (and the browser tests)

// Half an answer survives a reload (a swipe, a browser that dropped the tab in the
// background): what was picked and which move was open, for this tab (sessionStorage), for
// this seat; drawn again like any answer, so a pick the game no longer offers is dropped.
const DRAFTS = "tc.drafts." + location.host;
export function saveDrafts() {
  const sid = S.view && S.view.session;
  if (sid) for (const k of Object.keys(S.answers)) if (!k.startsWith(sid + ":")) delete S.answers[k];
  try {
    sessionStorage.setItem(DRAFTS, JSON.stringify({ seat: S.creds ? S.creds.seat : null, answers: S.answers, open: S.openMove },
      (k, v) => (v === CLEARED ? { cleared: true, draft: 1 } : v)));
  } catch (e) { /* private mode or full: no drafts */ }
}
(function loadDrafts() {
  try {
    const d = JSON.parse(sessionStorage.getItem(DRAFTS) || "null",
      (k, v) => (v && v.draft === 1 && v.cleared === true ? CLEARED : v));
    if (d && typeof d === "object") { S.answers = d.answers || {}; S.openMove = d.open || {}; S.draftSeat = d.seat; }
  } catch (e) { /* a broken draft is no draft */ }
})();

// A retained document is whole; keep the newest. `rev` (the session log's length) only grows,
// even across an undo, a correction or a resume, while `seq` goes back on an undo: compare
// `rev` only (protocol section 6). An equal `rev` replaces (lobby facts, presence and alerts
// change without a new record); a new session replaces whatever was shown.
export function stale(shown, msg) {
  return !!(shown && msg.session && msg.session === shown.session &&
    typeof msg.rev === "number" && typeof shown.rev === "number" && msg.rev < shown.rev);
}

export function doc() { return S.view || S.state; }

// Panels a lower piece asks to draw again: a tap in a picker (pickers.js, widgets.js) redraws
// the moves panel, which act.js draws (with the pickers in it) and fills in here.
export const draw = { act() {} };

export function changed(key, sig) {
  if (S.sigs[key] === sig) return false;
  S.sigs[key] = sig;
  return true;
}
