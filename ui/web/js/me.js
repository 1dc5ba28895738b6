/* The seat's own panel (#me): the player's name and seat, renaming (`POST /rename`), and the
 * game's private numbers for this seat (tokens, GDP and hand, HP and stamina, the bowl), with a
 * generic drawing of any private part a game adds without a drawing of its own. */

import { $, el, load, post, pretty, redraw, save, toast } from "./util.js";
import { changed, S, STORE } from "./state.js";
import { describe, partnerName, playerName } from "./words.js";

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
export function renderMe() {
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
