"""Lobby: the join QR code, link and room code; seats filling in with their presence; Start."""
from kivy.properties import ColorProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from ui import theme
from ui.screens.base import ViewScreen
from ui.screens.home import pretty
from ui.widgets.qr import QRCode  # noqa: F401  (used by lobby.kv)


def presence(seat: dict) -> tuple:
    """(word, colour) for a seat: no phone yet, phone online, phone offline."""
    if not seat.get("phone"):
        return "waiting for a phone", theme.DIM
    if seat.get("online"):
        return "online", theme.OK
    return "phone offline", theme.WARN


class SeatRow(BoxLayout):
    number = StringProperty("")
    name = StringProperty("")
    status = StringProperty("")
    colour = ColorProperty(theme.MUTED)
    status_colour = ColorProperty(theme.MUTED)


class LobbyScreen(ViewScreen):
    url = StringProperty("")
    room = StringProperty("")
    game_title = StringProperty("")
    summary = StringProperty("")

    def update(self, view):
        hub = view.get("hub") or {}
        app = self.app
        self.room = hub.get("room") or ""
        self.url = hub.get("join_url") or ""
        g = app.catalog.get(hub.get("game"))
        self.game_title = g.title if g else ""
        opts = hub.get("options") or {}
        changed = [f"{pretty(k)}: {pretty(v)}" for k, v in opts.items()
                   if g is not None and any(o.name == k and o.default != v for o in g.options)]
        seats = hub.get("seats") or []
        self.summary = f"{len(seats)} players" + (" · " + ", ".join(changed) if changed else
                                                  " · standard rules")
        box = self.ids.seats
        rows = list(reversed(box.children))
        if len(rows) != len(seats):
            box.clear_widgets()
            rows = []
            for _ in seats:
                r = SeatRow()
                box.add_widget(r)
                rows.append(r)
        joined = 0
        for row, s in zip(rows, seats):
            word, colour = presence(s)
            row.number = str(s["seat"] + 1)
            row.name = s["name"]
            row.status = word
            row.status_colour = colour
            row.colour = theme.seat_colour(s["seat"])
            joined += bool(s.get("phone"))
        self.ids.joined.text = f"{joined} of {len(seats)} phones joined"

    def start(self):
        app = self.app
        app.command(app.hub.start)

    def back(self):
        self.app.go_home()
