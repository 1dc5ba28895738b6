/* Table Companion phone page (protocol v1, docs/protocol.md).
 *
 * Join over HTTP (POST /join), then MQTT 3.1.1 over WebSockets with mqtt.js (vendor/). The hub
 * publishes the public `state` and this seat's own `view` (retained, whole documents); the page
 * draws from them and sends moves on its `cmd` topic with a fresh `tx`, shown as answered when
 * the `reply` with the same `tx` comes back. Sealed choices show their commitment fingerprint
 * at lock-in and every reveal is checked against the commitments announced before it
 * (SHA-256 from vendor/sha256.js: crypto.subtle does not exist on plain http).
 *
 * The seat's token is kept in localStorage (a reload or a restarted table reclaims the seat);
 * the MQTT password only in memory.
 */
"use strict";
(function () {
  const KEEPALIVE = 2;            // s: the broker notices a vanished phone within ~3-5 s
  const STORE = "tc.seat." + location.host;
  const COMMITS = "tc.commits." + location.host;
  const TRAITS = ["industry", "population", "nationalism", "navy", "army", "colony"];
  const LEADERS = { usa: "USA", eu: "European Union", china: "China", russia: "Russia",
    india: "India", brazil: "Brazil" };

  // -- small helpers ---------------------------------------------------------------------------
  const $ = (sel) => document.querySelector(sel);
  function el(tag, props, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "data") Object.assign(e.dataset, v);
      else if (k in e && typeof v !== "string") e[k] = v;
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const k of kids.flat()) {
      if (k === null || k === undefined || k === false) continue;
      e.append(k instanceof Node ? k : document.createTextNode(String(k)));
    }
    return e;
  }
  function pretty(id) {
    if (id === null || id === undefined) return "—";
    if (typeof id !== "string") return String(id);
    if (LEADERS[id]) return LEADERS[id];
    return id.replace(/[-_]+/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());
  }
  function rand(n) {
    const a = new Uint8Array(n);
    (window.crypto || window.msCrypto).getRandomValues(a);
    return Array.from(a, (b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("");
  }
  function mmss(s) {
    s = Math.max(0, Math.ceil(s));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }
  function fingerprint(hex) {
    return (hex || "").slice(0, 16).replace(/(.{4})/g, "$1 ").trim();
  }
  function load(key, fallback) {
    try { return JSON.parse(localStorage.getItem(key)) || fallback; } catch (e) { return fallback; }
  }
  function save(key, value) {
    try { localStorage.setItem(key, JSON.stringify(value)); } catch (e) { /* private mode */ }
  }

  // -- the commitment recipe (protocol section 4.4) ----------------------------------------------
  function canonical(v) {
    if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
    if (v !== null && typeof v === "object") {
      return "{" + Object.keys(v).sort()
        .map((k) => JSON.stringify(k) + ":" + canonical(v[k])).join(",") + "}";
    }
    return JSON.stringify(v);
  }
  function commitment(windowId, seat, choice, salt) {
    return window.sha256(canonical({ choice: choice, salt: salt, seat: seat, window: windowId }));
  }

  // -- state -------------------------------------------------------------------------------------
  const S = {
    creds: null, client: null, connected: false, hubOnline: null,
    state: null, view: null, viewAt: 0, presence: {},
    pending: null, result: null, draft: {}, sigs: {},
    commits: load(COMMITS, {}), feed: [], authFails: 0, failures: 0, reclaiming: false,
    awake: false, txPrefix: rand(6), txN: 0, lastPromptSig: null, seenReveal: {},
  };
  window.tc = S;       // for people debugging at the table (and the browser tests)

  // -- screens -----------------------------------------------------------------------------------
  function showJoin(message) {
    $("#join-screen").hidden = false;
    $("#game-screen").hidden = true;
    $("#bar-phase").textContent = "Join";
    const room = new URLSearchParams(location.search).get("room");
    if (room && !$("#join-room").value) $("#join-room").value = room.toUpperCase();
    const stored = load(STORE, null);
    if (stored && stored.name && !$("#join-name").value) $("#join-name").value = stored.name;
    $("#join-error").textContent = message || "";
    if (!$("#join-name").value) $("#join-name").focus();
  }
  function showGame() {
    $("#join-screen").hidden = true;
    $("#game-screen").hidden = false;
  }
  let toastTimer = null;
  function toast(text) {
    const t = $("#toast");
    t.textContent = text;
    t.classList.add("show");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => t.classList.remove("show"), 2600);
  }
  function addFeed(text) {
    S.feed.unshift(text);
    S.feed.length = Math.min(S.feed.length, 6);
    renderFeed();
  }

  // -- joining (protocol section 9) --------------------------------------------------------------
  async function postJoin(body) {
    const r = await fetch("/join", { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(Object.assign({ v: 1 }, body)), cache: "no-store" });
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    if (!r.ok) {
      const err = new Error((data && data.error && data.error.message) || ("The table answered " + r.status + "."));
      err.code = data && data.error && data.error.code;
      err.status = r.status;
      throw err;
    }
    return data;
  }
  function adopt(creds) {
    S.creds = creds;
    save(STORE, { token: creds.token, table: creds.table, name: creds.name, seat: creds.seat });
    showGame();
    connect();
  }
  async function join(name, room) {
    $("#join-button").disabled = true;
    $("#join-error").textContent = "";
    try {
      adopt(await postJoin({ name: name, room: room }));
    } catch (e) {
      $("#join-error").textContent = e.message || "Could not reach the table. Same Wi-Fi?";
    } finally {
      $("#join-button").disabled = false;
    }
  }
  let reclaimDelay = 500;
  async function reclaim() {
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
        showJoin(e.message);
      } else {            // the table is restarting or out of reach: try again, gently
        setConn("off", "table unreachable");
        reclaimDelay = Math.min(reclaimDelay * 2, 5000);
        setTimeout(reclaim, reclaimDelay);
      }
    }
  }

  // -- MQTT ----------------------------------------------------------------------------------------
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
      render();
    });
    client.on("message", (topic, payload) => {
      if (S.client !== client) return;
      onMessage(topic, payload);
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

  // A retained document is whole; keep the newest. `rev` (the session log's length) only grows,
  // even across an undo, a correction or a resume, while `seq` goes back on an undo: compare
  // `rev` only (protocol section 6). An equal `rev` replaces (lobby facts, presence, alerts
  // change without a new record); a new session replaces whatever was shown.
  function stale(shown, msg) {
    return !!(shown && msg.session && msg.session === shown.session &&
      typeof msg.rev === "number" && typeof shown.rev === "number" && msg.rev < shown.rev);
  }
  function onMessage(topic, payload) {
    let msg;
    try { msg = JSON.parse(new TextDecoder().decode(payload)); } catch (e) { return; }
    if (!msg || msg.v !== 1) return;
    const t = S.creds.topics;
    if (topic === t.state) {
      if (stale(S.state, msg)) return;
      S.state = msg;
      noteCommitments(msg);
      render();
    } else if (topic === t.view) {
      if (stale(S.view, msg)) return;
      S.view = msg;
      S.viewAt = performance.now();
      noteCommitments(msg);
      render();
    } else if (topic === t.reply) {
      onReply(msg);
    } else if (topic === t.events) {
      onEvent(msg);
    } else if (topic === t.hub_status) {
      S.hubOnline = !!msg.online;
      render();
    } else if (topic.endsWith("/presence")) {
      const sid = topic.split("/").slice(-2)[0];
      S.presence[sid] = !!msg.online;
      renderPlayers();
    }
  }

  // -- commands -----------------------------------------------------------------------------------
  function publishCommand(cmd) {
    if (!S.client || !S.connected) return;
    S.client.publish(S.creds.topics.cmd, JSON.stringify({ v: 1, tx: cmd.tx, move: cmd.move, args: cmd.args }), { qos: 1 });
  }
  function send(move, args, label) {
    if (S.pending && performance.now() - S.pending.at < 8000) {
      toast("Still sending your last move…");
      return;
    }
    S.txN += 1;
    S.pending = { tx: S.txPrefix + "-" + S.txN, move: move, args: args || {}, at: performance.now(), label: label || pretty(move) };
    S.result = null;
    publishCommand(S.pending);
    renderAct(true);
  }
  function onReply(msg) {
    if (!S.pending || msg.tx !== S.pending.tx) {
      if (msg.tx === null && msg.error) { S.result = { ok: false, message: msg.error.message }; renderAct(true); }
      return;
    }
    const p = S.pending;
    S.pending = null;
    if (msg.ok) {
      S.result = { ok: true, message: p.label + ": sent." };
      S.draft = {};
      if (navigator.vibrate) navigator.vibrate(30);
    } else {
      S.result = { ok: false, message: (msg.error && msg.error.message) || "The table refused that." };
    }
    renderAct(true);
  }

  // -- events and commitments ---------------------------------------------------------------------
  function commitsFor(session) {
    if (!S.commits[session]) {
      // keep the store small: only the sessions this phone is playing
      const keys = Object.keys(S.commits);
      if (keys.length > 3) delete S.commits[keys[0]];
      S.commits[session] = {};
    }
    return S.commits[session];
  }
  function noteCommitments(doc) {
    if (!doc.session || !doc.windows) return;
    const book = commitsFor(doc.session);
    let changed = false;
    for (const w of doc.windows) {
      if (w.revealed) continue;
      for (const [seat, item] of Object.entries(w.locked || {})) {
        if (!item.commitment) continue;
        book[w.id] = book[w.id] || {};
        if (!book[w.id][seat]) { book[w.id][seat] = item.commitment; changed = true; }
      }
    }
    if (changed) save(COMMITS, S.commits);
  }
  function playerName(seat) {
    const doc = S.view || S.state;
    const names = (doc && doc.players) || [];
    return names[seat] || ("Seat " + (Number(seat) + 1));
  }
  function onEvent(ev) {
    const mine = S.view && S.view.seat;
    if (ev.type === "ChoiceLocked") {
      const session = (S.state && S.state.session) || (S.view && S.view.session);
      if (session) {
        const book = commitsFor(session);
        book[ev.window] = book[ev.window] || {};
        if (!book[ev.window][ev.seat]) { book[ev.window][ev.seat] = ev.commitment; save(COMMITS, S.commits); }
        S.sigs.reveal = null;          // a reveal drawn before this lock-in arrived: check again
        renderReveal();
      }
      if (ev.seat !== mine) addFeed(playerName(ev.seat) + " locked in.");
    } else if (ev.type === "ChoicesRevealed") {
      toast("Revealed!");
      const w = ((doc() && doc().windows) || []).find((x) => x.id === ev.window);
      addFeed("Revealed: " + ((w && w.label) || ev.window) + ".");
      if (navigator.vibrate) navigator.vibrate([60, 40, 60]);
    } else if (ev.type === "PhaseBegan") {
      addFeed("Phase: " + pretty(ev.phase) + (ev.round ? " (round " + ev.round + ")" : ""));
    } else if (ev.type === "TimerWarning") {
      toast("30 seconds left!");
      if (navigator.vibrate) navigator.vibrate([100, 60, 100]);
    } else if (ev.type === "TimerExpired") {
      addFeed("Time is up.");
    }
  }
  function verifyWindow(session, w) {
    const book = (S.commits[session] || {})[w.id] || {};
    const out = {};
    for (const [seat, item] of Object.entries(w.locked || {})) {
      if (item.defaulted) { out[seat] = { cls: "none", text: "default: made no choice" }; continue; }
      if (typeof item.salt !== "string" || item.salt.length < 32) { out[seat] = { cls: "bad", text: "✗ no salt" }; continue; }
      const got = commitment(w.id, Number(seat), item.choice, item.salt);
      const seen = book[seat];
      if (seen) out[seat] = got === seen ? { cls: "good", text: "✓ verified" } : { cls: "bad", text: "✗ changed after lock-in!" };
      else out[seat] = got === item.commitment ? { cls: "none", text: "✓ consistent (lock-in not seen here)" } : { cls: "bad", text: "✗ does not match!" };
    }
    return out;
  }

  // -- rendering ------------------------------------------------------------------------------------
  function doc() { return S.view || S.state; }
  function render() {
    renderBar();
    renderBanner();
    renderMe();
    renderAct(false);
    renderReveal();
    renderPlayers();
    updateWakeLock();
  }
  function changed(key, sig) {
    if (S.sigs[key] === sig) return false;
    S.sigs[key] = sig;
    return true;
  }

  function activeTimer() {
    const d = doc();
    if (!d || !d.timers) return null;
    let best = null;
    for (const [name, t] of Object.entries(d.timers)) {
      if (t.deadline === null && !t.paused) continue;
      if (!best || (!t.paused && best.t.paused) || (t.left < best.t.left && t.paused === best.t.paused)) best = { name: name, t: t };
    }
    return best;
  }
  function timerLeft(t) {
    if (t.paused) return t.left;
    return t.left - (performance.now() - S.viewAt) / 1000;
  }
  function renderTimer() {
    const box = $("#bar-timer");
    const a = activeTimer();
    if (!a) { box.textContent = ""; box.className = ""; return; }
    const left = timerLeft(a.t);
    box.textContent = mmss(left);
    box.className = (a.t.paused ? "paused" : "") + (left <= (a.t.warn_before || 0) ? " warn" : "");
  }
  function renderBar() {
    const d = doc();
    if (!d) return;
    const title = d.title || (d.hub && d.hub.game ? pretty(d.hub.game) : "Table Companion");
    $("#bar-title").textContent = title + (S.creds ? " · " + S.creds.table : "");
    let phase = d.phase === "lobby" ? "Lobby" : (d.phase_label || pretty(d.phase));
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
    else if (S.view && S.view.outcome) {
      const o = S.view.outcome;
      text = "Winner: " + o.winners.map(playerName).join(", ") + (o.reason ? " — " + o.reason : "");
      cls = "good";
    }
    if (changed("banner", text + cls)) { b.textContent = text; b.className = cls; }
  }

  function stat(k, v, big) {
    return el("div", { class: "stat" + (big ? " big" : "") }, el("div", { class: "k", text: k }), el("div", { class: "v", text: String(v) }));
  }
  function renderMe() {
    const v = S.view;
    const box = $("#me");
    if (!v) { box.replaceChildren(); return; }
    const gv = v.game_view || {};
    const sig = JSON.stringify([v.seat, v.players, v.private, v.hub && v.hub.seats, v.game,
      v.game === "battle-builder" ? [gv.vp, gv.battles_now] : null]);
    if (!changed("me", sig)) return;
    const seat = v.seat;
    const name = (v.players && v.players[seat]) || (v.hub && v.hub.seats && v.hub.seats[seat] && v.hub.seats[seat].name) || (S.creds && S.creds.name);
    const kids = [el("div", { class: "who" }, el("span", { class: "name", text: name || "You" }),
      el("span", { class: "muted small", text: "seat " + (seat + 1) }))];
    const p = v.private || {};
    const game = v.game || (v.hub && v.hub.game);
    if (v.phase === "lobby") {
      kids.push(el("p", { class: "hint", text: "You are in. The game starts when the table is ready." }));
    } else if (game === "great-powers" && p.tokens) {
      const stats = el("div", { class: "stats" }, stat("VP", p.tokens.vp, true));
      for (const t of TRAITS) if (t in p.tokens) stats.append(stat(pretty(t), p.tokens[t]));
      kids.push(stats);
      if (p.next_event) kids.push(el("p", { class: "small" }, el("b", { text: "Next event (only you know): " }), p.next_event.name + " — " + p.next_event.text));
    } else if (game === "trade-warz") {
      const stats = el("div", { class: "stats" }, stat("GDP", p.gdp, true));
      if (p.budget !== undefined && p.budget !== p.gdp) stats.append(stat("Budget", p.budget));
      const hand = p.hand || [];
      stats.append(stat("Hand", hand.length + (p.leader ? " / " + p.leader.hand_size : "")));
      if (p.slots_left !== null && p.slots_left !== undefined) stats.append(stat("Export slots", p.slots_left));
      kids.push(stats);
      if (p.leader) kids.push(el("p", { class: "small" }, el("b", { text: p.leader.name + ": " }), (p.leader.ability || "") + (p.leader.text ? " — " + p.leader.text : "")));
      if (hand.length) {
        const list = el("ul", { class: "hand" });
        for (const c of hand) list.append(el("li", {}, el("span", { class: "kind " + (c.kind || ""), text: c.kind || "card" }),
          el("b", { text: c.name }), c.cost_now !== undefined ? el("span", { class: "muted small", text: "  cost " + c.cost_now }) : null,
          c.text ? el("div", { class: "card-text", text: c.text }) : null));
        kids.push(el("details", {}, el("summary", { text: "Your hand (" + hand.length + " cards)" }), list));
      }
      if (p.facedown && p.facedown.length) kids.push(el("p", { class: "small muted", text: "Face-down Exports: " + p.facedown.map((f) => (f.name || "?") + " → " + pretty(f.partner) + " " + f.slot).join(", ") }));
    } else if (game === "battle-builder") {
      const gv = v.game_view || {};
      const stats = el("div", { class: "stats" });
      if (gv.vp) stats.append(stat("VP", gv.vp[seat], true));
      const fight = (gv.battles_now || []).map((b) => (b.fighters || {})[String(seat)]).find((f) => f);
      if (fight) stats.append(stat("HP", fight.hp + " / " + fight.max_hp), stat("Stamina", fight.stamina));
      for (const [k, n] of Object.entries(p.tokens || {})) stats.append(stat(pretty(k), n));
      kids.push(stats);
      if (p.objective) kids.push(el("p", { class: "small" }, el("b", { text: "Secret objective: " }), p.objective.name + " — " + p.objective.text));
    } else {
      kids.push(genericPrivate(p));
    }
    box.replaceChildren(...kids);
  }
  function genericPrivate(p) {
    const stats = el("div", { class: "stats" });
    const more = [];
    for (const [k, val] of Object.entries(p || {})) {
      if (val === null || val === undefined) continue;
      if (typeof val === "number" || typeof val === "string" || typeof val === "boolean") stats.append(stat(pretty(k), val));
      else if (Array.isArray(val)) {
        if (!val.length) continue;
        stats.append(stat(pretty(k), val.length));
        more.push(el("details", {}, el("summary", { text: pretty(k) + " (" + val.length + ")" }),
          el("ul", { class: "hand" }, val.map((x) => el("li", { text: describe(x) })))));
      } else if (typeof val === "object") {
        const entries = Object.entries(val);
        if (entries.every(([, x]) => typeof x === "number")) for (const [kk, x] of entries) stats.append(stat(pretty(kk), x));
        else more.push(el("p", { class: "small" }, el("b", { text: pretty(k) + ": " }), describe(val)));
      }
    }
    return el("div", {}, stats, more);
  }
  function describe(x) {
    if (x === null || x === undefined) return "—";
    if (typeof x !== "object") return pretty(x);
    if (Array.isArray(x)) return x.map(describe).join(" → ");
    if (x.name) return x.name + (x.text ? " — " + x.text : "");
    return Object.entries(x).map(([k, v]) => pretty(k) + ": " + describe(v)).join(", ");
  }

  // the choice of one sealed window, in words
  function choiceText(game, w, choice) {
    if (choice === null || choice === undefined) return "none";
    if (game === "great-powers" && Array.isArray(choice)) return choice.length ? choice.map(pretty).join(" → ") : "no bids";
    if (typeof choice === "object" && !Array.isArray(choice)) {
      if (choice.leader) return pretty(choice.leader) + (choice.ranking && choice.ranking.length ? " (then " + choice.ranking.map(pretty).join(", ") + ")" : "");
      if ("card" in choice && "stamina" in choice) return pretty(choice.card) + " + " + choice.stamina + " stamina" + (choice.target !== undefined && choice.target !== null ? " → monster " + (Number(choice.target) + 1) : "");
      if ("monster" in choice) return pretty(choice.monster);
      if ("card" in choice) return (choice.card ? cardName(choice.card) : "no card") + (choice.fast_pass ? " + Fast-Pass" : "") + (choice.partner ? " → " + pretty(choice.partner) : "");
      if ("amount" in choice) return choice.amount + " GDP";
    }
    if (typeof choice === "number" && w && w.kind === "bid") return choice + " GDP";
    return describe(choice);
  }
  function cardName(id) {
    const hand = (S.view && S.view.private && S.view.private.hand) || [];
    const c = hand.find((x) => x.id === id);
    return c ? c.name : pretty(id);
  }

  // -- acting ---------------------------------------------------------------------------------------
  function openLocks(v) {
    return (v.windows || []).filter((w) => !w.revealed && w.locked && w.locked[String(v.seat)] && w.locked[String(v.seat)].choice !== undefined);
  }
  function renderAct(force) {
    const v = S.view;
    const box = $("#act");
    if (!v) { box.replaceChildren(el("p", { class: "waiting", text: "Connecting to the table…" })); return; }
    // redraw only when what this panel shows changes, so a half-typed bid keeps its focus
    const sig = JSON.stringify([v.session, v.phase, v.round, v.prompt, openLocks(v).map((w) => w.id), v.waiting,
      v.table_prompt, v.outcome, !!S.pending, S.connected, S.hubOnline, v.phase === "lobby" && v.hub && v.hub.seats]);
    if (!changed("act", sig) && !force) return;
    const kids = [];
    for (const w of openLocks(v)) kids.push(lockPanel(v, w));
    if (v.outcome) {
      kids.push(outcomePanel(v));
    } else if (v.phase === "lobby") {
      const seats = (v.hub && v.hub.seats) || [];
      const taken = seats.filter((s) => s.phone).length;
      kids.push(el("div", { class: "prompt-title", text: "Waiting for players" }),
        el("p", { class: "waiting", text: taken + " of " + seats.length + " seats taken." }));
    } else if (v.prompt) {
      const promptSig = JSON.stringify([v.session, v.prompt]);
      if (promptSig !== S.lastPromptSig) {
        S.lastPromptSig = promptSig;
        if (!S.pending) S.result = null;      // a new question: the last answer's note is old news
        if (navigator.vibrate) navigator.vibrate(60);
      }
      kids.push(promptPanel(v));
    } else if (!openLocks(v).length) {
      kids.push(waitingPanel(v));
    }
    const status = el("div", { class: "status-line", id: "status" });
    if (S.pending) status.append(el("span", { class: "muted", text: "Sending " + S.pending.label + "…" }));
    else if (S.result) status.append(el("span", { class: S.result.ok ? "ok" : "error", role: "alert", text: S.result.message }));
    kids.push(status);
    box.replaceChildren(...kids);
  }
  function waitingPanel(v) {
    const names = (v.waiting || []).filter((s) => s !== v.seat).map(playerName);
    const tp = v.table_prompt;
    const out = el("div", {});
    if (names.length) out.append(el("p", { class: "waiting", text: "Waiting for " + names.join(", ") + "." }));
    else if (tp) out.append(el("p", { class: "waiting", text: "Waiting for the table" + (tp.text ? ": " + tp.text : ".") }));
    else out.append(el("p", { class: "waiting", text: "Nothing to do right now." }));
    return out;
  }
  function outcomePanel(v) {
    const o = v.outcome;
    const rows = Object.entries(o.scores || {}).sort((a, b) => b[1] - a[1])
      .map(([s, sc]) => el("li", {}, el("span", { class: "pname", text: playerName(s) }), el("b", { text: String(sc) })));
    return el("div", {}, el("div", { class: "prompt-title", text: "Game over" }),
      el("p", { text: "Winner: " + o.winners.map(playerName).join(", ") }), el("ul", { class: "players" }, rows));
  }
  function lockPanel(v, w) {
    const mine = w.locked[String(v.seat)];
    const ok = typeof mine.salt === "string" && mine.salt.length >= 32 && commitment(w.id, v.seat, mine.choice, mine.salt) === mine.commitment;
    const waiting = (w.seats || []).filter((s) => !(String(s) in w.locked)).map(playerName);
    return el("div", { class: "locked", data: { window: w.id } },
      el("div", { class: "prompt-title", text: "Locked in: " + (w.label || w.id) }),
      el("p", {}, "Your choice: ", el("b", { class: "locked-choice", text: choiceText(v.game, w, mine.choice) })),
      el("p", { class: "small" }, "Fingerprint ", el("span", { class: "fp", text: fingerprint(mine.commitment) }), " ",
        el("span", { class: ok ? "ok" : "error", text: ok ? "✓ checked on this phone" : "✗ does not match" })),
      el("p", { class: "small muted", text: waiting.length ? "Waiting for " + waiting.join(", ") + "." : "Everyone is in." }));
  }
  function promptPanel(v) {
    const p = v.prompt;
    const game = v.game;
    const moves = p.moves || [];
    const used = new Set();
    const parts = [];
    const widgets = WIDGETS[game] || {};
    for (const m of moves) {
      if (used.has(m) || !widgets[m]) continue;
      const w = widgets[m](v, p);
      if (!w) continue;
      (w.handles || [m]).forEach((x) => used.add(x));
      parts.push(w.node);
    }
    const rest = moves.filter((m) => !used.has(m));
    if (rest.length) parts.push(genericMoves(v, p, rest, parts.length > 0));
    return el("div", {}, parts);
  }

  // -- generic prompt form: answers any prompt of any game -------------------------------------------
  function parseDoc(doc) {
    // "card: a face-up card id; resolve: true ...; target: a seat" -> [{names, text}]
    const out = [];
    for (const part of (doc || "").split(";")) {
      const i = part.indexOf(":");
      if (i < 0) continue;
      const names = part.slice(0, i).split(",").map((s) => s.trim()).filter((s) => /^[a-z_][a-z0-9_]*$/.test(s));
      for (const n of names) out.push({ name: n, text: part.slice(i + 1).trim() });
    }
    return out;
  }
  const SEAT_FIELDS = ["target", "player", "opponent", "to", "bet_on", "victim"];
  const SEAT_LISTS = ["targets", "candidates", "seats", "options"];
  const ID_LISTS = ["options", "cards", "candidates"];
  function fieldInput(v, p, f, draft) {
    const box = el("div", { class: "field" }, el("label", { text: pretty(f.name) }));
    const seats = SEAT_FIELDS.includes(f.name) ? (SEAT_LISTS.map((k) => p[k]).find((a) => Array.isArray(a) && a.length && a.every((x) => Number.isInteger(x))) ||
      (/seat/.test(f.text) ? (v.players || []).map((_, i) => i).filter((i) => i !== v.seat) : null)) : null;
    const ids = !seats ? ID_LISTS.map((k) => p[k]).find((a) => Array.isArray(a) && a.length && a.every((x) => typeof x === "string")) : null;
    const boolish = /true or false|\bbool\b|^true/.test(f.text);
    const set = (val) => { draft[f.name] = val; };
    if (seats) {
      const grid = el("div", { class: "choices" });
      for (const s of seats) grid.append(el("button", { type: "button", class: "choice" + (draft[f.name] === s ? " chosen" : ""), data: { seat: String(s) },
        onclick: (e) => { set(s); grid.querySelectorAll("button").forEach((b) => b.classList.toggle("chosen", b === e.currentTarget)); } },
        el("span", { class: "title", text: playerName(s) })));
      box.append(grid);
    } else if (ids && (f.name === "card" || f.name === "monster" || f.name === "leader" || f.name === "improvement" || f.name === "pile")) {
      const grid = el("div", { class: "choices" });
      for (const id of ids) grid.append(el("button", { type: "button", class: "choice" + (draft[f.name] === id ? " chosen" : ""), data: { id: id },
        onclick: (e) => { set(id); grid.querySelectorAll("button").forEach((b) => b.classList.toggle("chosen", b === e.currentTarget)); } },
        el("span", { class: "title", text: cardName(id) })));
      box.append(grid);
    } else if (boolish) {
      const sel = el("select", { onchange: (e) => set(e.target.value === "" ? undefined : e.target.value === "true") },
        el("option", { value: "", text: "—" }), el("option", { value: "true", text: "yes" }), el("option", { value: "false", text: "no" }));
      box.append(sel);
    } else {
      box.append(el("input", { placeholder: f.text, value: draft[f.name] === undefined ? "" : (typeof draft[f.name] === "string" ? draft[f.name] : JSON.stringify(draft[f.name])),
        oninput: (e) => { const t = e.target.value.trim(); if (!t) { delete draft[f.name]; return; } try { set(JSON.parse(t)); } catch (err) { set(t); } } }));
    }
    box.append(el("div", { class: "hint small", text: f.text }));
    return box;
  }
  function genericMoves(v, p, moves, hasWidgets) {
    const help = v.moves_help || {};
    const info = Object.entries(p).filter(([k]) => !["moves", "window"].includes(k));
    const out = el("div", {});
    if (!hasWidgets) {
      out.append(el("div", { class: "prompt-title", text: "Your move" }));
      if (info.length) out.append(el("p", { class: "small muted", text: info.map(([k, x]) => pretty(k) + ": " + describe(x)).join(" · ") }));
    }
    for (const m of moves) {
      const h = help[m] || {};
      const fields = parseDoc(h.doc);
      const key = "g:" + v.session + ":" + m;
      const draft = S.draft[key] = S.draft[key] || {};
      if (!fields.length) {
        out.append(el("button", { type: "button", class: "big" + (h.sealed ? " primary" : ""), data: { move: m },
          onclick: () => send(m, {}, pretty(m)) }, (h.sealed ? "Lock in " : "") + pretty(m)));
        continue;
      }
      const form = el("div", { class: "move-form", data: { move: m } });
      const body = el("div", { hidden: true });
      for (const f of fields) body.append(fieldInput(v, p, f, draft));
      const raw = el("textarea", { placeholder: '{"name": value, ...} (overrides the fields)' });
      body.append(el("details", {}, el("summary", { text: "Arguments as JSON" }), raw));
      body.append(el("button", { type: "button", class: "primary big", data: { send: m },
        onclick: () => {
          let args = Object.assign({}, draft);
          if (raw.value.trim()) {
            try { args = JSON.parse(raw.value); } catch (e) { S.result = { ok: false, message: "That JSON does not parse." }; renderAct(true); return; }
          }
          send(m, args, pretty(m));
        } }, (h.sealed ? "Lock in " : "Send ") + pretty(m)));
      const openKey = "open:" + key;
      form.append(el("button", { type: "button", class: "big", onclick: () => { body.hidden = !body.hidden; S.draft[openKey] = !body.hidden; } }, pretty(m) + "…"), body);
      if (moves.length === 1 || S.draft[openKey]) body.hidden = false;
      out.append(form);
    }
    return out;
  }

  // -- purpose-built widgets ---------------------------------------------------------------------------
  function draftFor(v, key, init) {
    const k = v.session + ":" + key;
    if (!(k in S.draft)) S.draft[k] = init();
    return S.draft[k];
  }
  function rerender() { renderAct(true); }

  // Great Powers: choose and order the bid cards; never a trait where you are highest
  function gpBids(v, p) {
    const order = draftFor(v, p.window + ":bids", () => []);
    const allowed = p.allowed || [], blocked = p.blocked || [];
    const mine = (v.private && v.private.tokens) || {};
    const all = (v.game_view && v.game_view.tokens) || [];
    const traits = TRAITS.filter((t) => allowed.includes(t) || blocked.includes(t));
    const grid = el("div", { class: "choices" });
    for (const t of traits) {
      const top = Math.max(...all.map((x) => x[t] || 0));
      const isBlocked = blocked.includes(t);
      const at = order.indexOf(t);
      grid.append(el("button", { type: "button", class: "choice" + (at >= 0 ? " chosen" : "") + (isBlocked ? " blocked" : ""),
        disabled: isBlocked, data: { trait: t },
        onclick: () => {
          const i = order.indexOf(t);
          if (i >= 0) order.splice(i, 1);
          else if (order.length < p.count) order.push(t);
          else toast("You play " + p.count + " bid cards; tap one to take it back.");
          rerender();
        } },
        el("span", { class: "title", text: pretty(t) }),
        el("span", { class: "sub", text: isBlocked ? "you are highest: no bid" : "you " + (mine[t] ?? "?") + " · top " + top }),
        at >= 0 ? el("span", { class: "badge", text: String(at + 1) }) : null));
    }
    const list = el("ol", { class: "order", id: "bid-order" });
    order.forEach((t, i) => list.append(el("li", {},
      el("span", { class: "n", text: String(i + 1) }), el("span", { class: "name", text: pretty(t) }),
      el("button", { type: "button", class: "small-btn", disabled: i === 0, "aria-label": "earlier",
        onclick: () => { order.splice(i - 1, 0, order.splice(i, 1)[0]); rerender(); } }, "▲"),
      el("button", { type: "button", class: "small-btn", disabled: i === order.length - 1, "aria-label": "later",
        onclick: () => { order.splice(i + 1, 0, order.splice(i, 1)[0]); rerender(); } }, "▼"),
      el("button", { type: "button", class: "small-btn danger", "aria-label": "remove",
        onclick: () => { order.splice(i, 1); rerender(); } }, "✕"))));
    const ready = order.length === p.count;
    return { node: el("div", { class: "widget", data: { widget: "gp-bids" } },
      el("div", { class: "prompt-title", text: "Your " + p.count + " bid card" + (p.count === 1 ? "" : "s") }),
      el("p", { class: "hint", text: "Tap traits in the order you play them: bid 1 resolves first." }),
      grid, order.length ? list : null,
      el("button", { type: "button", class: "primary big", id: "lock-in", disabled: !ready,
        onclick: () => send("submit_bids", { traits: order.slice() }, "Your bids") },
      ready ? "Lock in " + order.map(pretty).join(" → ") : "Choose " + (p.count - order.length) + " more")) };
  }

  // Great Powers: the action card (and its target), or pass; also the three drawn cards
  function gpCards(v, p, move, alt) {
    const pool = move === "resolve_drawn" ? (v.game_view && v.game_view.drawn) : (v.game_view && v.game_view.face_up);
    const cards = (pool || []).filter((c) => (p.cards || []).includes(c.id));
    const d = draftFor(v, move, () => ({ card: null, target: null }));
    const grid = el("div", { class: "choices one" });
    for (const c of cards) grid.append(el("button", { type: "button", class: "choice" + (d.card === c.id ? " chosen" : ""), data: { card: c.id },
      onclick: () => { d.card = c.id; d.target = null; rerender(); } },
      el("span", { class: "title", text: c.name }), el("span", { class: "card-text", text: c.text + (c.target ? " (targets a player)" : "") })));
    const chosen = cards.find((c) => c.id === d.card);
    const parts = [el("div", { class: "prompt-title", text: move === "resolve_drawn" ? "Resolve one drawn card" : "Your action card" }), grid];
    if (chosen && chosen.target) {
      const tg = el("div", { class: "choices" });
      (v.players || []).forEach((n, i) => { if (i !== v.seat) tg.append(el("button", { type: "button", class: "choice" + (d.target === i ? " chosen" : ""), data: { seat: String(i) },
        onclick: () => { d.target = i; rerender(); } }, el("span", { class: "title", text: n }))); });
      parts.push(el("h3", { text: "Target" }), tg);
    }
    const ready = chosen && (!chosen.target || d.target !== null);
    const args = () => { const a = { card: d.card }; if (chosen && chosen.target) a.target = d.target; return a; };
    parts.push(el("button", { type: "button", class: "primary big", disabled: !ready, onclick: () => send(move, args(), chosen.name) },
      chosen ? "Take & resolve " + chosen.name : "Choose a card"));
    if (move === "take_action") parts.push(el("button", { type: "button", class: "big", disabled: !chosen,
      onclick: () => send(move, { card: d.card, resolve: false }, "Discard " + chosen.name) }, "Take & discard"));
    if (alt && (p.moves || []).includes(alt)) parts.push(el("button", { type: "button", class: "big", data: { move: alt },
      onclick: () => send(alt, {}, pretty(alt)) }, pretty(alt)));
    return { node: el("div", { class: "widget", data: { widget: "gp-" + move } }, parts), handles: [move, alt] };
  }

  // Trade Warz: the blind Leader pick, with a ranking in case your first wish is taken
  function twLeader(v, p) {
    const rank = draftFor(v, "leader", () => []);
    const grid = el("div", { class: "choices" });
    for (const id of p.options || []) {
      const at = rank.indexOf(id);
      grid.append(el("button", { type: "button", class: "choice" + (at >= 0 ? " chosen" : ""), data: { leader: id },
        onclick: () => { const i = rank.indexOf(id); if (i >= 0) rank.splice(i, 1); else rank.push(id); rerender(); } },
        el("span", { class: "title", text: pretty(id) }), at >= 0 ? el("span", { class: "badge", text: String(at + 1) }) : null));
    }
    return { node: el("div", { class: "widget", data: { widget: "tw-leader" } },
      el("div", { class: "prompt-title", text: "Pick your Leader (secret)" }),
      el("p", { class: "hint", text: "Tap your favourite first, then back-ups in order in case it is taken." }),
      grid,
      el("button", { type: "button", class: "primary big", id: "lock-in", disabled: !rank.length,
        onclick: () => send("pick_leader", { leader: rank[0], ranking: rank.slice(1) }, "Your Leader pick") },
      rank.length ? "Lock in " + pretty(rank[0]) : "Choose a Leader")) };
  }

  // Trade Warz: the face-down Policy (or none); Fast-Pass in Tariff Warz
  function twPolicy(v, p) {
    const hand = ((v.private && v.private.hand) || []).filter((c) => c.kind === "policy");
    const d = draftFor(v, p.window + ":policy", () => ({ card: undefined, fast_pass: false, extra: {} }));
    const grid = el("div", { class: "choices one" });
    const pick = (id) => () => { d.card = id; rerender(); };
    for (const c of hand) grid.append(el("button", { type: "button", class: "choice" + (d.card === c.id ? " chosen" : ""), data: { card: c.id }, onclick: pick(c.id) },
      el("span", { class: "title", text: c.name }), el("span", { class: "card-text", text: c.text || "" })));
    grid.append(el("button", { type: "button", class: "choice" + (d.card === null ? " chosen" : ""), data: { card: "none" }, onclick: pick(null) },
      el("span", { class: "title", text: "No Policy this round" })));
    const parts = [el("div", { class: "prompt-title", text: "Your Policy (face down)" }), grid];
    const fp = v.game_view && v.game_view.fast_pass;
    if (Array.isArray(fp) && fp[v.seat]) {
      parts.push(el("button", { type: "button", class: "big" + (d.fast_pass ? " chosen" : ""), onclick: () => { d.fast_pass = !d.fast_pass; rerender(); } },
        d.fast_pass ? "✓ Fast-Pass: lock my board" : "Use my Fast-Pass"));
    }
    const fields = parseDoc(((v.moves_help || {}).choose_policy || {}).doc).filter((f) => ["target", "partner", "draw"].includes(f.name));
    if (fields.length && d.card) {
      const more = el("details", {}, el("summary", { text: "If the card needs a target, partner or draw" }));
      for (const f of fields) more.append(fieldInput(v, p, f, d.extra));
      parts.push(more);
    }
    const ready = d.card !== undefined;
    parts.push(el("button", { type: "button", class: "primary big", id: "lock-in", disabled: !ready,
      onclick: () => { const a = Object.assign({ card: d.card }, d.extra); if (d.fast_pass) a.fast_pass = true; send("choose_policy", a, "Your Policy"); } },
    ready ? "Lock in " + (d.card ? cardName(d.card) : "no Policy") : "Choose a Policy"));
    return { node: el("div", { class: "widget", data: { widget: "tw-policy" } }, parts) };
  }

  // Trade Warz: a dispute's blind GDP bid (the table refuses more than you have)
  function twBid(v, p) {
    const contests = (v.game_view && v.game_view.disputes && v.game_view.disputes.contests) || [];
    const c = contests.find((x) => x.id === p.contest);
    const d = draftFor(v, p.window + ":bid", () => ({ amount: 0 }));
    const max = p.max;
    const input = el("input", { type: "number", inputmode: "numeric", min: "0", step: "1", id: "bid-amount", value: String(d.amount),
      oninput: (e) => { d.amount = e.target.value === "" ? "" : Number(e.target.value); hint.textContent = budget(); hint.className = cls(); } });
    const budget = () => (typeof d.amount === "number" && max !== undefined && d.amount > max) ? "Over budget: you have " + max + " GDP." : "You can bid 0–" + max + " GDP.";
    const cls = () => "small " + ((typeof d.amount === "number" && d.amount > max) ? "error" : "hint");
    const hint = el("div", { class: cls(), id: "bid-hint", text: budget() });
    const step = (k) => () => { d.amount = Math.max(0, Math.min(max, (Number(d.amount) || 0) + k)); input.value = String(d.amount); hint.textContent = budget(); hint.className = cls(); };
    const who = c ? c.seats.map(playerName).join(" vs ") : "";
    return { node: el("div", { class: "widget", data: { widget: "tw-bid" } },
      el("div", { class: "prompt-title", text: "Dispute bid (secret)" }),
      c ? el("p", { text: (c.partner_name || pretty(c.partner)) + " slot " + c.slot + ": " + who }) : null,
      el("div", { class: "stepper" }, el("button", { type: "button", onclick: step(-1), "aria-label": "less" }, "−"), input,
        el("button", { type: "button", onclick: step(1), "aria-label": "more" }, "+")),
      hint,
      el("button", { type: "button", class: "primary big", id: "lock-in",
        onclick: () => { const a = Number(input.value); if (!Number.isInteger(a) || a < 0) { S.result = { ok: false, message: "Bid a whole number of GDP." }; renderAct(true); return; } send("bid", { amount: a }, "Your bid of " + a + " GDP"); } },
      "Lock in bid")) };
  }

  // Battle Builder: the sealed attack card and the stamina behind it
  function bbTurn(v, p) {
    const d = draftFor(v, p.window + ":turn", () => ({ card: null, stamina: 0 }));
    const grid = el("div", { class: "choices" });
    for (const id of p.cards || []) grid.append(el("button", { type: "button", class: "choice" + (d.card === id ? " chosen" : ""), data: { card: id },
      onclick: () => { d.card = id; rerender(); } }, el("span", { class: "title", text: pretty(id) })));
    const input = el("input", { type: "number", inputmode: "numeric", min: "0", value: String(d.stamina), id: "stamina",
      oninput: (e) => { d.stamina = Number(e.target.value) || 0; } });
    const step = (k) => () => { d.stamina = Math.max(0, Math.min(p.stamina, d.stamina + k)); input.value = String(d.stamina); };
    const battle = ((v.game_view && v.game_view.battles_now) || []).find((b) => b.id === p.battle);
    const foes = battle ? (battle.monsters || []).map((m) => m.name + " " + m.hp + "/" + m.max_hp + " HP") : [];
    return { node: el("div", { class: "widget", data: { widget: "bb-turn" } },
      el("div", { class: "prompt-title", text: "Your attack (secret)" }),
      foes.length ? el("p", { class: "small muted", text: "Against " + foes.join(", ") }) : null, grid,
      el("h3", { text: "Stamina (you have " + p.stamina + ")" }),
      el("div", { class: "stepper" }, el("button", { type: "button", onclick: step(-1) }, "−"), input, el("button", { type: "button", onclick: step(1) }, "+")),
      el("button", { type: "button", class: "primary big", id: "lock-in", disabled: !d.card,
        onclick: () => send("play_turn", { card: d.card, stamina: Number(input.value) || 0 }, "Your attack") },
      d.card ? "Lock in " + pretty(d.card) : "Choose a card")) };
  }

  const WIDGETS = {
    "great-powers": {
      submit_bids: gpBids,
      take_action: (v, p) => gpCards(v, p, "take_action", "pass_action"),
      resolve_drawn: (v, p) => gpCards(v, p, "resolve_drawn", "decline_bonus"),
    },
    "trade-warz": { pick_leader: twLeader, choose_policy: twPolicy, bid: twBid },
    "battle-builder": { play_turn: bbTurn },
  };

  // -- reveal ------------------------------------------------------------------------------------------
  function renderReveal() {
    const v = S.view;
    const box = $("#reveal");
    if (!v || !v.windows) { box.replaceChildren(); return; }
    const revealed = v.windows.filter((w) => w.revealed);
    const w = revealed[revealed.length - 1];
    if (!w) { if (changed("reveal", "")) box.replaceChildren(); return; }
    const sig = JSON.stringify([v.session, w]);
    if (!changed("reveal", sig)) return;
    const checks = verifyWindow(v.session, w);
    const rows = Object.entries(w.locked || {}).map(([seat, item]) => el("li", { data: { seat: seat } },
      el("div", { class: "row" }, el("b", { class: "grow", text: playerName(seat) }),
        el("span", { class: "check " + checks[seat].cls, text: checks[seat].text })),
      el("div", { class: "choice-text", text: choiceText(v.game, w, item.choice) })));
    const bad = Object.values(checks).some((c) => c.cls === "bad");
    box.replaceChildren(el("div", { class: "card reveal", data: { window: w.id } },
      el("h2", { text: "Revealed: " + (w.label || w.id) }),
      el("ul", { class: "reveal-list" }, rows),
      revealOutcome(v, w),
      el("p", { class: "small " + (bad ? "error" : "muted"), text: bad ? "A choice does not match its commitment!" : "Every choice was checked on this phone against the fingerprint announced at lock-in." })));
  }

  // what came of a reveal, where the game says so in its public view
  function revealOutcome(v, w) {
    const gv = v.game_view || {};
    if (v.game === "great-powers" && w.kind === "bids" && Array.isArray(gv.results) && gv.results.length) {
      const per = {};
      for (const r of gv.results) {
        const line = per[r.seat] = per[r.seat] || [];
        if (r.change) line.push((r.change > 0 ? "+" : "−") + Math.abs(r.change) + " " + pretty(r.trait));
        if (r.lost && r.lost.count) line.push("−" + r.lost.count + " " + pretty(r.lost.token));
      }
      return el("div", { class: "small" }, el("h3", { text: "Results" }), Object.entries(per).map(([s, l]) =>
        el("p", { class: "result-line" }, el("b", { text: playerName(s) + ": " }), l.length ? l.join(", ") : "no change")));
    }
    if (v.game === "trade-warz" && w.kind === "bid" && gv.disputes) {
      const c = (gv.disputes.contests || []).find((x) => (x.window || "bid-r" + v.round + "-" + x.id) === w.id);
      if (c && c.state === "done" && c.winner !== null && c.winner !== undefined) {
        const power = Object.entries(c.power || {}).map(([s, p]) => playerName(s) + " " + p).join(" vs ");
        return el("p", { class: "result-line" }, el("b", { text: "Winner: " + playerName(c.winner) }), power ? " (power " + power + ")" : "");
      }
    }
    return null;
  }

  // -- players -----------------------------------------------------------------------------------------
  function renderPlayers() {
    const st = S.state || S.view;
    const box = $("#players");
    if (!st) { box.replaceChildren(); return; }
    const seats = (st.hub && st.hub.seats) || [];
    const ids = st.seat_ids || [];
    const names = st.players || seats.map((s) => s.name);
    const open = (st.windows || []).filter((w) => !w.revealed);
    const gv = st.game_view || {};
    const mySeat = S.view ? S.view.seat : (S.creds && S.creds.seat);
    const sig = JSON.stringify([names, ids, seats, open.map((w) => [w.id, Object.keys(w.locked || {})]), st.waiting, S.presence, gv.tokens && gv.tokens.map((t) => t.vp), gv.vp, gv.gdp, mySeat]);
    if (!changed("players", sig)) return;
    const list = el("ul", { class: "players" });
    names.forEach((n, i) => {
      const sid = ids[i];
      const online = sid && sid in S.presence ? S.presence[sid] : !!(seats[i] && seats[i].online);
      const tags = [];
      if (i === mySeat) tags.push(el("span", { class: "tag you", text: "you" }));
      if (st.phase === "lobby" && seats[i] && !seats[i].phone) tags.push(el("span", { class: "tag", text: "free seat" }));
      if (seats[i] && seats[i].phone && !online) tags.push(el("span", { class: "tag off", text: "disconnected" }));
      for (const w of open) if ((w.seats || []).includes(i)) tags.push(String(i) in (w.locked || {}) ? el("span", { class: "tag lock", text: "locked" }) : el("span", { class: "tag wait", text: "choosing" }));
      if (!open.length && (st.waiting || []).includes(i)) tags.push(el("span", { class: "tag wait", text: "to play" }));
      let score = null;
      if (gv.tokens && gv.tokens[i] && gv.tokens[i].vp !== undefined) score = gv.tokens[i].vp + " VP";
      else if (Array.isArray(gv.vp) && gv.vp[i] !== undefined) score = gv.vp[i] + " VP";
      else if (gv.gdp && gv.gdp[i] !== undefined) score = gv.gdp[i] + " GDP";
      list.append(el("li", { data: { seat: String(i) } }, el("span", { class: "dot" + (online ? " on" : "") }),
        el("span", { class: "pname", text: n }), score ? el("span", { class: "muted small", text: score }) : null, tags));
    });
    box.replaceChildren(el("h2", { text: "At the table" }), list);
  }
  function renderFeed() {
    const box = $("#feed");
    if (!S.feed.length) { box.replaceChildren(); return; }
    box.replaceChildren(el("ul", {}, S.feed.map((t) => el("li", { text: t }))));
  }

  // -- screen awake while a timer runs; reconnect when visible -------------------------------------------
  // The Wake Lock API exists only in secure contexts (https, localhost); the table serves plain
  // http on the LAN, so NoSleep.js (vendored) falls back to a muted looping video, which a
  // browser starts only from a tap: the player's next tap while a timer runs.
  const noSleep = window.NoSleep ? new window.NoSleep() : null;
  S.noSleep = noSleep;
  let armed = false;
  function timerRunning() {
    const a = activeTimer();
    return !!(a && !a.t.paused && timerLeft(a.t) > 0) && document.visibilityState === "visible";
  }
  function keepAwake() {
    armed = false;
    if (noSleep && !noSleep.isEnabled && timerRunning()) noSleep.enable().catch(() => { /* refused */ });
  }
  function updateWakeLock() {
    if (!noSleep) return;
    const want = timerRunning();
    S.awake = noSleep.isEnabled;
    if (want && !noSleep.isEnabled) {
      if ("wakeLock" in navigator) keepAwake();
      else if (!armed) {
        armed = true;
        document.addEventListener("pointerdown", keepAwake, { once: true, capture: true });
      }
    } else if (!want && noSleep.isEnabled) {
      noSleep.disable();
    }
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible") return;
    if (S.creds && (!S.client || !S.connected)) {
      if (S.client) S.client.reconnect(); else reclaim();
    }
    updateWakeLock();
  });
  window.addEventListener("online", () => { if (S.creds && !S.connected && S.client) S.client.reconnect(); });
  setInterval(renderTimer, 250);
  setInterval(updateWakeLock, 5000);     // the timer may have run out since the last state

  // -- start ------------------------------------------------------------------------------------------------
  $("#join-form").addEventListener("submit", (e) => {
    e.preventDefault();
    join($("#join-name").value.trim(), $("#join-room").value.trim().toUpperCase());
  });
  const stored = load(STORE, null);
  if (stored && stored.token) { showGame(); reclaim(); } else showJoin();
})();
