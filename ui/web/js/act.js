/* Acting (#act): the moves panel (prompted moves as buttons, any-time moves below, the open
 * move's pickers and its send button), the waiting, lobby, lock-in and outcome panels, the
 * developer's raw form (?dev=1), and the commands themselves: `send` publishes a move with its tx
 * and `onReply` takes the table's answer (a tx reused elsewhere is sent again once under a fresh
 * prefix, protocol section 5.1). */

import { $, el, fingerprint, joinNames, ordinal, pretty, redraw, save, toast, txPrefix, vibrate } from "./util.js";
import { commitment } from "./recipe.js";
import { summaryOf, walk } from "./choices.js";
import { changed, DEV, draw, S, saveDrafts, SUMMARIES } from "./state.js";
import { choiceText, placeText, playerName, standings } from "./words.js";
import { picker } from "./pickers.js";
import { widgetHead, WIDGETS } from "./widgets.js";

export function publishCommand(cmd) {
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
export function onReply(msg) {
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

function openLocks(v) {
  return (v.windows || []).filter((w) => !w.revealed && w.locked && w.locked[String(v.seat)] && w.locked[String(v.seat)].choice !== undefined);
}
export function renderAct(force) {
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
draw.act = renderAct;      // a picker's tap (pickers.js, widgets.js) draws the moves again
