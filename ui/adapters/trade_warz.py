"""Trade Warz / Tariff Warz on the table screen.

Phase -> screen: the Leader pick -> the lobby with who has picked, then the pick's result (who
got which Leader, by which wish) until the table taps Continue; Upkeep -> the CMYK steps;
Policy, once revealed -> a large card per player; Trade -> the timer (with who is done); the
Flip -> every flipped Export on its partner and slot; Disputes -> the disputes; anything else
-> the round. Every table question is drawn from ``table_legal`` (ui.widgets.picker).
"""
from ui import model
from ui.adapters import GameUI, ScoreData, Series

PHASE_SCREENS = {"leaders": "lobby", "upkeep": "tw_upkeep", "trade": "timer",
                 "exports": "tw_flip", "disputes": "tw_disputes"}
BEFORE_POLICY = ("event", "upkeep", "draw")       # round 1 phases the Leader result may hold
PLUS = "\u00a0+\u00a0"                            # a sum that wraps as a whole


def card_names(gv) -> dict:
    """Card id -> name for every face-up card the public view names (routes, flipped Exports,
    Tactics in play, revealed Policies)."""
    names = {}
    for p in gv.get("partners") or []:
        for r in (p.get("routes") or {}).values():
            names[r["card"]] = r["name"]
        for x in p.get("placed") or []:
            if x.get("card") and x.get("name"):
                names[x["card"]] = x["name"]
    for t in gv.get("in_play") or []:
        names[t["card"]] = t["name"]
    for r in (gv.get("policy_reveal") or {}).values():
        if r.get("card") and r.get("name"):
            names[r["card"]] = r["name"]
    return names


def card_name(names, cid) -> str:
    if cid is None:
        return "no card"
    return names.get(cid) or cid.replace("-", " ").capitalize()


class TradeWarzUI(GameUI):
    game = "trade-warz"
    tabs = (("timer", "Trade"), ("tw_upkeep", "Upkeep"), ("tw_disputes", "Disputes"))
    screens = ("tw_upkeep", "tw_disputes", "tw_leaders", "tw_policies", "tw_flip")

    # -- navigation ---------------------------------------------------------------------------
    def route(self, view, acks, journal):
        phase, gv = view.get("phase"), view.get("game_view") or {}
        if self.moments_now(view, journal) and ("leaders", view.get("session")) not in acks:
            return "tw_leaders"
        if phase == "policy" and gv.get("policy_reveal"):
            return "tw_policies"
        return PHASE_SCREENS.get(phase)

    def moments_now(self, view, journal):
        """The Leader pick's result, shown until Continue (round 1, before the Policies)."""
        gv = view.get("game_view") or {}
        if gv.get("leader_pick") and view.get("round") == 1 and \
                view.get("phase") in BEFORE_POLICY:
            return [("leaders", view.get("session"))]
        return []

    def ring(self, game):
        return [(n, ph.label or n) for n, ph in game.phases.items() if n != "leaders"]

    def rounds_total(self, view):
        return (view.get("game_view") or {}).get("rounds") or model.rounds_total(view)

    def title(self, view):
        return (view.get("game_view") or {}).get("edition_title") or super().title(view)

    def lobby_window(self, view):
        if view.get("phase") != "leaders":
            return None
        return model.open_window(view, "leader")

    def seat_label(self, view, seat):
        gv = view.get("game_view") or {}
        name = super().seat_label(view, seat)
        leaders = gv.get("leaders") or []
        lead = leaders[seat] if seat < len(leaders) else None
        return f"{name} ({lead['name']})" if lead else name

    def interrupts(self, view):
        """A scanned card that disagrees with a phone: settled apart from Next."""
        return (view.get("table_prompt") or {}).get("step") == "mismatch"

    # -- the round ----------------------------------------------------------------------------
    def round_info(self, view):
        gv = view.get("game_view") or {}
        out = []
        ev = gv.get("event")
        if ev:
            c = ev.get("cmyk") or {}
            tag = f" [{c.get('letter')} {c.get('name')}]" if c else ""
            out.append((f"Event{tag}", f"{ev['name']}: {ev.get('text', '')}"))
        reveal = gv.get("policy_reveal") or {}
        if reveal and view.get("phase") == "policy":
            parts = []
            for s, r in sorted(reveal.items(), key=lambda kv: int(kv[0])):
                who = r.get("player") or self.seat_label(view, int(s))
                if r.get("fast_pass"):
                    parts.append(f"{who}: Fast-Pass")
                else:
                    parts.append(f"{who}: {r.get('name') or 'no Policy'}")
            out.append(("Policies revealed", "; ".join(parts)))
        mm = (gv.get("check") or {}).get("mismatch")
        if mm:
            out.append(("Scanned card does not match", (view.get("table_prompt") or {}).get(
                "text") or "The scanned card and the phone disagree."))
        ask = gv.get("ask")
        if ask and ask.get("seat") is not None:
            what = ask.get("source_name") or ask.get("kind", "")
            out.append(("Waiting", f"{ask.get('who')}: a choice for {what}, on the phone."))
        return out

    # -- trade --------------------------------------------------------------------------------
    def timer_rows(self, view):
        gv = view.get("game_view") or {}
        if view.get("phase") != "trade":
            return []
        trade = gv.get("trade") or {}
        done = trade.get("done") or []
        down = {}
        for p in gv.get("partners") or []:
            for x in p.get("placed") or []:
                if x.get("state") == "down":
                    down[x["seat"]] = down.get(x["seat"], 0) + 1
        rows = []
        for s, name in enumerate(view.get("players") or []):
            n = down.get(s, 0)
            placed = f"{n} placed"
            if s < len(done) and done[s]:
                rows.append((name, f"\u2713 done \u00b7 {placed}", "ok"))
            elif trade.get("turn") == s:
                rows.append((name, f"to play \u00b7 {placed}", "accent"))
            else:
                rows.append((name, f"trading \u00b7 {placed}", "muted"))
        return rows

    def timer_idle(self, view):
        gv = view.get("game_view") or {}
        trade = gv.get("trade") or {}
        if view.get("phase") != "trade":
            return ""
        if not trade.get("timed"):
            return "Chill variant: no timer. Exports go down one at a time, clockwise."
        if not trade.get("timer_started"):
            return "The Trade timer starts when the first Export is placed (scan it, or " \
                   "place it on a phone), or with a tap below."
        return ""

    def timer_ready(self, view):
        gv = view.get("game_view") or {}
        trade = gv.get("trade") or {}
        if view.get("phase") == "trade" and trade.get("timed") and \
                not trade.get("timer_started") and not trade.get("over"):
            return float(trade.get("seconds") or 0) or None
        return None

    def timer_start(self, view):
        seconds = self.timer_ready(view)
        if seconds is not None:         # (an Embargo-like effect may have cut it from 3:00)
            return (f"Start the {model.fmt_clock(seconds)} timer", "start_trade_timer")
        return None

    # -- scores -------------------------------------------------------------------------------
    def score(self, view, journal=None):
        gv = view.get("game_view") or {}
        players = view.get("players") or []
        curve = gv.get("gdp_curve") or []
        gdp = gv.get("gdp") or []
        live = view.get("outcome") is None and len(curve) < (view.get("round") or 0)
        series = [Series(s, self.seat_label(view, s), [row[s] for row in curve],
                         gdp[s] if live and s < len(gdp) else None, players[s])
                  for s in range(len(players))]
        explain = {}
        for s, inc in enumerate(gv.get("income") or []):
            routes = inc.get("routes") or []
            effects = inc.get("effects") or []
            if not routes and not effects:
                continue
            text = f"Income {inc.get('total', 0):+d}: "
            text += (f"{len(routes)} route{'s' if len(routes) != 1 else ''} "
                     f"({PLUS.join(str(r['total']) for r in routes)})") if routes \
                else "no routes"
            if effects:
                text += "; " + ", ".join(f"{e.get('source') or 'effect'} "
                                         f"{e.get('amount', 0):+d}" for e in effects)
            explain[s] = [text]
        win = gv.get("win_gdp") or 50
        return ScoreData("GDP", "GDP", series, (win, f"{win} GDP: Economic Boom"), explain,
                         "Last Income, explained", gv.get("rounds"))

    def counters(self, game):
        return [("gdp", "GDP", None)]

    def counter_value(self, view, seat, counter):
        gdp = (view.get("game_view") or {}).get("gdp") or []
        if counter == "gdp" and seat is not None and 0 <= seat < len(gdp):
            return gdp[seat]
        return None


ADAPTER = TradeWarzUI()
