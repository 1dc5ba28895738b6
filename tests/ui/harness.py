"""Drive the real table app in a real (offscreen SDL) window: pump frames, tap widgets through
the window's touch dispatch, find widgets by text, take screenshots, and check that no text is
cut off."""
import os
import pathlib
import time

from kivy.base import EventLoop
from kivy.core.text import Label as CoreLabel
from kivy.core.text.markup import MarkupLabel
from kivy.core.window import Window
from kivy.tests.common import UnitTestTouch
from kivy.uix.label import Label
from kivy.uix.modalview import ModalView
from kivy.uix.scrollview import ScrollView
from kivy.uix.stencilview import StencilView

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = pathlib.Path(os.environ.get("UI_SHOTS_DIR", ROOT / "screenshots"))


def walk(widget):
    yield widget
    for c in widget.children:
        yield from walk(c)


def window_rect(w):
    x, y = w.to_window(*w.pos)
    return x, y, x + w.width, y + w.height


def shown(widget, clip=True) -> bool:
    """On screen: every ancestor visible, inside the window and inside any clipping view
    (a scroll view), not zero-sized."""
    w = widget
    x0, y0, x1, y1 = window_rect(widget)
    while w is not None:
        if getattr(w, "opacity", 1) <= 0:
            return False
        if clip and isinstance(w, StencilView) and w is not widget:
            a0, b0, a1, b1 = window_rect(w)
            if x1 <= a0 or x0 >= a1 or y1 <= b0 or y0 >= b1:
                return False
        parent = w.parent
        if parent is not None and hasattr(parent, "current_screen") and \
                w is not parent.current_screen:
            return False
        if w is w.parent:
            break
        w = parent
    if widget.width <= 1 or widget.height <= 1:
        return False
    if not clip:
        return True
    x, y = widget.to_window(*widget.pos)
    return x < Window.width and y < Window.height and x + widget.width > 0 and \
        y + widget.height > 0


class Driver:
    def __init__(self, app):
        self.app = app

    # -- time ---------------------------------------------------------------------------------
    def pump(self, frames=3):
        """Let pending commands finish and the screen catch up."""
        for _ in range(frames):
            assert self.app.bridge.wait_idle(60), "a command did not finish"
            EventLoop.idle()
        deadline = time.monotonic() + 60
        while self.app.bridge.events or self.app.bridge.busy():
            assert time.monotonic() < deadline, "the screen did not settle"
            self.app.bridge.wait_idle(60)
            EventLoop.idle()
        EventLoop.idle()

    def wait_for(self, cond, timeout=5.0):
        """Pump frames until ``cond()`` (for work done by the hub's own threads)."""
        deadline = time.monotonic() + timeout
        while not cond():
            assert time.monotonic() < deadline, "the screen did not catch up in time"
            self.pump(1)
            time.sleep(0.005)

    # -- finding ------------------------------------------------------------------------------
    def tops(self):
        """The app root and any open dialog."""
        return [self.app.root] + [w for w in Window.children if isinstance(w, ModalView)]

    def widgets(self, cls=None, clip=True):
        out = []
        for top in self.tops():
            for w in walk(top):
                if (cls is None or isinstance(w, cls)) and shown(w, clip):
                    out.append(w)
        return out

    def texts(self):
        return [w.text for w in self.widgets(Label) if w.text]

    def find(self, text, cls=None, exact=True, clip=True):
        hits = [w for w in self.widgets(cls or Label, clip)
                if (w.text == text if exact else text in w.text)]
        return hits

    def one(self, text, cls=None, exact=True):
        """The widget showing ``text`` (scrolled out of view is fine: a tap scrolls to it)."""
        hits = self.find(text, cls, exact) or self.find(text, cls, exact, clip=False)
        assert hits, f"no {text!r} on screen; texts: {sorted(set(self.texts()))}"
        return hits[-1]

    # -- input --------------------------------------------------------------------------------
    def tap(self, widget_or_text, pump=True):
        w = widget_or_text
        if isinstance(w, str):
            w = self.one(w)
        p = w.parent
        while p is not None and p is not p.parent:
            if isinstance(p, ScrollView):
                p.scroll_to(w, padding=10, animate=False)
                self.pump()
                break
            p = p.parent
        x, y = w.to_window(*w.center)
        t = UnitTestTouch(x, y)
        t.touch_down()
        t.touch_up()
        if pump:
            self.pump()
        return w

    # -- looking ------------------------------------------------------------------------------
    def shot(self, name):
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.pump()
        path = Window.screenshot(name=str(SHOTS / f"{name}.png"))
        final = SHOTS / f"{name}.png"
        os.replace(path, final)
        return final

    def check(self, name):
        """Save a screenshot and insist that every label on it fits."""
        path = self.shot(name)
        bad = self.clipped()
        assert bad == [], f"{name}: {bad}"
        return path

    def clipped(self):
        """Labels whose text does not fit their box (cut off, shortened or overflowing), or
        that stick out of the screen area they belong to."""
        bad = []
        sm = self.app.root.ids.sm
        area = window_rect(sm)
        screen = sm.current_screen
        for w in self.widgets(Label):
            if not w.text or not w.text.strip():
                continue
            p = w.parent
            while p is not None and p is not screen and p is not p.parent:
                p = p.parent
            if p is screen:
                x0, y0, x1, y1 = window_rect(w)
                if y0 < area[1] - 2 or y1 > area[3] + 2 or x0 < area[0] - 2 or \
                        x1 > area[2] + 2:
                    bad.append((w.text, "outside the screen area"))
                    continue
            if getattr(w, "is_shortened", False) and not getattr(w, "shorten_ok", False):
                bad.append((w.text, "shortened"))
                continue
            if w.text_size[0] is None and w.text_size[1] is None:
                tw, th = w.texture_size
                if tw > w.width + 2 or th > w.height + 2:
                    bad.append((w.text, f"{tw}x{th} in {w.width:.0f}x{w.height:.0f}"))
                continue
            if w.shorten:
                continue
            width = w.text_size[0] or w.width
            kw = {k: getattr(w, k) for k in ("font_size", "font_name", "bold", "italic",
                                              "markup", "line_height", "max_lines",
                                              "padding")}
            kw["text_size"] = (width, None)
            kw["halign"] = w.halign
            core = (MarkupLabel if w.markup else CoreLabel)(text=w.text, **kw)
            core.refresh()
            cw, ch = core.content_size
            limit = w.text_size[1] if w.text_size[1] is not None else w.height
            if ch > limit + 2:
                bad.append((w.text, f"needs {ch:.0f}px height, has {limit:.0f}"))
        return bad


def play_until(hub, done, seed=1, limit=5000, clock=None, bot="random"):
    """The game's own bots answer the seats' prompts (and its table bot the table's; a clock
    runs out timers) until ``done(public_view)``. Returns that view."""
    import random
    rng = random.Random(seed)
    for _ in range(limit):
        v = hub.public_view()
        if done(v):
            return v
        s = hub.session
        g, st = s.game, s.state
        if None in st.prompts:
            tb = getattr(g, "table_bot", None)
            p = st.prompts[None]
            move, args = tb(g, st, None, rng) if tb else (p.get("next") or p["moves"][0],
                                                        p.get("next_args") or {})
            hub.table_move(move, args)
            continue
        seats = sorted(x for x in st.prompts if x is not None)
        if not seats:
            assert clock is not None and v["timers"], "nobody to act and no timer"
            clock.advance(max(t["left"] for t in v["timers"].values()) + 0.01)
            s.tick()
            continue
        bots = g.bots
        move, args = bots.get(bot, bots["random"])(g, st, seats[0], rng)
        hub.submit(seats[0], move, args)
    raise AssertionError("the state was never reached")
