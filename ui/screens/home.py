"""Home: choose the game, its edition and variants and the player count, or resume an
interrupted session from the log."""
import time

from kivy.properties import DictProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from ui.screens.base import ViewScreen
from ui.widgets.common import TButton, TLabel, TMuted

FIRST = ("edition",)          # options shown first (the edition is the biggest choice)


def pretty(value) -> str:
    if isinstance(value, bool):
        return "On" if value else "Off"
    return str(value).replace("-", " ").replace("_", " ").capitalize()


class HomeScreen(ViewScreen):
    game = StringProperty("")
    players = NumericProperty(4)
    options = DictProperty({})
    resumable = ListProperty([])

    def update(self, view):
        app = self.app
        cat = app.catalog
        if not self.game or self.game not in cat:
            configured = (view.get("hub") or {}).get("game")
            self.game = configured if configured in cat else next(iter(cat), "")
            self._reset_for_game()
        self._games()
        self._options()
        self._resumables(view)

    # -- form ---------------------------------------------------------------------------------
    def pick_game(self, name):
        if name != self.game:
            self.game = name
            self._reset_for_game()
        self.update(self.app.view)

    def _reset_for_game(self):
        g = self.app.catalog.get(self.game)
        if g is None:
            return
        self.options = {o.name: o.default for o in g.options}
        self.players = min(max(int(self.players), g.min_players), g.max_players)

    def set_players(self, n):
        g = self.app.catalog[self.game]
        self.players = min(max(int(n), g.min_players), g.max_players)
        self._players()

    def set_option(self, name, value):
        self.options[name] = value
        self._options()

    def set_up(self):
        """Configure the hub with this form and go to the lobby."""
        app = self.app
        app.command(app.hub.configure, self.game, players=int(self.players),
                    options=dict(self.options), done=lambda _r: app.leave_home())

    def resume(self, session_id):
        app = self.app
        app.command(app.hub.resume, session_id, done=lambda _r: app.leave_home())

    # -- building the widgets -------------------------------------------------------------------
    def _games(self):
        box = self.ids.games
        cat = self.app.catalog
        u = self.app.u
        if [getattr(b, "game", None) for b in reversed(box.children)] != list(cat):
            box.clear_widgets()
            for name, g in cat.items():
                b = TButton(text=g.title, fs=18, size_hint_y=None, height=u * 48)
                b.game = name
                b.bind(on_release=lambda btn: self.pick_game(btn.game))
                box.add_widget(b)
        for b in box.children:
            b.selected = b.game == self.game
        self._players()

    def _players(self):
        g = self.app.catalog.get(self.game)
        box = self.ids.players
        box.clear_widgets()
        if g is None:
            return
        for n in range(g.min_players, g.max_players + 1):
            b = TButton(text=str(n), selected=(n == self.players), fs=20)
            b.count = n
            b.bind(on_release=lambda btn: self.set_players(btn.count))
            box.add_widget(b)
        self.ids.players_label.text = f"Players  ({g.min_players}-{g.max_players})"

    def _options(self):
        g = self.app.catalog.get(self.game)
        box = self.ids.options
        box.clear_widgets()
        if g is None:
            return
        opts = sorted(g.options, key=lambda o: o.name not in FIRST)
        u = self.app.u
        for o in opts:
            row = OptionRow()
            row.ids.name.text = pretty(o.name)
            row.ids.doc.text = o.doc
            value = self.options.get(o.name, o.default)
            choices = list(o.choices) or ([True, False] if isinstance(o.default, bool) else [])
            ctl = row.ids.control
            if choices:
                ctl.cols = min(3, len(choices))
                for c in choices:
                    b = TButton(text=pretty(c), selected=(c == value), fs=15)
                    b.bind(on_release=lambda _b, n=o.name, c=c: self.set_option(n, c))
                    ctl.add_widget(b)
            elif isinstance(o.default, int):
                low = 0 if o.default == 0 else 1
                minus = TButton(text="-", fs=22)
                minus.bind(on_release=lambda _b, n=o.name, v=value: self.set_option(
                    n, max(low, v - 1)))
                plus = TButton(text="+", fs=22)
                plus.bind(on_release=lambda _b, n=o.name, v=value: self.set_option(n, v + 1))
                ctl.add_widget(minus)
                ctl.add_widget(TLabel(text=str(value), halign="center", fs=22))
                ctl.add_widget(plus)
            else:
                ctl.cols = 1
                ctl.add_widget(TMuted(text=f"{pretty(value) or 'Not set'} (set from the "
                                           f"command line)"))
            box.add_widget(row)
        if not opts:
            box.add_widget(TMuted(text="No variants.", size_hint_y=None, height=u * 40))

    def _resumables(self, view):
        app = self.app
        current = view.get("session")
        try:
            items = [i for i in app.hub.resumable() if i.id != current]
        except Exception:
            items = []
        items.sort(key=lambda i: i.created or 0, reverse=True)
        box = self.ids.resume
        for w in list(box.children):
            if isinstance(w, ResumeCard):
                box.remove_widget(w)
        u = app.u
        for info in items[:6]:
            g = app.catalog.get(info.game)
            card = ResumeCard(height=u * 132)
            card.session_id = info.id
            card.ids.title.text = g.title if g else info.game
            card.ids.when.text = (time.strftime("%a %d %b, %H:%M", time.localtime(info.created))
                                  if info.created else "") + \
                f"  ·  {max(0, info.length - 1)} moves"
            card.ids.detail.text = ", ".join((info.meta or {}).get("players") or [])
            card.ids.go.bind(on_release=lambda _b, sid=info.id: self.resume(sid))
            box.add_widget(card)
        self.ids.resume_empty.opacity = 0 if items else 1
        self.ids.resume_empty.height = 0 if items else u * 30


class OptionRow(BoxLayout):
    """One variant: its name and doc, and its choices (layout in home.kv)."""


class ResumeCard(BoxLayout):
    """An interrupted session that can be resumed (layout in home.kv)."""
    session_id = StringProperty("")
