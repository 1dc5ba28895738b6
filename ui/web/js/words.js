/* Names and numbers in words, from the documents: a seat's player name, a card's name from
 * whatever this page has seen, a sealed choice in words (`choiceText`), the game's title in its
 * edition, each player's score, the final standings (competition ranking, "2nd="), and the
 * table's story for the feed. Shared by the phone page and the spectator page. */

import { el, ordinal, pretty } from "./util.js";
import { doc, S } from "./state.js";

export function playerName(seat) {
  const d = doc();
  const names = (d && d.players) || ((d && d.hub && d.hub.seats) || []).map((s) => s.name);
  return names[seat] || ("Seat " + (Number(seat) + 1));
}

// the game by name, in the edition being played (Tariff Warz is an edition of Trade Warz):
// the game's public view says which, the hub's part says it in the lobby
export function gameTitle(d) {
  const gv = d.game_view || {};
  return gv.edition_title || (d.hub && d.hub.title) || d.title ||
    (d.hub && d.hub.game ? pretty(d.hub.game) : "Table Companion");
}

export function partnerName(v, id) {
  const ps = (v.game_view && v.game_view.partners) || [];
  const p = ps.find((x) => x.id === id);
  return p ? p.name : pretty(id);
}

export function describe(x) {
  if (x === null || x === undefined) return "—";
  if (typeof x !== "object") return pretty(x);
  if (Array.isArray(x)) return x.map(describe).join(" → ");
  if (x.name) return x.name + (x.text ? " — " + x.text : "");
  return Object.entries(x).filter(([, v]) => v !== null && v !== undefined && v !== false)
    .map(([k, v]) => v === true ? pretty(k) : pretty(k) + ": " + describe(v)).join(", ");
}

// the choice of one sealed window, in words (others' choices arrive only as values)
export function choiceText(v, w, choice, seat) {
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

// The final standings: winners first (a tiebreak may have decided between equal scores),
// then by score; players level on both share their place ("2nd=", competition ranking:
// 1st, 2nd=, 2nd=, 4th), as the table's standings do. [{seat, score, place, tied, winner}]
export function standings(o) {
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
export function placeText(r) { return ordinal(r.place) + (r.tied ? "=" : ""); }

export function scoreOf(st, i) {
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

// What happened: the story the table keeps (protocol 4.1 `story`), from the documents, so a
// reloaded page shows what a page kept open shows, and /watch the same public entries. A
// seat's view holds the public entries and its own; if the public state is newer, its
// entries with this seat's own ones among them.
export function storyOf(view, state) {
  const vs = view && Array.isArray(view.story) ? view.story : null;
  const ss = state && Array.isArray(state.story) ? state.story : null;
  if (!vs) return ss || [];
  if (!ss || state.session !== view.session || !(state.rev > view.rev)) return vs;
  const own = vs.filter((e) => e.to !== undefined && e.rev >= (ss.length ? ss[0].rev : 0));
  return ss.concat(own).sort((a, b) => a.rev - b.rev);       // (a stable sort)
}
export function feedList(entries) {
  return el("ul", {}, entries.slice().reverse().map((e) =>
    el("li", { class: e.to !== undefined ? "mine" : null, text: e.says, data: { rev: String(e.rev) } })));
}
