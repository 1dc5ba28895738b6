"""The phase ring: one arc per phase in play order, the current one lit, past ones filled,
labels around the ring (the name is always written: the colour is only a second cue)."""
import math

from kivy.app import App
from kivy.graphics import Color, Ellipse, Line
from kivy.properties import ListProperty, NumericProperty
from kivy.uix.floatlayout import FloatLayout

from ui import theme
from ui.widgets.common import TLabel


class PhaseRing(FloatLayout):
    phases = ListProperty([])        # [label, ...] in order
    current = NumericProperty(-1)    # index of the current phase
    thickness = NumericProperty(0.13)  # ring width as a share of the radius

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._labels = []
        self.bind(pos=self._redraw, size=self._redraw, phases=self._relabel,
                  current=self._redraw)

    def _relabel(self, *_):
        for lab in self._labels:
            self.remove_widget(lab)
        self._labels = []
        for text in self.phases:
            lab = TLabel(text=text, halign="center", size_hint=(None, None))
            self._labels.append(lab)
            self.add_widget(lab)
        self._redraw()

    def geometry(self):
        r = min(self.width, self.height) / 2 * 0.62
        return self.center_x, self.center_y, r

    def _redraw(self, *_):
        self.canvas.before.clear()
        n = len(self.phases)
        if not n:
            return
        u = App.get_running_app().u
        cx, cy, r = self.geometry()
        width = max(2.0, r * self.thickness)
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
        label_r = r + width * 0.7 + u * 22
        for i, lab in enumerate(self._labels):
            mid = math.radians((i + 0.5) * seg)
            lit = i == self.current
            lab.font_size = u * (19 if lit else 15)
            lab.font_name = theme.FONT_BOLD if lit else theme.FONT
            lab.color = theme.TEXT if lit else theme.MUTED
            lab.size = (u * 110, u * 26)
            lab.center = (cx + label_r * math.sin(mid) * 1.12, cy + label_r * math.cos(mid))
