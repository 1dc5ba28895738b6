"""The frame around every screen: top bar, alert banners, the nav rail, the toast."""
from kivy.app import App
from kivy.properties import (BooleanProperty, ListProperty, NumericProperty,
                             StringProperty)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.label import Label

from ui import model


class TableRoot(FloatLayout):
    pass


class TopBar(BoxLayout):
    pass


class StatusLabel(Label):
    """The top bar's status: ``full`` when it fits on one line, else ``short``."""
    full = StringProperty("")
    short = StringProperty("")

    def __init__(self, **kw):
        super().__init__(**kw)
        for prop in ("full", "short", "width", "font_size"):
            self.fbind(prop, self._pick)
        self._pick()

    def _pick(self, *_):
        from kivy.core.text import Label as CoreLabel
        core = CoreLabel(font_size=self.font_size, font_name=self.font_name)
        fits = core.get_extents(self.full)[0] <= self.width - 2 if self.full else True
        self.text = self.full if fits or not self.short else self.short


class Toast(Label):
    """A short message floating over the bottom of the screen for a few seconds (app.kv):
    as wide as its text on one line, wrapped at ``max_w``, centred."""
    max_w = NumericProperty(600)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.fbind("text", self._fit)
        self.fbind("font_size", self._fit)
        self.fbind("max_w", self._fit)
        self._fit()

    def _fit(self, *_):
        from kivy.core.text import Label as CoreLabel
        one_line = CoreLabel(font_size=self.font_size, font_name=self.font_name) \
            .get_extents(self.text or " ")[0]
        self.text_size = (max(1, min(self.max_w, one_line + 2)), None)


class NavRail(BoxLayout):
    tabs = ListProperty([])

    def on_tabs(self, *_):
        self.rebuild()

    def rebuild(self):
        from ui.widgets.common import TButton
        box = self.ids.tabs
        box.clear_widgets()
        app = App.get_running_app()
        entries = [("now", "Now")] + list(self.tabs)
        for name, label in entries:
            b = TButton(text=label, tone="ghost", tid=f"tab:{name}")
            b.screen = name
            b.bind(on_release=lambda btn: app.go(btn.screen))
            box.add_widget(b)
        self.mark()

    def mark(self, *_):
        app = App.get_running_app()
        for b in self.ids.tabs.children:
            if b.screen == "now":
                b.selected = app.following
            else:
                b.selected = (not app.following) and b.screen == app.screen_name


class TableBar(BoxLayout):
    """The table's question on any screen that does not ask it itself: the prompt's sentence
    and the table's moves (``table_legal``) as buttons and pickers. So the table is never told
    to "tap Next" without a Next button right there."""
    shown = BooleanProperty(False)
    text = StringProperty("")

    def on_touch_down(self, touch):
        if not self.shown:              # hidden: its (zero-height) children take no touches
            return False
        return super().on_touch_down(touch)

    def show(self, view, wanted):
        tp = view.get("table_prompt") or {}
        n = self.ids.moves.show(view) if wanted and tp else 0
        self.shown = bool(wanted and tp and n)
        self.text = (tp.get("text") or model.waiting_text(view)) if self.shown else ""


class BannerStack(BoxLayout):
    """The alerts under the top bar, newest two. When it grows or shrinks, what is below it
    moves: for the app's ``tap_guard`` every button that moved ignores taps (a finger on its
    way to a button must not land on what slid into its place; issue 22)."""
    rows = ListProperty([])

    def on_height(self, *_):
        app = App.get_running_app()
        moved = getattr(app, "content_moved", None)
        if moved is not None:
            moved()

    def on_rows(self, *_):
        from ui.widgets.banner import Banner
        self.clear_widgets()
        rows = list(self.rows)
        shown = rows[-2:]                                   # the newest two
        hidden = len(rows) - len(shown)
        for i, (title, message, tone, key) in enumerate(shown):
            more = f"+{hidden} more" if i == 0 and hidden else ""
            self.add_widget(Banner(title=title, message=message, tone=tone, key=key,
                                   more=more))


def banner_rows(app, view, note):
    """Alerts, newest last; the hardware note (simulated parts, or the parts left out and what
    to install) comes first, so it yields its place to real alerts; the last card scan, while
    it is fresh, comes last."""
    rows = model.alert_rows(view, app.dismissed)
    if note and ("note", note) not in app.dismissed:
        title = "Simulated hardware" if "simulat" in note.lower() else "Hardware"
        rows.insert(0, (title, note, "info", ("note", note)))
    scan = app.scan_shown(view)
    if scan is not None and scan[3] not in app.dismissed:
        rows.append(scan)
    return rows
