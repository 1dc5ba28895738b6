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
    """A short message floating over the screen for a few seconds (app.kv): as wide as its
    text on one line, wrapped at ``max_w``. It is put where it covers no button a player may
    tap (:meth:`place`): low in the middle when that is free (as it was always drawn), else
    the nearest free place; a story of a whole game's end stayed over Victory's Scores and
    New game for 37 s (issue 34). A message with no free place anywhere is not shown."""
    max_w = NumericProperty(600)
    room = BooleanProperty(True)            # a free place was found (see :meth:`place`)

    def __init__(self, **kw):
        super().__init__(**kw)
        self.fbind("text", self._fit)
        self.fbind("font_size", self._fit)
        self.fbind("max_w", self._fit)
        self._fit()
        self._settle = 0
        for prop in ("text", "size"):
            self.fbind(prop, self.replace)

    def replace(self, *_):
        """Place it again over the next few frames (the screen below it lays out over two or
        three frames after a change)."""
        from kivy.clock import Clock
        if not self._settle:
            Clock.schedule_once(self._place_next, 0)
        self._settle = 4

    def _place_next(self, *_):
        from kivy.clock import Clock
        self.place()
        self._settle -= 1
        if self._settle > 0:
            Clock.schedule_once(self._place_next, 0)

    def _fit(self, *_):
        from kivy.core.text import Label as CoreLabel
        one_line = CoreLabel(font_size=self.font_size, font_name=self.font_name) \
            .get_extents(self.text or " ")[0]
        self.text_size = (max(1, min(self.max_w, one_line + 2)), None)

    def place(self, *_):
        """The free place nearest the bottom centre of the game's area (right of the rail)
        that overlaps no enabled, shown button of the screen; the bottom centre if none is
        free (the UI tests' check then says which button it covers)."""
        root = self.parent
        if root is None or not self.text:
            return
        from kivy.uix.behaviors import ButtonBehavior
        buttons = []
        for w in root.walk(restrict=True):
            if w is self or not isinstance(w, ButtonBehavior) or w.disabled:
                continue
            if w.width <= 1 or w.height <= 1 or not _seen(w, root):
                continue
            x, y = w.to_window(*w.pos)
            buttons.append((x, y, x + w.width, y + w.height))
        app = App.get_running_app()
        u = getattr(app, "u", 1)
        rail = root.ids.rail
        left = (rail.to_window(rail.right, 0)[0] if rail.width > 1 else 0) + 4 * u
        area_w = root.width - left
        w, h = self.width, self.height
        gap = 4 * u
        xs = {root.center_x - w / 2, left + (area_w - w) / 2, root.right - w - 2 * gap}
        for b in buttons:                              # beside a button, on either side
            xs.update((b[0] - w - gap, b[2] + gap))
        xs = sorted((x for x in xs if 0 <= x and x + w <= root.width),
                    key=lambda x: abs(x + w / 2 - root.center_x))
        ys = [16 * u + i * gap for i in range(int(max(0, root.height - h - 16 * u) // gap)
                                             + 1)]
        ys.append(root.height - h)                     # over the top bar
        for y in ys:
            for x in xs:
                if not any(min(x + w, b[2]) > max(x, b[0]) and min(y + h, b[3]) > max(y, b[1])
                           for b in buttons):
                    self.pos = (x, y)
                    self.room = True
                    return
        # no free place on this screen for so long a message: it is not shown (what happened
        # is in the story, on the Round tab and every phone), rather than over the buttons
        self.room = False


def _seen(w, root):
    """Shown: every widget up to ``root`` visible, and the screen it is on the current one."""
    p = w
    while p is not None and p is not root:
        if getattr(p, "opacity", 1) <= 0:
            return False
        parent = p.parent
        if parent is not None and hasattr(parent, "current_screen") and \
                p is not parent.current_screen:
            return False
        p = parent
    return p is root


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
    """The alerts under the top bar: the newest one, and "+N more" (two banners of two lines
    each left a third of the screen to the game: its buttons went under them). When it grows,
    what is below it moves: for the app's ``tap_guard`` every button that moved ignores taps (a
    finger on its way to a button must not land on what slid into its place; issue 22). When a
    banner is dismissed by a tap, its room is kept (``held``) until the screen changes, so
    nothing under that finger moves up (issue 34: a tap meant for "3" missed); an alert the
    hub ends gives its room back (with the tap guard)."""
    rows = ListProperty([])
    held = NumericProperty(0)
    screen = StringProperty("")

    def on_height(self, *_):
        app = App.get_running_app()
        moved = getattr(app, "content_moved", None)
        if moved is not None:
            moved()

    def on_screen(self, *_):
        self.held = 0                   # a new screen: the banners' room is theirs again

    def on_rows(self, *_):
        from ui.widgets.banner import Banner
        had = self.height if self.children else self.held
        self.clear_widgets()
        rows = list(self.rows)
        hidden = len(rows) - 1
        if rows:
            title, message, tone, key = rows[-1]              # the newest
            self.add_widget(Banner(title=title, message=message, tone=tone, key=key,
                                   more=f"+{hidden} more" if hidden else ""))
        if self._keep:                  # a tap on Dismiss: the finger is still there
            self.held = max(self.held, had)
        self._keep = False

    _keep = False

    def keep_room(self):
        """The next banner to go was dismissed by a tap: keep its room (see the class)."""
        self._keep = True


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
