"""The table is in charge: the menu (always on the top bar), the seat dialog (move a seat to a
new phone, rename it), the handover QR and the on-screen keyboard for names.

Every hub call goes through the app's command worker (``app.command``), so a refusal comes back
as a readable toast and the screen never freezes. The handover code is a secret: it is shown
here as a QR (and its link) from ``hub.handover(seat)``'s return value and never kept.

On the box (appliance mode) the menu also shuts the box down or restarts it, each asked once
more in words; the QR dialogs follow the join address when the network changes, and say so
when there is none yet. When the table started without phones (its broker could not start:
the ``"phones"`` alert, see :func:`phones_off`) the Join dialog says why instead of a QR, and a
seat cannot be moved to a new phone.
"""
from urllib.parse import urlsplit, urlunsplit

from kivy.app import App
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout

from ui import model, theme
from ui.widgets.dialogs import ConfirmDialog, Dialog
from ui.widgets.keyboards import AddressKeyboard, NameKeyboard  # noqa: F401  (menu.kv)
from ui.widgets.qr import QRCode  # noqa: F401  (used by menu.kv)

#: The hub alert (key) a table started without phones carries (companion.net.serve.PHONES_ALERT).
PHONES_ALERT = "phones"


def phones_off(view: dict) -> str:
    """Why phones cannot join this table ("Phones cannot join: ..."), or "" when they can.

    >>> phones_off({"hub": {"alerts": [{"key": "phones", "message": "Phones cannot join: x"}]}})
    'Phones cannot join: x'
    >>> phones_off({"hub": {"alerts": [], "join_url": "http://10.0.0.2:8000/?room=AB"}})
    ''
    """
    for a in (view.get("hub") or {}).get("alerts") or ():
        if a.get("key") == PHONES_ALERT:
            return a.get("message") or "Phones cannot join."
    return ""


def seat_state(seat: dict) -> tuple:
    """(word, colour) for a seat's phone: none yet, online, offline."""
    if not seat.get("phone"):
        return "no phone yet", theme.DIM
    if seat.get("online"):
        return "phone online", theme.OK
    return "phone offline", theme.WARN


def _load_kv():
    from ui.kvload import KV, load_kv
    load_kv(KV / "menu.kv")


class SeatChip(ButtonBehavior, BoxLayout):
    """A seat to tap: its number, name and phone state."""
    seat = NumericProperty(0)
    name = StringProperty("")
    status = StringProperty("")
    colour = ObjectProperty(theme.MUTED)
    status_colour = ObjectProperty(theme.MUTED)
    tid = StringProperty("")

    def on_release(self):
        SeatDialog(seat=self.seat).open()


def seat_chip(seat: dict, **kw) -> SeatChip:
    c = SeatChip(**kw)
    set_chip(c, seat)
    return c


def set_chip(c, seat: dict):
    c.seat = seat["seat"]
    c.name = seat.get("name") or f"Seat {seat['seat'] + 1}"
    c.status, c.status_colour = seat_state(seat)
    c.colour = theme.seat_colour(seat["seat"])
    c.tid = f"seat:{seat['seat']}"


#: What Shut down and Restart ask, and what the screen says while the box stops.
POWER = {
    "poweroff": {"title": "Shut the box down?", "go": "Shut down", "tone": "danger",
                 "what": "the box switches off. Unplug it after half a minute.",
                 "cover": "Shutting down\u2026",
                 "cover_note": "Unplug the box after half a minute."},
    "reboot": {"title": "Restart the box?", "go": "Restart", "tone": "warn",
               "what": "the box starts again: the table is back in a minute or so.",
               "cover": "Restarting\u2026",
               "cover_note": "The table is back in a minute or so."},
}


def power_question(action: str, playing: bool) -> str:
    kept = ", the game in progress is kept, and" if playing else " and"
    return f"The table stops{kept} {POWER[action]['what']}"


class TableMenu(Dialog):
    """Home, End the game now, Abandon it, and the seats (tap one to move it to a new phone or
    rename it); on the box (``app.appliance``) also Shut down and Restart."""
    playing = BooleanProperty(False)        # a game is running (not over)
    over = BooleanProperty(False)
    game_title = StringProperty("")
    no_phones = BooleanProperty(False)      # the table started without phones: Join says why

    def __init__(self, **kw):
        super().__init__(**kw)
        row = self.ids.power
        if not App.get_running_app().appliance:      # a dev machine: not there at all
            row.parent.remove_widget(row)
        net = self.ids.network
        if App.get_running_app().network is None:    # this machine's network is not the table's
            net.parent.remove_widget(net)

    def on_open(self):
        app = App.get_running_app()
        v = app.view
        self.playing = v.get("session") is not None and v.get("outcome") is None
        self.over = v.get("outcome") is not None
        self.game_title = v.get("title") or ""
        self.no_phones = bool(phones_off(v))
        seats = (v.get("hub") or {}).get("seats") or []
        box = self.ids.seats
        box.clear_widgets()
        box.cols = 2 if len(seats) > 4 else 1
        for s in seats:
            chip = seat_chip(s)
            chip.bind(on_release=lambda _c: self.dismiss())
            box.add_widget(chip)
        self.ids.no_seats.opacity = 0 if seats else 1

    def power(self, action):
        """Shut down or Restart, asked once more: a tap beside the dialog only closes it."""
        self.dismiss()
        app = App.get_running_app()
        w = POWER[action]
        ConfirmDialog(title=w["title"], text=power_question(action, self.playing),
                      go_text=w["go"], go_tid=f"confirm:{action}", tone=w["tone"],
                      action=lambda: app.power_stop(action)).open()

    def home(self):
        self.dismiss()
        App.get_running_app().table_home()

    def join(self):
        self.dismiss()
        JoinDialog().open()

    def club(self):
        self.dismiss()
        ClubDialog().open()

    def network(self):
        from ui.widgets.network import NetworkDialog      # docs/network.md
        self.dismiss()
        NetworkDialog().open()

    def end_game(self):
        self.dismiss()
        app = App.get_running_app()
        ConfirmDialog(title="End the game now?",
                      text="The game ends here and the scores as they stand decide who "
                           "wins. It cannot be undone.",
                      go_text="End the game", go_tid="confirm:end", tone="warn",
                      action=app.end_game).open()

    def abandon(self):
        self.dismiss()
        app = App.get_running_app()
        ConfirmDialog(title="Abandon this game?",
                      text="Nobody wins; the game is kept in the log as abandoned and left "
                           "out of the statistics. The table goes back to Home.",
                      go_text="Abandon the game", go_tid="confirm:abandon", tone="danger",
                      action=app.abandon_game).open()


class PowerCover(Dialog):
    """The whole screen while the table stops for a power off or a restart: what is happening,
    and nothing to tap."""
    action = StringProperty("poweroff")
    text = StringProperty("")
    note = StringProperty("")

    def __init__(self, **kw):
        kw.setdefault("auto_dismiss", False)
        super().__init__(**kw)
        self.text = POWER[self.action]["cover"]
        self.note = POWER[self.action]["cover_note"]


class SeatDialog(Dialog):
    """One seat: move it to a new phone (a one-seat QR), or rename it."""
    seat = NumericProperty(0)
    name = StringProperty("")
    status = StringProperty("")

    def on_open(self):
        app = App.get_running_app()
        seats = (app.view.get("hub") or {}).get("seats") or []
        s = next((x for x in seats if x["seat"] == self.seat), {"seat": self.seat})
        self.name = s.get("name") or f"Seat {self.seat + 1}"
        self.status = seat_state(s)[0]
        self.ids.handover.disabled = bool(phones_off(app.view))     # no phone can take it

    def handover(self):
        self.dismiss()
        app = App.get_running_app()
        seat, name = self.seat, self.name
        app.command(app.hub.handover, seat,
                    done=lambda r: HandoverDialog(seat=seat, name=name,
                                                  url=r.get("url") or "",
                                                  minutes=int(round((r.get("expires_in") or 600)
                                                                    / 60))).open())

    def rename(self):
        self.dismiss()
        RenameDialog(seat=self.seat, name=self.name).open()


class HandoverDialog(Dialog):
    """The one-seat join code as a QR big enough to scan across the table, the player's name,
    and Cancel (which withdraws the code if no phone has used it yet). The old phone is cut
    off when the new one opens the link."""
    seat = NumericProperty(0)
    name = StringProperty("")
    url = StringProperty("")
    minutes = NumericProperty(10)
    offline = BooleanProperty(False)          # the box has no network: no QR to scan yet

    def on_open(self):
        app = App.get_running_app()
        app.open_handovers[self.seat] = self
        app.bind(view=self.follow)
        self.follow(app, app.view)

    def on_dismiss(self):
        app = App.get_running_app()
        app.open_handovers.pop(self.seat, None)
        app.unbind(view=self.follow)

    def follow(self, _app, view):
        """The join address moved (the Wi-Fi came up): the same code at the new address."""
        join = (view.get("hub") or {}).get("join_url") or ""
        if join and self.url:
            here, there = urlsplit(self.url), urlsplit(join)
            if here.netloc != there.netloc:
                self.url = urlunsplit(here._replace(scheme=there.scheme, netloc=there.netloc))
        self.offline = bool((view.get("hub") or {}).get("join_offline"))

    def claimed(self):
        """A new phone took the seat: the code is used up; the dialog closes by itself."""
        self.dismiss()

    def cancel(self):
        app = App.get_running_app()
        self.dismiss()
        if hasattr(app.hub, "cancel_handover"):
            app.command(app.hub.cancel_handover, self.seat)


class JoinDialog(Dialog):
    """The table's join QR at any time (the lobby shows it only before the start): a phone
    that arrives late takes a free seat, and a player whose phone dropped out (offline) scans
    it again and types their name to come back to their seat (protocol section 9.3; a seat
    whose phone is still online moves only by *Move to a new phone*). The text under the title
    names the free and the offline seats (:func:`ui.model.join_seats_text`). The link and room
    code are public (``hub.join_url``). A table that started without phones says why
    (:func:`phones_off`) where the QR would be."""
    url = StringProperty("")
    room = StringProperty("")
    seats_text = StringProperty("")
    offline = BooleanProperty(False)          # the box has no network: no QR to scan yet
    no_phones = StringProperty("")            # why phones cannot join ("": they can)

    def on_open(self):
        from ui.widgets.network import follow_network
        app = App.get_running_app()
        app.bind(view=self.follow)
        self._wifi_stop = follow_network(lambda: self.follow(app, app.view))
        self.follow(app, app.view)

    def on_dismiss(self):
        App.get_running_app().unbind(view=self.follow)
        if getattr(self, "_wifi_stop", None) is not None:
            self._wifi_stop()

    def follow(self, _app, view):
        """Shown with the table's view, so a new join address redraws the QR at once; while
        the box runs its own Wi-Fi, its QR beside (ui/widgets/network.py)."""
        from ui.widgets.network import show_own_wifi
        hub = view.get("hub") or {}
        self.url = hub.get("join_url") or ""
        self.offline = bool(hub.get("join_offline"))
        self.room = hub.get("room") or ""
        self.no_phones = phones_off(view)
        show_own_wifi(self.ids.qr_box, self.url, self.room,
                      off=bool(self.no_phones or self.offline))
        if self.no_phones:                          # no QR, no room code: nothing to join
            self.url = self.room = ""
            self.seats_text = "Phones cannot join right now: the table works by touch only."
            return
        self.seats_text = model.join_seats_text(hub.get("seats") or [], self.offline)


def club_status_text(status: dict | None) -> str:
    """What the Club dialog says about this table's club, in words.

    >>> club_status_text(None)
    'This table is in no club. Type the address the organiser gives you, or scan its QR with the card reader.'
    >>> club_status_text({"joining": "http://c/join/X", "asking": "Asked the organiser..."})
    'Waiting for the organiser to let this table in… the table plays on meanwhile.'
    >>> club_status_text({"club": "Thursday club", "name": "table-2", "record": {"connected": True, "sent": 120, "queued": 0}})
    'In the club Thursday club as table-2: 120 records sent, none waiting.'
    >>> club_status_text({"club": "C", "record": {"connected": False, "sent": 5, "queued": 12, "last_error": "The club record at 10.0.0.5 does not answer."}})
    'In the club C: 5 records sent, 12 waiting (the club is away; they go when it is back).'
    """
    status = status or {}
    if status.get("asking"):
        return "Waiting for the organiser to let this table in… the table plays on meanwhile."
    if status.get("joining"):
        return "Joining the club… the table plays on meanwhile."
    if not status.get("club"):
        text = ("This table is in no club. Type the address the organiser gives you, or scan "
                "its QR with the card reader.")
        return f"{status['error']} This table is in no club." if status.get("error") else text
    rec = status.get("record") or {}
    waiting = rec.get("queued") or 0
    named = f" as {status['name']}" if status.get("name") else ""
    text = (f"In the club {status['club']}{named}: {rec.get('sent', 0)} records sent, "
            + ("none waiting." if not waiting else f"{waiting} waiting"))
    if waiting and not rec.get("connected"):
        text += " (the club is away; they go when it is back)."
    elif waiting:
        text += "."
    return text             # (the technical reason is in the log: too long for this screen)


class ClubDialog(Dialog):
    """The table's club (docs/club.md): whether it is in one and how its record is going, an
    address to type (or scan the organiser's QR with the card reader), Join and Leave. The
    table plays on whatever the club does."""
    status_text = StringProperty("")
    member = BooleanProperty(False)

    def on_open(self):
        from kivy.clock import Clock
        self._tick = Clock.schedule_interval(lambda _dt: self.refresh(), 1.0)
        kb = self.ids.kb
        kb.bind(text=self._typed)
        kb.text = ""
        self._typed(kb, "")
        self.refresh()

    def on_dismiss(self):
        self._tick.cancel()

    def _club(self):
        return getattr(App.get_running_app().hub, "club", None)

    def refresh(self):
        club = self._club()
        st = club.status() if club is not None else {"error": "This table runs without a "
                                                      "store on disk: it cannot join a club."}
        self.member = bool(st.get("club"))
        self.status_text = club_status_text(st)

    def _typed(self, _kb, text):
        self.ids.go.disabled = not text.strip() or self._club() is None

    def join(self):
        from companion.core.errors import CompanionError
        club, address = self._club(), self.ids.kb.text.strip()
        try:
            club.join(address)
        except CompanionError as e:
            App.get_running_app().show_toast(str(e))
            return
        self.ids.kb.text = ""
        self.refresh()

    def leave(self):
        self.dismiss()
        club = self._club()
        ConfirmDialog(title="Leave the club?",
                      text="This table stops sending its games to the club and leaves its "
                           "page. What was sent stays in the club's record.",
                      go_text="Leave the club", go_tid="confirm:leave-club", tone="warn",
                      action=lambda: App.get_running_app().command(club.leave)).open()


class RenameDialog(Dialog):
    """Rename a seat with the on-screen keyboard (before the start or during the game)."""
    seat = NumericProperty(0)
    name = StringProperty("")

    def on_open(self):
        kb = self.ids.kb
        kb.bind(text=self._typed)
        kb.text = ""
        self._typed(kb, "")

    def _typed(self, _kb, text):
        self.ids.save.disabled = not text.strip()

    def save(self):
        new = " ".join(self.ids.kb.text.split())
        if not new:
            return
        app = App.get_running_app()
        seat = self.seat
        self.dismiss()
        app.command(app.hub.rename, seat, new,
                    done=lambda _r: app.show_toast(f"Seat {seat + 1} is now {new}."))


_load_kv()
