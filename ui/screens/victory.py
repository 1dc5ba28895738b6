"""Victory: who won, why (the end condition and any tiebreak used), the final scores, and where
the session is saved."""
from kivy.properties import StringProperty

from ui import model, theme
from ui.screens.base import ViewScreen
from ui.screens.scores import StandingRow
from ui.widgets.common import fill


def winner_line(view) -> str:
    o = view.get("outcome") or {}
    w = o.get("winners") or []
    if not w:
        return "Nobody wins"
    if len(w) == 1:
        return f"{model.names(view, w)} wins!"
    return f"{model.names(view, w)} share the win!"


def _mmss(seconds) -> str:
    seconds = int(round(seconds or 0))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


def time_lines(summary) -> str:
    """The game's length and time per phase, from the hub's summary (the session clock, so a
    pause is not counted): 'Played in 48:10' then one line per phase, most time first."""
    if not summary or not summary.get("phases"):
        return ""
    lines = [f"Played in {_mmss(summary.get('seconds'))}; time per phase:"]
    for row in sorted(summary["phases"], key=lambda r: -r["seconds"]):
        if not row.get("count") or (summary.get("seconds") or 0) >= 1 and row["seconds"] < 0.5:
            continue                    # a phase nobody spent time in (it passed at once: a
            #                             check, a reveal) is not a line
        times = f" ({row['count']}×)" if row["count"] > 1 else ""
        lines.append(f"{row['label']}{times}: {_mmss(row['seconds'])}")
    return "\n".join(lines)


class VictoryScreen(ViewScreen):
    winners = StringProperty("")
    why = StringProperty("")
    tiebreak = StringProperty("")
    saved = StringProperty("")
    times = StringProperty("")          # the game's length and time per phase (the summary)
    notes = StringProperty("")          # what the game revealed at the end, a line a player

    def update(self, view):
        o = view.get("outcome") or {}
        self.winners = winner_line(view)
        reason = o.get("reason") or ""
        self.why = f"Why: {reason.rstrip('.')}." if reason else ""
        tb = o.get("tiebreak")
        if tb:
            self.tiebreak = f"Tiebreak used: {tb}."
        elif len(o.get("winners") or []) > 1:
            # a shared win: the top scores were equal and nothing separated them
            self.tiebreak = "The top scores were tied: the win is shared."
        else:
            self.tiebreak = "No tiebreak was needed."
        self.saved = self._saved(view)
        self.times = time_lines(self.app.hub.summary())
        players = view.get("players") or []
        scores = o.get("scores") or {}
        winners = o.get("winners") or []
        order = sorted(range(len(players)), key=lambda s: -(scores.get(str(s)) or 0))
        notes = self.app.adapter.final_notes(view)

        # a line a player in the final order, in the left panel's free room (a note under
        # each score row squeezed four lines into the narrow column beside an empty panel)
        self.notes = "\n".join(f"{players[s]} \u00b7 {notes[s]}" for s in order if notes.get(s))

        def row(r, s):
            r.name, r.value = players[s], str(scores.get(str(s), ""))
            r.why = "winner" if s in winners else ""
            r.colour = theme.seat_colour(s)
            r.number = str(s + 1)
        fill(self.ids.final, order, StandingRow, row)

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
            return f"Saved in the table's log as {sid}."
        if status == "finished":
            return f"Kept in memory only as {sid}."
        return f"Session {sid} ({status})."

    def new_game(self):
        self.app.go_home()

    def scores(self):
        self.app.go("scores")


def _load_rows_kv():
    """The final scores are StandingRows, whose layout lives in scores.kv: load it now, or the
    rows are empty boxes until the Scores screen happens to be opened (the blank "Final
    scores" panel of issue 10)."""
    from ui.kvload import KV, load_kv
    load_kv(KV / "scores.kv")


_load_rows_kv()
