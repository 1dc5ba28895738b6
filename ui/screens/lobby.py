"""Lobby: the join QR code, link and room code; seats filling in with their presence; Start.
The QR follows the join address (``hub.join_url``, moved by the server when the network comes
up); while the box has no network it says so instead of showing a 127.0.0.1 code, and a table
that started without phones (its broker could not start) says phones cannot join right now."""
from kivy.properties import BooleanProperty, ColorProperty, NumericProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout

from ui import model, theme
from ui.screens.base import ViewScreen
from ui.screens.home import pretty
from ui.widgets.qr import QRCode  # noqa: F401  (used by lobby.kv)


#: In place of the QR when the table started without phones (the banner says why).
NO_PHONES = "Phones cannot join right now: the message at the top says why."


def presence(seat: dict) -> tuple:
    """(word, colour) for a seat: no phone yet, phone online, phone offline."""
    if not seat.get("phone"):
        return "no phone yet", theme.DIM
    if seat.get("online"):
        return "online", theme.OK
    return "phone offline", theme.WARN


class SeatRow(ButtonBehavior, BoxLayout):
    """A seat in the lobby; tap it to move it to a new phone or rename it."""
    seat = NumericProperty(0)
    tid = StringProperty("")
    number = StringProperty("")
    name = StringProperty("")
    status = StringProperty("")
    colour = ColorProperty(theme.MUTED)
    status_colour = ColorProperty(theme.MUTED)

    def on_release(self):
        from ui.widgets.menu import SeatDialog
        SeatDialog(seat=self.seat).open()


def edition_title(game, name):
    """The title of edition ``name`` of ``game`` ("Tariff Warz"), or None."""
    if game is None or name is None or not any(o.name == "edition" for o in game.options):
        return None
    db = getattr(game, "db", None)
    try:
        return db.edition(name).title if db is not None else None
    except Exception:              # an edition the data does not describe
        return None


class LobbyScreen(ViewScreen):
    """Before the start: who has joined. After it, while the game's opening sealed choice runs
    (a blind Leader pick): who has locked theirs in."""
    url = StringProperty("")
    offline = BooleanProperty(False)       # the box has only 127.0.0.1: no QR to scan yet
    no_phones = StringProperty("")         # NO_PHONES when the table started without phones
    room = StringProperty("")
    game_title = StringProperty("")
    summary = StringProperty("")
    picking = StringProperty("")           # the label of the sealed pick, once started
    own_wifi = BooleanProperty(False)      # the box's own Wi-Fi is up: its QR beside the join QR

    def update(self, view):
        hub = view.get("hub") or {}
        app = self.app
        self.room = hub.get("room") or ""
        self.url = hub.get("join_url") or ""
        self.offline = bool(hub.get("join_offline"))
        from ui.widgets.menu import phones_off
        self.no_phones = NO_PHONES if phones_off(view) else ""
        self._own_wifi()
        g = app.catalog.get(hub.get("game"))
        self.game_title = g.title if g else ""
        opts = hub.get("options") or {}
        edition = edition_title(g, opts.get("edition"))
        if edition:
            # one name for the game everywhere: "Tariff Warz", as the phones say, not
            # "Trade Warz · Edition: Tariff"
            self.game_title = edition
        changed = [f"{pretty(k)}: {pretty(v)}" for k, v in opts.items()
                   if g is not None and any(o.name == k and o.default != v for o in g.options)
                   and not (edition and k == "edition")]
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
        window = app.adapter.lobby_window(view) if view.get("session") else None
        locks = {x.seat: x for x in model.window_locks(view, window)} if window else {}
        self.picking = (window.get("label") or "Sealed pick") if window else ""
        for row, s in zip(rows, seats):
            word, colour = presence(s)
            lock = locks.get(s["seat"])
            if lock is not None and lock.state == "locked":
                word, colour = "\u2713 picked", theme.OK
            elif lock is not None and s.get("phone") and s.get("online"):
                word = "choosing"
            row.seat, row.tid = s["seat"], f"seat:{s['seat']}"
            row.number = str(s["seat"] + 1)
            row.name = s["name"]
            row.status = word
            row.status_colour = colour
            row.colour = theme.seat_colour(s["seat"])
            joined += bool(s.get("phone"))
        if window:
            done = sum(1 for x in locks.values() if x.state == "locked")
            self.ids.joined.text = f"{done} of {len(locks)} picked"
            self.summary = "Blind pick: all at once, in secret, on the phones."
        else:
            self.ids.joined.text = f"{joined} of {len(seats)} phones joined"

    def _own_wifi(self):
        """While the box runs its own Wi-Fi, phones scan its Wi-Fi QR first, then the join
        QR: the pair (ui/widgets/network.py) stands in the join panel, which grows for it."""
        from ui.widgets.network import follow_network, show_own_wifi
        if not getattr(self, "_wifi_followed", False):   # it comes up, goes down: redraw
            self._wifi_followed = True
            stop = follow_network(self._own_wifi)
            if stop is not None:
                self.app._unhook.append(stop)
        self.own_wifi = show_own_wifi(self.ids.join_panel, self.url, self.room,
                                      off=bool(self.no_phones or self.offline))

    def start(self):
        app = self.app
        app.command(app.hub.start)

    def back(self):
        self.app.go_home()
