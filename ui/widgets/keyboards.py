"""The table's on-screen keyboards (the only things typed at the table): names, a club's
address (ui/widgets/menu.py) and a Wi-Fi password (ui/widgets/network.py). Their layout rules
are in ui/kv/menu.kv."""
from kivy.app import App
from kivy.properties import BooleanProperty, ListProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from ui import theme
from ui.widgets.common import TButton

NAME_MAX = 24


class NameKeyboard(BoxLayout):
    """An on-screen keyboard for names (the only thing typed at the table): letters, space,
    hyphen, apostrophe, Shift and backspace. ``text`` is what has been typed."""
    text = StringProperty("")
    shift = BooleanProperty(True)            # the first letter of a word is a capital
    rows = ListProperty(["QWERTYUIOP", "ASDFGHJKL'", "ZXCVBNM-"])
    back_row = 2                             # the row that ends in backspace
    shift_and_space = True                   # a bottom row with Shift and Space

    def __init__(self, **kw):
        super().__init__(**kw)
        self._keys = []
        self.build()

    def build(self):
        u = App.get_running_app().u
        self.clear_widgets()
        self._keys = []
        for i, row in enumerate(self.rows):
            line = self.key_row(row)
            if i == self.back_row:
                back = TButton(text="\u232b", fs=22, font_name=theme.FONT_SYM,
                               tid="key:back", size_hint_x=1.6)
                back.bind(on_release=lambda _b: self.back())
                line.add_widget(back)
            self.add_widget(line)
        self._shift = None
        if not self.shift_and_space:
            self._case()
            return
        last = BoxLayout(spacing=u * 5)
        sh = TButton(text="Shift", fs=20, tid="key:shift", size_hint_x=0.25)
        sh.bind(on_release=lambda _b: self.toggle_shift())
        self._shift = sh
        sp = TButton(text="Space", fs=20, tid="key:space")
        sp.bind(on_release=lambda _b: self.type(" "))
        last.add_widget(sh)
        last.add_widget(sp)
        self.add_widget(last)
        self._case()

    def key_row(self, row) -> BoxLayout:
        """A row of character keys (tid ``key:<char>``), each typing its character."""
        line = BoxLayout(spacing=App.get_running_app().u * 5)
        for ch in row:
            b = TButton(text=ch, fs=22, tid=f"key:{ch}")
            b.char = ch
            b.bind(on_release=lambda btn: self.type(btn.char))
            self._keys.append(b)
            line.add_widget(b)
        return line

    def _case(self):
        for b in self._keys:
            b.text = b.char.upper() if self.shift else b.char.lower()
        self._shift.selected = self.shift

    def toggle_shift(self):
        self.shift = not self.shift
        self._case()

    def type(self, ch):
        if len(self.text) >= NAME_MAX:
            return
        if ch == " " and (not self.text or self.text.endswith(" ")):
            return
        self.text += ch if ch == " " or not ch.isalpha() else \
            (ch.upper() if self.shift else ch.lower())
        self.shift = ch == " "
        self._case()

    def back(self):
        self.text = self.text[:-1]
        self.shift = not self.text or self.text.endswith(" ")
        self._case()


class AddressKeyboard(NameKeyboard):
    """The keys of a club's address (``club.local:8100/join/k3x9``): digits, lower-case
    letters and ``. : / -``; no Shift and no Space (an address has neither)."""
    rows = ListProperty(["1234567890", "qwertyuiop", "asdfghjkl:", "zxcvbnm./-"])
    limit = NumericProperty(80)
    back_row = 3
    shift_and_space = False

    def _case(self):
        for b in self._keys:
            b.text = b.char

    def type(self, ch):
        if ch != " " and len(self.text) < self.limit:
            self.text += ch
