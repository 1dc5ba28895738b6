"""Round: the phase ring with the current phase lit, round x of N, and the table's Next."""
from kivy.properties import BooleanProperty, StringProperty

from ui import model
from ui.screens.base import ViewScreen
from ui.widgets.phase_ring import PhaseRing  # noqa: F401  (used by round.kv)


class RoundScreen(ViewScreen):
    round_text = StringProperty("")
    phase_text = StringProperty("")
    waiting_text = StringProperty("")
    next_text = StringProperty("Next")
    can_next = BooleanProperty(False)

    def update(self, view):
        app = self.app
        session = app.hub.session
        if session is None:
            return
        ring = model.phase_ring(session.game)
        names = [n for n, _ in ring]
        self.ids.ring.phases = [label for _, label in ring]
        self.ids.ring.current = names.index(view["phase"]) if view.get("phase") in names else -1
        self.round_text = app.adapter.round_text(view)
        self.phase_text = view.get("phase_label") or ""
        self.can_next = bool(view.get("table_prompt"))
        self.next_text = model.next_label(view) if self.can_next else "Next"
        self.waiting_text = model.waiting_text(view) or "Nothing to wait for."

    def next(self):
        app = self.app
        app.command(app.hub.next)
