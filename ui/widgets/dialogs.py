"""Undo and the manual correction: both go through the hub (the log keeps them), and both show
only public facts (what is undone is named by its public event, a counter's value is shown only
if the public view shows it)."""
import re

from kivy.properties import ListProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.modalview import ModalView

from companion.core.session import COMMAND_KINDS
from ui.widgets.common import TButton, TText

REASONS = ("Card misread", "Rules mistake", "Forgotten step", "Table agreed")


def event_words(event_type: str) -> str:
    """``ActionTaken`` -> ``Action taken``."""
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", event_type or "move").split()
    return " ".join([words[0]] + [w.lower() for w in words[1:]]) if words else "move"


def last_command(hub) -> str | None:
    """What Undo would take back, described from the public history."""
    hist = hub.history(None)
    players = hub.public_view().get("players") or []
    for item in reversed(hist):
        if item.get("undone") or item.get("kind") not in COMMAND_KINDS:
            continue
        what = event_words(item.get("type", ""))
        seat = item.get("seat")
        if item.get("kind") == "move" and isinstance(seat, int) and 0 <= seat < len(players):
            return f"{what} by {players[seat]}"
        return what
    return None


class StoryLine(TText):
    """One entry of the table's story, whole (wrapped; the list scrolls; layout in
    dialogs.kv): shortened to one line, the entry that said what Undo would undo was cut."""


class Dialog(ModalView):
    """A dialog that opens and closes at once (no fade: a touchscreen should feel instant)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._anim_duration = 0


class UndoDialog(Dialog):
    """Undo, beside what happened lately (the table's story, newest first, as every phone
    and /watch show it): the list has a fixed height, so the buttons never move."""
    app = ObjectProperty(None)
    what = StringProperty("")
    refused = StringProperty("")         # why the last tap on Undo did nothing, or ""
    story = ListProperty([])             # the newest public story lines shown
    note = StringProperty("")            # what Undo cannot do in this game, if anything
    LINES = 4
    SEALED = "Sealed choices that are already revealed cannot be undone; use Fix."

    BUSY = ("Not undone yet: the table is still finishing the last tap. "
            "Tap Undo again in a moment.")
    CLOSED = "Not undone: the table screen is shutting down."

    def on_open(self):
        w = last_command(self.app.hub)
        self.what = w or "Nothing to undo."
        self.ids.go.disabled = w is None
        self.refused = ""
        game = getattr(self.app.hub, "game", None)
        moves = getattr(game, "moves", None) or {}
        # a game without sealed choices (Market Trading) is not told about them
        self.note = self.SEALED if any(getattr(m, "sealed", None) is not None
                                       for m in moves.values()) else ""
        self.story = list(self.app.story_lines())[:self.LINES]
        box = self.ids.story
        box.clear_widgets()
        for line in self.story:
            box.add_widget(StoryLine(text=line))

    def confirm(self):
        """Undo through the command worker. If the worker does not take it (a command is
        still running, the screen is closing), the dialog stays open and says why: a tap that
        does nothing must never look like one that worked."""
        app = self.app
        taken = app.command(app.hub.undo, done=lambda r: app.show_toast(
            "Undone: " + event_words(next((n.get("what") for n in r.notices
                                           if n.get("kind") == "Undone"), "") or "move")))
        if not taken:
            self.refused = self.CLOSED if app.bridge is None or app.closed else self.BUSY
            return False
        self.dismiss()
        return True


class CorrectionDialog(Dialog):
    app = ObjectProperty(None)
    seat = ObjectProperty(None, allownone=True)
    counter = StringProperty("")
    delta = NumericProperty(0)
    reason = StringProperty("")
    summary = StringProperty("")

    def on_open(self):
        app = self.app
        self.game = app.hub.game
        self.counters = app.adapter.counters(self.game)
        if self.counters and not self.counter:
            self.counter = self.counters[0][0]
        players = app.view.get("players") or []
        if self.seat is None and players and app.adapter.seat_counters(self.game):
            self.seat = 0
        self._build()

    def _build(self):
        u = self.app.u
        players = self.app.view.get("players") or []
        box = self.ids.seats
        box.clear_widgets()
        box.cols = min(4, max(1, len(players)))
        for s, name in enumerate(players):
            b = TButton(text=name, selected=(s == self.seat), fs=19, shorten=True,
                        shorten_ok=True, tid=f"fix:seat:{s}")
            b.seat = s
            b.bind(on_release=lambda btn: self._set(seat=btn.seat))
            box.add_widget(b)
        box = self.ids.counters
        box.clear_widgets()
        for c, label, colour in self.counters:
            b = TButton(text=label, selected=(c == self.counter), fs=18,
                        tid=f"fix:counter:{c}")
            b.counter = c
            b.bind(on_release=lambda btn: self._set(counter=btn.counter))
            box.add_widget(b)
        box = self.ids.reasons
        box.clear_widgets()
        for r in REASONS:
            b = TButton(text=r, selected=(r == self.reason), fs=18,
                        tid=f"fix:reason:{REASONS.index(r)}")
            b.bind(on_release=lambda btn: self._set(reason=btn.text))
            box.add_widget(b)
        self._summary()

    def _set(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)
        self._build()

    def step(self, by):
        self.delta += by
        self._summary()

    def _summary(self):
        app = self.app
        label = dict((c, lab) for c, lab, _ in self.counters).get(self.counter, self.counter)
        players = app.view.get("players") or []
        who = players[self.seat] if self.seat is not None and self.seat < len(players) \
            else "The table"
        now = app.adapter.counter_value(app.view, self.seat, self.counter)
        sign = f"{self.delta:+d}"
        if now is not None:
            self.summary = f"{who}: {label} {now} {sign} = {now + self.delta}"
        else:
            self.summary = f"{who}: {label} {sign}"
        ok = self.delta != 0 and bool(self.reason) and bool(self.counter)
        self.ids.apply.disabled = not ok

    def confirm(self):
        app = self.app
        seat, counter, delta, reason = self.seat, self.counter, int(self.delta), self.reason
        summary = self.summary
        app.command(app.hub.correct, seat, counter, delta, reason,
                    done=lambda r: app.show_toast(f"Corrected ({reason}): {summary}"))
        self.dismiss()


class ConfirmDialog(Dialog):
    """A drastic action, asked once more in words: Cancel, or the action's own button."""
    title = StringProperty("")
    text = StringProperty("")
    go_text = StringProperty("")
    go_tid = StringProperty("confirm:go")
    tone = StringProperty("danger")
    action = ObjectProperty(None)

    def go(self):
        self.dismiss()
        if self.action is not None:
            self.action()
