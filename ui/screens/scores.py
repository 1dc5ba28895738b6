"""Scores: the score curve per round (with the target line if the game has one, e.g. 50 GDP)
and each player's score explained."""
from kivy.properties import ColorProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.widget import Widget

from ui import theme
from ui.screens.base import ViewScreen
from ui.widgets.chart import ScoreChart  # noqa: F401  (used by scores.kv)


class StandingRow(BoxLayout):
    name = StringProperty("")
    value = StringProperty("")
    why = StringProperty("")
    colour = ColorProperty(theme.MUTED)


class ScoresScreen(ViewScreen):
    title = StringProperty("")
    explain_title = StringProperty("")

    def update(self, view):
        app = self.app
        data = app.adapter.score(view, app.journal)
        self.ids.chart.data = data
        box = self.ids.standings
        box.clear_widgets()
        if data is None:
            self.title = "Scores"
            self.explain_title = "This game shows its scores at the end."
            return
        self.title = data.title
        self.explain_title = data.explain_title
        rows = sorted(data.series, key=lambda s: -(s.now if s.now is not None else
                                                   (s.points[-1] if s.points else 0)))
        for s in rows:
            value = s.now if s.now is not None else (s.points[-1] if s.points else 0)
            why = data.explain.get(s.seat) or []
            r = StandingRow(name=s.name, value=f"{value} {data.unit}".strip(),
                            why=", ".join(why), colour=theme.seat_colour(s.seat))
            box.add_widget(r)
        for _ in range(5 - len(rows)):                 # equal rows, filled from the top
            box.add_widget(Widget())
