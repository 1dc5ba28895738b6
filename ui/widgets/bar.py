"""A labelled bar (HP, stamina, points left): the number is always written on it."""
from kivy.properties import ColorProperty, NumericProperty, StringProperty
from kivy.uix.widget import Widget

from ui import theme


class Bar(Widget):
    value = NumericProperty(0)
    maximum = NumericProperty(1)
    colour = ColorProperty(theme.OK)
    text = StringProperty("")
