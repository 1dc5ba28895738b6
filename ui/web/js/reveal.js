/* The reveal panel: the last revealed sealed window as one card per player, each choice checked
 * against the commitment seen at lock-in, in the game's own words where its public view says more
 * (Trade Warz's Leaders, Policies and the Export flip; Great Powers' results; Battle Builder's
 * auction and battle log). The spectator page draws the same panels. */

import { $, el, ordinal, pretty } from "./util.js";
import { changed, S } from "./state.js";
import { verifyWindow } from "./book.js";
import { choiceText, playerName } from "./words.js";

// The last revealed sealed window, one card per player with what they chose (checked against
// the commitment seen at lock-in), in the game's own words where its public view says more
// (Trade Warz: the Leader each seat got, each Policy with its text and target, the Export
// flip; Battle Builder: the battle log).
export function renderReveal() {
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
export function windowPanel(v, w) {
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

// Trade Warz: the Export flip, every face-up Export on its partner and slot
export function flipPanel(v, flip) {
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
