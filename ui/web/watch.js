/* Table Companion spectator page: the public table for a TV or a laptop, read-only, no seat.
 *
 * It reads the public state from the table's Server-Sent Events stream (GET /watch/state: one
 * `state` event with the whole public document at once and after every change) and draws it
 * with the phone page's pieces, imported from its modules (js/): the game and phase, the timer
 * with its Time! moment, who the table waits for, the scores, the last reveal in the game's
 * words, the table's alerts, the final scores, and what happened (the table's story). Nothing
 * private ever reaches this page: the stream carries only what the table's own screen shows.
 */

import { el, joinNames, pretty } from "./js/util.js";
import { S, stale } from "./js/state.js";
import { noteCommitments } from "./js/book.js";
import { noteClock, noticeMoments, renderTimer } from "./js/clock.js";
import { feedList, gameTitle, placeText, playerName, scoreOf, standings, storyOf } from "./js/words.js";
import { flipPanel, windowPanel } from "./js/reveal.js";

const $ = (sel) => document.querySelector(sel);
const W = { state: null, sigs: {}, source: null };
window.tcWatch = W;      // for people debugging (and the browser tests)
S.device = "screen";

function changed(key, sig) {
  if (W.sigs[key] === sig) return false;
  W.sigs[key] = sig;
  return true;
}
function setConn(kind, text) {
  $("#bar-conn").className = "conn " + kind;
  $("#conn-text").textContent = text;
}
function connect() {
  const es = new EventSource("/watch/state");
  W.source = es;
  setConn("wait", "connecting");
  es.addEventListener("open", () => setConn("on", "live"));
  es.addEventListener("error", () => {           // it retries by itself
    setConn("off", "reconnecting");
    S.sourceDown = true;                         // the timer stops where it was
    S.clock = null;                              // and the table's clock is read afresh
    renderTimer();
  });
  es.addEventListener("state", (e) => {
    let d;
    try { d = JSON.parse(e.data); } catch (err) { return; }
    if (!d || d.v !== 1 || stale(W.state, d)) return;
    W.state = d;
    S.state = d;
    S.sourceDown = false;
    S.viewAt = S.stateAt = performance.now();
    noteClock(d, false);       // each state is sent as it is made: its `now` is the table's clock now
    noteCommitments(d);
    noticeMoments(d);
    setConn("on", "live");
    render();
  });
}

function names(d) {
  return d.players || ((d.hub && d.hub.seats) || []).map((s) => s.name);
}
function render() {
  const d = W.state;
  if (!d) return;
  const screen = $("#watch");
  screen.dataset.rev = d.rev === undefined ? "" : String(d.rev);
  screen.dataset.phase = d.phase || "";
  const title = gameTitle(d);
  $("#bar-title").textContent = title + (d.hub && d.hub.table ? " · " + d.hub.table : "");
  let phase = d.phase === "lobby" ? "Waiting for the game" : (d.phase_label || pretty(d.phase));
  if (d.round) phase += " · round " + d.round;
  if (d.outcome) phase = "Game over";
  $("#bar-phase").textContent = phase;
  renderTimer();
  renderNow(d);
  renderScores(d);
  renderReveal(d);
  renderAlerts(d);
  renderOutcome(d);
  renderFeed(d);
}

// what happened: the table's story (the public entries), as every phone shows it
function renderFeed(d) {
  const box = $("#feed");
  const entries = storyOf(null, d);
  if (!changed("feed", JSON.stringify(entries))) return;
  box.hidden = !entries.length;
  box.replaceChildren(...(entries.length ? [el("h2", { text: "What happened" }), feedList(entries)] : []));
}

// who the table waits for: the seats to play, who is choosing and who has locked in
function renderNow(d) {
  const box = $("#w-now");
  const open = (d.windows || []).filter((w) => !w.revealed);
  const sig = JSON.stringify([d.session, d.phase, d.waiting, open, d.table_prompt, d.table_legal && d.table_legal.map((m) => m.label), d.outcome && true, names(d), d.game_view && d.game_view.event]);
  if (!changed("now", sig)) return;
  const kids = [el("h2", { text: "Now" })];
  const who = (seats) => joinNames(seats.map((s) => playerName(s)));
  if (d.phase === "lobby") {
    const seats = (d.hub && d.hub.seats) || [];
    kids.push(el("p", { class: "big-line", text: seats.filter((s) => s.phone).length + " of " + seats.length + " players have joined." }));
  } else if (d.outcome) {
    kids.push(el("p", { class: "big-line", text: "The game is over." }));
  } else {
    for (const w of open) {
      const locked = (w.seats || []).filter((s) => String(s) in (w.locked || {}));
      const choosing = (w.seats || []).filter((s) => !(String(s) in (w.locked || {})));
      kids.push(el("div", { class: "now-window", data: { window: w.id } },
        el("p", { class: "big-line", text: (w.label || "A secret choice") + ": " + (choosing.length ? who(choosing) + (choosing.length === 1 ? " is" : " are") + " choosing" : "everyone is in") + "." }),
        locked.length ? el("p", { class: "muted", text: "Locked in: " + who(locked) + " (secret until everyone is in)" }) : null));
    }
    const waiting = (d.waiting || []).filter((s) => !open.some((w) => (w.seats || []).includes(s)));
    if (waiting.length) kids.push(el("p", { class: "big-line", data: { waiting: waiting.join(",") } }, "Waiting for ", el("b", { text: who(waiting) }), (d.game_view || {}).waiting_for ? ": " + d.game_view.waiting_for + "." : "."));
    if (d.table_prompt) {
      const what = d.table_prompt.text || (d.table_legal || []).map((m) => m.label).join(" or ");
      kids.push(el("p", { class: "big-line" }, el("b", { text: "The table: " }), what || "a tap on the table screen"));
    }
    if (!open.length && !waiting.length && !d.table_prompt) kids.push(el("p", { class: "muted", text: "Nobody to wait for." }));
    const gv = d.game_view || {};
    if (d.game === "trade-warz" && gv.event) kids.push(el("p", {}, el("b", { text: "Event: " + gv.event.name + " — " }), gv.event.text || ""));
  }
  box.replaceChildren(...kids);
}

function renderScores(d) {
  const box = $("#w-scores");
  const ns = names(d);
  const seats = (d.hub && d.hub.seats) || [];
  const scores = ns.map((_, i) => scoreOf(d, i));
  const open = (d.windows || []).filter((w) => !w.revealed);
  const tag = (i) => {
    if (d.outcome) return null;
    if (seats[i] && !seats[i].phone) return ["", "free seat"];     // nobody here to choose yet
    for (const w of open) if ((w.seats || []).includes(i)) return String(i) in (w.locked || {}) ? ["lock", "locked in"] : ["wait", "choosing"];
    return (d.waiting || []).includes(i) ? ["wait", "to play"] : null;
  };
  const tags = ns.map((_, i) => tag(i));
  const sig = JSON.stringify([ns, scores, seats.map((s) => s.online), tags]);
  if (!changed("scores", sig)) return;
  const list = el("ul", { class: "players" });
  ns.forEach((n, i) => list.append(el("li", { data: { seat: String(i) } },
    el("span", { class: "dot" + (seats[i] && seats[i].online ? " on" : "") }),
    el("span", { class: "pname", text: n }), tags[i] ? el("span", { class: "tag " + tags[i][0], text: tags[i][1] }) : null,
    scores[i] ? el("span", { class: "score", text: scores[i] }) : null)));
  box.replaceChildren(el("h2", { text: scores.some((x) => x) ? "Scores" : "Players" }), list);
}

// the last reveal (or Trade Warz's Export flip), in the game's words
function renderReveal(d) {
  const box = $("#reveal");
  const gv = d.game_view || {};
  const revealed = (d.windows || []).filter((w) => w.revealed);
  const w = revealed[revealed.length - 1];
  const flip = d.game === "trade-warz" && (d.phase === "exports" || d.phase === "disputes") && Array.isArray(gv.flip) && gv.flip.length;
  const sig = JSON.stringify([d.session, w || null, d.phase, flip ? gv.flip : null, d.game === "trade-warz" || d.game === "battle-builder" ? gv : null]);
  if (!changed("reveal", sig)) return;
  const kids = [];
  if (w && !(flip && w.kind === "export")) kids.push(windowPanel(d, w));
  if (flip) kids.push(flipPanel(d, gv.flip));
  box.replaceChildren(...kids);
}

function renderAlerts(d) {
  const box = $("#w-alerts");
  const alerts = (d.hub && d.hub.alerts) || [];
  const scan = d.hub && d.hub.scan;
  const recent = scan && scan.at && Date.now() / 1000 - scan.at < 20 ? scan : null;
  const sig = JSON.stringify([alerts, recent]);
  if (!changed("alerts", sig)) return;
  const kids = [];
  if (recent) kids.push(el("div", { class: "card scan " + (recent.result === "matched" || recent.result === "recorded" ? "good" : "bad"), data: { panel: "scan" } },
    el("b", { text: "Card read: " + (recent.name || "unknown card") }), el("p", { text: recent.message || "" })));
  if (alerts.length) kids.push(el("div", { class: "card alerts" }, el("h2", { text: "The table says" }),
    el("ul", { class: "alert-list" }, alerts.map((a) => el("li", { data: { alert: a.key || a.kind } }, a.message)))));
  box.replaceChildren(...kids);
}

function renderOutcome(d) {
  const box = $("#w-outcome");
  const o = d.outcome;
  if (!changed("outcome", JSON.stringify([d.session, o]))) return;
  if (!o) { box.replaceChildren(); return; }
  const rows = standings(o).map((r) => el("li", { data: { seat: r.seat, place: String(r.place), tied: r.tied ? "1" : "0" } },
      el("span", { class: "rank", text: placeText(r) }),
      el("span", { class: "pname", text: playerName(r.seat) }), r.winner ? el("span", { class: "tag win", text: "winner" }) : null,
      el("b", { class: "score", text: String(r.score) })));
  box.replaceChildren(el("div", { class: "card outcome", data: { panel: "outcome" } },
    el("h2", { text: (o.winners.length > 1 ? "Winners: " : "Winner: ") + joinNames(o.winners.map((s) => playerName(s))) }),
    o.reason ? el("p", { class: "muted", text: o.reason }) : null,
    el("h3", { text: "Final scores" }), el("ol", { class: "scores" }, rows)));
}

setInterval(renderTimer, 250);
setInterval(() => { if (W.state) renderAlerts(W.state); }, 5000);     // a scan note fades
connect();
