/* Drawing the phone page from the state: `render` redraws every panel (each one only when what it
 * shows changed), and the bar (game, phase, timer), the connection banner, the players at the
 * table and the feed (what happened) are drawn here; the other panels are their own modules
 * (me.js, act.js, reveal.js). */

import { $, el, pretty } from "./util.js";
import { changed, doc, S } from "./state.js";
import { renderTimer } from "./clock.js";
import { feedList, gameTitle, scoreOf, storyOf } from "./words.js";
import { renderReveal } from "./reveal.js";
import { renderMe } from "./me.js";
import { renderAct } from "./act.js";
import { updateWakeLock } from "./awake.js";

export function render() {
  const d = doc(), screen = $("#game-screen");
  if (d) {          // what this phone shows, for test drivers and people debugging
    screen.dataset.session = d.session || "";
    screen.dataset.rev = d.rev === undefined ? "" : String(d.rev);
    screen.dataset.phase = d.phase || "";
  }
  renderBar();
  renderBanner();
  renderMe();
  renderAct(false);
  renderReveal();
  renderPlayers();
  renderFeed();
  updateWakeLock();
}

function renderBar() {
  const d = doc();
  if (!d) return;
  $("#bar-title").textContent = gameTitle(d);
  let phase = d.phase === "lobby" ? (d.hub && d.hub.game ? "Lobby" : "Between games") : (d.phase_label || pretty(d.phase));
  if (d.round) phase += " · round " + d.round;
  if (d.outcome) phase = "Game over";
  $("#bar-phase").textContent = phase;
  renderTimer();
}

function renderBanner() {
  const b = $("#banner");
  let text = "", cls = "";
  if (!S.connected) { text = "Reconnecting to the table… (same Wi-Fi?)"; cls = "bad"; }
  else if (S.hubOnline === false) { text = "The table is offline. Your moves wait until it is back."; cls = "bad"; }
  if (changed("banner", text + cls)) { b.textContent = text; b.className = cls; }
}

export function renderPlayers() {
  const st = S.view || S.state;
  const box = $("#players");
  if (!st) { box.replaceChildren(); return; }
  const seats = (st.hub && st.hub.seats) || [];
  const ids = st.seat_ids || [];
  const names = st.players || seats.map((s) => s.name);
  const open = (st.windows || []).filter((w) => !w.revealed);
  const mySeat = S.view ? S.view.seat : (S.creds && S.creds.seat);
  const scores = names.map((_, i) => scoreOf(st, i));
  const sig = JSON.stringify([names, ids, seats, open.map((w) => [w.id, Object.keys(w.locked || {})]), st.waiting, S.presence, scores, mySeat]);
  if (!changed("players", sig)) return;
  const list = el("ul", { class: "players" });
  names.forEach((n, i) => {
    const sid = ids[i];
    const online = sid && sid in S.presence ? S.presence[sid] : !!(seats[i] && seats[i].online);
    const tags = [];
    if (i === mySeat) tags.push(el("span", { class: "tag you", text: "you" }));
    // a seat nobody has joined yet (a late joiner may still take it), in the game too
    if (!st.outcome && seats[i] && !seats[i].phone) tags.push(el("span", { class: "tag", text: "free seat" }));
    if (seats[i] && seats[i].phone && !online) tags.push(el("span", { class: "tag off", text: "disconnected" }));
    if (st.outcome) { /* the game is over: nobody is choosing or to play */ } else
    for (const w of open) if ((w.seats || []).includes(i)) tags.push(String(i) in (w.locked || {}) ? el("span", { class: "tag lock", text: "locked" }) : el("span", { class: "tag wait", text: "choosing" }));
    // to play: a seat the table waits for, unless its own sealed choice is open (as /watch)
    if (!st.outcome && !open.some((w) => (w.seats || []).includes(i)) && (st.waiting || []).includes(i)) tags.push(el("span", { class: "tag wait", text: "to play" }));
    list.append(el("li", { data: { seat: String(i) } }, el("span", { class: "dot" + (online ? " on" : "") }),
      el("span", { class: "pname", text: n }), scores[i] ? el("span", { class: "score", text: scores[i] }) : null, el("span", { class: "tags" }, tags)));
  });
  box.replaceChildren(el("h2", { text: "At the table" }), list);
}

function renderFeed() {
  const box = $("#feed");
  if (!box) return;
  const entries = storyOf(S.view, S.state);
  if (!changed("feed", JSON.stringify(entries))) return;
  box.replaceChildren(...(entries.length ? [el("h2", { text: "What happened" }), feedList(entries)] : []));
}
