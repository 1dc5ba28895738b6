/* Table Companion club page: every table of the club at once, for a wall screen.
 *
 * It logs in to the club broker over MQTT-over-WebSockets with the read-only viewer login
 * (GET /club/config) and reads only the public topics every box bridges to the club:
 *   tc/v1/<table>/state                  the public state (as the table's /watch draws it)
 *   tc/v1/<table>/hub/status             {"online": ...}: the hub's Last Will says offline
 *   tc/v1/<table>/seat/<seat>/presence   {"online": ...}: which phones are connected
 *   tc/v1/<table>/club/link              "1"/"0": the box's bridge to the club is up / down
 * One card per table, sorted by table id: the game, round and phase, the running timer, the
 * scores, who is connected, the winner once the game is over, and a table gone silent said so.
 * A message redraws its own card only (at most once a frame), so 100 tables stay cheap.
 * window.club = {tables: {...}} holds what was received, for people debugging and the tests.
 */
"use strict";
(function () {
  const $ = (sel) => document.querySelector(sel);
  // pending: messages received whose cards are not drawn yet (drawn at the next frame)
  const C = { tables: {}, config: null, connected: false, client: null, pending: false,
              allowed: new Set(), held: {}, asked: 0, loaded: false, connectedAt: 0 };
  window.club = C;
  const cards = new Map();          // table id -> {root, parts: {...}, sigs: {...}}
  const dirty = new Set();
  let frame = null;
  const TOPICS = ["tc/v1/+/state", "tc/v1/+/hub/status", "tc/v1/+/seat/+/presence", "tc/v1/+/club/link"];

  // -- small pieces (as the phone page's js/util.js has them) ------------------------------------
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) continue;
      if (k === "text") e.textContent = v;
      else if (k === "class") e.className = v;
      else if (k === "data") for (const [dk, dv] of Object.entries(v)) e.dataset[dk] = dv;
      else e.setAttribute(k, v);
    }
    for (const k of kids.flat()) {
      if (k === null || k === undefined || k === false) continue;
      e.append(k instanceof Node ? k : document.createTextNode(String(k)));
    }
    return e;
  }
  function pretty(id) {
    if (id === null || id === undefined) return "—";
    return String(id).replace(/[-_]+/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());
  }
  function mmss(s) {
    s = Math.max(0, Math.ceil(s));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  function localNow() { return performance.now() / 1000; }
  function rand(n) {
    const a = new Uint8Array(n);
    window.crypto.getRandomValues(a);
    return Array.from(a, (b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("");
  }
  // the score line of a seat, as the phone page and /watch show it
  function scoreOf(d, i) {
    const gv = d.game_view || {};
    if (gv.tokens && gv.tokens[i] && gv.tokens[i].vp !== undefined) return gv.tokens[i].vp + " VP";
    if (Array.isArray(gv.vp) && gv.vp[i] !== undefined) return gv.vp[i] + " VP";
    if (Array.isArray(gv.gdp) && gv.gdp[i] !== undefined) return gv.gdp[i] + " GDP";
    if (Array.isArray(gv.points) && gv.points[i] !== undefined) return gv.points[i] + " pts";
    if (Array.isArray(gv.earned) && gv.earned[i] !== undefined) return gv.earned[i] + " pts";   // Market Trading
    return null;
  }
  function gameTitle(d) {
    const gv = d.game_view || {};
    return gv.edition_title || (d.hub && d.hub.title) || d.title ||
      (d.hub && d.hub.game ? pretty(d.hub.game) : "No game chosen");
  }
  function names(d) {
    return d.players || ((d.hub && d.hub.seats) || []).map((s) => s.name);
  }

  // -- what was received --------------------------------------------------------------------
  function table(id) {
    let t = C.tables[id];
    if (!t) {
      t = C.tables[id] = { id: id, state: null, hub: null, presence: {}, link: null, last: 0, clock: null };
      makeCard(id);
    }
    return t;
  }
  function onMessage(topic, payload) {
    const parts = topic.split("/");
    if (parts.length < 4 || parts[0] !== "tc" || parts[1] !== "v1") return;
    const id = parts[2];
    // only the tables the organiser let in (a removed table's retained messages stay behind
    // at the broker; a table nobody let in has no login to publish with)
    if (!C.allowed.has(id)) {
      // kept until the list says yes (a table just let in) or no (one taken out); one ask
      // at a time, at most every two seconds
      if (!C.held[id]) C.held[id] = new Map();
      C.held[id].set(topic, payload);
      if (Object.keys(C.held).length > 1000) C.held = {};
      if (Date.now() - C.asked > 2000) { C.asked = Date.now(); refreshTables(); }
      return;
    }
    const rest = parts.slice(3);
    const text = new TextDecoder().decode(payload);
    const t = table(id);
    const kind = rest.join("/");
    if (kind === "club/link") {
      t.link = text.trim() === "0" ? false : text.trim() === "" ? null : true;
      if (t.link) t.last = Date.now();
      return touch(id);
    }
    let msg = null;
    if (text) {
      try { msg = JSON.parse(text); } catch (e) { return; }
      if (!msg || msg.v !== 1) return;
    }
    if (kind === "state") {
      if (msg && t.state && msg.session && msg.session === t.state.session &&
          typeof msg.rev === "number" && typeof t.state.rev === "number" && msg.rev < t.state.rev) return;   // older
      t.state = msg;
      if (msg && msg.session && typeof msg.now === "number") {
        // the table's session clock at performance.now(): the highest reading is the best
        // (a document's `now` says when it was sent; it may have waited, retained)
        const off = msg.now - localNow();
        if (!t.clock || t.clock.session !== msg.session || off > t.clock.off) t.clock = { session: msg.session, off: off };
      }
      t.last = Date.now();
    } else if (kind === "hub/status") {
      t.hub = msg;
      if (msg && msg.online) t.last = Date.now();       // (its Last Will is no sign of life)
    } else if (rest.length === 3 && rest[0] === "seat" && rest[2] === "presence") {
      if (msg) t.presence[rest[1]] = !!msg.online; else delete t.presence[rest[1]];
      t.last = Date.now();
    } else return;
    touch(id);
  }
  function touch(id) {
    dirty.add(id);
    C.pending = true;
    if (frame === null) frame = requestAnimationFrame(flush);
  }
  function flush() {
    frame = null;
    for (const id of dirty) renderCard(id);
    dirty.clear();
    C.pending = false;
    renderCount();
  }

  // -- silence --------------------------------------------------------------------------------
  // A table is silent when its bridge to the club is down (club/link "0"), its hub's Last Will
  // says offline, or nothing came from it for `quiet_after` seconds. Returns the words, or null.
  function silence(t, nowMs) {
    const quiet = ((C.config && C.config.quiet_after) || 120) * 1000;
    const since = t.last ? nowMs - t.last : null;
    const mins = since === null ? 0 : Math.floor(since / 60000);
    const forText = mins >= 1 ? "silent for " + mins + " min" : null;
    if (t.link === false) return { kind: "link", text: "link to the club lost" + (forText ? " · " + forText : "") };
    if (t.hub && t.hub.online === false) return { kind: "offline", text: "table offline" + (forText ? " · " + forText : "") };
    if (since !== null && since >= quiet) return { kind: "quiet", text: forText ? forText.charAt(0).toUpperCase() + forText.slice(1) : "Silent" };
    return null;
  }

  // -- the timer (drawn from its deadline on the table's session clock, as /watch does) ------
  // A state received live is as old as its way here; a retained one may be older (it was
  // sent when the table last changed) and its timer then reads long until the table's next
  // state: the page has no /clock of the table to ask, as a phone has.
  function activeTimer(d) {
    if (!d || !d.timers || d.outcome) return null;
    let best = null;
    for (const [name, t] of Object.entries(d.timers)) {
      if (!t || (t.deadline === null && !t.paused)) continue;
      if (!best || (!t.paused && best.t.paused) || (t.left < best.t.left && t.paused === best.t.paused)) best = { name: name, t: t };
    }
    return best;
  }
  function timerText(t, nowMs) {
    const d = t.state;
    const a = activeTimer(d);
    if (!a) { t.frozen = null; return null; }
    let left, note = null;
    if (silence(t, nowMs) && silence(t, nowMs).kind !== "quiet") {
      // a table that is gone does not count down: stop where it was
      if (!t.frozen || t.frozen.name !== a.name) t.frozen = { name: a.name, left: t.lastLeft !== undefined ? t.lastLeft : a.t.left };
      left = t.frozen.left;
      note = "stopped";
    } else {
      t.frozen = null;
      if (a.t.paused) { left = a.t.left; note = "paused"; } else if (typeof a.t.deadline === "number" && t.clock && t.clock.session === d.session) {
        left = Math.max(0, a.t.deadline - (localNow() + t.clock.off));
      } else left = a.t.left;
    }
    t.lastLeft = left;
    const warn = !note && left <= (a.t.warn_before || 0);
    return { digits: mmss(left), note: note, cls: (note ? "paused" : "") + (warn ? " warn" : "") + (left <= 0 && !note ? " up" : ""), name: a.name };
  }

  // -- the cards --------------------------------------------------------------------------------
  function makeCard(id) {
    const parts = {
      id: el("div", { class: "t-id", text: id }),
      status: el("div", { class: "t-status" }),
      game: el("div", { class: "t-game" }),
      phase: el("div", { class: "t-phase" }),
      timer: el("div", { class: "t-timer" }),
      players: el("ul", { class: "t-players" }),
      winner: el("div", { class: "t-winner", hidden: "" }),
    };
    const root = el("section", { class: "t-card", data: { table: id } },
      el("div", { class: "t-head" }, parts.id, parts.status),
      parts.game,
      el("div", { class: "t-line" }, parts.phase, parts.timer),
      parts.winner, parts.players);
    cards.set(id, { root: root, parts: parts, sigs: {} });
    // sorted by table id: before the first card whose id comes after this one
    const box = $("#club-tables");
    let before = null;
    for (const c of box.children) {
      if (c.dataset.table && c.dataset.table > id) { before = c; break; }
    }
    box.insertBefore(root, before);
    $("#club-empty").hidden = true;
    density();
  }
  // fewer tables, bigger cards: the grid gets denser as tables join
  function density() {
    const n = cards.size;
    document.body.dataset.density = n <= 6 ? "large" : n <= 24 ? "medium" : "dense";
  }
  function changed(card, key, sig) {
    if (card.sigs[key] === sig) return false;
    card.sigs[key] = sig;
    return true;
  }
  function renderCard(id) {
    const t = C.tables[id];
    const card = cards.get(id);
    if (!t || !card) return;
    const p = card.parts;
    const d = t.state;
    const now = Date.now();
    renderStatus(t, card, now);
    if (!d) {
      if (changed(card, "game", "")) { p.game.textContent = "Waiting for the table's state…"; p.phase.textContent = ""; }
      renderTimerOf(t, card, now);
      return;
    }
    const title = gameTitle(d);
    if (changed(card, "game", title)) p.game.textContent = title;
    let phase;
    if (d.outcome) phase = "Game over" + (d.round ? " · round " + d.round : "");
    else if (d.phase === "lobby") phase = d.hub && d.hub.game ? "Lobby: waiting for players" : "Choosing a game";
    else phase = (d.round ? "Round " + d.round + " · " : "") + (d.phase_label || pretty(d.phase));
    if (changed(card, "phase", phase)) { p.phase.textContent = phase; card.root.dataset.phase = d.phase || ""; }
    card.root.dataset.round = d.round === undefined || d.round === null ? "" : String(d.round);
    card.root.dataset.over = d.outcome ? "1" : "0";
    renderWinner(d, card);
    renderPlayers(t, card);
    renderTimerOf(t, card, now);
  }
  function renderStatus(t, card, now) {
    const s = silence(t, now);
    const text = s ? s.text : "live";
    if (!changed(card, "status", text)) return;
    card.parts.status.textContent = text;
    card.root.dataset.silent = s ? s.kind : "";
    card.root.classList.toggle("silent", !!s);
  }
  function renderWinner(d, card) {
    const o = d.outcome;
    const ns = names(d);
    const who = o ? (o.winners || []).map((s) => ns[s] || "Seat " + (s + 1)) : [];
    const text = o ? (who.length > 1 ? "Winners: " : "Winner: ") + (who.join(" and ") || "nobody") : "";
    if (!changed(card, "winner", text)) return;
    card.parts.winner.textContent = text;
    card.parts.winner.hidden = !o;
  }
  function online(t, d, i) {
    const sid = (d.seat_ids || [])[i];
    if (sid && sid in t.presence) return t.presence[sid];
    const seat = ((d.hub && d.hub.seats) || [])[i];
    return !!(seat && seat.online);
  }
  function renderPlayers(t, card) {
    const d = t.state;
    const ns = names(d);
    const o = d.outcome;
    const scores = ns.map((_, i) => (o && o.scores && String(i) in o.scores ? String(o.scores[String(i)]) : scoreOf(d, i)));
    const on = ns.map((_, i) => online(t, d, i));
    const won = ns.map((_, i) => !!(o && (o.winners || []).includes(i)));
    const sig = JSON.stringify([ns, scores, on, won]);
    if (!changed(card, "players", sig)) return;
    card.parts.players.replaceChildren(...ns.map((n, i) => el("li", { data: { seat: String(i), online: on[i] ? "1" : "0" }, class: won[i] ? "won" : null },
      el("span", { class: "t-dot" + (on[i] ? " on" : ""), title: on[i] ? "connected" : "not connected" }),
      el("span", { class: "t-name", text: n }),
      scores[i] ? el("span", { class: "t-score", text: scores[i] }) : null)));
    card.root.dataset.connected = String(on.filter(Boolean).length);
  }
  function renderTimerOf(t, card, now) {
    const x = t.state ? timerText(t, now) : null;
    const sig = x ? x.digits + "|" + x.note + "|" + x.cls : "";
    if (!changed(card, "timer", sig)) return;
    const box = card.parts.timer;
    if (!x) { box.replaceChildren(); box.className = "t-timer"; delete box.dataset.timer; return; }
    const kids = [el("span", { class: "digits", text: x.digits })];
    if (x.note) kids.push(el("span", { class: "t-note", text: x.note }));
    box.replaceChildren(...kids);
    box.className = "t-timer " + x.cls;
    box.dataset.timer = x.name;
  }
  function renderCount() {
    const all = Object.values(C.tables);
    const silent = all.filter((t) => silence(t, Date.now())).length;
    const text = all.length + (all.length === 1 ? " table" : " tables") + (silent ? " · " + silent + " silent" : "");
    // the first burst of retained messages can take a while over mosquitto's WebSockets (100
    // tables: about 17 s, docs/club.md): say so until every table let in was heard from
    if (C.connected && !C.loaded) {
      const want = C.allowed.size;
      const heard = all.filter((t) => t.state || t.hub).length;
      if (heard >= want || Date.now() - C.connectedAt > 30000) {
        C.loaded = true;
        document.body.dataset.loaded = "1";
      } else {
        $("#club-count").textContent = "Loading the tables… " + heard + " of " + want;
        return;
      }
    }
    $("#club-count").textContent = C.connected || all.length ? text : "Connecting…";
  }
  // the tables let in, asked again now and then: one let in appears, one taken out goes
  async function refreshTables() {
    try {
      const r = await fetch("/club/tables", { cache: "no-store" });
      const got = await r.json();
      if (!r.ok || !got || !Array.isArray(got.tables)) return;
      C.allowed = new Set(got.tables);
      const held = C.held;
      C.held = {};
      for (const id of Object.keys(held)) {
        if (!C.allowed.has(id)) continue;
        for (const [topic, payload] of held[id]) onMessage(topic, payload);
      }
      for (const id of Object.keys(C.tables)) {
        if (C.allowed.has(id)) continue;
        delete C.tables[id];
        const card = cards.get(id);
        if (card) { card.root.remove(); cards.delete(id); }
        dirty.delete(id);
      }
      $("#club-empty").hidden = cards.size > 0;
      density();
      renderCount();
    } catch (e) { /* the club server restarts: next time */ }
  }

  // the clocks run and silence grows without messages: timers each half second, the rest
  // (status, the count) each five seconds; each card only when its words change
  let ticks = 0;
  setInterval(() => {
    const now = Date.now();
    ticks += 1;
    for (const [id, card] of cards) {
      const t = C.tables[id];
      if (ticks % 10 === 0) renderStatus(t, card, now);
      renderTimerOf(t, card, now);
    }
    if (ticks % 10 === 0) renderCount();
  }, 500);

  // -- the connection -----------------------------------------------------------------------------
  function setConn(kind, text) {
    $("#club-conn").className = "conn " + kind;
    $("#club-conn-text").textContent = text;
  }
  async function start() {
    let cfg;
    for (let wait = 1000; ; wait = Math.min(wait * 2, 15000)) {
      try {
        const r = await fetch("/club/config", { cache: "no-store" });
        cfg = await r.json();
        if (r.ok && cfg && cfg.ws_url) break;
      } catch (e) { /* the club server restarts: try again */ }
      setConn("off", "no club server");
      await new Promise((ok) => setTimeout(ok, wait));
    }
    C.config = cfg;
    $("#club-name").textContent = cfg.name || "The club";
    document.title = (cfg.name || "The club") + ": Table Companion";
    C.allowed = new Set(cfg.tables || []);
    setInterval(refreshTables, 10000);
    setConn("wait", "connecting");
    const client = window.mqtt.connect(cfg.ws_url, {
      protocolVersion: 4, clean: true, keepalive: 30, reconnectPeriod: 2000, connectTimeout: 8000,
      username: cfg.username, password: cfg.password, clientId: "club-page-" + rand(10),
    });
    C.client = client;
    client.on("connect", () => {
      C.connected = true;
      if (!C.connectedAt) C.connectedAt = Date.now();
      setConn("on", "live");
      // QoS 0: every topic read here is retained, so a reconnect (clean session) gets each
      // table's latest anew; QoS 1 would have the broker wait for the page's ack of every
      // message of the first burst (100 tables: several seconds on a small box)
      client.subscribe(TOPICS, { qos: 0 });
      renderCount();
    });
    client.on("message", (topic, payload) => onMessage(topic, payload));
    client.on("close", () => { C.connected = false; setConn("off", "reconnecting"); });
    client.on("error", () => setConn("off", "cannot log in"));
  }
  start();
})();
