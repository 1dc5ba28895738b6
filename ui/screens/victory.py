"""Victory: who won, why (the end condition and any tiebreak used), the final scores, and where
the session is saved."""
from kivy.properties import StringProperty
from kivy.uix.widget import Widget

from ui import model, theme
from ui.screens.base import ViewScreen
from ui.screens.scores import StandingRow


def winner_line(view) -> str:
    o = view.get("outcome") or {}
    w = o.get("winners") or []
    if not w:
        return "Nobody wins"
    if len(w) == 1:
        return f"{model.names(view, w)} wins!"
    return f"{model.names(view, w)} share the win!"


class VictoryScreen(ViewScreen):
    winners = StringProperty("")
    why = StringProperty("")
    tiebreak = StringProperty("")
    saved = StringProperty("")

    def update(self, view):
        o = view.get("outcome") or {}
        self.winners = winner_line(view)
        reason = o.get("reason") or ""
        self.why = f"Why: {reason}." if reason else ""
        tb = o.get("tiebreak")
        self.tiebreak = f"Tiebreak used: {tb}." if tb else "No tiebreak was needed."
        self.saved = self._saved(view)
        box = self.ids.final
        box.clear_widgets()
        players = view.get("players") or []
        scores = o.get("scores") or {}
        order = sorted(range(len(players)), key=lambda s: -(scores.get(str(s)) or 0))
        for s in order:
            win = s in (o.get("winners") or [])
            box.add_widget(StandingRow(
                name=players[s], value=str(scores.get(str(s), "")),
                why="winner" if win else "", colour=theme.seat_colour(s)))
        for _ in range(6 - len(players)):
            box.add_widget(Widget())

    def _saved(self, view):
        hub = self.app.hub
        sid = view.get("session") or ""
        try:
            info = hub.log.info(sid)
            status = info.status
        except Exception:
            return f"Session {sid}."
        where = getattr(hub.log, "path", None)
        if status == "finished" and where:
            return f"Saved to the table's log as {sid}."
        if status == "finished":
            return f"Recorded as {sid} (this table keeps its log in memory only)."
        return f"Session {sid} ({status})."

    def new_game(self):
        self.app.go_home()

    def scores(self):
        self.app.go("scores")
