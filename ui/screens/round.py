"""Round: the phase ring with the current phase lit, round x of N, what the table is waiting
for (with any sealed choices' lock status), the table's moves (Next and any question drawn
from ``table_legal``), and the players (tap one to move the seat to a new phone or rename it)."""
from kivy.properties import BooleanProperty, ColorProperty, NumericProperty, StringProperty
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout

from ui import model, theme
from ui.screens.base import ViewScreen
from ui.widgets.common import TLabel, fill
from ui.widgets.phase_ring import PhaseRing  # noqa: F401  (used by round.kv)


def sealed_lines(view) -> list:
    """One line per open sealed choice: how many have locked, who is still choosing."""
    out = []
    for w in view.get("windows") or []:
        if w.get("revealed"):
            continue
        locks = model.window_locks(view, w)
        done = [x for x in locks if x.state == "locked"]
        left = [x.seat for x in locks if x.state == "choosing"]
        line = f"{w.get('label') or w['id']}: {len(done)} of {len(locks)} locked in"
        if left:
            line += f"; waiting for {model.names(view, left)}"
        out.append(line)
    return out


class InfoItem(BoxLayout):
    """A titled line of information on the round screen (layout in round.kv)."""
    title = StringProperty("")
    text = StringProperty("")


class RoundSeat(ButtonBehavior, BoxLayout):
    """A player on the round screen: highlighted while the game waits for them; the mark is
    their phone (filled: online, hollow: offline, none: no phone). Tap: the seat dialog."""
    seat = NumericProperty(0)
    name = StringProperty("")
    mark = StringProperty("")
    mark_colour = ColorProperty(theme.MUTED)
    colour = ColorProperty(theme.MUTED)
    waiting = BooleanProperty(False)
    tid = StringProperty("")

    def on_release(self):
        from ui.widgets.menu import SeatDialog
        SeatDialog(seat=self.seat).open()


def seat_mark(seat: dict) -> tuple:
    if not seat.get("phone"):
        return "", theme.DIM
    return ("\u25cf", theme.OK) if seat.get("online") else ("\u25cb", theme.WARN)


class RoundScreen(ViewScreen):
    table_moves = True                  # Next and the table's questions are drawn here
    round_text = StringProperty("")
    phase_text = StringProperty("")
    waiting_text = StringProperty("")
    next_text = StringProperty("Next")
    can_next = BooleanProperty(False)

    def update(self, view):
        app = self.app
        game = app.hub.game
        if game is None:
            return
        ring = app.adapter.ring(game)
        names = [n for n, _ in ring]
        self.ids.ring.phases = [label for _, label in ring]
        self.ids.ring.current = names.index(view["phase"]) if view.get("phase") in names else -1
        self._legend(ring, self.ids.ring.current)
        self.round_text = app.adapter.round_text(view)
        self.phase_text = view.get("phase_label") or ""
        if view.get("outcome") is not None:
            self.phase_text = model.game_over_text(view)
        tp = view.get("table_prompt") or {}
        self.can_next = bool(tp)
        self.next_text = model.next_label(view) if self.can_next else "Next"
        self.waiting_text = tp.get("text") or model.waiting_text(view) or \
            "Nothing to wait for."
        self._info(view)
        self.ids.moves.show(view)
        self._seats(view)

    def _seats(self, view):
        seats = (view.get("hub") or {}).get("seats") or []
        waiting = set(view.get("waiting") or [])

        def put(w, s):
            w.seat, w.tid = s["seat"], f"seat:{s['seat']}"
            players = view.get("players") or []
            w.name = players[s["seat"]] if s["seat"] < len(players) else s.get("name", "")
            w.mark, w.mark_colour = seat_mark(s)
            w.colour = theme.seat_colour(s["seat"])
            w.waiting = s["seat"] in waiting
        fill(self.ids.seats, seats, RoundSeat, put)

    def _legend(self, ring, current):
        items = list(enumerate(ring)) if self.ids.ring.compact else []

        def line(lab, item):
            i, (_name, label) = item
            lit = i == current
            lab.text = f"{i + 1}  {label}"
            lab.fs = 19 if lit else 18
            lab.color = theme.TEXT if lit else theme.MUTED
            lab.font_name = theme.FONT_BOLD if lit else theme.FONT
        fill(self.ids.legend, items, TLabel, line)

    def _info(self, view):
        items = list(self.app.adapter.round_info(view))
        items += [("Sealed", line) for line in sealed_lines(view)]
        said = self.app.story_lines()[:3]
        if said:
            # the story at a glance (the same lines as the phones' "What happened"), newest
            # first; the Undo dialog keeps the longer list
            items.insert(0, ("What happened", "\n".join(said)))

        def put(w, item):
            w.title, w.text = item
        fill(self.ids.info, items[:5], InfoItem, put)

    def next(self):
        app = self.app
        app.command(app.hub.next)
