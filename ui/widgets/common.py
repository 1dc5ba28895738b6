"""Small themed widgets. Their rules are in ``ui/kv/theme.kv``."""
import time

from kivy.properties import BooleanProperty, ColorProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from ui import theme


class TLabel(Label):
    """Body text: left-aligned, vertically centred, wraps in its box. ``shorten_ok``: the text
    may end in an ellipsis (a player's name, a link), which the layout tests accept."""
    shorten_ok = BooleanProperty(False)
    fs = NumericProperty(0)          # font size in units (x app.u); 0: the class's size


class TTitle(TLabel):
    """A heading."""


class TMuted(TLabel):
    """Secondary text."""


class TText(Label):
    """A paragraph: wraps to its width and is as tall as its text."""
    fs = NumericProperty(0)


class TNote(TText):
    """A small muted paragraph."""


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


class TButton(Button):
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

    def on_touch_down(self, touch):
        if self.guard_until and self.collide_point(*touch.pos) and \
                time.monotonic() < self.guard_until:
            return True                  # taken, and nothing done: no press, no release
        return super().on_touch_down(touch)


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
