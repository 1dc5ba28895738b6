/* Purpose-built touches for some moves, per game: a title, what a choice is about (the dispute a
 * bid is for, what an attack is against), a move's own wording for the send button, or one
 * combined picker (Trade Warz's Leader wish and back-ups as one ordered pick). A widget adds
 * words around the generic pickers; it never decides what is legal. */

import { el, toast } from "./util.js";
import { canonical, same } from "./recipe.js";
import { answerWords } from "./choices.js";
import { draw } from "./state.js";
import { playerName } from "./words.js";
import { argHead, optionButton } from "./pickers.js";

// A widget adds words around the generic pickers: a title, what the choice is about, a hint
// that the rules alone do not give. It never decides what is legal.
export function widgetHead(v, moves) {
  for (const m of moves) {
    const w = (WIDGETS[v.game] || {})[m.move];
    if (w && w.head) { const x = w.head(v, m); if (x) return x; }
  }
  return null;
}
function context(...kids) { return el("div", { class: "context", data: { panel: "context" } }, kids); }
export const WIDGETS = {
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
              draw.act(true);
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
