"""The timer, readable from across the table: huge digits, the warning (0:30 by default) in
colour (and a sound, played by the app), a paused state, and Pause / Resume for the table.

Generic over ``public_view()["timers"]``: any game's timer shows here. If no timer runs and
the table has something to confirm (e.g. "Start the trade timer"), that is the big button."""
from kivy.properties import BooleanProperty, ColorProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from ui import model, theme
from ui.screens.base import ViewScreen
from ui.widgets.common import fill

COLOURS = {"ok": theme.OK, "muted": theme.MUTED, "accent": theme.ACCENT, "warn": theme.WARN}


class SeatStatus(BoxLayout):
    """A player and a word about them (done, trading, ...), under the timer."""
    name = StringProperty("")
    status = StringProperty("")
    colour = ColorProperty(theme.MUTED)

MODE_WORDS = {"running": "", "warning": "Last seconds!", "paused": "Paused",
              "done": "Time!", "ready": "Not started"}


class TimerScreen(ViewScreen):
    title = StringProperty("")
    clock = StringProperty("")
    mode = StringProperty("")
    state_text = StringProperty("")
    fraction = NumericProperty(0.0)       # time left / duration
    has_timer = BooleanProperty(False)
    can_next = BooleanProperty(False)
    next_text = StringProperty("")
    hint = StringProperty("")
    # little height (a banner above, players' rows below): the hint line gives its room to
    # the digits (decided from the screen's height, not the digits', so it never flickers)
    tight = BooleanProperty(False)
    # less still (a banner, the next phase's question below while "Time!" is held): the
    # players' rows give theirs too, so paused and "Time!" digits stay as big as running ones
    squeezed = BooleanProperty(False)
    has_rows = BooleanProperty(False)

    def on_size(self, *_):
        self._tight()

    def _tight(self):
        if self.ids.get("rows") is None:
            return
        u = self.app.u
        self.tight = self.has_rows and self.height < u * 400 or self.height < u * 340
        self.squeezed = self.has_rows and self.height < u * 380

    def update(self, view):
        self._view = view
        moment = self.app.moment
        if moment.get("kind") == "time":
            self._time_up(view, moment)
            return
        name, t = model.main_timer(view)
        self.has_timer = t is not None
        self.can_next, self.next_text, self._start_move = False, "", None
        start = self.app.adapter.timer_start(view) if t is None else None
        if start is not None and not view.get("table_prompt"):
            self.can_next, self.next_text, self._start_move = True, start[0], start[1]
        self._rows(view)
        if t is None:
            idle = self.app.adapter.timer_idle(view)
            self.title = "No timer running" if not idle else (view.get("phase_label") or "")
            self.clock, self.mode, self.state_text, self.fraction = "", "", "", 0.0
            ready = self.app.adapter.timer_ready(view)
            if ready:                   # about to be timed: its full time, muted, in the
                self.clock = model.fmt_clock(ready)     # digits' place (not a blank panel)
                self.mode, self.state_text = "ready", "Not started"
            self.hint = idle or model.waiting_text(view)
            return
        self.title = self.app.adapter.timer_title(name)
        warn = float(t.get("warn_before") or 0)
        self.hint = (f"Warning at {model.fmt_clock(warn)}. " if warn else "") + \
            "Tap Pause to stop the clock for everyone."
        self.tick(self.app.clock_now())

    def _time_up(self, view, moment):
        """The buzzer moment: 0:00 and "Time!", held by the app for a few seconds."""
        self.has_timer = True
        self.title = self.app.adapter.timer_title(moment.get("timer") or "")
        self.clock, self.mode, self.state_text, self.fraction = "0:00", "done", "Time!", 0.0
        self.hint = f"Time is up. {view.get('phase_label') or 'The game'} follows."
        self.can_next, self.next_text, self._start_move = False, "", None
        self._rows({})

    def _rows(self, view):
        box = self.ids.rows
        rows = self.app.adapter.timer_rows(view)

        def put(w, row):
            w.name, w.status = row[0], row[1]
            w.colour = COLOURS.get(row[2], theme.MUTED)
        fill(box, rows, SeatStatus, put)
        self.has_rows = bool(rows)
        box.cols = 1 if len(rows) <= 1 else 2
        self._tight()

    def tick(self, now):
        view = getattr(self, "_view", None)
        if not view or self.app.moment.get("kind") == "time":
            return
        _name, t = model.main_timer(view)
        if t is None:
            return
        left = model.timer_left(t, now)
        self.mode = model.timer_mode(t, left)
        self.clock = model.fmt_clock(left)
        self.state_text = MODE_WORDS[self.mode]
        dur = float(t.get("duration") or 0)
        self.fraction = max(0.0, min(1.0, left / dur)) if dur else 0.0

    def toggle(self):
        app = self.app
        app.command(app.hub.toggle_pause)

    def next(self):
        """The timer's own button: start the timer by a tap (the table's other questions are
        on the table bar below)."""
        app = self.app
        move = getattr(self, "_start_move", None)
        if move:
            app.command(app.hub.table_move, move)
