/* The commitment book (protocol section 4.4, "Keeping the commitments you saw"): what this device
 * saw announced at each lock-in, kept across reloads in localStorage, updated from the documents
 * and from ChoiceLocked / ChoiceWithdrawn events (link.js), and `verifyWindow`, which checks a
 * reveal against it for the reveal panel (reveal.js). */

import { save } from "./util.js";
import { commitment } from "./recipe.js";
import { COMMITS, S } from "./state.js";

// What this device saw announced at each lock-in, kept across reloads (localStorage):
// session -> window id -> seat -> {c: commitment, r: the lock-in's rev}. Protocol section 4.4,
// "Keeping the commitments you saw": a lock-in the table undid is forgotten (its
// ChoiceWithdrawn, or a newer document without it), a lock-in made again (a higher rev)
// replaces it, and a commitment that changed under the same lock-in is kept as first seen,
// so the reveal shows the change.
export function commitsFor(session) {
  if (!S.commits[session]) {
    // keep the store small: only the sessions this phone is playing
    const keys = Object.keys(S.commits);
    if (keys.length > 3) delete S.commits[keys[0]];
    S.commits[session] = {};
  }
  return S.commits[session];
}
export function keptOf(x) {          // (an older page kept the commitment alone)
  if (!x) return null;
  return typeof x === "string" ? { c: x, r: 0 } : { c: x.c, r: typeof x.r === "number" ? x.r : 0 };
}
function lockRev(x) { return typeof x === "number" ? x : 0; }
// Note one announced lock-in (from ChoiceLocked or a document): "new", "again" (a higher rev
// than the one kept: the table undid that one and the seat locked in again), "rev" (the
// same commitment, its rev learnt), or false (the same, or another commitment under the same
// lock-in: what was seen first is kept, and the reveal will show the change).
export function noteLock(page, seat, digest, rev) {
  const k = keptOf(page[seat]);
  if (!digest) return false;
  const r = lockRev(rev);
  if (!k) { page[seat] = { c: digest, r: r }; return "new"; }
  if (r <= k.r) return false;
  page[seat] = { c: digest === k.c ? k.c : digest, r: r };
  return digest === k.c ? "rev" : "again";
}
export function commitsChanged() {
  save(COMMITS, S.commits);
  S.sigs.reveal = null;          // a reveal drawn before this arrived: check again
  S.commitSig = (S.commitSig || 0) + 1;
}
export function noteCommitments(d) {
  if (!d.session || !d.windows) return;
  const book = commitsFor(d.session);
  const rev = typeof d.rev === "number" ? d.rev : null;
  let changed = false;
  for (const w of d.windows) {
    if (w.revealed) continue;
    const locked = w.locked || {};
    const page = book[w.id] = book[w.id] || {};
    // a lock-in this document no longer shows, though it is at least as new: the table
    // undid it while this device was away (reloaded, asleep, or a page with no events)
    for (const seat of Object.keys(page)) {
      if (!(seat in locked) && rev !== null && rev >= keptOf(page[seat]).r) {
        delete page[seat];
        changed = true;
      }
    }
    for (const [seat, item] of Object.entries(locked)) {
      const got = noteLock(page, seat, item.commitment, item.rev);
      if (got) changed = true;
    }
  }
  if (changed) commitsChanged();
}

export function verifyWindow(session, w) {
  const book = (S.commits[session] || {})[w.id] || {};
  const out = {};
  for (const [seat, item] of Object.entries(w.locked || {})) {
    if (item.defaulted) { out[seat] = { cls: "none", text: "made no choice" }; continue; }
    if (typeof item.salt !== "string" || item.salt.length < 32) { out[seat] = { cls: "bad", text: "✗ no salt" }; continue; }
    const got = commitment(w.id, Number(seat), item.choice, item.salt);
    const seen = (keptOf(book[seat]) || {}).c;
    if (seen) out[seat] = got === seen ? { cls: "good", text: "✓ verified" } : { cls: "bad", text: "✗ changed after lock-in!" };
    else out[seat] = got === item.commitment ? { cls: "none", text: "✓ consistent (lock-in not seen here)" } : { cls: "bad", text: "✗ does not match!" };
  }
  return out;
}
