"""Home: choose the game, its edition and variants and the player count, or resume an
interrupted session from the log."""
import time

from kivy.properties import (BooleanProperty, DictProperty, ListProperty, NumericProperty,
                             StringProperty)
from kivy.uix.boxlayout import BoxLayout

from ui.screens.base import ViewScreen
from ui import theme
from ui.widgets.common import TButton, TLabel, TMuted, fill, fit_cols

FIRST = ("edition",)          # options shown first (the edition is the biggest choice)
#: Variants drawn before a "More variants" button (Battle Builder has 31: every row is a dozen
#: widgets, and 31 rows cost the table about 20 MB; most tables never scroll that far).
SHOWN = 6


def option_step(option) -> int:
    """What one tap on a number variant's - or + changes: a timer's seconds go by 15 (a
    minute is four taps, not sixty), anything else by one."""
    return 15 if option.name.endswith("_seconds") else 1


def option_value_text(option, value) -> str:
    """A number variant's value as the table shows it: seconds as m:ss ("Off" at 0)."""
    if option.name.endswith("_seconds"):
        v = int(value)
        return "Off" if v == 0 else f"{v // 60}:{v % 60:02d}"
    return str(value)


#: words a player reads in capitals ("PvP trigger", not "Pvp trigger")
ACRONYMS = {"pvp": "PvP", "gdp": "GDP", "vp": "VP", "hp": "HP", "eu": "EU", "usa": "USA"}


def pretty(value) -> str:
    if isinstance(value, bool):
        return "On" if value else "Off"
    words = str(value).replace("-", " ").replace("_", " ").split(" ")
    words = [ACRONYMS.get(w.lower(), w.lower()) for w in words]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


class HomeScreen(ViewScreen):
    game = StringProperty("")
    players = NumericProperty(4)
    options = DictProperty({})
    resumable = ListProperty([])
    all_options = BooleanProperty(False)     # "More variants" was tapped for this game

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
            self._remember()
            self.game = name
            self._reset_for_game()
        self.update(self.app.view)

    def _reset_for_game(self):
        """The form for ``self.game``: the choices last made for it here, else those the hub
        last set it up with (the game just played, before a restart too), else its
        defaults. Home never throws away the table's last choices (issue 22)."""
        self.all_options = False
        g = self.app.catalog.get(self.game)
        if g is None:
            return
        options = {o.name: o.default for o in g.options}
        players = self.players
        saved = getattr(self, "_choices", {}).get(self.game)
        hub = (self.app.view or {}).get("hub") or {}
        if saved is not None:
            players, chosen = saved
            options.update({k: v for k, v in chosen.items() if k in options})
        elif hub.get("game") == self.game:
            options.update({k: v for k, v in (hub.get("options") or {}).items()
                            if k in options})
            players = len(hub.get("seats") or []) or players
        self.options = options
        self.players = min(max(int(players), g.min_players), g.max_players)

    def _remember(self):
        if self.game:
            if not hasattr(self, "_choices"):
                self._choices = {}
            self._choices[self.game] = (int(self.players), dict(self.options))

    def set_players(self, n):
        g = self.app.catalog[self.game]
        self.players = min(max(int(n), g.min_players), g.max_players)
        self._remember()
        self._players()

    def set_option(self, name, value):
        self.options[name] = value
        self._remember()
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
                b = TButton(text=g.title, fs=20, size_hint_y=None, height=u * 46,
                            tid=f"home:game:{name}")
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
            b = TButton(text=str(n), selected=(n == self.players), fs=20,
                        tid=f"home:players:{n}")
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
        hidden = []
        if not self.all_options and len(opts) > SHOWN + 1:
            opts, hidden = opts[:SHOWN], opts[SHOWN:]
        for o in opts:
            row = OptionRow()
            row.ids.name.text = pretty(o.name)
            row.ids.doc.text = o.doc
            value = self.options.get(o.name, o.default)
            choices = list(o.choices) or ([True, False] if isinstance(o.default, bool) else [])
            ctl = row.ids.control
            if choices:
                _fit_cols(ctl, [pretty(c) for c in choices], u)
                for c in choices:
                    b = TButton(text=pretty(c), selected=(c == value), fs=18,
                                tid=f"home:option:{o.name}={c}")
                    b.bind(on_release=lambda _b, n=o.name, c=c: self.set_option(n, c))
                    ctl.add_widget(b)
            elif isinstance(o.default, int):
                low = 0 if o.default == 0 else 1
                step = option_step(o)
                minus = TButton(text="\u2212", fs=24, tid=f"home:option:{o.name}:minus",
                                disabled=value <= low)
                minus.bind(on_release=lambda _b, n=o.name, v=value, st=step: self.set_option(
                    n, max(low, v - st)))
                plus = TButton(text="+", fs=24, tid=f"home:option:{o.name}:plus")
                plus.bind(on_release=lambda _b, n=o.name, v=value, st=step: self.set_option(
                    n, v + st))
                ctl.add_widget(minus)
                ctl.add_widget(TLabel(text=option_value_text(o, value), halign="center",
                                      fs=22))
                ctl.add_widget(plus)
            else:
                ctl.cols = 1
                ctl.add_widget(TMuted(text=f"{pretty(value) or 'Not set'} (set from the "
                                           f"command line)", fs=18))
            box.add_widget(row)
        if hidden:
            more = TButton(text=f"More variants ({len(hidden)})", fs=18, size_hint_y=None,
                           height=u * 46, tid="home:more-variants")
            more.bind(on_release=lambda _b: self.show_all_options())
            box.add_widget(more)
        if not opts:
            box.add_widget(TMuted(text="No variants.", size_hint_y=None, height=u * 40, fs=18))

    def show_all_options(self):
        """Draw every variant; the list stays where it was (the rows that come in below are
        scrolled to by the player): at the list's end, the list jumped to its new end, past
        the 26 rows just drawn (issue 34)."""
        sv = self.ids.scroll
        box = self.ids.options
        above = (1 - sv.scroll_y) * max(0, box.height - sv.height)   # content over the view
        self.all_options = True
        self._options()
        from kivy.clock import Clock

        def put(*_):
            room = box.height - sv.height
            sv.scroll_y = 1 - above / room if room > 0 else 1

        def keep(*_):                         # the rows lay out over a few frames; the
            Clock.schedule_once(put, 0)       # scroll view's own bounds follow first
            ev()

        def done(*_):
            box.unbind(height=keep)
        ev = Clock.create_trigger(done, 0.2)
        box.bind(height=keep)
        keep()

    def _resumables(self, view):
        app = self.app
        current = view.get("session")
        try:
            items = [resume_item(i) for i in app.hub.resumable()]
        except Exception:
            items = []
        items = [i for i in items if i["id"] != current]
        items.sort(key=lambda i: i.get("updated") or i.get("started") or 0, reverse=True)
        box = self.ids.resume

        def put(card, info):
            g = app.catalog.get(info.get("game"))
            card.session_id = info["id"]
            card.ids.go.tid = f"home:resume:{info['id']}"
            card.ids.title.text = info.get("title") or (g.title if g else info.get("game", ""))
            card.ids.detail.text = ", ".join(info.get("players") or []) or "No players named"
            where = " \u00b7 ".join(x for x in (
                f"Round {info['round']}" if info.get("round") else "",
                info.get("phase_label") or "") if x)
            card.ids.where.text = where or "Not started"
            card.ids.when.text = last_played(info.get("updated") or info.get("started"))
        fill(box, items[:12], ResumeCard, put)
        listed = [i["id"] for i in items[:12]]
        if listed != self.resumable:        # a new list (or a new order): show its top, the
            self.resumable = listed         # game played last, not where an old list was left
            self.ids.resume_scroll.scroll_y = 1
        self.ids.resume_empty.opacity = 0 if items else 1
        self.ids.resume_empty.height = 0 if items else app.u * 60


def resume_item(info) -> dict:
    """A resumable session as a dict (``hub.resumable()`` gives dicts; an older hub gave the
    log's session records)."""
    if isinstance(info, dict):
        return info
    meta = getattr(info, "meta", None) or {}
    return {"id": info.id, "game": info.game, "title": "", "players": meta.get("players") or [],
            "round": None, "phase_label": "", "updated": getattr(info, "created", None)}


def last_played(when) -> str:
    """``Mon 23 Nov, 21:40`` from a wall-clock time (seconds since the epoch)."""
    if not when:
        return ""
    return time.strftime("%a %d %b, %H:%M", time.localtime(when))


def _fit_cols(grid, texts, u, fs=18, max_cols=3):
    """Up to ``max_cols`` choices a row, fewer when a word would not fit its button whole
    ("Championship" gets half the row rather than "Champion ship" in a third)."""
    def cols(*_):
        grid.cols = fit_cols(texts, grid.width, theme.FONT_BOLD, u * fs,
                             min(max_cols, len(texts)), spacing=u * 5, pad=u * 8)
    grid.bind(width=cols)
    cols()


class OptionRow(BoxLayout):
    """One variant: its name and doc, and its choices (layout in home.kv)."""


class ResumeCard(BoxLayout):
    """An open session that can be resumed: game, players, round, last played (home.kv)."""
    session_id = StringProperty("")

    def resume(self):
        screen = self.parent
        while screen is not None and not isinstance(screen, HomeScreen):
            screen = screen.parent
        if screen is not None:
            screen.resume(self.session_id)
