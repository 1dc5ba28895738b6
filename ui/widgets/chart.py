"""A score chart: one line per player over the rounds, the live value as an open ring, an
optional target line (e.g. 50 GDP wins) and each line named at its end (colour is never the
only cue)."""
from kivy.app import App
from kivy.clock import Clock
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.properties import ObjectProperty
from kivy.uix.widget import Widget

from ui import theme


def nice_step(span: float, ticks: int = 6) -> int:
    """A round step that puts at most ``ticks`` steps over ``span``."""
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000):
        if span / step <= ticks:
            return step
    return 2000


def _text(text, size, colour, bold=False):
    lab = CoreLabel(text=text, font_size=size, color=colour,
                    font_name=theme.FONT_BOLD if bold else theme.FONT)
    lab.refresh()
    return lab.texture


def short(name: str, n: int = 8) -> str:
    """A name at a line's end: its first word, at most ``n`` letters."""
    return (name.split() or [""])[0][:n]


class _Drawn(Widget):
    """A widget that draws its texts on the canvas; ``text_px`` keeps their sizes (the
    legibility check reads it: nothing under 18 px at 800x480)."""
    data = ObjectProperty(None, allownone=True)      # ui.adapters.ScoreData

    def __init__(self, **kw):
        super().__init__(**kw)
        self.text_px = []
        self.text_rects = []
        self._later = Clock.create_trigger(self.redraw, 0)    # once, after the layout
        self.bind(pos=self._later, size=self._later, data=self._later)

    def text(self, text, size, colour, bold=False):
        self.text_px.append(size)
        return _text(text, size, colour, bold)

    def put(self, tex, pos):
        """Draw a text texture at ``pos`` and remember where (``text_rects``, window
        coordinates, for the legibility check: canvas texts must not overlap either)."""
        Color(1, 1, 1, 1)
        Rectangle(texture=tex, size=tex.size, pos=pos)
        x, y = self.to_window(*pos)
        self.text_rects.append((x, y, x + tex.width, y + tex.height))


class ScoreChart(_Drawn):
    def redraw(self, *_):
        self.canvas.clear()
        self.text_px = []
        self.text_rects = []
        d = self.data
        if d is None or not d.series:
            return
        u = App.get_running_app().u
        values = [v for s in d.series for v in s.points] + \
            [s.now for s in d.series if s.now is not None]
        top = max(values + [1])
        if d.target:
            top = max(top, d.target[0] * 1.08)
        rounds = max([len(s.points) + (1 if s.now is not None else 0) for s in d.series] +
                     [d.rounds or 0, 1])
        left, bottom, right, topm = u * 44, u * 36, u * 112, u * 12
        x0, y0 = self.x + left, self.y + bottom
        w, h = self.width - left - right, self.height - bottom - topm
        if w <= 10 or h <= 10:
            return
        step = nice_step(top, max(1, int(h // (u * 28))))     # numbers 28 units apart
        ymax = ((int(top) // step) + 1) * step
        every = 1                                             # round numbers that fit
        while w / rounds * every < u * 26:
            every += 1

        def X(i):                       # i: 1-based round
            return x0 + (i - 0.5) / rounds * w

        def Y(v):
            return y0 + v / ymax * h

        small = u * 18
        with self.canvas:
            for v in range(0, ymax + 1, step):
                Color(*theme.with_alpha(theme.LINE, 0.6))
                Line(points=[x0, Y(v), x0 + w, Y(v)], width=1)
                tex = self.text(str(v), small, theme.MUTED)
                self.put(tex, (x0 - tex.width - u * 6, Y(v) - tex.height / 2))
            for i in range(1, rounds + 1, every):
                tex = self.text(str(i), small, theme.MUTED)
                self.put(tex, (X(i) - tex.width / 2, self.y + u * 4))
            if d.target:
                value, label = d.target
                Color(*theme.WARN)
                Line(points=[x0, Y(value), x0 + w, Y(value)], width=u * 1.6,
                     dash_length=u * 8, dash_offset=u * 5)
                tex = self.text(label, u * 18, theme.WARN, bold=True)
                self.put(tex, (x0 + u * 6, Y(value) + u * 3))
            ends = []
            for s in d.series:
                colour = theme.seat_colour(s.seat)
                pts = []
                for i, v in enumerate(s.points, start=1):
                    pts += [X(i), Y(v)]
                Color(*colour)
                if len(pts) >= 4:
                    Line(points=pts, width=u * 1.8, joint="round")
                r = u * 4
                for j in range(0, len(pts), 2):
                    Ellipse(pos=(pts[j] - r, pts[j + 1] - r), size=(2 * r, 2 * r))
                last = (pts[-2], pts[-1]) if pts else None
                if s.now is not None:
                    nx, ny = X(len(s.points) + 1), Y(s.now)
                    if last:
                        Line(points=[last[0], last[1], nx, ny], width=u * 1.2,
                             dash_length=u * 4, dash_offset=u * 4)
                    Line(circle=(nx, ny, r * 1.3), width=u * 1.6)
                    last = (nx, ny)
                if last:
                    ends.append([last[1], s, colour])
            # names at the right edge, nudged apart so they never overlap
            ends.sort(key=lambda e: e[0])
            gap = u * 22
            for i in range(1, len(ends)):
                if ends[i][0] - ends[i - 1][0] < gap:
                    ends[i][0] = ends[i - 1][0] + gap
            # the top of the chart holds them: names pushed past it move the stack down
            # (clamping each one to the top piled them on one line when the leaders' scores
            # were close: two names drawn over each other)
            for i in range(len(ends) - 1, -1, -1):
                ceiling = y0 + h if i == len(ends) - 1 else ends[i + 1][0] - gap
                ends[i][0] = min(ends[i][0], ceiling)
            for y, s, colour in ends:
                value = s.now if s.now is not None else (s.points[-1] if s.points else 0)
                tex = self.text(f"{short(s.short or s.name)} {value}", u * 18, colour,
                                bold=True)
                self.put(tex, (x0 + w + u * 6, y - tex.height / 2))


class ScoreTrack(_Drawn):
    """The score track as on the board: a line from 0 past the target (e.g. 50 GDP), the
    target marked, and every player's marker: their seat number on their colour (the same
    number as on the standings beside it; colour is never the only cue). Markers too close to
    share the line stack upwards."""

    def redraw(self, *_):
        self.canvas.clear()
        self.text_px = []
        self.text_rects = []
        d = self.data
        if d is None or not d.target or not d.series:
            return
        u = App.get_running_app().u
        target = d.target[0]
        vals = [(s, s.now if s.now is not None else (s.points[-1] if s.points else 0))
                for s in d.series]
        top = max([v for _, v in vals] + [target]) * 1.06
        x0, x1 = self.x + u * 16, self.right - u * 16
        y = self.y + u * 34                      # the track; numbers below, markers on it
        r = u * 13

        def X(v):
            return x0 + (x1 - x0) * max(0, v) / top

        with self.canvas:
            Color(*theme.LINE)
            Rectangle(pos=(x0, y - u * 3), size=(x1 - x0, u * 6))
            Color(*theme.WARN)
            Rectangle(pos=(X(target) - u * 1.5, y - u * 10), size=(u * 3, u * 20))
            step = nice_step(top, max(1, int((x1 - x0) // (u * 40))))
            for v in range(0, int(top) + 1, step):
                tex = self.text(str(v), u * 18, theme.DIM)
                self.put(tex, (X(v) - tex.width / 2, y - r - u * 2 - tex.height))
            lanes = [None] * max(1, int((self.top - y - r) // (2 * r + u * 2)) + 1)
            for s, v in sorted(vals, key=lambda sv: sv[1]):
                colour = theme.seat_colour(s.seat)
                cx = X(v)
                free = [k for k in range(len(lanes))
                        if lanes[k] is None or lanes[k] < cx - 2 * r - u * 2]
                lane = free[0] if free else min(range(len(lanes)), key=lambda k: lanes[k])
                lanes[lane] = cx
                cy = y + lane * (2 * r + u * 2)
                Color(*colour)
                Ellipse(pos=(cx - r, cy - r), size=(2 * r, 2 * r))
                tex = self.text(str(s.seat + 1), u * 18, theme.text_on(colour), bold=True)
                self.put(tex, (cx - tex.width / 2, cy - tex.height / 2))
