"""Drive the real table app in a real (offscreen SDL) window: pump frames, tap widgets through
the window's touch dispatch, find widgets by text or id, take screenshots, and check that every
text a player must read is legible at arm's length: at least 18 px at 800x480 (scaled with the
layout unit at bigger sizes), never cut off, shortened, overlapping another text or a drawing
it must keep clear of (the phase ring), nor pushed outside the screen area, and drawn in a
font that has its signs."""
import math
import os
import pathlib
import re
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

from ui.widgets.root import Toast

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = pathlib.Path(os.environ.get("UI_SHOTS_DIR", ROOT / "screenshots" / "ui"))
MIN_PX = 18                 # the smallest text a player reads at arm's length, at 800x480
SIZE_TAG = re.compile(r"\[size=(\d+(?:\.\d+)?)(?:px)?\]")


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

    def texts(self, clip=True):
        """The texts on screen as a player reads them (markup left out; ``clip=False``: also
        those scrolled out of view)."""
        return [plain(w) for w in self.widgets(Label, clip) if w.text]

    def find(self, text, cls=None, exact=True, clip=True):
        hits = [w for w in self.widgets(cls or Label, clip)
                if (plain(w) == text if exact else text in plain(w))]
        return hits

    def one(self, text, cls=None, exact=True):
        """The widget showing ``text`` (scrolled out of view is fine: a tap scrolls to it)."""
        hits = self.find(text, cls, exact) or self.find(text, cls, exact, clip=False)
        assert hits, f"no {text!r} on screen; texts: {sorted(set(self.texts()))}"
        return hits[-1]

    def tid(self, name):
        """The shown widget with that stable test id (``tid``, see docs/ui.md)."""
        hits = [w for top in self.tops() for w in walk(top)
                if getattr(w, "tid", None) == name and shown(w, clip=False)]
        assert hits, f"no control {name!r}; shown: " \
            f"{sorted({w.tid for top in self.tops() for w in walk(top) if getattr(w, 'tid', '') and shown(w, clip=False)})}"
        return hits[-1]

    def tids(self):
        return sorted({w.tid for top in self.tops() for w in walk(top)
                       if getattr(w, "tid", "") and shown(w, clip=False)})

    def in_banner(self, title, text):
        """The widget showing ``text`` in the banner titled ``title``."""
        from ui.widgets.banner import Banner
        w = self.one(title)
        while w is not None and not isinstance(w, Banner):
            w = w.parent
        assert w is not None, f"{title!r} is not a banner"
        return next(x for x in walk(w) if getattr(x, "text", None) == text)

    # -- input --------------------------------------------------------------------------------
    def tap(self, widget_or_text, pump=True):
        w = widget_or_text
        if isinstance(w, str):
            w = self.one(w)
        p = w.parent
        while p is not None and p is not p.parent:
            if isinstance(p, ScrollView):
                a0, b0, a1, b1 = window_rect(p)
                x0, y0, x1, y1 = window_rect(w)
                if y0 < b0 or y1 > b1 or x0 < a0 or x1 > a1:     # not all of it in view
                    p.scroll_to(w, padding=10, animate=False)
                    # scroll_to may overshoot the ends; a player's finger stops there
                    p.scroll_x = min(1.0, max(0.0, p.scroll_x))
                    p.scroll_y = min(1.0, max(0.0, p.scroll_y))
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
        """Save a screenshot and insist that every text on it is legible (see
        :meth:`problems`)."""
        path = self.shot(name)
        bad = self.problems()
        assert bad == [], f"{name}: {bad}"
        return path

    def clipped(self):
        """Kept for older tests: every legibility problem (see :meth:`problems`)."""
        return self.problems()

    def problems(self):
        """Every legibility problem on the screen (and any open dialog), as ``(text, why)``:

        * a text smaller than 18 px at 800x480 (``MIN_PX`` x the layout unit), markup
          ``[size=]`` included, and chart texts drawn on a canvas;
        * a text cut off, shortened (unless marked ``shorten_ok``: a long player name) or
          overflowing its box, or sticking out of the screen area it belongs to;
        * two texts overlapping each other (within the screen, or within one dialog; the
          toast floats over the screen for a few seconds and is left out of this one);
        * a text crossing a drawing that keeps it out (the phase ring's arcs);
        * a sign its font has no glyph for (drawn as an empty box: Roboto has no check mark),
          markup ``[font=]`` spans read in their own font;
        * a button a player may tap (shown, enabled) that is covered (see :meth:`covered`).
        """
        bad = []
        u = self.app.u
        least = MIN_PX * u - 0.01
        sm = self.app.root.ids.sm
        area = window_rect(sm)
        screen = sm.current_screen
        for top in self.tops():
            labels = [w for w in walk(top) if isinstance(w, Label) and shown(w)
                      and w.text and w.text.strip()]
            rects = []
            for w in labels:
                gone = missing_glyphs(w)
                if gone:
                    bad.append((w.text, f"{w.font_name} has no glyph for "
                                        f"{', '.join(f'U+{ord(c):04X} {c}' for c in gone)} "
                                        f"(drawn as an empty box)"))
                size = float(w.font_size)
                tags = [float(x) for x in SIZE_TAG.findall(w.text)] if w.markup else []
                if min([size] + tags) < least:
                    bad.append((w.text, f"{min([size] + tags):.1f}px text, "
                                        f"{MIN_PX * u:.0f}px at least"))
                why = self._fit(w, screen, area)
                if why:
                    bad.append((w.text, why))
                if not isinstance(w, Toast):      # it floats over the screen for seconds
                    rects.append((w, line_rects(w)))
            for i, (a, ra) in enumerate(rects):
                for b, rb in rects[i + 1:]:
                    if _overlap(ra, rb):
                        bad.append((a.text, f"overlaps {b.text!r}"))
            for w in walk(top):
                if not shown(w, clip=False):
                    continue
                px = getattr(w, "text_px", None)          # texts drawn on a canvas
                if px and min(px) < least:
                    bad.append((type(w).__name__, f"{min(px):.1f}px canvas text"))
                drawn = getattr(w, "text_rects", None) or []
                for i, a in enumerate(drawn):
                    if any(_overlap([a], [b]) for b in drawn[i + 1:]):
                        bad.append((type(w).__name__, f"canvas texts overlap at {a}"))
                keep = getattr(w, "keep_out", None)
                if keep is None:
                    continue
                ring = keep()
                if ring is None:
                    continue
                for lab, rs in rects:
                    if any(_in_ring(r, ring) for r in rs):
                        bad.append((lab.text, f"crosses the {type(w).__name__}"))
        bad.extend(self.covered())
        return bad

    def covered(self):
        """Every button a player may tap (shown, enabled, under no open dialog) that something
        covers, as ``(text, why)``: an alert banner (or the toast, while it shows) over part
        of it (a squashed layout pushes a screen's buttons up under the banners), or its box
        outside the window (pushed down off the screen)."""
        from kivy.uix.button import ButtonBehavior
        from ui.widgets.banner import Banner
        bad = []
        tops = self.tops()
        top = tops[-1]                          # an open dialog takes every tap
        covers = []
        if top is self.app.root:
            for w in walk(top):
                if isinstance(w, Banner) and shown(w, clip=False):
                    covers.append((f"the banner {w.title!r}", window_rect(w)))
            toast = getattr(self.app.root.ids, "toast", None)
            if toast is not None and toast.text and toast.opacity > 0:
                covers.append((f"the toast {toast.text!r}", window_rect(toast)))
        for w in walk(top):
            if not isinstance(w, ButtonBehavior) or w.disabled or not shown(w, clip=False):
                continue
            if isinstance(w, Label) and not (w.text or "").strip():
                continue
            name = plain(w) if isinstance(w, Label) else (getattr(w, "tid", "") or
                                                          type(w).__name__)
            r = window_rect(w)
            box = _clip(w)                      # in a scroll view: the part in sight
            if box is not None:
                r = (max(r[0], box[0]), max(r[1], box[1]), min(r[2], box[2]), min(r[3], box[3]))
                if r[2] <= r[0] or r[3] <= r[1]:
                    continue                    # scrolled out of sight
            for what, c in covers:
                if _overlap([r], [c]) and not _inside(w, c):
                    bad.append((name, f"covered by {what}"))
            x0, y0, x1, y1 = r
            if x0 < -2 or y0 < -2 or x1 > Window.width + 2 or y1 > Window.height + 2:
                bad.append((name, "outside the window"))
        return bad

    def _fit(self, w, screen, area):
        p = w.parent
        while p is not None and p is not screen and p is not p.parent:
            p = p.parent
        if p is screen:
            x0, y0, x1, y1 = window_rect(w)
            clip = _clip(w)                     # a scroll view shows only part of it
            if clip is not None:
                x0, y0 = max(x0, clip[0]), max(y0, clip[1])
                x1, y1 = min(x1, clip[2]), min(y1, clip[3])
            if y0 < area[1] - 2 or y1 > area[3] + 2 or x0 < area[0] - 2 or x1 > area[2] + 2:
                return "outside the screen area"
        if getattr(w, "is_shortened", False):
            if not getattr(w, "shorten_ok", False):
                return "shortened"
            drawn = "".join(getattr(word, "text", "") for ln in
                            getattr(w._label, "_cached_lines", []) for word in ln.words)
            kept = len(drawn.replace("...", "").replace("\u2026", "").strip())
            if kept < min(5, len(w.text.strip())):
                return f"shortened to {drawn!r}"
        if w.text_size[0] is None and w.text_size[1] is None:
            tw, th = w.texture_size
            if tw > w.width + 2 or th > w.height + 2:
                return f"{tw}x{th} in {w.width:.0f}x{w.height:.0f}"
            return None
        if w.shorten:
            return None
        width = w.text_size[0] or w.width
        kw = {k: getattr(w, k) for k in ("font_size", "font_name", "bold", "italic",
                                          "markup", "line_height", "max_lines", "padding")}
        kw["text_size"] = (width, None)
        kw["halign"] = w.halign
        core = (MarkupLabel if w.markup else CoreLabel)(text=w.text, **kw)
        core.refresh()
        cw, ch = core.content_size
        if w.text_size[0] is not None and not w.markup:
            for word in w.text.split():                # a word wider than the box gets
                ww = core.get_extents(word)[0]          # broken in two by the wrapping
                if ww > width:
                    return f"the word {word!r} ({ww:.0f}px) is broken in a {width:.0f}px box"
        limit = w.text_size[1] if w.text_size[1] is not None else w.height
        if ch > limit + 2:
            return f"needs {ch:.0f}px height, has {limit:.0f}"
        if cw > width + 2:
            return f"needs {cw:.0f}px width, has {width:.0f}"
        if w.text_size[1] is None and w.texture_size[1] > w.height + 2:
            return f"{w.texture_size[1]}px tall in {w.height:.0f}px"
        return None


_FONTS = {}
_GLYPH = {}
_NONE = "\U0010fffd"             # a code point no font here has: its .notdef drawing
_TAG = re.compile(r"\[(/?)(\w+)(?:=([^\]]*))?\]")


def _font(name):
    from kivy.resources import resource_find
    if name not in _FONTS:
        path = None
        for cand in (name, f"{name}.ttf", f"{name}.otf"):
            path = resource_find(cand)
            if path:
                break
        if path is None:
            from kivy.core.text import LabelBase
            reg = LabelBase._fonts.get(name)
            path = reg[0] if reg else None
        from PIL import ImageFont
        _FONTS[name] = ImageFont.truetype(path, 40) if path else None
    return _FONTS[name]


def _has_glyph(font_name, ch) -> bool:
    key = (font_name, ch)
    if key not in _GLYPH:
        font = _font(font_name)
        if font is None:
            _GLYPH[key] = True
        else:
            a, b = font.getmask(ch), font.getmask(_NONE)
            _GLYPH[key] = (a.size, bytes(a)) != (b.size, bytes(b))
    return _GLYPH[key]


def _runs(w):
    """``(font name, text)`` runs of a label (markup ``[font=]`` spans their own)."""
    if not w.markup:
        return [(w.font_name, w.text)]
    out, fonts, pos = [], [w.font_name], 0
    for m in _TAG.finditer(w.text):
        out.append((fonts[-1], w.text[pos:m.start()]))
        pos = m.end()
        if m.group(2) == "font":
            if m.group(1):
                if len(fonts) > 1:
                    fonts.pop()
            else:
                fonts.append(m.group(3))
    out.append((fonts[-1], w.text[pos:]))
    return [(f, t.replace("&bl;", "[").replace("&br;", "]").replace("&amp;", "&"))
            for f, t in out]


def plain(w) -> str:
    """A label's text as drawn: without its markup tags."""
    return "".join(t for _f, t in _runs(w)) if getattr(w, "markup", False) else w.text


def missing_glyphs(w) -> list:
    """The characters of a label its font cannot draw (they come out as empty boxes)."""
    import unicodedata
    gone = []
    for font, text in _runs(w):
        for ch in set(text):
            if ch.isspace() or unicodedata.category(ch) in ("Cf", "Cc", "Zs"):
                continue
            if not _has_glyph(font, ch) and ch not in gone:
                gone.append(ch)
    return sorted(gone)


def _clip(w):
    """The window rectangle the label is drawn inside: the intersection of the clipping views
    (scroll views) around it, or None."""
    box = None
    p = w.parent
    while p is not None and p is not p.parent:
        if isinstance(p, StencilView):
            r = window_rect(p)
            box = r if box is None else (max(box[0], r[0]), max(box[1], r[1]),
                                         min(box[2], r[2]), min(box[3], r[3]))
        p = p.parent
    return box


def line_rects(w):
    """The window rectangles ``(x0, y0, x1, y1)`` of each drawn line of a Label's text, as far
    as it can be seen (a scroll view clips it)."""
    lab = getattr(w, "_label", None)
    lines = getattr(lab, "_cached_lines", None) or []
    tw, th = w.texture_size
    if not tw or not th:
        return []
    x, y = w.to_window(int(w.center_x - tw / 2.), int(w.center_y - th / 2.))
    out = []
    for ln in lines:
        if not ln.w or not any((getattr(word, "text", "") or "").strip() for word in ln.words):
            continue
        lx, ly = getattr(ln, "x", 0), getattr(ln, "y", 0)
        out.append((x + lx, y + th - ly - ln.h, x + lx + ln.w, y + th - ly))
    clip = _clip(w)
    if clip is not None:
        out = [(max(r[0], clip[0]), max(r[1], clip[1]), min(r[2], clip[2]), min(r[3], clip[3]))
               for r in out]
        out = [r for r in out if r[2] > r[0] and r[3] > r[1]]
    return out


def _inside(w, rect):
    """Is ``w`` part of what is drawn in ``rect`` (a banner's own Dismiss button)?"""
    p = w
    while p is not None and p is not p.parent:
        if window_rect(p) == rect:
            return True
        p = p.parent
    return False


def _overlap(ra, rb, slack=2):
    for a in ra:
        for b in rb:
            if min(a[2], b[2]) - max(a[0], b[0]) > slack and \
                    min(a[3], b[3]) - max(a[1], b[1]) > slack:
                return True
    return False


def _in_ring(r, ring, slack=1):
    """Does rectangle ``r`` touch the annulus ``(cx, cy, r_in, r_out)``?"""
    cx, cy, r_in, r_out = ring
    x0, y0, x1, y1 = r[0] + slack, r[1] + slack, r[2] - slack, r[3] - slack
    nx, ny = min(max(cx, x0), x1), min(max(cy, y0), y1)
    near = math.hypot(nx - cx, ny - cy)
    far = max(math.hypot(px - cx, py - cy) for px in (x0, x1) for py in (y0, y1))
    return near <= r_out and far >= r_in


def play_until(hub, done, seed=1, limit=5000, clock=None, bot="random"):
    """The game's own bots answer the seats' prompts (and its table bot the table's; a clock
    runs out timers) until ``done(public_view)``. Returns that view."""
    import random
    rng = random.Random(seed)
    for _ in range(limit):
        v = hub.public_view()
        if done(v):
            return v
        bot_step(hub, rng, clock, bot, v)
    raise AssertionError("the state was never reached")


def bot_step(hub, rng, clock=None, bot="random", view=None):
    """One command from whoever the game waits for: the table bot (or the table's Next) at a
    table prompt, else the lowest seat asked (the game's ``bot``, or its random bot), else
    the clock runs to the next timer's end."""
    s = hub.session
    g, st = s.game, s.state
    if None in st.prompts:
        tb = getattr(g, "table_bot", None)
        p = st.prompts[None]
        move, args = tb(g, g.observe(st, None), rng) if tb else (p.get("next") or p["moves"][0],
                                                    p.get("next_args") or {})
        hub.table_move(move, args)
        return
    seats = sorted(x for x in st.prompts if x is not None)
    if not seats:
        v = view or hub.public_view()
        assert clock is not None and v["timers"], "nobody to act and no timer"
        clock.advance(max(t["left"] for t in v["timers"].values()) + 0.01)
        s.tick()
        return
    bots = g.bots
    move, args = bots.get(bot, bots["random"])(g, g.observe(st, seats[0]), rng)
    hub.submit(seats[0], move, args)
