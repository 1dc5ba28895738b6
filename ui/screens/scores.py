"""Scores: the score curve per round (with the target line if the game has one, e.g. 50 GDP)
and each player's score explained."""
from kivy.properties import BooleanProperty, ColorProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from ui import theme
from ui.screens.base import ViewScreen
from ui.widgets.chart import ScoreChart, ScoreTrack  # noqa: F401  (used by scores.kv)
from ui.widgets.common import fill


class StandingRow(BoxLayout):
    number = StringProperty("")         # the seat number, as on the score track
    name = StringProperty("")
    value = StringProperty("")
    why = StringProperty("")
    colour = ColorProperty(theme.MUTED)


class ScoresScreen(ViewScreen):
    title = StringProperty("")
    explain_title = StringProperty("")
    has_track = BooleanProperty(False)

    def update(self, view):
        app = self.app
        data = app.adapter.score(view, app.journal)
        self.ids.chart.data = data
        self.ids.track.data = data
        self.has_track = bool(data is not None and data.target)
        box = self.ids.standings
        if data is None:
            self.title = "Scores"
            self.explain_title = "This game shows its scores at the end."
            fill(box, [], StandingRow)
            return
        self.title = data.title
        self.explain_title = data.explain_title
        rows = sorted(data.series, key=lambda s: -(s.now if s.now is not None else
                                                   (s.points[-1] if s.points else 0)))

        def put(r, s):
            value = s.now if s.now is not None else (s.points[-1] if s.points else 0)
            r.name, r.value = s.name, f"{value} {data.unit}".strip()
            r.why = ", ".join(data.explain.get(s.seat) or [])
            r.colour = theme.seat_colour(s.seat)
            r.number = str(s.seat + 1)
        fill(box, rows, StandingRow, put)
