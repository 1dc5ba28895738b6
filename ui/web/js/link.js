/* The seat's link to the table: the join screen and joining over HTTP (protocol section 9: a name
 * and the room code, a handover code, or the stored token to reclaim the seat), then MQTT 3.1.1
 * over WebSockets with mqtt.js (vendor/, `window.mqtt`): presence with a Last Will, reconnecting
 * and reclaiming when the table restarts or moves ports, and every message from the table: the
 * public `state` and this seat's `view` (retained, whole documents, the newest kept by `rev`),
 * replies, events (lock-ins and withdrawals for the commitment book, timer warnings) and
 * presence. The seat's token is kept in localStorage; the MQTT password only in memory. */

import { $, el, load, post, rand, save, toast, vibrate } from "./util.js";
import { DEV, KEEPALIVE, PARAMS, S, stale, STORE } from "./state.js";
import { commitsChanged, commitsFor, keptOf, noteCommitments, noteLock } from "./book.js";
import { fetchClock, noteClock, noticeMoments, timeUp } from "./clock.js";
import { renderReveal } from "./reveal.js";
import { onReply, publishCommand } from "./act.js";
import { render, renderPlayers } from "./render.js";

export function showJoin(message) {
  $("#join-screen").hidden = false;
  $("#game-screen").hidden = true;
  $("#bar-phase").textContent = "Join";
  const room = PARAMS.get("room");
  if (room && !$("#join-room").value) $("#join-room").value = room.toUpperCase();
  const stored = load(STORE, null);
  if (stored && stored.name) $("#join-name").value = stored.name;
  $("#join-error").textContent = message || "";
  if (!$("#join-name").value) $("#join-name").focus();
}
export function showGame() {
  $("#join-screen").hidden = true;
  $("#game-screen").hidden = false;
}

const postJoin = (body) => post("/join", body);
function adopt(creds) {
  if (S.draftSeat !== undefined && S.draftSeat !== null && S.draftSeat !== creds.seat) { S.answers = {}; S.openMove = {}; }
  S.draftSeat = creds.seat;
  S.creds = creds;
  save(STORE, { token: creds.token, table: creds.table, name: creds.name, seat: creds.seat });
  showGame();
  connect();
}
function joinMessage(e, name) {
  if (e.code === "name_taken") {
    return "Someone at this table is already called " + (name || "that") + ". If that is you on a new " +
      "phone: tap your seat on the table screen, choose “Move to a new phone” and scan the code it " +
      "shows with this phone. Otherwise pick another name.";
  }
  return e.message || "Could not reach the table. Same Wi-Fi?";
}
// seat: a seat whose phone is offline, chosen from the table_full answer (section 9.3)
export async function join(name, room, seat) {
  $("#join-button").disabled = true;
  $("#join-error").textContent = "";
  try {
    adopt(await postJoin(seat === undefined ? { name: name, room: room } : { name: name, room: room, seat: seat }));
  } catch (e) {
    $("#join-error").textContent = joinMessage(e, name);
    for (const s of e.seats || []) {
      $("#join-error").append(el("button", { type: "button", class: "big", "data-seat": String(s.seat),
        text: "Take " + s.name + "’s seat", onclick: () => join(name, room, s.seat) }));
    }
  } finally {
    $("#join-button").disabled = false;
  }
}
// a seat handed over from the table screen: /?seat=<code> (the code works once)
export async function claimHandover(code) {
  history.replaceState(null, "", location.pathname + (DEV ? "?dev=1" : ""));
  setConn("wait", "joining");
  try {
    const creds = await postJoin({ handover: code });
    dropClient();
    adopt(creds);
    toast("This phone now has " + (creds.name || "your") + "’s seat.");
  } catch (e) {
    const stored = load(STORE, null);
    if (stored && stored.token) { showGame(); reclaim(); toast(e.message); }
    else showJoin(e.message || "That seat code did not work; ask the table for a new one.");
  }
}
function moved(e) {
  return e.status === 404 && (/moved/i.test(String(e.code || "")) || /moved/i.test(String(e.message || "")));
}
let reclaimDelay = 500;
export async function reclaim() {
  const stored = load(STORE, null);
  if (!stored || !stored.token) { showJoin(); return; }
  if (S.reclaiming) return;
  S.reclaiming = true;
  setConn("wait", "reclaiming");
  try {
    const creds = await postJoin({ token: stored.token });
    reclaimDelay = 500;
    S.reclaiming = false;
    adopt(creds);
  } catch (e) {
    S.reclaiming = false;
    if (e.status === 404 || e.status === 400) {
      save(STORE, { name: stored.name });
      dropClient();
      S.state = S.view = null;
      setConn("off", "no seat");
      showJoin(moved(e) ? "Your seat moved to another phone. To play here again, ask the table to move it back." : e.message);
    } else {            // the table is restarting or out of reach: try again, gently
      setConn("off", "table unreachable");
      reclaimDelay = Math.min(reclaimDelay * 2, 5000);
      setTimeout(reclaim, reclaimDelay);
    }
  }
}

function dropClient() {
  if (S.client) {
    const c = S.client;
    S.client = null;
    try { c.end(true); } catch (e) { /* already gone */ }
  }
  S.connected = false;
}
function setConn(kind, text) {
  const c = $("#bar-conn");
  c.className = "conn " + kind;
  $("#conn-text").textContent = text;
}
function connect() {
  dropClient();
  const c = S.creds;
  S.failures = 0;
  setConn("wait", "connecting");
  const client = window.mqtt.connect(c.ws_url, {
    protocolVersion: 4, clean: true, keepalive: KEEPALIVE, reconnectPeriod: 1000,
    connectTimeout: 5000, username: c.username, password: c.password,
    clientId: c.seat_id + "-" + rand(8), resubscribe: false,
    will: { topic: c.topics.presence, payload: '{"v":1,"online":false}', qos: 1, retain: true },
  });
  S.client = client;
  client.on("connect", () => {
    if (S.client !== client) return;
    S.connected = true;
    S.failures = 0;
    S.authFails = 0;
    setConn("on", "live");
    const t = c.topics;
    client.subscribe([t.state, t.events, t.hub_status, t.all_presence, t.view, t.reply], { qos: 1 });
    client.publish(t.presence, '{"v":1,"online":true}', { qos: 1, retain: true });
    if (S.pending) publishCommand(S.pending);       // no reply yet: same tx again
    S.clock = null;                                  // the table may have restarted:
    fetchClock();                                    // read its clock afresh
    render();
  });
  client.on("message", (topic, payload, packet) => {
    if (S.client !== client) return;
    onMessage(topic, payload, !!(packet && packet.retain));
  });
  client.on("error", (err) => {
    if (S.client !== client) return;
    const code = err && err.code;
    if (code === 4 || code === 5 || code === 134 || code === 135 ||
        /not authori[sz]ed|bad user/i.test(String(err && err.message))) {
      // a restarted table or a reclaim elsewhere: this password is gone; ask for a new one
      dropClient();
      S.authFails += 1;
      setTimeout(reclaim, S.authFails > 1 ? 1500 : 0);
    }
  });
  client.on("close", () => {
    if (S.client !== client) return;
    S.connected = false;
    S.failures += 1;
    setConn(S.failures > 1 ? "off" : "wait", "reconnecting");
    render();
    if (S.failures >= 4) {        // the table may have moved ports: reclaim gives the new URL
      dropClient();
      reclaim();
    }
  });
}

function onMessage(topic, payload, retained) {
  let msg;
  try { msg = JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return; }
  if (!msg || msg.v !== 1) return;
  const t = S.creds.topics;
  if (topic === t.state) {
    if (stale(S.state, msg)) return;
    S.state = msg;
    S.stateAt = performance.now();
    noteClock(msg, retained);
    noteCommitments(msg);
    noticeMoments(msg);
    render();
  } else if (topic === t.view) {
    if (stale(S.view, msg)) return;
    privateSays(msg, S.view);
    S.view = msg;
    S.viewAt = performance.now();
    noteClock(msg, retained);
    noteCommitments(msg);
    noticeMoments(msg);
    render();
  } else if (topic === t.reply) {
    onReply(msg);
  } else if (topic === t.events) {
    onEvent(msg);
  } else if (topic === t.hub_status) {
    S.hubOnline = !!msg.online;
    if (msg.online && msg.boot) {
      // a new boot id: the table started again since this page last heard from it
      if (S.boot && S.boot !== msg.boot) toast("The table restarted.");     // (its story says so)
      if (S.boot !== msg.boot) { S.clock = null; fetchClock(); }
      S.boot = msg.boot;
    }
    render();
  } else if (topic.endsWith("/presence")) {
    const sid = topic.split("/").slice(-2)[0];
    S.presence[sid] = !!msg.online;
    renderPlayers();
  }
}

// A notice addressed to this seat that says itself in words ("Bo played Assassination on
// you: ..."), from a view newer than the one shown: a toast (the feed is the documents'
// story, which holds it too).
function privateSays(v, shown) {
  if (!v.notices || typeof v.rev !== "number") return;
  if (shown && shown.session === v.session && typeof shown.rev === "number" && v.rev <= shown.rev) return;
  for (const n of v.notices) {
    if (n.to === undefined || typeof n.says !== "string") continue;
    toast(n.says);
    vibrate([60, 40, 60]);
  }
}
function onEvent(ev) {
  // (what happened, in words, is in the documents' story: the feed draws that)
  const mine = S.view && S.view.seat;
  const session = (S.state && S.state.session) || (S.view && S.view.session);
  if (ev.type === "ChoiceLocked") {
    if (session) {
      const book = commitsFor(session);
      const page = book[ev.window] = book[ev.window] || {};
      noteLock(page, String(ev.seat), ev.commitment, ev.rev);
      commitsChanged();
      renderReveal();
    }
  } else if (ev.type === "ChoiceWithdrawn") {
    // the table undid this lock-in: forget its commitment (only the one announced); the seat
    // chooses again, and its new lock-in comes with a new commitment
    if (session) {
      const page = commitsFor(session)[ev.window] || {};
      const k = keptOf(page[String(ev.seat)]);
      if (k && k.c === ev.commitment) delete page[String(ev.seat)];
      commitsChanged();
      renderReveal();
    }
    if (ev.seat === mine) {
      toast("The table undid your lock-in. Choose again.");
      vibrate([60, 40, 60]);
    }
  } else if (ev.type === "ChoicesRevealed") {
    toast("Revealed!");
    vibrate([60, 40, 60]);
  } else if (ev.type === "TimerWarning") {
    toast("30 seconds left!");
    vibrate([100, 60, 100]);
  } else if (ev.type === "TimerExpired") {
    timeUp(ev.timer);
  }
}
