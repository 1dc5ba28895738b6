"""What the table, phones and reports see: public and seat views, the battle log in words, the
text table, and the figures for `companion simulate battle-builder`."""
from collections import Counter

from . import battle as engine
from .data import DIFFICULTIES


def _last(e):
    """An overkill said as one: "for 15: blocked 1, 6 dealt (all the HP left)", never a sum
    that does not add up."""
    over = e.get("damage", 0) - e.get("block", 0) - e.get("dealt", 0)
    return " (all the HP left)" if over > 0 else ""


class Views:
    """Views, summaries and reports (a part of :class:`~.game.BattleBuilder`)."""

    # == views ====================================================================================
    def _monster_card(self, mid):
        m = self.rules.monsters[mid]
        return {"id": mid, "name": m.name, "difficulty": m.difficulty, "hp": m.hp,
                "attack": m.attack, "speed": m.speed, "reward": m.reward,
                "abilities": list(m.abilities)}

    def _battle_view(self, state, b):
        d = state.data
        fighters = {}
        for s in b["seats"]:
            fighters[str(s)] = {"hp": d.hp[s], "max_hp": d.max_now[s],
                                "stamina": d.stamina[s], "pile": sorted(d.pile[s]),
                                "defense_left": len(d.ddeck[s]),
                                "defense_played": list(d.ddiscard[s]),
                                "negate": d.negate[s], "mods": dict(d.mods[s])}
        return {"id": b["id"], "kind": b["kind"], "seats": list(b["seats"]), "turn": b["turn"],
                "round": b["round"], "round_wins": dict(b["round_wins"]),
                "effect": b["effect"], "over": b["over"], "result": b["result"],
                "winner": b["winner"], "window": b["window"],
                "monsters": [{k: m[k] for k in ("id", "name", "difficulty", "hp", "max_hp",
                                                "attack", "speed", "reward", "abilities")}
                             for m in b["monsters"]],
                "fighters": fighters, "last_turn": {"plays": dict(b["plays"]),
                                                    "order": [list(a) for a in b["order"]],
                                                    "log": list(b["log"]),
                                                    "lines": self.log_lines(state, b)}}

    def log_lines(self, state, b):
        """The last turn of battle ``b`` in words, one sentence per event, players and
        monsters and cards by name (what the table and phones show as the battle log)."""
        cards, players = self.rules.cards, state.players
        mons = b["monsters"]

        def who(x):
            if isinstance(x, str) and x.startswith("m"):
                i = int(x[1:])
                name = mons[i]["name"]
                same = sum(1 for m in mons if m["name"] == name)
                return name if same == 1 else f"{name} ({i + 1})"
            return players[x]

        def card(cid):
            return cards[cid].name if cid in cards else str(cid)

        out = []
        for e in b["log"]:
            if e.get("passed"):
                out.append(f"{who(e['seat'])} passed.")
            elif e.get("fumble"):
                out.append(f"{who(e['seat'])} fumbled {card(e['card'])} "
                           f"({e['stamina']} stamina): no damage.")
            elif "speed_drain" in e:
                out.append(f"Speed drain: {who(e['seat'])} loses {e['speed_drain']} stamina.")
            elif e.get("no_room"):
                out.append(f"{who(e['seat'])} finds no room to attack.")
            elif "counter" in e:
                out.append(f"{who(e['by'])} counters: {e['counter']} damage to "
                           f"{who(e['to'])}.")
            elif "attacker" in e:
                drew = [d for d in e["defense"] if d != "negated"]
                how = ("negated" if "negated" in e["defense"] else
                       f"blocked {e['block']}" + (f" ({', '.join(card(d) for d in drew)})"
                                                 if drew else ""))
                out.append(f"{who(e['attacker'])} hits {who(e['seat'])} for {e['damage']}: "
                           f"{how}, {e['dealt']} taken{_last(e)}.")
            elif "target" in e:
                out.append(f"{who(e['seat'])} hits {who(e['target'])} with {card(e['card'])} "
                           f"for {e['damage']}: blocked {e['block']}, {e['dealt']} dealt"
                           f"{_last(e)}.")
            elif "card" in e:
                out.append(f"{who(e['seat'])} plays {card(e['card'])} with "
                           f"{e['stamina']} stamina.")
        return out

    # == holdings =================================================================================
    def holdings(self, state, seat):
        """What ``seat`` owns in the open, by name: its attack and defence cards (the decks
        every screen lists), its HP and stamina upgrades, its revenge tokens; and, once the
        game is over, its secret objective. HP, stamina, the battle pile and the defence cards
        drawn inside a battle are the battle's own, shown live."""
        d, cards = state.data, self.rules.cards
        out = Counter(cards[c].name for c in d.attack[seat])
        out.update(cards[c].name for c in d.defense[seat])
        if d.hp_ups[seat]:
            out["HP upgrade"] += d.hp_ups[seat]
        if d.st_ups[seat]:
            out["stamina upgrade"] += d.st_ups[seat]
        if d.revenge and d.revenge[seat]:
            out["revenge token"] += d.revenge[seat]
        if state.outcome is not None and seat in d.objective:
            out[self.rules.objectives[d.objective[seat]].name] += 1
        return out

    def hidden_holdings(self, state, seat):
        """What only ``seat`` sees: the secret objectives it was dealt or kept (until the game
        is over), and the monsters it drew to pick one from in secret (dual monsters)."""
        d = state.data
        objectives, monsters = self.rules.objectives, self.rules.monsters
        out = Counter(objectives[o].name for o in d.objective_offer.get(seat, ()) if o)
        if state.outcome is None and seat in d.objective:
            out[objectives[d.objective[seat]].name] += 1
        out.update(monsters[m].name for m in d.dual_draws.get(seat, ()) if m)
        return out

    def public_view(self, state):
        d = state.data
        battles, every = self.arc(state)
        over = state.outcome is not None
        return {
            "battle": state.round, "battles": battles, "pvp_every": every,
            "pvp_done": d.pvp_done, "pvp_no": d.pvp_no, "pvps": battles // every,
            "pvp_trigger": state.config["pvp_trigger"], "vp": list(d.vp),
            "tokens": [dict(t) for t in d.tokens],
            "decks": [{"attack": sorted(d.attack[s]), "defense": sorted(d.defense[s]),
                       "value": self.deck_value(state, s)} for s in state.seats()],
            "upgrades": [{"hp": d.hp_ups[s], "stamina": d.st_ups[s]} for s in state.seats()],
            "teams": [list(t) for t in d.teams], "offers": [list(o) for o in d.offers],
            "monster_cards": {m: self._monster_card(m) for m in dict.fromkeys(
                [m for o in d.offers for m in o] + list(d.pool) +
                [m for p in d.picks for m in p])},
            "pool": list(d.pool), "picks": [list(p) for p in d.picks],
            "auction": dict(d.auction, lines=self._auction_words(state)) if d.auction else
            None, "prep": {str(s): c for s, c in d.prep.items()},
            "battles_now": [self._battle_view(state, b) for b in d.battles.values()],
            "shop_pool": list(d.shop_pool), "stock": dict(d.stock),
            "convert_ok": d.convert_ok,
            "pairings": [list(p) for p in d.pairings], "byes": list(d.byes),
            "pvp_prep": {str(s): c for s, c in d.pvp_prep.items()},
            "revenge": list(d.revenge), "pvp_wins": list(d.pvp_wins),
            "monsters_defeated": [dict(m) for m in d.monsters_defeated],
            "monster_deck": len(d.monster_deck), "monster_discard": len(d.monster_discard),
            "objectives": {str(s): o for s, o in d.objective.items()} if over else
            sorted(str(s) for s in d.objective),
            "objective_results": self.objective_results(state),
            "bonuses": dict(d.bonuses), "ending": d.ending,
            "vp_curve": [list(r) for r in d.vp_curve], "track": self._track_view(state),
            "sat_out": list(d.sat_out), "waiting_for": self._waiting_for(state),
            "last_results": list(d.results_said),
        }

    def _waiting_for(self, state):
        """What the table waits for in the PvP phases, in words, so "Waiting for Bob and Cat"
        says for what (and who sits the PvP out)."""
        d = state.data
        if state.outcome is not None:
            return None
        out = ""
        if state.phase == "pvp_setup" and any("choose_opponent" in p["moves"]
                                              for p in state.prompts.values()):
            return "to choose an opponent for the PvP"
        if state.phase == "pvp_prep":
            out = "sealed PvP wagers and bets"
        elif state.phase == "pvp" and d.pairings:
            out = "their PvP battle" if len(d.pairings) == 1 else "their PvP battles"
        if out and d.byes:
            out += f"; {', '.join(state.players[s] for s in d.byes)} sits this PvP out"
        return out or None

    def _track_view(self, state):
        t = state.data.track
        return {"choices": dict(t["choices"]),
                "results": {k: dict(v) for k, v in t["results"].items()},
                "battles": len(t["battles"]), "pvp": len(t["pvp"])}

    def seat_view(self, state, seat):
        d = state.data
        oid = d.objective.get(seat)
        return {"tokens": dict(d.tokens[seat]),
                "dual_draw": list(d.dual_draws.get(seat, [])),
                "dual_draw_cards": [self._monster_card(m) for m in d.dual_draws.get(seat, [])],
                "objective_offer": [self._objective(o) for o in
                                    d.objective_offer.get(seat, [])],
                "objective": self._objective(oid) if oid else None}

    def _objective(self, oid):
        o = self.rules.objectives[oid]
        return {"id": oid, "name": o.name, "text": o.text}

    def text_table(self, state):
        d = state.data
        battles, _ = self.arc(state)
        types = self.system(state).types
        lines = [f"Battle {state.round} of {battles}, PvP {d.pvp_done} played",
                 f"{'player':16}{'VP':>4}" + "".join(f"{t:>9}" for t in types) +
                 f"{'HP':>5}{'stam':>6}  deck"]
        r = self.rules
        for s in state.seats():
            deck = ", ".join(r.cards[c].name for c in sorted(d.attack[s] + d.defense[s])
                             if r.cards[c].tier)
            lines.append(f"{state.players[s]:16}{d.vp[s]:>4}" +
                         "".join(f"{d.tokens[s][t]:>9}" for t in types) +
                         f"{engine.max_hp(self, state, s):>5}"
                         f"{engine.max_stamina(self, state, s):>6}  {deck or 'basic'}")
        return "\n".join(lines)

    # == figures for `companion simulate battle-builder` (the core's report hook) ===============
    def report(self, summaries):
        """Monster win rate per difficulty against the design targets, over many games'
        summaries, with 95% intervals; what was chosen; tokens per battle; VP spread."""
        from companion.core.play import wilson
        won = {k: 0 for k in DIFFICULTIES}
        lost = {k: 0 for k in DIFFICULTIES}
        chosen = {k: 0 for k in DIFFICULTIES}
        tokens, spreads = [], []
        for sm in summaries:
            p = sm["playtest"]
            for k in DIFFICULTIES:
                won[k] += p["results"][k]["won"]
                lost[k] += p["results"][k]["lost"]
                chosen[k] += p["monster_choices"][k]
            tokens.append(p["tokens_per_battle"])
            spreads.append(p["vp_spread"])
        rows = []
        for k in DIFFICULTIES:
            n = won[k] + lost[k]
            target = self.rules.targets[k]
            if not n:
                rows.append({"difficulty": k, "battles": 0, "target": target})
                continue
            lo, hi = wilson(won[k], n)
            rows.append({"difficulty": k, "battles": n, "won": won[k], "win_rate": won[k] / n,
                         "ci95": [lo, hi], "target": target,
                         "verdict": "on target" if lo <= target <= hi else
                         ("too easy" if lo > target else "too hard")})
        total = sum(chosen.values()) or 1
        return {"difficulties": rows, "choices": {k: v / total for k, v in chosen.items()},
                "tokens_per_battle": sum(tokens) / len(tokens) if tokens else 0.0,
                "vp_spread": sum(spreads) / len(spreads) if spreads else 0.0}

    def report_text(self, r):
        lines = [f"{'difficulty':>10}  {'battles':>7}  {'chosen':>6}  {'win rate':>8}  "
                 f"95% interval     target  verdict"]
        for row in r["difficulties"]:
            k = row["difficulty"]
            if not row["battles"]:
                lines.append(f"{k:>10}  {0:>7}  {r['choices'][k]:6.1%}  never fought")
                continue
            lo, hi = row["ci95"]
            lines.append(f"{k:>10}  {row['battles']:>7}  {r['choices'][k]:6.1%}  "
                         f"{row['win_rate']:8.1%}  {lo:6.1%} - {hi:6.1%}  {row['target']:6.0%}"
                         f"  {row['verdict']}")
        lines.append(f"tokens per player per battle: {r['tokens_per_battle']:.1f}; final VP "
                     f"spread: {r['vp_spread']:.2f}")
        return "\n".join(lines)

    def summary(self, state):
        d = state.data
        t = d.track
        battles = t["battles"]
        tokens = [n for b in battles for n in b["tokens"].values()]
        secs = [b["seconds"] for b in battles]
        results = {}
        for k, v in t["results"].items():
            n = v["won"] + v["lost"]
            results[k] = {"won": v["won"], "lost": v["lost"],
                          "win_rate": v["won"] / n if n else None}
        game_secs = (t["ended"] - t["started"]) if t["ended"] is not None else None
        return {"factions": {}, "playtest": {
            "monster_choices": dict(t["choices"]), "results": results,
            "tokens_per_battle": sum(tokens) / len(tokens) if tokens else 0.0,
            "seconds_per_battle": sum(secs) / len(secs) if secs else 0.0,
            "pvp_seconds": [p["seconds"] for p in t["pvp"]],
            "game_seconds": game_secs, "final_vp": list(d.vp),
            "vp_spread": max(d.vp) - min(d.vp), "battles": battles, "pvp": t["pvp"]}}
