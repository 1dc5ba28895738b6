/* The table's clock and the timer in the bar (protocol section 4.1): the session clock's offset
 * read from documents and `GET /clock`, the running timer drawn from its deadline, stopped when
 * the table is unreachable, and the "Time!" moment that stays at least TIME_UP_MS. Used by the
 * phone page and the spectator page (watch.js) alike. */

import { $, el, mmss, vibrate } from "./util.js";
import { doc, S, TIME_UP_MS } from "./state.js";

// A running timer is drawn from its `deadline` on the session clock, never counted on from
// whenever a document happened to arrive: S.clock says what the session clock reads at
// performance.now() (its offset), for one session. Every reading is a lower bound: a
// document's `now` is the table's clock when it was sent, so it arrives with the table's clock
// at least that far on (later still when it was retained, or slow on a busy Wi-Fi); the same
// for GET /clock's answer. So the page keeps the highest reading, and starts again when its
// connection does or the table restarted (the session clock does not count an outage).
function localNow() { return performance.now() / 1000; }
function readClock(session, off) {
  if (!S.clock || S.clock.session !== session || off > S.clock.off) S.clock = { session: session, off: off };
}
export function noteClock(d, retained) {
  if (!d || !d.session || typeof d.now !== "number") return;
  readClock(d.session, d.now - localNow());
  if (retained) fetchClock();        // it may be old: ask the table's clock now
}
export async function fetchClock() {
  if (document.body.dataset.page === "watch") return;
  try {
    const r = await fetch("/clock", { cache: "no-store" });
    const c = await r.json();
    if (c && c.session && typeof c.now === "number") {
      readClock(c.session, c.now - localNow());
      renderTimer();
    }
  } catch (e) { /* the next document sets it */ }
}

// "Time!" with 0:00 stays on screen for at least TIME_UP_MS from the moment the hub says the
// timer ran out (the TimerExpired event, or the notice in the next document, whichever comes
// first), even if the next phase's document arrives at once.
export function timeUp(name) {
  const until = performance.now() + TIME_UP_MS;
  if (!S.timeUp || S.timeUp.until < until - 1000) {
    vibrate([300, 100, 300]);
  }
  S.timeUp = { name: name, until: Math.max(until, (S.timeUp && S.timeUp.until) || 0) };
  renderTimer();
  setTimeout(renderTimer, TIME_UP_MS + 50);
}
export function noticeMoments(d) {
  if (!d.notices || !d.session) return;
  const key = d.session + ":" + d.rev;
  if (S.seenTimeUpRev === key) return;
  const n = d.notices.find((x) => x.kind === "TimerExpired");
  if (n) { S.seenTimeUpRev = key; timeUp(n.timer); }
}

export function activeTimer() {
  const d = doc();
  if (!d || !d.timers) return null;
  let best = null;
  for (const [name, t] of Object.entries(d.timers)) {
    if (t.deadline === null && !t.paused) continue;
    if (!best || (!t.paused && best.t.paused) || (t.left < best.t.left && t.paused === best.t.paused)) best = { name: name, t: t };
  }
  return best;
}
export function timerLeft(t) {
  if (t.paused) return t.left;
  const d = doc();
  if (typeof t.deadline === "number" && d && S.clock && S.clock.session === d.session) {
    return Math.max(0, t.deadline - (localNow() + S.clock.off));
  }
  return t.left - (performance.now() - (S.view ? S.viewAt : S.stateAt)) / 1000;
}
// The table is gone (this phone lost the broker, or the hub's Last Will says it is offline):
// its timers do not run without it, so the phone stops counting where it was
function tableGone() {
  if (S.sourceDown) return true;           // the spectator page's stream (watch.js)
  return !!S.creds && (!S.connected || S.hubOnline === false);
}
export function renderTimer() {
  const box = $("#bar-timer");
  const moment = $("#moment");
  const up = S.timeUp && performance.now() < S.timeUp.until;
  if (!up && S.timeUp) S.timeUp = null;
  if (up) {
    box.textContent = "0:00";
    delete box.dataset.sig;
    box.className = "up";
    box.dataset.timer = "up";
    if (moment.hidden) {
      S.momentShown = performance.now();
      moment.replaceChildren(el("div", { class: "time-up", data: { panel: "time-up" } },
        el("div", { class: "big-word", text: "Time!" }), el("div", { class: "clock", text: "0:00" })));
      moment.hidden = false;
    }
    return;
  }
  if (!moment.hidden) {
    moment.hidden = true;
    moment.replaceChildren();
    S.moments.push({ what: "time-up", ms: Math.round(performance.now() - S.momentShown) });   // how long it was shown
  }
  const a = activeTimer();
  if (!a) { box.textContent = ""; box.className = ""; delete box.dataset.timer; delete box.dataset.sig; S.frozen = null; return; }
  let left, note = null;
  if (tableGone()) {
    // counted no further than where it was when the table went away
    if (!S.frozen || S.frozen.name !== a.name) S.frozen = { name: a.name, left: S.lastLeft !== undefined && !a.t.paused ? S.lastLeft : timerLeft(a.t) };
    left = S.frozen.left;
    note = "stopped";          // (the connection sign beside it says why)
  } else {
    S.frozen = null;
    left = timerLeft(a.t);
    if (a.t.paused) note = "paused";
  }
  S.lastLeft = left;
  const sig = mmss(left) + "|" + note;
  if (box.dataset.sig !== sig) {
    box.dataset.sig = sig;
    const kids = [el("span", { class: "digits", data: { clock: "" }, text: mmss(left) })];
    if (note) kids.push(el("span", { class: "timer-note", text: note }));
    box.replaceChildren(...kids);
  }
  box.dataset.timer = a.name;
  box.className = (a.t.paused || note ? "paused" : "") + (left <= (a.t.warn_before || 0) ? " warn" : "") + (left <= 0 && !a.t.paused && !note ? " up" : "");
}
