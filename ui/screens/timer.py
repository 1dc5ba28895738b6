"""The timer, readable from across the table: huge digits, the warning (0:30 by default) in
colour (and a sound, played by the app), a paused state, and Pause / Resume for the table.

Generic over ``public_view()["timers"]``: any game's timer shows here. If no timer runs and
the table has something to confirm (e.g. "Start the trade timer"), that is the big button."""
from kivy.properties import BooleanProperty, NumericProperty, StringProperty

from ui import model
from ui.screens.base import ViewScreen

MODE_WORDS = {"running": "", "warning": "Last seconds!", "paused": "Paused",
              "done": "Time is up"}


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

    def update(self, view):
        self._view = view
        name, t = model.main_timer(view)
        self.has_timer = t is not None
        self.can_next = bool(view.get("table_prompt"))
        self.next_text = model.next_label(view) if self.can_next else ""
        if t is None:
            self.title = "No timer running"
            self.clock, self.mode, self.state_text, self.fraction = "", "", "", 0.0
            self.hint = model.waiting_text(view)
            return
        self.title = model.timer_title(name)
        warn = float(t.get("warn_before") or 0)
        self.hint = (f"Warning at {model.fmt_clock(warn)}. " if warn else "") + \
            "Tap Pause to stop the clock for everyone."
        self.tick(self.app.clock_now())

    def tick(self, now):
        view = getattr(self, "_view", None)
        if not view:
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
        app = self.app
        app.command(app.hub.next)
