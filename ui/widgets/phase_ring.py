"""The phase ring: one arc per phase in play order, the current one lit, past ones filled,
labels around the ring (the name is always written: the colour is only a second cue).

With many or long phase names the ring is ``compact``: numbers around it, and the screen shows
the names in a numbered legend beside it."""
import math

from kivy.app import App
from kivy.graphics import Color, Ellipse, Line
from kivy.properties import BooleanProperty, ListProperty, NumericProperty
from kivy.uix.floatlayout import FloatLayout

from ui import theme
from ui.widgets.common import TLabel


class PhaseRing(FloatLayout):
    phases = ListProperty([])        # [label, ...] in order
    current = NumericProperty(-1)    # index of the current phase
    thickness = NumericProperty(0.13)  # ring width as a share of the radius
    compact = BooleanProperty(False)   # numbers around the ring, names in a legend
    inner = NumericProperty(40)        # the free radius inside the ring (for the centre text)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._labels = []
        self._ring = None
        self.bind(pos=self._redraw, size=self._redraw, phases=self._relabel,
                  current=self._redraw)

    def _redraw_later(self, *_):
        from kivy.clock import Clock
        Clock.schedule_once(self._redraw, 0)

    def _relabel(self, *_):
        for lab in self._labels:
            self.remove_widget(lab)
        self._labels = []
        self.compact = len(self.phases) > 10 or max([len(t) for t in self.phases] + [0]) > 13
        for i, text in enumerate(self.phases):
            lab = TLabel(text=str(i + 1) if self.compact else text, halign="center",
                         size_hint=(None, None))
            lab.bind(texture_size=self._redraw_later)
            self._labels.append(lab)
            self.add_widget(lab)
        self._redraw()

    def geometry(self):
        """Centre and radius: as big as the ring can be with its labels still inside."""
        u = App.get_running_app().u
        widest = max([lab.texture_size[0] for lab in self._labels] + [u * 60])
        tall = max([lab.texture_size[1] for lab in self._labels] + [u * 24])
        r = min(self.width / 2 - widest - u * 16, self.height / 2 - tall - u * 16)
        return self.center_x, self.center_y, max(u * 30, r)

    def keep_out(self):
        """The ring's band in window coordinates, ``(cx, cy, r_in, r_out)``: no text may
        cross it (tests/ui/harness.py checks every label against it)."""
        if self._ring is None:
            return None
        cx, cy, r_in, r_out = self._ring
        x, y = self.to_window(cx, cy)
        return x, y, r_in, r_out

    def _redraw(self, *_):
        self.canvas.before.clear()
        n = len(self.phases)
        if not n:
            return
        u = App.get_running_app().u
        for i, lab in enumerate(self._labels):
            lit = i == self.current
            lab.font_size = u * (20 if lit else 18)
            lab.font_name = theme.FONT_BOLD if lit else theme.FONT
            lab.color = theme.TEXT if lit else theme.MUTED
            lab.text_size = (None, None)
            lab.texture_update()
            lab.size = lab.texture_size
        cx, cy, r = self.geometry()
        width = max(2.0, r * self.thickness)
        self.inner = max(u * 20, r - width)
        half = width * 1.35 / 2 + 1
        self._ring = (cx, cy, r - half, r + half)
        seg = 360.0 / n
        gap = min(4.0, seg * 0.08)
        with self.canvas.before:
            for i in range(n):
                a0, a1 = i * seg + gap, (i + 1) * seg - gap
                if i == self.current:
                    Color(*theme.ACCENT)
                    w = width * 1.35
                elif 0 <= self.current and i < self.current:
                    Color(*theme.ACCENT_DIM)
                    w = width
                else:
                    Color(*theme.LINE)
                    w = width
                Line(circle=(cx, cy, r, a0, a1), width=w / 2, cap="none")
            if 0 <= self.current < n:
                # a marker dot at the lit segment's middle
                mid = math.radians((self.current + 0.5) * seg)
                mx, my = cx + r * math.sin(mid), cy + r * math.cos(mid)
                Color(*theme.WHITE)
                d = width * 0.55
                Ellipse(pos=(mx - d / 2, my - d / 2), size=(d, d))
        clear = self._ring[3] + u * 4           # labels keep this far from the centre
        for i, lab in enumerate(self._labels):
            mid = math.radians((i + 0.5) * seg)
            sx, cy_ = math.sin(mid), math.cos(mid)
            label_r = r + width * 0.7 + u * 4
            for _ in range(40):                 # out along the label's direction until clear
                self._place(lab, cx + label_r * sx, cy + label_r * cy_, sx, cy_)
                if _nearest(lab, cx, cy) >= clear:
                    break
                label_r += u * 2

    @staticmethod
    def _place(lab, ax, ay, sx, cy_):
        # hug the ring: labels on the right start at it, on the left end at it
        if sx > 0.3:
            lab.x = ax
        elif sx < -0.3:
            lab.right = ax
        else:
            lab.center_x = ax
        if cy_ > 0.85:
            lab.y = ay
        elif cy_ < -0.85:
            lab.top = ay
        else:
            lab.center_y = ay


def _nearest(lab, cx, cy) -> float:
    """The distance from (cx, cy) to the nearest point of the label's box."""
    nx = min(max(cx, lab.x), lab.right)
    ny = min(max(cy, lab.y), lab.top)
    return math.hypot(nx - cx, ny - cy)
