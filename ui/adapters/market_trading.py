"""Market Trading on the table screen: the markets with their counts and flooded markers, and
each player's point bowl (what is left, what was earned), whose turn it is."""
from ui import model
from ui.adapters import GameUI, ScoreData, Series


class MarketTradingUI(GameUI):
    game = "market-trading"
    tabs = (("mt_market", "Markets"),)
    screens = ("mt_market",)

    def route(self, view, acks, journal):
        return "mt_market"

    def resources(self, game):
        """``[(id, name, tier, value)]`` from the game's data (static, not state)."""
        if game is None:
            return []
        return [(k, r.name, r.tier, r.value) for k, r in game.rules.resources.items()]

    def round_info(self, view):
        gv = view.get("game_view") or {}
        a = gv.get("active")
        out = []
        if isinstance(a, int) and view.get("outcome") is None:
            out.append(("Turn", f"{model.names(view, [a])} is playing."))
        if gv.get("emptied"):
            out.append(("Bowls emptied", model.names(view, gv["emptied"])))
        return out

    def score(self, view, journal=None):
        gv = view.get("game_view") or {}
        players = view.get("players") or []
        curve = gv.get("vp_curve") or []
        earned = gv.get("earned") or []
        live = view.get("outcome") is None and len(curve) < (view.get("round") or 0)
        series = [Series(s, players[s], [row[s] for row in curve],
                         earned[s] if live and s < len(earned) else None)
                  for s in range(len(players))]
        bowl = gv.get("bowl") or []
        explain = {s: [f"{bowl[s]} left in the bowl"] for s in range(len(bowl))}
        start = (bowl[0] + earned[0]) if bowl and earned else None
        target = (start, f"{start}: bowl empty, wins") if start else None
        return ScoreData("Points earned", "pts", series, target, explain, "Point bowls")

    def counter_value(self, view, seat, counter):
        bowl = (view.get("game_view") or {}).get("bowl") or []
        if counter == "bowl" and seat is not None and 0 <= seat < len(bowl):
            return bowl[seat]
        return None


ADAPTER = MarketTradingUI()
