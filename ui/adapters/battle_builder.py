"""Battle Builder on the table screen: the battles (the monster, each fighter's HP and stamina,
who has locked a turn, the turn order after the reveal); the rest on the round screen."""
from ui import model
from ui.adapters import GameUI, ScoreData, Series


def pretty_id(cid) -> str:
    return str(cid or "").replace("-", " ").capitalize()


def actor_name(view, battle, who) -> str:
    """``["m", 0]`` -> the monster's name; ``["p", seat]`` -> the player's."""
    kind, x = who
    if kind == "m":
        ms = battle.get("monsters") or []
        return ms[x]["name"] if 0 <= x < len(ms) else "Monster"
    return model.names(view, [x])


def target_name(view, battle, t) -> str:
    if isinstance(t, str) and t.startswith("m") and t[1:].isdigit():
        return actor_name(view, battle, ["m", int(t[1:])])
    if isinstance(t, int):
        return model.names(view, [t])
    return str(t)


def sums(e) -> str:
    """``7 − 4 blocked = 3``, kept on one line (no-break spaces) when the log wraps."""
    nb = "\u00a0"
    out = f"{e.get('damage', 0)}{nb}\u2212{nb}{e.get('block', 0)}{nb}blocked{nb}={nb}" \
          f"{max(0, e.get('damage', 0) - e.get('block', 0))}"
    if e.get("damage", 0) - e.get("block", 0) > e.get("dealt", 0):
        out += f", {e.get('dealt', 0)}{nb}dealt (all the HP left)"       # an overkill
    return out


def log_line(view, battle, e) -> str:
    """One line of a battle turn's log, in words."""
    who = model.names(view, [e["seat"]]) if isinstance(e.get("seat"), int) else ""
    if "attacker" in e:
        m = target_name(view, battle, e["attacker"])
        return f"{m} hits {who}: {sums(e)}"
    if e.get("passed"):
        return f"{who} passes"
    if e.get("fumble"):
        return f"{who} fumbles {pretty_id(e.get('card'))} (stamina {e.get('stamina', 0)})"
    if "speed_drain" in e:
        return f"{who} loses {e['speed_drain']} stamina to a speed drain"
    if e.get("no_room"):
        return f"{who} finds no room to attack"
    if "target" in e and "dealt" in e:
        return f"{who}: {pretty_id(e.get('card'))} on {target_name(view, battle, e['target'])}" \
               f": {sums(e)}"
    if "card" in e:
        return f"{who} plays {pretty_id(e['card'])} with {e.get('stamina', 0)} stamina"
    return ", ".join(f"{k} {v}" for k, v in e.items())


class BattleBuilderUI(GameUI):
    game = "battle-builder"
    round_word = "Battle"
    tabs = (("bb_battle", "Battles"),)
    screens = ("bb_battle",)

    def route(self, view, acks, journal):
        if view.get("phase") in ("battle", "pvp"):
            return "bb_battle"
        return None

    def rounds_total(self, view):
        return (view.get("game_view") or {}).get("battles") or None

    def round_info(self, view):
        gv = view.get("game_view") or {}
        out = []
        if view.get("phase") == "select":
            for t, offer in enumerate(gv.get("offers") or []):
                team = (gv.get("teams") or [[]])[t] if t < len(gv.get("teams") or []) else []
                out.append((f"Team {model.names(view, team)}",
                            "Monsters offered: " + ", ".join(pretty_id(m) for m in offer)))
        auction = gv.get("auction")
        if view.get("phase") == "select" and gv.get("pool") and not auction:
            cards = gv.get("monster_cards") or {}

            def card(m):
                c = cards.get(m) or {}
                return f"{c.get('name') or pretty_id(m)} ({c.get('difficulty', '')}, " \
                       f"{c.get('hp', '?')} HP, ATK {c.get('attack', '?')})"
            one = len(gv.get("teams") or []) <= 1
            out.append(("Auction", "Sealed bids in tokens for " +
                        ("the first pick of: " if one else "each team's pick of: ") +
                        "; ".join(card(m) for m in gv["pool"]) +
                        (". The highest bid picks and pays it." if one else
                         ". Each team's top bidder picks, highest bid first, and pays it.")))
        if view.get("phase") == "select" and auction and auction.get("lines"):
            out.append(("Auction", " ".join(auction["lines"])))
        if view.get("phase") not in ("battle", "pvp") and gv.get("last_results"):
            # the last battles' results stay here once their banner has gone
            out.append(("Last battle" if len(gv["last_results"]) == 1 else "Last battles",
                        " ".join(gv["last_results"])))
        out.extend(self.pvp_info(view))
        return out

    @staticmethod
    def pvp_info(view):
        """When the PvPs come (by the fixed rule or by vote) and how many are played (who
        fights whom is in the waiting line and the story)."""
        gv = view.get("game_view") or {}
        every, total = gv.get("pvp_every"), gv.get("pvps")
        if not every:
            return []
        done = gv.get("pvp_done", 0)
        played = f"{done} of {total} played" if total else f"{done} played"
        if gv.get("pvp_trigger") == "vote":
            text = (f"By vote after each battle, forced once the PvPs left outnumber the "
                    f"battles left; {played}.")
        else:
            text = f"After every {every} monster battles; {played}."
        return [("PvP", text)]

    def timer_title(self, name):
        if name.startswith("turn:"):
            return f"Turn timer ({name[5:]})"
        return model.timer_title(name)

    def score(self, view, journal=None):
        gv = view.get("game_view") or {}
        players = view.get("players") or []
        curve = gv.get("vp_curve") or []
        vp = gv.get("vp") or []
        live = view.get("outcome") is None and len(curve) < (gv.get("battle") or 0)
        series = [Series(s, players[s], [row[s] for row in curve],
                         vp[s] if live and s < len(vp) else None) for s in range(len(players))]
        explain = {}
        for s in range(len(players)):
            won = (gv.get("monsters_defeated") or [{}] * len(players))[s]
            lines = []
            if won:
                lines.append("monsters " + ", ".join(f"{k} {v}" for k, v in won.items() if v)
                             if any(won.values()) else "no monsters yet")
            pw = (gv.get("pvp_wins") or [0] * len(players))[s]
            if pw:
                lines.append(f"PvP wins {pw}")
            explain[s] = ["; ".join(lines)] if lines else []
        return ScoreData("Victory points", "VP", series, None, explain, "Battles won",
                         gv.get("battles"))

    def final_notes(self, view):
        """Secret objectives at the end: each player's, met or not, and the VP it gave."""
        results = (view.get("game_view") or {}).get("objective_results") or []
        return {r["seat"]: f"Objective {r['name']}: {r['outcome']}" for r in results}

    def counter_value(self, view, seat, counter):
        gv = view.get("game_view") or {}
        if seat is None:
            return None
        if counter == "vp":
            vp = gv.get("vp") or []
            return vp[seat] if seat < len(vp) else None
        if counter == "health":
            for b in gv.get("battles_now") or []:
                f = (b.get("fighters") or {}).get(str(seat))
                if f is not None:
                    return f.get("hp")
            return None
        tokens = gv.get("tokens") or []
        return tokens[seat].get(counter) if seat < len(tokens) else None


ADAPTER = BattleBuilderUI()
