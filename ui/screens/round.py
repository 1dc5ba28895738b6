"""Round: the phase ring with the current phase lit, round x of N, what the table is waiting
for (with any sealed choices' lock status), and the table's Next."""
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from ui import model, theme
from ui.screens.base import ViewScreen
from ui.widgets.common import TButton, TLabel, fill
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
        ring = app.adapter.ring(session.game)
        names = [n for n, _ in ring]
        self.ids.ring.phases = [label for _, label in ring]
        self.ids.ring.current = names.index(view["phase"]) if view.get("phase") in names else -1
        self._legend(ring, self.ids.ring.current)
        self.round_text = app.adapter.round_text(view)
        self.phase_text = view.get("phase_label") or ""
        tp = view.get("table_prompt") or {}
        self.can_next = bool(tp)
        self.next_text = model.next_label(view) if self.can_next else "Next"
        self.waiting_text = tp.get("text") or model.waiting_text(view) or \
            "Nothing to wait for."
        self._info(view)
        self._actions(view)

    def _legend(self, ring, current):
        items = list(enumerate(ring)) if self.ids.ring.compact else []

        def line(lab, item):
            i, (_name, label) = item
            lit = i == current
            lab.text = f"{i + 1}  {label}"
            lab.fs = 15 if lit else 13.5
            lab.color = theme.TEXT if lit else theme.MUTED
            lab.font_name = theme.FONT_BOLD if lit else theme.FONT
        fill(self.ids.legend, items, lambda: TLabel(shorten=True, shorten_ok=True,
                                                    shorten_from="right"), line)

    def _info(self, view):
        items = list(self.app.adapter.round_info(view))
        items += [("Sealed", line) for line in sealed_lines(view)]

        def put(w, item):
            w.title, w.text = item
        fill(self.ids.info, items[:4], InfoItem, put)

    def _actions(self, view):
        box = self.ids.actions
        u = self.app.u
        acts = self.app.adapter.table_actions(view)

        def put(b, act):
            b.text, b.what, b.args = act
        fill(box, acts, self._action_button, put)
        box.height = u * 52 if acts else 0
        box.opacity = 1 if acts else 0

    def _action_button(self):
        b = TButton(fs=16)
        b.bind(on_release=lambda btn: self.act(btn.what, btn.args))
        return b

    def act(self, what, args):
        app = self.app
        if what.startswith("move:"):
            app.command(app.hub.table_move, what[5:], args)
        else:
            getattr(app.adapter, what)(app, args)

    def next(self):
        app = self.app
        app.command(app.hub.next)



