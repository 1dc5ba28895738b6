"""Market Trading: the central markets (how many copies of each resource, FLOODED when full)
and the point bowls; whose turn it is and what they harvested."""
from kivy.properties import BooleanProperty, ColorProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from ui import model, theme
from ui.screens.base import ViewScreen
from ui.widgets.bar import Bar  # noqa: F401  (used by mt_market.kv)
from ui.widgets.common import fill

TIER_COLOURS = {1: theme.rgba("#2f6f4f"), 2: theme.rgba("#3a4f86"), 3: theme.rgba("#7a4a86")}


class MarketTile(BoxLayout):
    tid = StringProperty("")
    name = StringProperty("")
    count = NumericProperty(0)
    cap = NumericProperty(4)
    value = StringProperty("")
    colour = ColorProperty(theme.PANEL_HI)
    flooded = BooleanProperty(False)


class BowlRow(BoxLayout):
    name = StringProperty("")
    left = NumericProperty(0)
    start = NumericProperty(30)
    detail = StringProperty("")
    colour = ColorProperty(theme.MUTED)
    active = BooleanProperty(False)


class MarketScreen(ViewScreen):
    headline = StringProperty("")
    info = StringProperty("")

    def update(self, view):
        gv = view.get("game_view") or {}
        app = self.app
        game = app.hub.game
        res = app.adapter.resources(game) if game is not None else []
        if not res:
            res = [(k, k.replace("-", " ").capitalize(), 1, "") for k in gv.get("market") or {}]
        market = gv.get("market") or {}
        cap = gv.get("market_cap") or 4
        def tile(t, r):
            rid, name, tier, value = r
            n = market.get(rid, 0)
            t.name, t.count, t.cap, t.flooded = name, n, cap, n >= cap
            t.value = f"{value} pt" if value != "" else ""
            t.tid = f"mt:market:{rid}"
            t.colour = TIER_COLOURS.get(tier, theme.PANEL_HI)
        fill(self.ids.markets, res, MarketTile, tile)
        bowl = gv.get("bowl") or []
        earned = gv.get("earned") or []
        active = gv.get("active")
        players = view.get("players") or []

        def row(r, s):
            left = bowl[s] if s < len(bowl) else 0
            got = earned[s] if s < len(earned) else 0
            built = len((gv.get("built") or [[]] * (s + 1))[s])
            r.name, r.left, r.start = players[s], left, max(1, left + got)
            r.colour, r.active = theme.seat_colour(s), s == active
            r.detail = f"{got} earned \u00b7 {built} built"
        fill(self.ids.bowls, list(range(len(players))), BowlRow, row)
        who = model.names(view, [active]) if isinstance(active, int) else ""
        self.headline = f"{who}'s turn \u00b7 {view.get('phase_label', '')}" if who else \
            (view.get("phase_label") or "")
        if view.get("outcome") is not None:
            self.headline = model.game_over_text(view)
        hand = gv.get("hand") or {}
        names = {rid: name for rid, name, _t, _v in res}
        held = ", ".join(f"{n} {names.get(k, k)}" for k, n in hand.items() if n)
        flooded = [names.get(k, k) for k, n in market.items() if n >= cap]
        parts = []
        if held:
            parts.append(f"{who} holds {held}.")
        if flooded:
            parts.append(f"Flooded (no more copies): {', '.join(flooded)}.")
        self.info = " ".join(parts) or model.waiting_text(view)
