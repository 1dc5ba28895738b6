"""Small themed widgets. Their rules are in ``ui/kv/theme.kv``."""
import time

from kivy.app import App
from kivy.properties import BooleanProperty, ColorProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from ui import theme


def widest_word(text, font_name, font_size) -> float:
    """The width in pixels of the longest word of ``text`` (markup tags left out)."""
    import re
    from kivy.core.text import Label as CoreLabel
    words = re.sub(r"\[/?[a-z]+(=[^\]]*)?\]", "", text or "").split()
    if not words:
        return 0.0
    wide = CoreLabel(font_name=font_name, font_size=font_size).get_extents
    return float(max(wide(w)[0] for w in set(words)))


def fit_cols(texts, width, font_name, font_size, max_cols=3, spacing=0.0, pad=0.0) -> int:
    """The most columns (at most ``max_cols``) a ``width`` wide grid may have so that no word
    of ``texts`` is wider than its column (less ``pad``): words wrap at spaces, never inside
    one ("Champion ship")."""
    need = max([widest_word(t, font_name, font_size) for t in texts] or [0.0])
    for cols in range(max(1, int(max_cols)), 1, -1):
        if (width - spacing * (cols - 1)) / cols - pad >= need:
            return cols
    return 1


class WordFit:
    """A label whose words wrap at spaces and are never broken inside: when one word is wider
    than the box, the font shrinks until it fits (``word_scale``, used by the kv rules), but
    never below the smallest legible size (then the layout must give it more room)."""
    word_scale = NumericProperty(1.0)
    word_pad = 0                     # units the box loses to the text's padding

    def _word_fit(self, *_):
        app = App.get_running_app()
        u = getattr(app, "u", 1.0) if app is not None else 1.0
        base = u * (self.fs or self._base_size())
        pad = self.padding if len(self.padding) == 4 else (0, 0, 0, 0)
        room = self.width - u * self.word_pad - pad[0] - pad[2]
        if not self.text or room <= 1 or base <= 0 or self.shorten:
            scale = 1.0
        else:
            need = widest_word(self.text, self.font_name, base)
            floor = min(1.0, u * theme.SIZE_MIN / base)
            scale = max(floor, min(1.0, room / need)) if need else 1.0
        if abs(scale - self.word_scale) > 1e-3:
            self.word_scale = scale

    def _base_size(self):
        return theme.SIZE_BODY

    def _bind_word_fit(self):
        for prop in ("text", "width", "fs", "font_name", "shorten", "padding"):
            self.fbind(prop, self._word_fit)
        self._word_fit()


class TLabel(WordFit, Label):
    """Body text: left-aligned, vertically centred, wraps in its box. ``shorten_ok``: the text
    may end in an ellipsis (a player's name, a link), which the layout tests accept."""
    shorten_ok = BooleanProperty(False)
    fs = NumericProperty(0)          # font size in units (x app.u); 0: the class's size

    def __init__(self, **kw):
        super().__init__(**kw)
        self._bind_word_fit()


class TTitle(TLabel):
    """A heading."""

    def _base_size(self):
        return theme.SIZE_TITLE


class TMuted(TLabel):
    """Secondary text."""

    def _base_size(self):
        return theme.SIZE_SMALL


class TText(WordFit, Label):
    """A paragraph: wraps to its width and is as tall as its text."""
    fs = NumericProperty(0)

    def __init__(self, **kw):
        super().__init__(**kw)
        self._bind_word_fit()


class TNote(TText):
    """A small muted paragraph."""

    def _base_size(self):
        return theme.SIZE_SMALL


def address_parts(url: str) -> list:
    """A web address cut where a reader expects a break: ``scheme://host:port``, then the
    path, then the query (``http://10.0.2.15:8080``, ``/``, ``?room=X``)."""
    rest = url.split("://", 1)
    head = rest[0] + "://" if len(rest) == 2 else ""
    body = rest[-1]
    cut = min([i for i in (body.find("/"), body.find("?")) if i >= 0] or [len(body)])
    parts = [head + body[:cut]]
    tail = body[cut:]
    q = tail.find("?")
    if q > 0:
        parts += [tail[:q], tail[q:]]
    elif tail:
        parts.append(tail)
    return parts


class AddressLabel(Label):
    """A web address shown whole, never shortened (a phone that cannot scan the QR types it,
    port and all): on one line when it fits, else broken after ``host:port`` and before the
    query, as tall as its lines (layout in theme.kv)."""
    address = StringProperty("")
    fs = NumericProperty(0)

    def __init__(self, **kw):
        super().__init__(**kw)
        for prop in ("address", "width", "font_size", "font_name"):
            self.fbind(prop, self._lay)
        self._lay()

    def _lay(self, *_):
        from kivy.core.text import Label as CoreLabel
        url = self.address or ""
        width = max(1.0, self.width - 4)
        wide = CoreLabel(font_size=self.font_size, font_name=self.font_name).get_extents
        if not url or wide(url)[0] <= width:
            self.text = url
            return
        lines = []
        for part in address_parts(url):
            if lines and wide(lines[-1] + part)[0] <= width:
                lines[-1] += part
            else:
                lines.append(part)
        self.text = "\n".join(lines)


class SymLabel(Label):
    """A label in DejaVu Sans (check marks, dots, arrows)."""


class TButton(WordFit, Button):
    """A flat button. ``tone``: normal, primary, ok, warn, danger, ghost; ``selected`` marks
    the chosen one of a group."""
    tone = StringProperty("normal")
    selected = BooleanProperty(False)
    shorten_ok = BooleanProperty(False)
    fs = NumericProperty(0)          # font size in units; 0: the body size
    radius = NumericProperty(8)
    tid = StringProperty("")         # a stable name for test drivers (docs/ui.md)
    #: ``time.monotonic()`` before which a touch does nothing: the button has just appeared
    #: or changed where a finger may already be on its way to another (issue 22)
    guard_until = NumericProperty(0)
    #: where it was on the screen when an alert last came or went (see ``_guarded``)
    rest = None
    word_pad = 8

    def __init__(self, **kw):
        super().__init__(**kw)
        self._bind_word_fit()

    def on_touch_down(self, touch):
        if self.collide_point(*touch.pos) and self._guarded():
            return True                  # taken, and nothing done: no press, no release
        return super().on_touch_down(touch)

    def _guarded(self) -> bool:
        """Just appeared or changed (``guard_until``), or moved a moment ago: an alert came
        or went (the app's ``moved_until``) and this is not where it was then (``rest``)."""
        now = time.monotonic()
        if self.guard_until and now < self.guard_until:
            return True
        until = getattr(App.get_running_app(), "moved_until", 0)
        return bool(until) and now < until and self.rest is not None and \
            self.rest != self.window_rect()

    def window_rect(self):
        x, y = self.to_window(self.x, self.y)
        return (round(x), round(y), round(self.width), round(self.height))


class Panel(BoxLayout):
    """A rounded card."""
    bg = ColorProperty(theme.PANEL)
    radius = NumericProperty(10)
    border = ColorProperty([0, 0, 0, 0])


class Chip(Label):
    """Text on a coloured rounded rectangle; the text colour follows the fill."""
    fs = NumericProperty(0)          # font size in units; 0: the small size
    bg = ColorProperty(theme.PANEL_HI)
    border = ColorProperty([0, 0, 0, 0])
    radius = NumericProperty(6)


class Dot(Widget):
    """A filled circle with an optional ring."""
    colour = ColorProperty(theme.MUTED)
    ring = ColorProperty([0, 0, 0, 0])


class Spacer(Widget):
    pass


class ConfirmButton(TButton):
    """A button for a drastic table action: the first tap arms it ("Tap again to ..."), a
    second tap within a few seconds fires ``on_confirm``."""
    confirm_text = StringProperty("Tap again to confirm")
    armed = BooleanProperty(False)
    __events__ = ("on_confirm",)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._plain = None
        self._disarm_ev = None

    def on_release(self):
        from kivy.clock import Clock
        if self.armed:
            self._disarm()
            self.dispatch("on_confirm")
            return
        self.armed = True
        self._plain = self.text
        self.text = self.confirm_text
        self._disarm_ev = Clock.schedule_once(lambda dt: self._disarm(), 4)

    def _disarm(self):
        if self._disarm_ev is not None:
            self._disarm_ev.cancel()
            self._disarm_ev = None
        if self.armed:
            self.armed = False
            self.text = self._plain or self.text

    def on_confirm(self):
        pass


def fill(box, items, make, apply=None):
    """Show ``items`` in ``box``, one child per item, first to last: children made by ``make()``
    are kept and reused (making Kivy widgets is the slow part of a redraw), extra ones removed.
    ``apply(widget, item)`` sets each child's properties. Returns the children in order."""
    kids = list(reversed(box.children))
    while len(kids) < len(items):
        w = make()
        box.add_widget(w)
        kids.append(w)
    for w in kids[len(items):]:
        box.remove_widget(w)
    kids = kids[:len(items)]
    if apply is not None:
        for w, item in zip(kids, items):
            apply(w, item)
    return kids
