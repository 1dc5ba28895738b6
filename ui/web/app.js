/* Table Companion phone page (protocol v1, docs/protocol.md).
 *
 * Join over HTTP (POST /join: a name and the room code, a handover code from the table screen,
 * or the stored token), then MQTT 3.1.1 over WebSockets with mqtt.js (vendor/). The hub
 * publishes the public `state` and this seat's own `view` (retained, whole documents); the page
 * keeps the newest by `rev` and draws from it.
 *
 * Every move is a tap on something the hub says is legal: the view's `legal` list (protocol
 * section 4.7) gives each move and what each of its arguments may be, and the page draws one
 * picker per argument kind (one, number, order, subset, counts, flag, text). Nobody types an id,
 * a number or JSON; a raw form exists only for developers (`?dev=1`).
 *
 * Sealed choices show their commitment fingerprint at lock-in and every reveal is checked
 * against the commitments announced before it (SHA-256 from vendor/sha256.js: crypto.subtle
 * does not exist on plain http); a lock-in the table undid is forgotten and the one made again
 * is checked instead (protocol section 4.4, "Keeping the commitments you saw").
 *
 * For test drivers: move buttons carry `data-move`, options `data-arg` + `data-value` (canonical
 * JSON: sorted keys, no spaces),
 * steppers `data-step`, the send button is `#send` (`data-send`), panels `data-panel`.
 *
 * The seat's token is kept in localStorage (a reload or a restarted table reclaims the seat);
 * the MQTT password only in memory.
 */
"use strict";
(function () {
  const KEEPALIVE = 2;            // s: the broker notices a vanished phone within ~3-5 s
  const STORE = "tc.seat." + location.host;
  const COMMITS = "tc.commits." + location.host;
  const SUMMARIES = "tc.locked." + location.host;
  const TIME_UP_MS = 3000;        // "Time!" stays at least this long (the buzzer moment)
  const PARAMS = new URLSearchParams(location.search);
  const DEV = PARAMS.get("dev") === "1";
  const CLEARED = { cleared: true };   // an optional answer the player took back

  // -- small helpers ---------------------------------------------------------------------------
  const $ = (sel) => document.querySelector(sel);
  function el(tag, props, ...kids) {
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
  function pretty(id) {
    if (id === null || id === undefined) return "—";
    if (typeof id === "boolean") return id ? "yes" : "no";
    if (typeof id !== "string") return String(id);
    const caps = { pvp: "PvP", gdp: "GDP", vp: "VP", hp: "HP" };   // "PvP Trigger", not "Pvp Trigger"
    return id.replace(/[-_]+/g, " ").replace(/\b\w+/g, (w) => caps[w.toLowerCase()] || (w[0].toUpperCase() + w.slice(1)));
  }
  function rand(n) {
    const a = new Uint8Array(n);
    (window.crypto || window.msCrypto).getRandomValues(a);
    return Array.from(a, (b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("");
  }
  // A tx prefix: 128 random bits as 32 hex digits, drawn per page load (docs/protocol.md 5.1:
  // a billion page loads over a club's lifetime share one with a chance of about 1 in 10^21).
  function txPrefix() {
    const a = new Uint8Array(16);
    (window.crypto || window.msCrypto).getRandomValues(a);
    return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
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
  function vibrate(p) { if (navigator.vibrate) { try { navigator.vibrate(p); } catch (e) { /* no */ } } }
  function joinNames(names) {
    if (names.length <= 1) return names.join("");
    return names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
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
  const same = (a, b) => canonical(a) === canonical(b);

  // -- argument specs (protocol section 4.7; companion/core/choices.py is the reference) ---------
  function holds(when, args) {
    for (const [k, vals] of Object.entries(when || {})) {
      if (!(k in args) || !vals.some((x) => same(x, args[k]))) return false;
    }
    return true;
  }
  function optionsNow(spec, args) { return (spec.options || []).filter((o) => holds(o.when, args)); }
  function usable(opts) { return opts.filter((o) => !o.disabled); }
  function findOpt(opts, value) { return opts.find((o) => same(o.value, value)); }
  function optLabel(opts, value) { const o = findOpt(opts, value); return o ? o.label : pretty(value); }
  function clamp(n, lo, hi) { return Math.max(lo, Math.min(hi, n)); }
  function countsRange(spec) {
    return "total" in spec ? [spec.total, spec.total] : [spec.min || 0, spec.max === undefined ? Infinity : spec.max];
  }

  // The answer a spec has now: what the player picked, made legal against the options as they
  // are at this rev (a pick the game no longer offers is dropped), else the spec's default.
  function answerOf(spec, opts, raw) {
    const ok = usable(opts);
    const has = (x) => !!findOpt(ok, x);
    const untouched = raw === undefined;
    if (raw === CLEARED) return undefined;
    const dflt = "default" in spec ? spec.default : undefined;
    switch (spec.kind) {
      case "one":
        if (!untouched) return has(raw) ? raw : undefined;
        return dflt !== undefined && has(dflt) ? dflt : undefined;
      case "number": {
        const lo = spec.min, hi = spec.max, step = spec.step || 1;
        let n = untouched ? (dflt !== undefined ? dflt : (spec.optional ? undefined : lo)) : raw;
        if (typeof n !== "number" || lo > hi) return undefined;
        n = clamp(Math.round((n - lo) / step) * step + lo, lo, hi);
        return n;
      }
      case "order":
      case "subset": {
        const src = untouched ? (Array.isArray(dflt) ? dflt : []) : (Array.isArray(raw) ? raw : []);
        const out = [];
        for (const x of src) if (has(x) && !out.some((y) => same(x, y))) out.push(x);
        return out.slice(0, spec.max);
      }
      case "counts": {
        const src = untouched ? (dflt && typeof dflt === "object" ? dflt : {}) : (raw && typeof raw === "object" && !Array.isArray(raw) ? raw : {});
        const out = {};
        for (const o of ok) {
          const k = String(o.value);
          const n = clamp(Number(src[k]) || 0, 0, o.max === undefined ? Infinity : o.max);
          if (n) out[k] = n;
        }
        return out;
      }
      case "flag":
        return untouched ? !!dflt : !!raw;
      case "text": {
        const t = untouched ? (typeof dflt === "string" ? dflt : "") : String(raw);
        return t.slice(0, spec.max_len || 80);
      }
      default:
        return undefined;
    }
  }
  function answered(spec, value) {
    if (value === undefined) return false;
    switch (spec.kind) {
      case "order": case "subset": return value.length >= spec.min && value.length <= spec.max;
      case "counts": {
        const [lo, hi] = countsRange(spec);
        const t = Object.values(value).reduce((a, b) => a + b, 0);
        return t >= lo && t <= hi;
      }
      case "text": return value.trim().length > 0;
      default: return true;
    }
  }
  function begun(spec, value) {
    if (value === undefined) return false;
    if (Array.isArray(value)) return value.length > 0;
    if (spec.kind === "counts") return Object.keys(value).length > 0;
    return false;
  }
  // Walk the specs in order as the hub does (the first spec per name whose `when` holds),
  // with what the player answered so far: what to ask, the args to send, what is missing.
  function walk(specs, answers) {
    const asked = new Set(), got = {}, items = [], missing = [];
    for (const spec of specs || []) {
      if (asked.has(spec.name) || !holds(spec.when, got)) continue;
      asked.add(spec.name);
      const opts = optionsNow(spec, got);
      const value = answerOf(spec, opts, answers[spec.name]);
      const ok = answered(spec, value);
      if (ok) got[spec.name] = spec.kind === "text" ? value.trim() : value;
      else if (!spec.optional || begun(spec, value)) missing.push(spec);   // half an optional answer is not left out silently
      items.push({ spec: spec, opts: opts, value: value, ok: ok });
    }
    return { items: items, args: got, missing: missing, complete: missing.length === 0 };
  }
  // what an answer says, in words, for the send button and the lock-in panel
  function answerWords(item) {
    const s = item.spec, v = item.value;
    if (!item.ok) return null;
    switch (s.kind) {
      case "one": return optLabel(item.opts, v);
      case "number": return (s.label || pretty(s.name)).replace(/\s*\([^)]*\)\s*$/, "").replace(/[?:]\s*$/, "").replace(/^your /i, "") + ": " + v;
      case "order": return v.map((x) => optLabel(item.opts, x)).join(" → ");
      case "subset": return v.length ? v.map((x) => optLabel(item.opts, x)).join(", ") : "none";
      case "counts": return Object.entries(v).map(([k, n]) => {
        const o = item.opts.find((x) => String(x.value) === k);
        return n + " × " + (o ? o.label : pretty(k));
      }).join(", ") || "none";
      case "flag": return v ? (s.label || pretty(s.name)).replace(/[?:]\s*$/, "") : null;
      case "text": return "“" + v.trim() + "”";
      default: return null;
    }
  }
  function summaryOf(w, widget) {
    const own = widget && widget.words ? widget.words(w) : null;   // a move's own wording
    if (own) return own;
    const parts = w.items.map(answerWords).filter((x) => x);
    const arrows = w.items.every((i) => i.spec.kind === "one" || i.spec.kind === "order" || !i.ok);
    return parts.join(arrows ? " → " : " · ");
  }

  // -- state -------------------------------------------------------------------------------------
  const S = {
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
  function saveDrafts() {
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

  // -- screens -----------------------------------------------------------------------------------
  function showJoin(message) {
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

  // -- joining (protocol section 9) --------------------------------------------------------------
  async function post(path, body) {
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
  async function join(name, room, seat) {
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
  async function claimHandover(code) {
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
  async function rename(name) {
    const stored = load(STORE, null);
    if (!stored || !stored.token) return;
    try {
      const answer = await post("/rename", { token: stored.token, name: name });
      const now = answer.name || name;
      save(STORE, Object.assign(stored, { name: now }));
      if (S.creds) S.creds.name = now;
      S.renaming = false;
      S.renameError = null;
      S.renameDraft = undefined;
      toast("You are now " + now + ".");
    } catch (e) {
      S.renameError = e.message || "The table did not take that name.";
    }
    S.sigs.me = null;
    renderMe();
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

  // A retained document is whole; keep the newest. `rev` (the session log's length) only grows,
  // even across an undo, a correction or a resume, while `seq` goes back on an undo: compare
  // `rev` only (protocol section 6). An equal `rev` replaces (lobby facts, presence and alerts
  // change without a new record); a new session replaces whatever was shown.
  function stale(shown, msg) {
    return !!(shown && msg.session && msg.session === shown.session &&
      typeof msg.rev === "number" && typeof shown.rev === "number" && msg.rev < shown.rev);
  }
  // -- the table's clock (protocol section 4.1) ------------------------------------------------------
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
  function noteClock(d, retained) {
    if (!d || !d.session || typeof d.now !== "number") return;
    readClock(d.session, d.now - localNow());
    if (retained) fetchClock();        // it may be old: ask the table's clock now
  }
  async function fetchClock() {
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

  // -- commands -----------------------------------------------------------------------------------
  function publishCommand(cmd) {
    if (!S.client || !S.connected) return;
    S.client.publish(S.creds.topics.cmd, JSON.stringify({ v: 1, tx: cmd.tx, move: cmd.move, args: cmd.args }), { qos: 1 });
  }
  function send(move, args, label, extra) {
    if (S.pending && performance.now() - S.pending.at < 8000) {
      toast("Still sending your last move…");
      return;
    }
    S.txN += 1;
    S.pending = Object.assign({ n: S.txN, tx: S.txPrefix + "-" + S.txN, move: move, args: args || {}, at: performance.now(),
      label: label || pretty(move) }, extra || {});
    S.result = null;
    const p = S.pending;
    if (p.window && p.words) {
      // what a sealed choice says in words, kept for the lock-in panel (the hub's view, which
      // arrives before the reply, holds only the value); a refused choice is never shown there
      const book = S.summaries[p.session] = S.summaries[p.session] || {};
      book[p.window] = p.words;
      const keys = Object.keys(S.summaries);
      if (keys.length > 3) delete S.summaries[keys[0]];
      save(SUMMARIES, S.summaries);
    }
    publishCommand(S.pending);
    renderAct(true);
  }
  function onReply(msg) {
    if (!S.pending || msg.tx !== S.pending.tx) {
      if (msg.tx === null && msg.error) { S.result = { ok: false, message: msg.error.message, rev: shownRev() }; renderAct(true); }
      return;
    }
    const p = S.pending;
    if (!msg.ok && msg.error && msg.error.code === "tx_reused" && !p.redrawn) {
      // another command already used this tx (never with a 128-bit prefix, unless someone
      // chose it): this move was not applied, so it is sent again, once, under a fresh prefix
      S.txPrefix = txPrefix();
      S.txN += 1;
      Object.assign(p, { n: S.txN, tx: S.txPrefix + "-" + S.txN, redrawn: true, at: performance.now() });
      publishCommand(p);
      return;
    }
    S.pending = null;
    // the table's last answer to this phone, kept whatever the note under the buttons shows
    // (that note goes once it is old news); for people debugging at the table and the tests
    S.answered = { n: p.n, move: p.move, ok: !!msg.ok,
      message: msg.ok ? p.label + ": sent." : ((msg.error && msg.error.message) || "The table refused that.") };
    if (msg.ok) {
      S.result = { ok: true, message: p.label + ": sent.", rev: shownRev(), at: stageOf(S.view) };
      // a secret choice that completed its window: the reveal is already drawn (the view comes
      // before the reply), and below it the next question; "sent." would read as its answer
      if (p.sealed && S.view && !openLocks(S.view).some((w) => !p.window || w.id === p.window)) S.result = null;
      if (p.key) delete S.answers[p.key];
      // the question is answered: its pickers close (an open form with nothing chosen reads
      // as if the move had not been taken)
      const session = S.view && S.view.session;
      if (session && S.openMove[session] === p.move) S.openMove[session] = null;
      vibrate(30);
    } else {
      S.result = { ok: false, message: (msg.error && msg.error.message) || "The table refused that.", rev: shownRev() };
    }
    renderAct(true);
  }
  // The answer's note ("Forage: sent.", a refusal) belongs to the view it came with (the
  // seat's own view arrives before the reply): once a newer view asks something (the table
  // undid the move, the next battle's vote), it is old news.
  function shownRev() { return S.view && typeof S.view.rev === "number" ? S.view.rev : null; }
  // The note under the buttons is old news once a newer view asks something, or (a "sent.")
  // once the game has gone on to another phase or round: a secret choice sent before others
  // locked in must not sit under the next phase's "Waiting for Bo." as if it answered it
  function resultIsOld(v) {
    const r = S.result;
    if (!r || S.pending || typeof r.rev !== "number" || typeof v.rev !== "number" || v.rev <= r.rev) return false;
    if (v.prompt && (v.legal || []).length) return true;
    return r.ok && typeof r.at === "string" && r.at !== stageOf(v);
  }
  function stageOf(v) { return String(v && v.phase) + ":" + String(v && v.round); }

  // -- events and commitments ---------------------------------------------------------------------
  // What this device saw announced at each lock-in, kept across reloads (localStorage):
  // session -> window id -> seat -> {c: commitment, r: the lock-in's rev}. Protocol section 4.4,
  // "Keeping the commitments you saw": a lock-in the table undid is forgotten (its
  // ChoiceWithdrawn, or a newer document without it), a lock-in made again (a higher rev)
  // replaces it, and a commitment that changed under the same lock-in is kept as first seen,
  // so the reveal shows the change.
  function commitsFor(session) {
    if (!S.commits[session]) {
      // keep the store small: only the sessions this phone is playing
      const keys = Object.keys(S.commits);
      if (keys.length > 3) delete S.commits[keys[0]];
      S.commits[session] = {};
    }
    return S.commits[session];
  }
  function keptOf(x) {          // (an older page kept the commitment alone)
    if (!x) return null;
    return typeof x === "string" ? { c: x, r: 0 } : { c: x.c, r: typeof x.r === "number" ? x.r : 0 };
  }
  function lockRev(x) { return typeof x === "number" ? x : 0; }
  // Note one announced lock-in (from ChoiceLocked or a document): "new", "again" (a higher rev
  // than the one kept: the table undid that one and the seat locked in again), "rev" (the
  // same commitment, its rev learnt), or false (the same, or another commitment under the same
  // lock-in: what was seen first is kept, and the reveal will show the change).
  function noteLock(page, seat, digest, rev) {
    const k = keptOf(page[seat]);
    if (!digest) return false;
    const r = lockRev(rev);
    if (!k) { page[seat] = { c: digest, r: r }; return "new"; }
    if (r <= k.r) return false;
    page[seat] = { c: digest === k.c ? k.c : digest, r: r };
    return digest === k.c ? "rev" : "again";
  }
  function commitsChanged() {
    save(COMMITS, S.commits);
    S.sigs.reveal = null;          // a reveal drawn before this arrived: check again
    S.commitSig = (S.commitSig || 0) + 1;
  }
  function noteCommitments(d) {
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
  function playerName(seat) {
    const d = doc();
    const names = (d && d.players) || ((d && d.hub && d.hub.seats) || []).map((s) => s.name);
    return names[seat] || ("Seat " + (Number(seat) + 1));
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
  function verifyWindow(session, w) {
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

  // -- moments: the timer running out ----------------------------------------------------------------
  // "Time!" with 0:00 stays on screen for at least TIME_UP_MS from the moment the hub says the
  // timer ran out (the TimerExpired event, or the notice in the next document, whichever comes
  // first), even if the next phase's document arrives at once.
  function timeUp(name) {
    const until = performance.now() + TIME_UP_MS;
    if (!S.timeUp || S.timeUp.until < until - 1000) {
      vibrate([300, 100, 300]);
    }
    S.timeUp = { name: name, until: Math.max(until, (S.timeUp && S.timeUp.until) || 0) };
    renderTimer();
    setTimeout(renderTimer, TIME_UP_MS + 50);
  }
  function noticeMoments(d) {
    if (!d.notices || !d.session) return;
    const key = d.session + ":" + d.rev;
    if (S.seenTimeUpRev === key) return;
    const n = d.notices.find((x) => x.kind === "TimerExpired");
    if (n) { S.seenTimeUpRev = key; timeUp(n.timer); }
  }

  // -- rendering ------------------------------------------------------------------------------------
  function doc() { return S.view || S.state; }
  function render() {
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
  // Redraw a panel without taking a half-typed field from the player: the focused input (by
  // id or data-arg) gets its focus and caret back in the new drawing.
  function redraw(box, kids) {
    const a = document.activeElement;
    const key = a && box.contains(a) && a.tagName === "INPUT" ? (a.id ? "#" + a.id : (a.dataset.arg ? "input[data-arg='" + a.dataset.arg + "']" : null)) : null;
    const caret = key ? [a.selectionStart, a.selectionEnd] : null;
    box.replaceChildren(...kids);
    if (key) {
      const b = box.querySelector(key);
      if (b) { b.focus(); try { b.setSelectionRange(caret[0], caret[1]); } catch (e) { /* not text */ } }
    }
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
  function renderTimer() {
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
  // the game by name, in the edition being played (Tariff Warz is an edition of Trade Warz):
  // the game's public view says which, the hub's part says it in the lobby
  function gameTitle(d) {
    const gv = d.game_view || {};
    return gv.edition_title || (d.hub && d.hub.title) || d.title ||
      (d.hub && d.hub.game ? pretty(d.hub.game) : "Table Companion");
  }
  function renderBanner() {
    const b = $("#banner");
    let text = "", cls = "";
    if (!S.connected) { text = "Reconnecting to the table… (same Wi-Fi?)"; cls = "bad"; }
    else if (S.hubOnline === false) { text = "The table is offline. Your moves wait until it is back."; cls = "bad"; }
    if (changed("banner", text + cls)) { b.textContent = text; b.className = cls; }
  }

  function stat(k, v, big) {
    return el("div", { class: "stat" + (big ? " big" : ""), data: { stat: k } }, el("div", { class: "k", text: k }), el("div", { class: "v", text: String(v) }));
  }
  function myName(v) {
    const seat = v.seat;
    return (v.players && v.players[seat]) || (v.hub && v.hub.seats && v.hub.seats[seat] && v.hub.seats[seat].name) || (S.creds && S.creds.name) || "You";
  }
  function renameControl(v) {
    if (!S.renaming) {
      return el("button", { type: "button", class: "small-btn", data: { action: "rename" },
        onclick: () => { S.renaming = true; S.renameError = null; S.renameDraft = undefined; S.sigs.me = null; renderMe(); const i = $("#rename-name"); if (i) i.focus(); } }, "Rename");
    }
    return null;
  }
  function renameForm(v) {
    const input = el("input", { id: "rename-name", maxlength: "24", value: S.renameDraft !== undefined ? S.renameDraft : myName(v),
      autocapitalize: "words", enterkeyhint: "done", oninput: (e) => { S.renameDraft = e.target.value; } });
    const form = el("form", { class: "rename", data: { panel: "rename" }, autocomplete: "off",
      onsubmit: (e) => { e.preventDefault(); const n = input.value.trim(); if (n) rename(n); } },
    el("label", { for: "rename-name", text: "Your name at this table" }), input,
    el("div", { class: "row" },
      el("button", { type: "submit", class: "primary grow", id: "rename-save" }, "Save name"),
      el("button", { type: "button", class: "grow", id: "rename-cancel", onclick: () => { S.renaming = false; S.sigs.me = null; renderMe(); } }, "Cancel")),
    S.renameError ? el("p", { class: "error", role: "alert", text: S.renameError }) : null);
    return form;
  }
  function renderMe() {
    const v = S.view;
    const box = $("#me");
    if (!v) { box.replaceChildren(); return; }
    const gv = v.game_view || {};
    const sig = JSON.stringify([v.seat, v.players, v.private, v.hub && v.hub.seats, v.game, v.phase === "lobby",
      S.renaming, S.renameError, v.outcome && true, gameStatsSig(v)]);
    if (!changed("me", sig)) return;
    const seat = v.seat;
    const canRename = !v.outcome;
    const kids = [el("div", { class: "who" }, el("span", { class: "name", text: myName(v) }),
      el("span", { class: "muted", text: "seat " + (seat + 1) }), canRename ? renameControl(v) : null)];
    if (S.renaming && canRename) kids.push(renameForm(v));
    if (v.phase === "lobby") {
      if (v.hub && v.hub.game) kids.push(el("p", { class: "hint", text: "You are in. The game starts when the table is ready." }));
    } else {
      kids.push(...gameStats(v, gv));
    }
    redraw(box, kids);
  }
  function gameStatsSig(v) {
    const gv = v.game_view || {};
    if (v.game === "battle-builder") return [gv.vp, gv.battles_now];
    if (v.game === "great-powers") return [gv.tokens];
    if (v.game === "market-trading") return [gv.hand, gv.market, gv.earned, gv.active, v.players];
    if (v.game === "trade-warz") return [v.phase === "trade"];
    return null;
  }
  function gameStats(v, gv) {
    const p = v.private || {};
    const seat = v.seat;
    const out = [];
    if (v.game === "great-powers" && p.tokens) {
      const stats = el("div", { class: "stats" }, stat("VP", p.tokens.vp, true));
      for (const [t, n] of Object.entries(p.tokens)) if (t !== "vp") stats.append(stat(pretty(t), n));
      out.push(stats);
      if (p.next_event) out.push(el("p", {}, el("b", { text: "Next event (only you know): " }), p.next_event.name + " — " + p.next_event.text));
    } else if (v.game === "trade-warz") {
      const stats = el("div", { class: "stats" }, stat("GDP", p.gdp, true));
      if (p.budget !== undefined && p.budget !== p.gdp) stats.append(stat("Budget", p.budget));
      const hand = p.hand || [];
      stats.append(stat("Hand", hand.length + (p.leader ? " / " + p.leader.hand_size : "")));
      if (p.slots_left !== null && p.slots_left !== undefined) stats.append(stat("Export slots", p.slots_left));
      out.push(stats);
      if (p.leader) out.push(el("p", {}, el("b", { text: p.leader.name + ": " }), (p.leader.ability || "") + (p.leader.text ? " — " + p.leader.text : "")));
      if (hand.length) {
        const list = el("ul", { class: "hand" });
        for (const c of hand) list.append(el("li", {}, el("span", { class: "kind " + (c.kind || ""), text: c.kind || "card" }),
          el("b", { text: c.name }), c.cost_now !== undefined ? el("span", { class: "muted", text: "  cost " + c.cost_now }) : null,
          c.text ? el("div", { class: "card-text", text: c.text }) : null));
        out.push(el("details", {}, el("summary", { text: "Your hand (" + hand.length + " cards)" }), list));
      }
      if (p.facedown && p.facedown.length) out.push(el("p", { class: "muted", text: "Your face-down Exports: " + p.facedown.map((f) => (f.name || "?") + " → " + partnerName(v, f.partner) + " slot " + f.slot).join("; ") }));
      // where the next card put on the table's reader goes (Aim), so the player knows the
      // aim was taken and what to do next
      if (Array.isArray(p.aim) && p.aim.length === 2 && v.phase === "trade") {
        out.push(el("p", { class: "aim", data: { panel: "aim" } }, "Your next scanned Export goes to ",
          el("b", { text: partnerName(v, p.aim[0]) + ", slot " + p.aim[1] }), ": put the card on the table's reader."));
      }
    } else if (v.game === "battle-builder") {
      const stats = el("div", { class: "stats" });
      if (gv.vp) stats.append(stat("VP", gv.vp[seat], true));
      const fight = (gv.battles_now || []).map((b) => (b.fighters || {})[String(seat)]).find((f) => f);
      if (fight) stats.append(stat("HP", fight.hp + " / " + fight.max_hp), stat("Stamina", fight.stamina));
      // "Skill tokens", as the sentences say ("for 8 skill tokens"), never a bare "Skill"
      for (const [k, n] of Object.entries(p.tokens || {})) stats.append(stat(pretty(k) + " tokens", n));
      out.push(stats);
      // the last battles' results stay in sight (the feed's line scrolls below the fold)
      const last = gv.last_results || [];
      if (last.length && !["battle", "pvp"].includes(v.phase))
        out.push(el("p", { data: { stat: "last-battle" } }, el("b", { text: last.length > 1 ? "Last battles: " : "Last battle: " }), last.join(" ")));
      if (p.objective) out.push(el("p", {}, el("b", { text: "Secret objective: " }), p.objective.name + " — " + p.objective.text));
    } else if (v.game === "market-trading") {
      const stats = el("div", { class: "stats" });
      if (p.bowl !== undefined) stats.append(stat("Bowl", p.bowl, true));
      if (Array.isArray(gv.earned) && gv.earned[seat] !== undefined) stats.append(stat("Earned", gv.earned[seat]));
      out.push(stats);
      const goods = (o) => Object.entries(o || {}).filter(([, n]) => n).map(([k, n]) => n + " " + pretty(k)).join(", ") || "nothing";
      // there is one hand, the active player's (the Harvest fills it, the Donation empties
      // it): under your name it is yours only on your turn
      const mine = gv.active === seat;
      out.push(el("p", { data: { stat: "hand" } }, el("b", { text: "Your hand: " }),
        mine ? goods(gv.hand) : "nothing until your turn"));
      if (!mine && typeof gv.active === "number") {
        out.push(el("p", { class: "muted", data: { stat: "active-hand" } }, el("b", { text: playerName(gv.active) + "’s hand: " }), goods(gv.hand)));
      }
      out.push(el("p", { class: "muted" }, el("b", { text: "Market: " }), goods(gv.market)));
    } else {
      out.push(genericPrivate(p));
    }
    return out;
  }
  function partnerName(v, id) {
    const ps = (v.game_view && v.game_view.partners) || [];
    const p = ps.find((x) => x.id === id);
    return p ? p.name : pretty(id);
  }
  function genericPrivate(p) {
    const stats = el("div", { class: "stats" });
    const more = [];
    for (const [k, val] of Object.entries(p || {})) {
      if (val === null || val === undefined || k === "seat") continue;
      if (typeof val === "number" || typeof val === "string") stats.append(stat(pretty(k), val));
      else if (typeof val === "boolean") { if (val) stats.append(stat(pretty(k), "yes")); }
      else if (Array.isArray(val)) {
        if (!val.length) continue;
        stats.append(stat(pretty(k), val.length));
        more.push(el("details", {}, el("summary", { text: pretty(k) + " (" + val.length + ")" }),
          el("ul", { class: "hand" }, val.map((x) => el("li", { text: describe(x) })))));
      } else if (typeof val === "object") {
        const entries = Object.entries(val);
        if (entries.every(([, x]) => typeof x === "number")) for (const [kk, x] of entries) stats.append(stat(pretty(kk), x));
        else more.push(el("p", {}, el("b", { text: pretty(k) + ": " }), describe(val)));
      }
    }
    return el("div", {}, stats, more);
  }
  function describe(x) {
    if (x === null || x === undefined) return "—";
    if (typeof x !== "object") return pretty(x);
    if (Array.isArray(x)) return x.map(describe).join(" → ");
    if (x.name) return x.name + (x.text ? " — " + x.text : "");
    return Object.entries(x).filter(([, v]) => v !== null && v !== undefined && v !== false)
      .map(([k, v]) => v === true ? pretty(k) : pretty(k) + ": " + describe(v)).join(", ");
  }

  // the choice of one sealed window, in words (others' choices arrive only as values)
  function choiceText(v, w, choice, seat) {
    if (String(seat) === String(v.seat)) {
      const mine = (S.summaries[v.session] || {})[w.id];
      if (mine) return mine;
    }
    if (choice === null || choice === undefined) return "nothing";
    const gv = v.game_view || {};
    const name = (id) => cardName(v, id);
    if (typeof choice === "object" && !Array.isArray(choice)) {
      if (choice.leader) return name(choice.leader) + (choice.ranking && choice.ranking.length ? " (then " + choice.ranking.map(name).join(", ") + ")" : "");
      if ("card" in choice && "stamina" in choice) return name(choice.card) + " + " + choice.stamina + " stamina";
      if ("monster" in choice) return name(choice.monster);
      if ("card" in choice) return (choice.card ? name(choice.card) : "no card") + (choice.fast_pass ? " + Fast-Pass" : "") + (choice.partner ? " → " + partnerName(v, choice.partner) : "");
      if ("amount" in choice) return choice.amount + " GDP";
      // Battle Builder's PvP preparation: a bet names the fighter, never a seat number
      if ("wager" in choice || "bet_on" in choice || "revenge" in choice || "stake" in choice) {
        const who = (s) => (v.players || [])[s] || ("Seat " + (Number(s) + 1));
        const parts = [];
        if (choice.wager !== undefined && choice.wager !== null) parts.push("wager " + choice.wager);
        if (choice.revenge) parts.push("revenge on " + choice.revenge);
        if (choice.bet_on !== undefined && choice.bet_on !== null) parts.push("bet " + (choice.stake || 0) + " on " + who(choice.bet_on));
        return parts.length ? parts.join("; ") : "no wager or bet";
      }
    }
    if (Array.isArray(choice)) return choice.length ? choice.map(name).join(" → ") : "none";
    if (typeof choice === "number" && w && w.kind === "bid" && gv.gdp) return choice + " GDP";
    if (typeof choice === "number" && w && w.kind === "auction" && v.game === "battle-builder") return choice + (choice === 1 ? " token" : " tokens");
    return describe(choice);
  }
  // a card's (or any id's) name from what this phone has seen: its hand, the table's cards
  function cardName(v, id) {
    if (typeof id !== "string") return pretty(id);
    const p = v.private || {}, gv = v.game_view || {};
    const pools = [p.hand, gv.face_up, gv.drawn, gv.partners, (gv.leaders || []).filter((x) => x)];
    for (const pool of pools) {
      const c = (pool || []).find((x) => x && x.id === id);
      if (c && c.name) return c.name;
    }
    for (const m of v.legal || []) for (const s of m.args || []) for (const o of s.options || []) if (o.value === id) return o.label;
    const named = tableCardNames(gv)[id];
    if (named) return named;
    return pretty(id);        // (never a made-up name where the table has one: one name a card)
  }
  // every face-up card the public view names, id -> name (routes, placed and flipped Exports,
  // Tactics in play, revealed Policies, the disputes' cards), as the table's screens read them
  function tableCardNames(gv) {
    const names = {};
    const put = (c, n) => { if (typeof c === "string" && typeof n === "string" && n) names[c] = n; };
    for (const pt of gv.partners || []) {
      for (const r of Object.values(pt.routes || {})) if (r) put(r.card, r.name);
      for (const x of pt.placed || []) if (x) put(x.card, x.name);
    }
    for (const t of gv.in_play || []) if (t) put(t.card, t.name);
    for (const r of Object.values(gv.policy_reveal || {})) if (r) put(r.card, r.name);
    for (const c of ((gv.disputes || {}).contests) || []) {
      for (const [s, cid] of Object.entries(c.cards || {})) put(cid, (c.card_names || {})[s]);
    }
    return names;
  }

  // -- acting ---------------------------------------------------------------------------------------
  function openLocks(v) {
    return (v.windows || []).filter((w) => !w.revealed && w.locked && w.locked[String(v.seat)] && w.locked[String(v.seat)].choice !== undefined);
  }
  function renderAct(force) {
    const v = S.view;
    const box = $("#act");
    if (!v) { box.replaceChildren(el("p", { class: "waiting", text: "Connecting to the table…" })); return; }
    // redraw only when what this panel shows changes (a half-typed note keeps its focus)
    const sig = JSON.stringify([v.session, v.rev, v.phase, v.prompt, v.legal, openLocks(v).map((w) => [w.id, Object.keys(w.locked)]),
      v.waiting, v.table_prompt, v.outcome, !!S.pending, S.connected, S.hubOnline, v.phase === "lobby" && v.hub && v.hub.seats]);
    if (!changed("act", sig) && !force) return;
    const kids = [];
    if (resultIsOld(v)) S.result = null;
    for (const w of openLocks(v)) kids.push(lockPanel(v, w));
    const legal = v.legal || [];
    if (v.outcome) {
      kids.push(outcomePanel(v));
    } else if (v.phase === "lobby" && !(v.hub && v.hub.game)) {
      kids.push(el("div", { data: { panel: "home" } }, el("div", { class: "prompt-title", text: "Between games" }),
        el("p", { class: "waiting", text: "The table is choosing what to play next. You keep your seat." })));
    } else if (v.phase === "lobby") {
      const seats = (v.hub && v.hub.seats) || [];
      const taken = seats.filter((s) => s.phone).length;
      kids.push(el("div", { data: { panel: "lobby" } }, el("div", { class: "prompt-title", text: "Waiting for players" }),
        el("p", { class: "waiting", text: taken + " of " + seats.length + " seats taken." })));
    } else if (legal.length) {
      const promptSig = JSON.stringify([v.session, v.prompt, legal.map((m) => m.move)]);
      if (promptSig !== S.lastPromptSig) {
        const fresh = S.lastPromptSig !== null && v.prompt;
        S.lastPromptSig = promptSig;
        if (!S.pending) S.result = null;      // a new question: the last answer's note is old news
        if (fresh) vibrate(60);
      }
      kids.push(movesPanel(v, legal));
      if (!v.prompt) kids.push(waitingPanel(v));
    } else if (!openLocks(v).length) {
      kids.push(waitingPanel(v));
    }
    if (DEV) kids.push(devPanel(v));
    const status = el("div", { class: "status-line", id: "status" });
    if (v.outcome && S.outcomeShown !== v.session) {
      // the game just ended (or this page opened on its end): bring the winner into view,
      // wherever the player had scrolled to
      S.outcomeShown = v.session;
      setTimeout(showOutcome, 0);
    }
    if (S.pending) status.append(el("span", { class: "muted", text: "Sending " + S.pending.label + "…" }));
    else if (S.result && !v.outcome) status.append(el("span", { class: S.result.ok ? "ok" : "error", role: "alert", text: S.result.message }));
    kids.push(status);
    redraw(box, kids);
    saveDrafts();
  }
  function showOutcome() {
    const p = document.querySelector("#game-screen [data-panel=outcome]");
    if (p) p.scrollIntoView({ block: "start", behavior: "instant" });
  }
  function waitingPanel(v) {
    const names = (v.waiting || []).filter((s) => s !== v.seat).map(playerName);
    const tp = v.table_prompt;
    let text;
    const what = (v.game_view || {}).waiting_for;     // for what, in the game's words
    if (names.length) text = "Waiting for " + joinNames(names) + (what ? ": " + what + "." : ".");
    else if (tp) {
      const what = tp.text || (v.table_legal || []).map((m) => m.label).join(" or ");
      text = "Waiting for the table" + (what ? ": " + what : ".");
    }
    else text = "Nothing to do right now.";
    return el("div", { data: { panel: "waiting" } }, el("p", { class: "waiting", text: text }));
  }
  // The final standings: winners first (a tiebreak may have decided between equal scores),
  // then by score; players level on both share their place ("2nd=", competition ranking:
  // 1st, 2nd=, 2nd=, 4th), as the table's standings do. [{seat, score, place, tied, winner}]
  function standings(o) {
    const rows = Object.entries(o.scores || {}).map(([s, sc]) => ({ seat: s, score: sc, winner: (o.winners || []).includes(Number(s)) }));
    const ahead = (a, b) => (a.winner !== b.winner ? a.winner : a.score > b.score);
    const level = (a, b) => a.winner === b.winner && a.score === b.score;
    rows.sort((a, b) => (ahead(a, b) ? -1 : ahead(b, a) ? 1 : 0));
    for (const r of rows) {
      r.place = 1 + rows.filter((x) => ahead(x, r)).length;
      r.tied = rows.some((x) => x !== r && level(x, r));
    }
    return rows;
  }
  function placeText(r) { return ordinal(r.place) + (r.tied ? "=" : ""); }
  function outcomePanel(v) {
    const o = v.outcome;
    const rows = standings(o).map((r) => el("li", { data: { seat: r.seat, place: String(r.place), tied: r.tied ? "1" : "0" } },
        el("span", { class: "rank", title: (r.tied ? "tied " : "") + ordinal(r.place), "aria-label": (r.tied ? "tied " : "") + ordinal(r.place), text: placeText(r) }),
        el("span", { class: "pname", text: playerName(r.seat) }), r.winner ? el("span", { class: "tag win", text: "winner" }) : null,
        el("b", { class: "score", text: String(r.score) })));
    const me = o.winners.includes(v.seat);
    return el("div", { data: { panel: "outcome" } },
      el("div", { class: "prompt-title big-title", text: me ? "You win!" : "Game over" }),
      el("p", { class: "winner", text: (o.winners.length > 1 ? "Winners: " : "Winner: ") + joinNames(o.winners.map(playerName)) }),
      o.reason ? el("p", { class: "muted", text: o.reason }) : null,
      el("h3", { text: "Final scores" }),
      el("ol", { class: "scores" }, rows),
      outcomeWords(v));
  }
  // what the game reveals at its end (Battle Builder: each secret objective, met or not, its VP)
  function outcomeWords(v) {
    const res = v.game === "battle-builder" && v.game_view && v.game_view.objective_results;
    if (!Array.isArray(res) || !res.length) return null;
    return el("div", { data: { panel: "objectives" } }, el("h3", { text: "Secret objectives" }),
      el("ul", { class: "flip-list" }, res.map((r) => el("li", { data: { seat: String(r.seat) }, text: r.says }))));
  }
  function lockPanel(v, w) {
    const mine = w.locked[String(v.seat)];
    const ok = typeof mine.salt === "string" && mine.salt.length >= 32 && commitment(w.id, v.seat, mine.choice, mine.salt) === mine.commitment;
    const waiting = (w.seats || []).filter((s) => !(String(s) in w.locked)).map(playerName);
    return el("div", { class: "locked", data: { window: w.id, panel: "locked" } },
      el("div", { class: "prompt-title", text: "Locked in: " + (w.label || "your secret choice") }),
      el("p", {}, "Your choice: ", el("b", { class: "locked-choice", text: choiceText(v, w, mine.choice, v.seat) })),
      el("p", { class: "muted" }, "Fingerprint ", el("span", { class: "fp", text: fingerprint(mine.commitment) }), " ",
        el("span", { class: ok ? "ok" : "error", text: ok ? "✓ checked on this phone" : "✗ does not match" })),
      el("p", { class: "muted", text: waiting.length ? "Waiting for " + joinNames(waiting) + "." : "Everyone is in." }));
  }

  // -- the moves a player may make now (legal), and a picker per argument ---------------------------
  function moveKey(v, m) { return v.session + ":" + m.move; }
  function movesPanel(v, legal) {
    const prompted = new Set((v.prompt && v.prompt.moves) || []);
    const main = legal.filter((m) => prompted.has(m.move));
    const anytime = legal.filter((m) => !prompted.has(m.move));
    const key = v.session;
    let open = S.openMove[key];
    if (open && !legal.some((m) => m.move === open)) open = S.openMove[key] = null;
    if (!open) {
      // one asked-for move (or one prompted move that asks something) opens at once; a move
      // nobody asks for now (a Tactic an idle player may play) stays a closed button under
      // "You may", so an open "Still to choose" never looks required
      const withArgs = main.filter((m) => (m.args || []).length);
      if (legal.length === 1 && main.length === 1) open = legal[0].move;
      else if (withArgs.length === 1 && main.length <= 2) open = withArgs[0].move;
    }
    const out = el("div", { class: "moves", data: { panel: "moves" } });
    const head = widgetHead(v, main.length ? main : anytime);
    if (head) out.append(head);
    if (legal.length === 1 && main.length === 1) {
      out.append(moveForm(v, legal[0], true));
      return out;
    }
    if (main.length) out.append(moveButtons(v, main, open, "Your move", "prompted"));
    if (anytime.length) out.append(moveButtons(v, anytime, open, main.length ? "Any time" : "You may", "any-time"));
    return out;
  }
  // the moves as big buttons; the chosen one's pickers open right under its button
  function moveButtons(v, moves, open, title, group) {
    const list = el("div", { class: "move-list" + (group === "any-time" && title === "Any time" ? " secondary" : ""), data: { group: group } },
      el("h3", { text: title }));
    for (const m of moves) {
      const hasArgs = (m.args || []).length > 0;
      list.append(el("button", { type: "button", class: "move big" + (open === m.move ? " chosen" : "") + (hasArgs ? " opens" : ""),
        data: { move: m.move, sealed: m.sealed ? "1" : null }, "aria-expanded": hasArgs ? String(open === m.move) : null,
        onclick: () => {
          if (!hasArgs) { send(m.move, {}, m.label, { sealed: m.sealed }); return; }
          S.openMove[v.session] = m.move;
          renderAct(true);
        } }, (m.sealed ? "Secret: " : "") + m.label + (hasArgs ? (open === m.move ? " ▾" : " ▸") : "")));
      if (open === m.move && hasArgs) list.append(moveForm(v, m, false));
    }
    return list;
  }
  function moveForm(v, m, single) {
    const key = moveKey(v, m);
    const answers = S.answers[key] = S.answers[key] || {};
    const w = walk(m.args || [], answers);
    const widget = (WIDGETS[v.game] || {})[m.move];
    const form = el("div", { class: "move-form", data: { form: m.move } });
    if (single) form.append(el("div", { class: "prompt-title", text: (widget && widget.title && widget.title(v, m)) || m.label }));
    else if (widget && widget.title) form.append(el("div", { class: "prompt-title", text: widget.title(v, m) }));
    if (widget && widget.intro) { const x = widget.intro(v, m, w); if (x) form.append(x); }
    if (m.sealed) form.append(el("p", { class: "secret", data: { sealed: "1" } }, "Secret: nobody sees your choice until everyone has chosen."));
    for (const item of w.items) form.append(picker(v, m, item, answers, w, widget));
    const words = summaryOf(w, widget);
    const sendLabel = w.complete ? ((m.sealed ? "Lock in" : m.label) + (words ? (m.sealed ? " " : ": ") + words : "")) :
      "Still to choose: " + w.missing.map((s) => (s.label || pretty(s.name)).replace(/[?:]\s*$/, "")).join(", ");
    form.append(el("button", { type: "button", class: "primary big send", id: "send", data: { send: m.move },
      disabled: !w.complete || !!S.pending,
      onclick: () => {
        const now = walk(m.args || [], answers);
        if (!now.complete) return;
        const window_ = m.sealed && v.prompt && v.prompt.window;
        send(m.move, now.args, m.sealed ? "Your secret choice" : m.label,
          { key: key, sealed: m.sealed, window: window_, session: v.session, words: summaryOf(now, widget) || m.label });
      } }, sendLabel));
    if (!single && (m.args || []).length) {
      form.append(el("button", { type: "button", class: "link", data: { action: "close-form" },
        onclick: () => { S.openMove[v.session] = null; renderAct(true); } }, "Back to the moves"));
    }
    return form;
  }
  function setAnswer(answers, name, value) { answers[name] = value; renderAct(true); }
  // an ordered pick with pick_labels asks the question of its next pick ("... second?")
  function specQuestion(spec, value) {
    const picks = spec.pick_labels || [];
    const n = Array.isArray(value) ? value.length : 0;
    if (spec.kind === "order" && picks.length && n < picks.length) return picks[n];
    return spec.label || pretty(spec.name);
  }
  function argHead(spec, extra, value) {
    return el("div", { class: "arg-head" }, el("span", { class: "arg-label", text: specQuestion(spec, value) }),
      spec.optional ? el("span", { class: "muted", text: " (optional)" }) : null, extra || null);
  }
  // In a long list (more than six options) each option shows the start of its detail (a
  // partner's bonus and slots); the chosen one shows all of it.
  function shortDetail(d) {
    const parts = d.split(" · ");
    const head = parts.slice(0, 2).join(" · ");
    return head.length > 60 ? head.slice(0, 57).replace(/\s+\S*$/, "") + "…" : head + (parts.length > 2 ? " …" : "");
  }
  function optionButton(spec, o, props, kids, compact) {
    const why = typeof o.disabled === "string" ? o.disabled : (o.disabled ? "not now" : null);
    const chosen = props && / chosen/.test(props.class || "");
    const detail = o.detail && compact && !chosen ? shortDetail(o.detail) : o.detail;
    return el("button", Object.assign({ type: "button", class: "choice" + (o.disabled ? " blocked" : ""), disabled: !!o.disabled,
      data: { arg: spec.name, value: canonical(o.value) } }, props),
    el("span", { class: "title", text: o.label }),
    detail ? el("span", { class: "detail", text: detail }) : null,
    why ? el("span", { class: "why", text: why }) : null,
    kids || null);
  }
  function missingFirst(spec, args) {
    // the earlier questions an option waits for
    const need = new Set();
    for (const o of spec.options || []) for (const k of Object.keys(o.when || {})) if (!(k in args)) need.add(k);
    return [...need];
  }
  function picker(v, m, item, answers, w, widget) {
    const { spec, opts, value } = item;
    const box = el("div", { class: "arg arg-" + spec.kind, data: { spec: spec.name, kind: spec.kind } });
    const custom = widget && widget.pickers && widget.pickers[spec.name];
    if (custom) { const x = custom(v, m, item, answers, w); if (x) return x; }
    const grid = (cls) => el("div", { class: "choices" + (cls ? " " + cls : "") + (opts.some((o) => o.detail || (o.label || "").length > 16) ? " one" : "") });
    const emptyHint = () => {
      const need = missingFirst(spec, w.args);
      const specs = m.args || [];
      const names = need.map((n) => { const s = specs.find((x) => x.name === n); return s ? (s.label || pretty(n)).replace(/[?:]\s*$/, "") : pretty(n); });
      return el("p", { class: "hint", text: need.length ? "First choose: " + names.join(", ") + "." : "Nothing to choose from right now." });
    };
    switch (spec.kind) {
      case "one": {
        box.append(argHead(spec));
        if (!opts.length) { box.append(emptyHint()); break; }
        if (opts.every((o) => Number.isInteger(o.row) && Number.isInteger(o.col))) { box.append(boardPicker(spec, opts, value, answers)); break; }
        const g = grid();
        for (const o of opts) {
          const chosen = value !== undefined && same(o.value, value);
          g.append(optionButton(spec, o, { class: "choice" + (chosen ? " chosen" : "") + (o.disabled ? " blocked" : ""), "aria-pressed": chosen ? "true" : "false",
            onclick: () => setAnswer(answers, spec.name, chosen && spec.optional ? CLEARED : o.value) }, null, opts.length > 6));
        }
        box.append(g);
        break;
      }
      case "number": {
        const lo = spec.min, hi = spec.max, step = spec.step || 1;
        box.append(argHead(spec));
        const cur = value;
        const bump = (k) => () => setAnswer(answers, spec.name, cur === undefined ? lo : clamp(cur + k, lo, hi));
        const big = hi - lo >= 10 * step;
        box.append(el("div", { class: "stepper", data: { arg: spec.name, value: cur === undefined ? null : canonical(cur) } },
          big ? el("button", { type: "button", data: { step: String(-5 * step) }, "aria-label": "5 less", disabled: cur === undefined || cur <= lo, onclick: bump(-5 * step) }, "−5") : null,
          el("button", { type: "button", data: { step: String(-step) }, "aria-label": "less", disabled: cur === undefined || cur <= lo, onclick: bump(-step) }, "−"),
          el("output", { class: "value", text: cur === undefined ? "—" : String(cur) }),
          el("button", { type: "button", data: { step: String(step) }, "aria-label": "more", disabled: cur !== undefined && cur >= hi, onclick: bump(step) }, "+"),
          big ? el("button", { type: "button", data: { step: String(5 * step) }, "aria-label": "5 more", disabled: cur !== undefined && cur >= hi, onclick: bump(5 * step) }, "+5") : null),
        el("div", { class: "hint", text: "From " + lo + " to " + hi + "." }),
        spec.optional && cur !== undefined ? el("button", { type: "button", class: "link", data: { clear: spec.name }, onclick: () => setAnswer(answers, spec.name, CLEARED) }, "Leave it out") : "");
        break;
      }
      case "order": {
        const picked = value || [];
        box.append(argHead(spec, el("span", { class: "count", text: " " + (spec.min === spec.max ? picked.length + " of " + spec.max : picked.length + " chosen (" + spec.min + "–" + spec.max + ")") }), picked));
        box.append(el("p", { class: "hint", text: "Tap in order, first choice first. Tap again to take one back." }));
        if (!opts.length) { box.append(emptyHint()); break; }
        const g = grid();
        for (const o of opts) {
          const at = picked.findIndex((x) => same(x, o.value));
          g.append(optionButton(spec, o, { class: "choice" + (at >= 0 ? " chosen" : "") + (o.disabled ? " blocked" : ""), "aria-pressed": at >= 0 ? "true" : "false",
            data: { arg: spec.name, value: canonical(o.value), rank: at >= 0 ? String(at + 1) : null },
            onclick: () => {
              const now = picked.slice();
              if (at >= 0) now.splice(at, 1);
              else if (now.length < spec.max) now.push(o.value);
              else { toast("You choose at most " + spec.max + "; tap one to take it back."); return; }
              setAnswer(answers, spec.name, now);
            } }, at >= 0 ? el("span", { class: "badge", text: String(at + 1) }) : null));
        }
        box.append(g);
        break;
      }
      case "subset": {
        const picked = value || [];
        box.append(argHead(spec, el("span", { class: "count", text: " " + picked.length + " chosen (" + (spec.min === spec.max ? spec.max : spec.min + "–" + spec.max) + ")" })));
        if (!opts.length) { box.append(emptyHint()); break; }
        const g = grid();
        for (const o of opts) {
          const on = picked.some((x) => same(x, o.value));
          g.append(optionButton(spec, o, { class: "choice" + (on ? " chosen" : "") + (o.disabled ? " blocked" : ""), "aria-pressed": on ? "true" : "false",
            onclick: () => {
              let now = picked.slice();
              if (on) now = now.filter((x) => !same(x, o.value));
              else if (now.length < spec.max) now.push(o.value);
              else { toast("At most " + spec.max + "; tap one to take it back."); return; }
              setAnswer(answers, spec.name, now);
            } }, on ? el("span", { class: "badge", text: "✓" }) : null));
        }
        box.append(g);
        break;
      }
      case "counts": {
        const got = value || {};
        const [lo, hi] = countsRange(spec);
        const total = Object.values(got).reduce((a, b) => a + b, 0);
        const want = lo === hi ? String(lo) : (hi === Infinity ? "at least " + lo : lo + "–" + hi);
        box.append(argHead(spec, el("span", { class: "count" + (total >= lo && total <= hi ? " ok" : ""), data: { total: String(total) }, text: " " + total + " of " + want })));
        if (!opts.length) { box.append(emptyHint()); break; }
        const list = el("div", { class: "counts" });
        for (const o of opts) {
          const k = String(o.value);
          const n = got[k] || 0;
          const cap = o.max === undefined ? Infinity : o.max;
          const set = (x) => () => { const now = Object.assign({}, got); now[k] = clamp(x, 0, cap); if (!now[k]) delete now[k]; setAnswer(answers, spec.name, now); };
          list.append(el("div", { class: "count-row" + (o.disabled ? " blocked" : ""), data: { arg: spec.name, value: canonical(o.value), n: String(n) } },
            el("div", { class: "grow" }, el("div", { class: "title", text: o.label }),
              o.detail ? el("div", { class: "detail", text: o.detail }) : null,
              typeof o.disabled === "string" ? el("div", { class: "why", text: o.disabled }) : null),
            el("button", { type: "button", data: { step: "-1" }, "aria-label": "one less " + o.label, disabled: !!o.disabled || n <= 0, onclick: set(n - 1) }, "−"),
            el("output", { class: "value", text: String(n) }),
            el("button", { type: "button", data: { step: "1" }, "aria-label": "one more " + o.label, disabled: !!o.disabled || n >= cap || total >= hi, onclick: set(n + 1) }, "+")));
        }
        box.append(list);
        break;
      }
      case "flag": {
        const on = !!value;
        box.append(el("button", { type: "button", class: "toggle big" + (on ? " chosen" : ""), "aria-pressed": on ? "true" : "false",
          data: { arg: spec.name, value: canonical(on) }, onclick: () => setAnswer(answers, spec.name, !on) },
        el("span", { class: "box", text: on ? "✓" : "" }), el("span", { class: "title", text: spec.label || pretty(spec.name) })));
        break;
      }
      case "text": {
        box.append(argHead(spec));
        const input = el("input", { type: "text", maxlength: String(spec.max_len || 80), value: value || "", data: { arg: spec.name },
          autocomplete: "off", enterkeyhint: "done",
          oninput: (e) => {
            answers[spec.name] = e.target.value;
            saveDrafts();
            const now = walk(m.args || [], answers);
            const btn = $("#send");
            if (btn) {
              btn.disabled = !now.complete || !!S.pending;
              const words = summaryOf(now, widget);
              btn.textContent = now.complete ? ((m.sealed ? "Lock in" : m.label) + (words ? (m.sealed ? " " : ": ") + words : "")) :
                "Still to choose: " + now.missing.map((s) => (s.label || pretty(s.name)).replace(/[?:]\s*$/, "")).join(", ");
            }
          } });
        box.append(input, el("div", { class: "hint", text: "Up to " + (spec.max_len || 80) + " characters." }));
        break;
      }
      default:
        box.append(el("p", { class: "hint", text: (spec.label || pretty(spec.name)) + ": this phone cannot draw that question; ask the table." }));
    }
    return box;
  }

  // Options that sit on a board (they carry `row` and `col`): tap the tile where it lies. A
  // tile shows what it gives (a number) and a short code of its kind, coloured, with a legend:
  // colour is never the only cue.
  function shortCodes(names) {
    const out = {};
    for (const n of names) {
      let k = 2;
      while (k < n.length && names.some((m) => m !== n && m.slice(0, k).toLowerCase() === n.slice(0, k).toLowerCase())) k += 1;
      out[n] = n.slice(0, 1).toUpperCase() + n.slice(1, k).toLowerCase();
    }
    return out;
  }
  function boardPicker(spec, opts, value, answers) {
    const rows = Math.max(...opts.map((o) => o.row)) + 1, cols = Math.max(...opts.map((o) => o.col)) + 1;
    const kindOf = (o) => pretty(o.resource || o.terrain || (o.label || "").split(",")[0]);
    const kinds = [...new Set(opts.map(kindOf))];
    const code = shortCodes(kinds);
    const grid = el("div", { class: "board" });
    grid.style.gridTemplateColumns = "repeat(" + cols + ", minmax(0, 1fr))";     // CSSOM: allowed by the CSP
    const at = {};
    for (const o of opts) at[o.row + ":" + o.col] = o;
    let chosen = null;
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const o = at[r + ":" + c];
        if (!o) { grid.append(el("div", { class: "cell empty" })); continue; }
        const on = value !== undefined && same(o.value, value);
        if (on) chosen = o;
        const gain = o.detail && o.detail.includes("→") ? o.detail.split("→").pop().trim() : "";
        const n = (gain.match(/^(\d+)/) || [null, ""])[1];
        grid.append(el("button", { type: "button", class: "cell kind-" + (kinds.indexOf(kindOf(o)) % 7) + (on ? " chosen" : "") + (o.disabled ? " blocked" : ""),
          disabled: !!o.disabled, "aria-pressed": on ? "true" : "false", "aria-label": o.label + (o.detail ? ", " + o.detail : ""),
          data: { arg: spec.name, value: canonical(o.value) }, onclick: () => setAnswer(answers, spec.name, o.value) },
        el("span", { class: "gain", text: n || "·" }), el("span", { class: "what", text: code[kindOf(o)] })));
      }
    }
    const terrain = {};
    for (const o of opts) if (o.terrain) terrain[kindOf(o)] = pretty(o.terrain);
    const legend = el("div", { class: "legend" }, kinds.map((k, i) => el("span", { class: "key" },
      el("span", { class: "swatch kind-" + (i % 7), text: code[k] }), " " + k + (terrain[k] && terrain[k] !== k ? " (" + terrain[k] + ")" : ""))));
    return el("div", {}, grid, legend,
      el("p", { class: "board-pick", text: chosen ? chosen.label + (chosen.detail ? " — " + chosen.detail : "") : "Tap a tile: the number is what it gives." }));
  }

  // Developers only (?dev=1): send any move with raw JSON arguments.
  function devPanel(v) {
    const names = [...new Set([...((v.prompt && v.prompt.moves) || []), ...(v.legal || []).map((m) => m.move)])];
    const move = el("input", { id: "dev-move", placeholder: "move", value: names[0] || "" });
    const raw = el("textarea", { id: "dev-args", placeholder: '{"name": value}' });
    return el("details", { class: "dev", data: { panel: "dev" } }, el("summary", { text: "Developer: send raw" }),
      el("p", { class: "hint", text: "Moves now: " + (names.join(", ") || "none") }), move, raw,
      el("button", { type: "button", class: "big", id: "dev-send", onclick: () => {
        let args = {};
        if (raw.value.trim()) { try { args = JSON.parse(raw.value); } catch (e) { S.result = { ok: false, message: "That JSON does not parse." }; renderAct(true); return; } }
        send(move.value.trim(), args, move.value.trim());
      } }, "Send"));
  }

  // -- purpose-built touches for some moves (options still come from `legal`) ------------------------
  // A widget adds words around the generic pickers: a title, what the choice is about, a hint
  // that the rules alone do not give. It never decides what is legal.
  function widgetHead(v, moves) {
    for (const m of moves) {
      const w = (WIDGETS[v.game] || {})[m.move];
      if (w && w.head) { const x = w.head(v, m); if (x) return x; }
    }
    return null;
  }
  function context(...kids) { return el("div", { class: "context", data: { panel: "context" } }, kids); }
  const WIDGETS = {
    "great-powers": {},
    "market-trading": {
      // "Trade: take 1 Grain, give 1 Salt" (an arrow between them read either way round)
      trade: { words: (w) => {
        const said = (name) => {
          const item = w.items.find((x) => x.spec.name === name);
          return item && item.ok ? answerWords(item) : null;
        };
        const take = said("take"), give = said("give");
        return take && give ? "take " + take + ", give " + give : null;
      } },
    },
    "trade-warz": {
      // the blind Leader pick as one ordered pick: the first tap is the wish, the next taps
      // the back-ups in case it is taken (the specs' `leader` and `ranking`)
      pick_leader: { pickers: {
        leader: (v, m, item, answers, w) => {
          const rankSpec = (m.args || []).find((x) => x.name === "ranking");
          const ranking = (w.items.find((x) => x.spec.name === "ranking") || {}).value || [];
          const picked = item.value !== undefined ? [item.value, ...ranking] : [];
          const most = 1 + (rankSpec ? rankSpec.max : 0);
          const box = el("div", { class: "arg arg-order", data: { spec: "leader", kind: "order" } },
            argHead(item.spec, el("span", { class: "count", text: " " + picked.length + " of up to " + most })),
            el("p", { class: "hint", text: "Tap your wish first, then back-ups in order in case it is taken. Tap again to take one back." }));
          const g = el("div", { class: "choices one" });
          for (const o of item.opts) {
            const at = picked.findIndex((x) => same(x, o.value));
            g.append(optionButton(item.spec, o, { class: "choice" + (at >= 0 ? " chosen" : "") + (o.disabled ? " blocked" : ""),
              "aria-pressed": at >= 0 ? "true" : "false", data: { arg: "leader", value: canonical(o.value), rank: at >= 0 ? String(at + 1) : null },
              onclick: () => {
                const now = picked.slice();
                if (at >= 0) now.splice(at, 1);
                else if (now.length < most) now.push(o.value);
                else { toast("That is every wish there is room for; tap one to take it back."); return; }
                if (now.length) answers.leader = now[0]; else delete answers.leader;
                answers.ranking = now.slice(1);
                renderAct(true);
              } }, at >= 0 ? el("span", { class: "badge", text: String(at + 1) }) : null));
          }
          box.append(g);
          return box;
        },
        ranking: () => el("div", { hidden: true }),
      } },
      // a dispute's blind bid: which slot, who against whom
      bid: { intro: (v) => {
        const d = (v.game_view && v.game_view.disputes) || {};
        const id = (d.bidding && d.bidding.contest) || d.current;
        const c = (d.contests || []).find((x) => x.id === id);
        return c ? context(el("b", { text: c.label || "" }), c.card_names ? el("div", { class: "muted", text: Object.entries(c.card_names).map(([s, n]) => playerName(s) + ": " + n).join(" · ") }) : null) : null;
      } },
    },
    "battle-builder": {
      // the attack: what it is against
      play_turn: { intro: (v) => {
        const p = v.prompt || {};
        const b = ((v.game_view && v.game_view.battles_now) || []).find((x) => x.id === p.battle);
        if (!b) return null;
        const foes = (b.monsters || []).map((m) => m.name + " " + m.hp + "/" + m.max_hp + " HP");
        const others = (b.seats || []).filter((x) => x !== v.seat).map((x) => { const f = (b.fighters || {})[String(x)]; return playerName(x) + (f ? " " + f.hp + "/" + f.max_hp + " HP" : ""); });
        // in a PvP battle (or the final) the other player is the opponent, not an ally
        if (b.kind !== "monster") return others.length ? context(el("div", {}, el("b", { text: "Against: " }), others.join(", "))) : null;
        return context(foes.length ? el("div", {}, el("b", { text: "Against: " }), foes.join(", ")) : null,
          others.length ? el("div", { class: "muted", text: "With you: " + others.join(", ") }) : null);
      } },
    },
  };

  // -- reveal: the moment, as one card per player ------------------------------------------------------
  // The last revealed sealed window, one card per player with what they chose (checked against
  // the commitment seen at lock-in), in the game's own words where its public view says more
  // (Trade Warz: the Leader each seat got, each Policy with its text and target, the Export
  // flip; Battle Builder: the battle log).
  function renderReveal() {
    const v = S.view;
    const box = $("#reveal");
    if (!v || !v.windows) { box.replaceChildren(); return; }
    const gv = v.game_view || {};
    const revealed = v.windows.filter((w) => w.revealed);
    const w = revealed[revealed.length - 1];
    const flip = v.game === "trade-warz" && (v.phase === "exports" || v.phase === "disputes") && Array.isArray(gv.flip) && gv.flip.length;
    const sig = JSON.stringify([v.session, w || null, v.phase, v.game === "trade-warz" || v.game === "battle-builder" ? gv : null, S.commitSig]);
    if (!changed("reveal", sig)) return;
    const kids = [];
    if (w && !(flip && w.kind === "export")) kids.push(windowPanel(v, w));
    if (flip) kids.push(flipPanel(v, gv.flip));
    box.replaceChildren(...kids);
  }
  function windowPanel(v, w) {
    const checks = verifyWindow(v.session, w);
    const cards = Object.entries(w.locked || {}).map(([seat, item]) => el("li", { class: "pcard", data: { seat: seat } },
      el("div", { class: "row" }, el("b", { class: "grow pname", text: playerName(seat) }),
        el("span", { class: "check " + checks[seat].cls, text: checks[seat].text })),
      revealBody(v, w, seat, item)));
    const bad = Object.values(checks).some((c) => c.cls === "bad");
    return el("div", { class: "card reveal", data: { window: w.id, panel: "reveal" } },
      el("h2", { text: "Revealed: " + (w.label || "the choices") }),
      el("ul", { class: "reveal-list" }, cards),
      revealOutcome(v, w),
      el("p", { class: bad ? "error" : "muted", text: bad ? "A choice does not match its commitment!" : "Every choice was checked on this " + (S.device || "phone") + " against the fingerprint announced at lock-in." }));
  }
  function revealBody(v, w, seat, item) {
    const gv = v.game_view || {};
    if (v.game === "trade-warz" && w.kind === "leader" && gv.leader_pick) {
      const r = (gv.leader_pick.seats || []).find((x) => String(x.seat) === String(seat));
      if (r) {
        const how = r.by_lot ? "by lot: every wish was taken" : (r.wish ? ordinal(r.wish) + " wish" : "");
        const wished = (r.wishes || []).map((x) => x.name).join(", ");
        return el("div", {}, el("div", { class: "choice-text", text: r.name || "—" }),
          how ? el("div", { class: "muted", text: how }) : null,
          wished ? el("div", { class: "muted", text: "Wished: " + wished }) : null);
      }
    }
    if (v.game === "trade-warz" && w.kind === "policy" && gv.policy_reveal) {
      const r = gv.policy_reveal[String(seat)];
      if (r) {
        return el("div", {}, el("div", { class: "choice-text", text: r.name || "No Policy" }),
          r.text ? el("div", { class: "card-text", text: r.text }) : null,
          r.target_name ? el("div", {}, el("b", { text: "Target: " }), r.target_name) : null,
          r.partner_name ? el("div", {}, el("b", { text: "Partner: " }), r.partner_name) : null,
          r.fast_pass ? el("div", { class: "tag lock", text: "Fast-Pass: board locked" }) : null);
      }
    }
    return el("div", { class: "choice-text", text: item.defaulted ? "(no choice: " + choiceText(v, w, item.choice) + ")" : choiceText(v, w, item.choice) });
  }
  function ordinal(n) { return n + (n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"); }
  // Trade Warz: the Export flip, every face-up Export on its partner and slot
  function flipPanel(v, flip) {
    const by = {};
    for (const x of flip) (by[x.partner_name || x.partner] = by[x.partner_name || x.partner] || []).push(x);
    const groups = Object.entries(by).map(([partner, xs]) => el("li", { class: "pcard", data: { partner: xs[0].partner } },
      el("b", { class: "pname", text: partner }),
      el("ul", { class: "flip-list" }, xs.sort((a, b) => a.slot - b.slot).map((x) => el("li", { data: { seat: String(x.seat), slot: String(x.slot) } },
        el("b", { text: "Slot " + x.slot + ": " }), (x.player || playerName(x.seat)) + " — " + (x.name || "nothing (void)"),
        x.contested ? el("span", { class: "tag wait", text: "contested" }) : null)))));
    return el("div", { class: "card reveal", data: { panel: "flip" } },
      el("h2", { text: "Export flip" }), el("ul", { class: "reveal-list" }, groups));
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
      return el("div", {}, el("h3", { text: "Results" }), Object.entries(per).map(([s, l]) =>
        el("p", { class: "result-line" }, el("b", { text: playerName(s) + ": " }), l.length ? l.join(", ") : "no change")));
    }
    if (v.game === "trade-warz" && w.kind === "bid" && gv.disputes) {
      const c = (gv.disputes.contests || []).find((x) => x.window === w.id);
      if (c) {
        const power = Object.entries(c.power || {}).map(([s, p]) => playerName(s) + " " + p).join(" vs ");
        return el("div", { data: { panel: "dispute" } }, el("p", { class: "result-line", text: c.label || "" }),
          c.winner !== null && c.winner !== undefined ? el("p", { class: "result-line winner" }, "Winner: " + playerName(c.winner)) : null,
          power ? el("p", { class: "muted", text: "Dispute power: " + power }) : null);
      }
    }
    if (v.game === "battle-builder" && w.kind === "auction" && gv.auction && (gv.auction.lines || []).length) {
      return el("div", { data: { panel: "auction" } }, el("h3", { text: "Auction" }),
        el("ul", { class: "flip-list" }, gv.auction.lines.map((t) => el("li", { text: t }))));
    }
    if (v.game === "battle-builder") {
      const b = (gv.battles_now || []).find((x) => w.id.startsWith(x.id + ":"));
      const lines = b && b.last_turn && b.last_turn.lines;
      if (lines && lines.length) return el("div", { data: { panel: "battle-log" } }, el("h3", { text: "What happened" }),
        el("ul", { class: "flip-list" }, lines.map((t) => el("li", { text: t }))));
    }
    return null;
  }

  // -- players -----------------------------------------------------------------------------------------
  function scoreOf(st, i) {
    const gv = st.game_view || {};
    if (gv.tokens && gv.tokens[i] && gv.tokens[i].vp !== undefined) return gv.tokens[i].vp + " VP";
    if (Array.isArray(gv.vp) && gv.vp[i] !== undefined) return gv.vp[i] + " VP";
    if (Array.isArray(gv.gdp) && gv.gdp[i] !== undefined) return gv.gdp[i] + " GDP";
    if (Array.isArray(gv.points) && gv.points[i] !== undefined) return gv.points[i] + " pts";
    // Market Trading: points earned from the bowl (and what is left in it)
    if (Array.isArray(gv.earned) && gv.earned[i] !== undefined)
      return gv.earned[i] + " pts" + (Array.isArray(gv.bowl) && gv.bowl[i] !== undefined ? " · " + gv.bowl[i] + " left" : "");
    return null;
  }
  function renderPlayers() {
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
  // What happened: the story the table keeps (protocol 4.1 `story`), from the documents, so a
  // reloaded page shows what a page kept open shows, and /watch the same public entries. A
  // seat's view holds the public entries and its own; if the public state is newer, its
  // entries with this seat's own ones among them.
  function storyOf(view, state) {
    const vs = view && Array.isArray(view.story) ? view.story : null;
    const ss = state && Array.isArray(state.story) ? state.story : null;
    if (!vs) return ss || [];
    if (!ss || state.session !== view.session || !(state.rev > view.rev)) return vs;
    const own = vs.filter((e) => e.to !== undefined && e.rev >= (ss.length ? ss[0].rev : 0));
    return ss.concat(own).sort((a, b) => a.rev - b.rev);       // (a stable sort)
  }
  function feedList(entries) {
    return el("ul", {}, entries.slice().reverse().map((e) =>
      el("li", { class: e.to !== undefined ? "mine" : null, text: e.says, data: { rev: String(e.rev) } })));
  }
  function renderFeed() {
    const box = $("#feed");
    if (!box) return;
    const entries = storyOf(S.view, S.state);
    if (!changed("feed", JSON.stringify(entries))) return;
    box.replaceChildren(...(entries.length ? [el("h2", { text: "What happened" }), feedList(entries)] : []));
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

  // The spectator page (watch.html, watch.js) draws the public state with the same pieces:
  // the timer and its Time! moment, the reveals in the game's words, the scores.
  window.tcLib = { S, el, pretty, mmss, joinNames, stale, noteCommitments, noticeMoments, renderTimer, noteClock,
    windowPanel, flipPanel, revealOutcome, scoreOf, playerName, choiceText, timeUp, standings, placeText, gameTitle,
    storyOf, feedList };
  if (document.body.dataset.page === "watch") return;
  setInterval(updateWakeLock, 5000);     // the timer may have run out since the last state

  // -- start ------------------------------------------------------------------------------------------------
  $("#join-form").addEventListener("submit", (e) => {
    e.preventDefault();
    join($("#join-name").value.trim(), $("#join-room").value.trim().toUpperCase());
  });
  const handover = PARAMS.get("seat");
  const stored = load(STORE, null);
  if (handover) claimHandover(handover.trim());
  else if (stored && stored.token) { showGame(); reclaim(); } else showJoin();
})();
