"""The box's network on the touchscreen (issue 33, docs/network.md): the Menu's Network dialog
and the two QR codes phones scan while the box runs its own Wi-Fi.

* :class:`NetworkDialog`: what the box is on (one line, ``Network.said``), the box's own Wi-Fi
  (its name and password, *Use the box's own Wi-Fi*, *New password*), the Wi-Fi country, the
  sharing switch, and the Wi-Fi networks in reach (*Find Wi-Fi networks*: signal, a lock for
  the ones that ask a password, *known* and *connected*); a tap on one joins it, asking its
  password on :class:`PasswordKeyboard` when the box does not know it yet.
* :class:`OwnWifiPair`: the Wi-Fi QR beside the join QR, with the network's name and password
  as text and the order to scan them (the lobby and the Join dialog show it while the own
  Wi-Fi is up).

The network (``companion.net.wifi.Network``) answers from its own threads: every answer (a
change, an action done, a scan) hops to the screen's thread (``Clock.schedule_once``) before it
touches a widget. Its actions run one at a time off the screen's thread (``Network.submit``);
a scan runs on a thread of its own here (``backend.scan()`` may take ten seconds).
"""
import threading
import weakref

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import (BooleanProperty, ListProperty, NumericProperty, ObjectProperty,
                             StringProperty)
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.widget import Widget

from ui import theme
from ui.widgets.common import TButton
from ui.widgets.dialogs import ConfirmDialog, Dialog
from ui.widgets.keyboards import NameKeyboard
from ui.widgets.qr import QRCode  # noqa: F401  (used by network.kv)

#: The countries the Menu offers (``companion.net.wifi.manager.COUNTRIES``), named.
COUNTRY_NAMES = {
    "GB": "United Kingdom", "US": "United States", "DE": "Germany", "FR": "France",
    "NL": "Netherlands", "BE": "Belgium", "ES": "Spain", "IT": "Italy", "IE": "Ireland",
    "SE": "Sweden", "NO": "Norway", "DK": "Denmark", "FI": "Finland", "PL": "Poland",
    "CH": "Switzerland", "AT": "Austria", "PT": "Portugal", "CA": "Canada",
    "AU": "Australia", "NZ": "New Zealand", "JP": "Japan"}
NO_COUNTRY = "A Raspberry Pi's Wi-Fi stays off until its country is set."
SCAN_STOPS_OWN = "Looking stops the box's own Wi-Fi for about ten seconds."
PASSWORD_MIN, PASSWORD_MAX = 8, 63          # WPA2's passphrase


def _load_kv():
    from ui.kvload import KV, load_kv
    load_kv(KV / "menu.kv")              # the keyboards' and ConfirmDialog's rules
    load_kv(KV / "network.kv")


def on_screen_thread(fn):
    """``fn`` called on the screen's (Kivy's) thread, whichever thread calls the result."""
    def hop(*args):
        Clock.schedule_once(lambda _dt: fn(*args))
    return hop


def country_text(code) -> str:
    """The country row's words.

    >>> country_text("GB"), country_text(None), country_text("LU")
    ('Wi-Fi country: GB (United Kingdom)', 'Wi-Fi country: not set', 'Wi-Fi country: LU')
    """
    if not code:
        return "Wi-Fi country: not set"
    name = COUNTRY_NAMES.get(code)
    return f"Wi-Fi country: {code} ({name})" if name else f"Wi-Fi country: {code}"


def network_rows(seen, status) -> list:
    """The networks the dialog lists, as dicts (``ssid``, ``signal`` or None, ``secure``,
    ``known``, ``active``): those the last scan found (``seen``, strongest first), their
    *known* and *connected* marks from the box's status now, then the known ones the scan did
    not find (joinable and forgettable without a scan).

    >>> from companion.net.wifi import WifiNetwork
    >>> st = {"kind": "wifi", "ssid": "Home", "known": ["Home", "Office"]}
    >>> [(r["ssid"], r["signal"], r["known"], r["active"]) for r in
    ...  network_rows([WifiNetwork("Cafe", 70, False), WifiNetwork("Home", 50)], st)]
    [('Cafe', 70, False, False), ('Home', 50, True, True), ('Office', None, True, False)]
    """
    known = set(status.get("known") or ())
    active = status.get("ssid") if status.get("kind") == "wifi" else None
    rows = [{"ssid": n.ssid, "signal": n.signal, "secure": n.secure,
             "known": n.ssid in known, "active": n.ssid == active, "looked": True}
            for n in seen or ()]
    found = {r["ssid"] for r in rows}
    for ssid in sorted(known - found):
        rows.append({"ssid": ssid, "signal": None, "secure": True, "known": True,
                     "active": ssid == active, "looked": seen is not None})
    return rows


def row_words(row) -> str:
    """The second line of a network's row.

    >>> row_words({"signal": 72, "secure": False, "known": False, "active": False})
    '72% · open'
    >>> row_words({"signal": 31, "secure": True, "known": True, "active": True})
    '31% · password · connected'
    >>> row_words({"signal": None, "secure": True, "known": True, "active": False, "looked": True})
    'out of reach · known'
    >>> row_words({"signal": None, "secure": True, "known": True, "active": False})
    'known'
    """
    words = []
    if row["signal"] is not None:
        words += [f"{row['signal']}%", "password" if row["secure"] else "open"]
    elif row.get("looked"):
        words.append("out of reach")
    if row["active"]:
        words.append("connected")
    elif row["known"]:
        words.append("known")
    return " \u00b7 ".join(words)


def bars(signal) -> int:
    """How many of four bars a signal (0 to 100, None: not seen) lights.

    >>> [bars(s) for s in (None, 0, 20, 31, 55, 72, 100)]
    [0, 1, 1, 2, 3, 3, 4]
    """
    if signal is None:
        return 0
    return max(1, min(4, (int(signal) + 24) // 25))


def _esc(text: str) -> str:
    return "".join({"&": "&amp;", "[": "&bl;", "]": "&br;"}.get(c, c) for c in text or "")


def status_markup(said: str, error: str = "") -> str:
    """The dialog's top line: what the box is on (bold), and the last failure after it.

    >>> status_markup("On the Wi-Fi Home (192.168.1.5).")
    '[b]On the Wi-Fi Home (192.168.1.5).[/b]'
    >>> status_markup("No network.", "Cafe [5G] did not take that password.")
    '[b]No network.[/b]  [color=#ffb020]Cafe &bl;5G&br; did not take that password.[/color]'
    """
    text = f"[b]{_esc(said)}[/b]"
    if error:
        text += f"  [color=#ffb020]{_esc(error)}[/color]"
    return text


class SignalBars(Widget):
    """Four bars, as many lit as the signal is strong (0 to 100; None: not in reach)."""
    signal = ObjectProperty(None, allownone=True)
    lit = NumericProperty(0)

    def on_signal(self, _w, value):
        self.lit = bars(value)


class LockMark(Widget):
    """A padlock drawn on the canvas (the fonts here have no lock sign): the network asks a
    password."""
    colour = ListProperty(theme.MUTED)


class NetworkRow(ButtonBehavior, BoxLayout):
    """A Wi-Fi network in reach: its signal, name, a lock when it asks a password, and what the
    box knows of it. Tap to join it."""
    ssid = StringProperty("")
    words = StringProperty("")
    signal = ObjectProperty(None, allownone=True)
    secure = BooleanProperty(True)
    known = BooleanProperty(False)
    active = BooleanProperty(False)
    tid = StringProperty("")


class NetworkDialog(Dialog):
    """The Menu's Network (see the module's docstring). It listens to the network while open
    and says what the box is doing in one line at its top (``said`` and, after a failure, the
    reason); the own Wi-Fi's password shown here is the one its QR carries (the lobby shows
    both while it is up)."""
    said = StringProperty("")
    error = StringProperty("")
    status_text = StringProperty("")         # said and error, as markup
    own_ssid = StringProperty("")
    own_password = StringProperty("")
    own_up = BooleanProperty(False)
    country = StringProperty("")
    country_words = StringProperty(country_text(None))
    share = BooleanProperty(False)
    busy = BooleanProperty(False)            # an action is running (one at a time)
    scanning = BooleanProperty(False)
    note = StringProperty("")                # above the list: what a look does or did
    result = StringProperty("")              # the last thing said there (kept until the next)

    NO_COUNTRY = NO_COUNTRY
    #: network -> the networks its last look found (a dialog opened again shows them)
    seen = weakref.WeakKeyDictionary()

    def _net(self):
        return App.get_running_app().network

    def on_open(self):
        self._shown = True
        self._unhook = self._net().on_change(on_screen_thread(lambda _n: self.refresh()))
        self.refresh()

    def on_dismiss(self):
        self._shown = False
        unhook, self._unhook = getattr(self, "_unhook", None), None
        if unhook is not None:
            unhook()

    # -- what it shows --------------------------------------------------------------------
    def refresh(self):
        st = self._net().status()
        self.said = st.get("said") or ""
        self.error = st.get("error") or ""
        self.status_text = status_markup(self.said, self.error)
        own = st.get("own") or {}
        self.own_ssid = own.get("ssid") or ""
        self.own_password = own.get("password") or ""
        self.own_up = bool(own.get("up"))
        self.country = st.get("country") or ""
        self.country_words = country_text(self.country)
        self.share = bool(st.get("share"))
        self.busy = bool(st.get("busy"))
        if not self.scanning:
            self.note = self.result or (SCAN_STOPS_OWN if self.own_up else "")
        self._list(st)

    def _list(self, st):
        rows = network_rows(self.seen.get(self._net()), st)
        key = (repr(rows), self.busy or self.scanning, App.get_running_app().u)
        if key == getattr(self, "_drawn", None):
            return                  # the same rows: a finger on one is not disturbed
        self._drawn = key
        box = self.ids.nets
        box.clear_widgets()
        for r in rows:
            line = BoxLayout(size_hint_y=None, height=App.get_running_app().u * 56,
                             spacing=App.get_running_app().u * 6)
            row = NetworkRow(ssid=r["ssid"], signal=r["signal"], secure=r["secure"],
                             known=r["known"], active=r["active"], words=row_words(r),
                             tid=f"network:ssid:{r['ssid']}")
            row.disabled = self.busy or self.scanning
            row.bind(on_release=lambda w: self.choose(w.ssid, w.secure, w.known, w.active))
            line.add_widget(row)
            if r["known"] and not r["active"]:
                forget = TButton(text="Forget", tone="ghost", fs=18, size_hint_x=None,
                                 width=App.get_running_app().u * 96,
                                 tid=f"network:forget:{r['ssid']}",
                                 disabled=self.busy or self.scanning)
                forget.bind(on_release=lambda _b, s=r["ssid"]: self.forget(s))
                line.add_widget(forget)
            box.add_widget(line)
        self.ids.empty.opacity = 0 if rows else 1

    # -- the actions ----------------------------------------------------------------------
    def _submit(self, action, *args, said=None):
        """Run a Network action off the screen's thread; its failure is said (the status line
        has it too); ``said``: what to say when it worked, once the dialog is closed."""
        def done(err):
            shown = getattr(self, "_shown", False)
            if not shown:                       # closed meanwhile: a toast says it
                if err or said:
                    App.get_running_app().show_toast(err or said)
            elif err and err != self._net().status().get("error"):
                self.result = err               # (the status line says the others)
            self.refresh()
        self.result = ""
        self._net().submit(action, *args, done=on_screen_thread(done))

    def use_own(self):
        self._submit("use_own", said=f"The box's own Wi-Fi {self.own_ssid} is up.")

    def new_password(self):
        ConfirmDialog(title=f"A new password for {self.own_ssid}?",
                      text="Phones on the box's Wi-Fi now lose it and must join again: "
                           "they scan the new Wi-Fi QR (the lobby and Join show it).",
                      go_text="New password", go_tid="confirm:new-password", tone="warn",
                      action=lambda: self._submit("renew_password")).open()

    def toggle_share(self):
        self._submit("set_share", not self.share)

    def choose_country(self):
        CountryDialog(chosen=self.country,
                      action=lambda code: self._submit("set_country", code)).open()

    def forget(self, ssid):
        self._submit("forget", ssid, said=f"The box forgot {ssid}.")

    def scan(self):
        if self.scanning or self.busy:
            return
        net = self._net()
        self.scanning = True
        self.result = ""
        self.note = ("Looking for Wi-Fi networks (about ten seconds): the box's own Wi-Fi "
                     "is off meanwhile." if self.own_up else
                     "Looking for Wi-Fi networks (about ten seconds)\u2026")
        self._list(net.status())
        hop = on_screen_thread(self._scanned)

        def run():
            try:
                hop(net.backend.scan(), None)
            except Exception as e:              # NetworkError, or anything: said
                hop(None, str(e) or f"The look for networks failed ({type(e).__name__}).")
        threading.Thread(target=run, name="tc-network-scan", daemon=True).start()

    def _scanned(self, nets, err):
        self.scanning = False
        if err is None:
            self.seen[self._net()] = list(nets)
        if err is not None:
            self.result = err
        elif not nets:
            self.result = "No Wi-Fi network in reach."
        else:
            self.result = (f"{len(nets)} Wi-Fi networks in reach: tap one to join it."
                           if len(nets) > 1 else "One Wi-Fi network in reach: tap it to join it.")
        self.refresh()

    def choose(self, ssid, secure, known, active):
        """A network's row was tapped: join it (its password first when the box does not
        know it), once asked."""
        if active:
            self.result = self.note = f"The box is on {ssid} now."
            return
        if secure and not known:
            PasswordDialog(ssid=ssid, own_ssid=self.own_ssid if self.own_up else "",
                           action=lambda pw: self.join(ssid, pw)).open()
            return
        why = "The box knows it: no password needed." if known else \
            "It is open: no password."
        ConfirmDialog(title=f"Join {ssid}?", text=f"{why} {leave_words(self, ssid)}",
                      go_text="Join", go_tid="network:join", tone="primary",
                      action=lambda: self.join(ssid, None)).open()

    def join(self, ssid, password):
        self._submit("join", ssid, password, said=f"The box is on {ssid} now.")


def leave_words(dlg, ssid) -> str:
    """What joining ``ssid`` does to the phones on the box's own Wi-Fi."""
    if dlg.own_up:
        return (f"Phones on {dlg.own_ssid} lose the table until they join {ssid} too and "
                "scan the table's QR again.")
    return "Phones reach the table on that network."


class CountryDialog(Dialog):
    """The Wi-Fi country: one button per country the Menu offers (``country:<code>``)."""
    chosen = StringProperty("")
    action = ObjectProperty(None)

    def on_open(self):
        from companion.net.wifi.manager import COUNTRIES
        grid = self.ids.grid
        grid.clear_widgets()
        for code in COUNTRIES:
            name = COUNTRY_NAMES.get(code, "")
            b = TButton(text=f"{code}  {name}" if name else code, fs=18, tid=f"country:{code}",
                        selected=code == self.chosen, shorten=True, shorten_ok=True)
            b.bind(on_release=lambda _b, c=code: self.pick(c))
            grid.add_widget(b)

    def pick(self, code):
        self.dismiss()
        if self.action is not None:
            self.action(code)


class PasswordKeyboard(NameKeyboard):
    """The keys of a Wi-Fi password: lower- and upper-case letters (Shift, for one letter),
    digits, and the common signs on a second page (``#+=``; ``abc`` back). Each key's ``tid``
    is ``key:`` and the sign it types now (``key:a``, after Shift ``key:A``); ``key:shift``,
    ``key:symbols`` / ``key:letters``, ``key:space``, ``key:back``."""
    LETTERS = ["1234567890", "qwertyuiop", "asdfghjkl-", "zxcvbnm_.@"]
    SIGNS = ["1234567890", "!@#$%^&*()", "-_=+[]{}\\|", ";:'\",.<>/?"]
    limit = NumericProperty(PASSWORD_MAX)
    page = StringProperty("letters")

    def __init__(self, **kw):
        kw.setdefault("shift", False)
        super().__init__(**kw)

    def build(self):
        u = App.get_running_app().u
        self.clear_widgets()
        self._keys = []
        rows = self.LETTERS if self.page == "letters" else self.SIGNS
        for row in rows:
            self.add_widget(self.key_row(row))
        last = BoxLayout(spacing=u * 5)
        self._shift = None
        if self.page == "letters":
            sh = TButton(text="Shift", fs=20, tid="key:shift", size_hint_x=1.6)
            sh.bind(on_release=lambda _b: self.toggle_shift())
            self._shift = sh
            last.add_widget(sh)
            page = TButton(text="#+=", fs=20, tid="key:symbols", size_hint_x=1.6)
        else:
            for ch in "~`":
                b = TButton(text=ch, fs=22, tid=f"key:{ch}")
                b.char = ch
                b.bind(on_release=lambda btn: self.type(btn.char))
                self._keys.append(b)
                last.add_widget(b)
            page = TButton(text="abc", fs=20, tid="key:letters", size_hint_x=1.2)
        page.bind(on_release=lambda _b: self.flip())
        last.add_widget(page)
        sp = TButton(text="Space", fs=20, tid="key:space", size_hint_x=4)
        sp.bind(on_release=lambda _b: self.type(" "))
        last.add_widget(sp)
        back = TButton(text="\u232b", fs=22, font_name=theme.FONT_SYM, tid="key:back",
                       size_hint_x=1.6)
        back.bind(on_release=lambda _b: self.back())
        last.add_widget(back)
        self.add_widget(last)
        self._case()

    def _char(self, ch):
        return ch.upper() if self.shift and ch.isalpha() else ch

    def _case(self):
        for b in self._keys:
            b.text = self._char(b.char)
            b.tid = f"key:{b.text}"
        if self._shift is not None:
            self._shift.selected = self.shift

    def flip(self):
        self.page = "signs" if self.page == "letters" else "letters"
        self.shift = False
        self.build()

    def type(self, ch):
        if len(self.text) >= self.limit:
            return
        self.text += self._char(ch)
        if self.shift:
            self.shift = False                  # Shift is for one letter, as on a phone
            self._case()

    def back(self):
        self.text = self.text[:-1]


class PasswordDialog(Dialog):
    """A Wi-Fi network's password, typed on :class:`PasswordKeyboard`; *Join* (``network:join``)
    once it is long enough for WPA2 (8 characters)."""
    ssid = StringProperty("")
    own_ssid = StringProperty("")            # the own Wi-Fi, when it is up (joining stops it)
    action = ObjectProperty(None)
    hint = StringProperty("")

    def on_open(self):
        kb = self.ids.kb
        kb.bind(text=self._typed)
        kb.text = ""
        self._typed(kb, "")

    def _typed(self, _kb, text):
        short = len(text) < PASSWORD_MIN
        self.ids.go.disabled = short
        self.hint = (f"The password of {self.ssid} ({PASSWORD_MIN} characters or more)."
                     if short else
                     f"Phones on {self.own_ssid} must join {self.ssid} too." if self.own_ssid
                     else f"Join {self.ssid} with this password.")

    def join(self):
        password = self.ids.kb.text
        if len(password) < PASSWORD_MIN:
            return
        self.dismiss()
        if self.action is not None:
            self.action(password)


class OwnWifiPair(BoxLayout):
    """The box's own Wi-Fi QR (``WIFI:T:WPA;S:...;P:...;;``) beside the table's join QR, the
    Wi-Fi's name and password as text under the first, the room code under the second, the
    join link under both, and the order to scan them above."""
    wifi_qr = StringProperty("")
    ssid = StringProperty("")
    password = StringProperty("")
    url = StringProperty("")
    room = StringProperty("")


def follow_network(fn):
    """Call ``fn()`` on the screen's thread whenever the table's network changes; the function
    that stops it (or None: no network of the table's)."""
    net = getattr(App.get_running_app(), "network", None)
    if net is None:
        return None
    return net.on_change(on_screen_thread(lambda _n: fn()))


def show_own_wifi(panel, url: str, room: str, off: bool = False) -> bool:
    """Put :class:`OwnWifiPair` in ``panel`` in place of what it shows (the join QR and its
    words) while the box runs its own Wi-Fi, and put them back after (a rule of theirs that
    reads ``self.parent`` must allow None while they wait); ``off``: phones cannot
    join now (no network, no broker): the panel says why, as before. Whether the pair is
    shown."""
    own = None if off else own_wifi(App.get_running_app())
    pair = getattr(panel, "_wifi_pair", None)
    if own:
        if pair is None:
            pair = OwnWifiPair()
            panel._wifi_kept = list(panel.children)      # put back when it goes down
            panel.clear_widgets()
            panel.add_widget(pair)
            panel._wifi_pair = pair
        pair.ssid, pair.password = own.get("ssid") or "", own.get("password") or ""
        pair.wifi_qr, pair.url, pair.room = own.get("qr") or "", url or "", room or ""
        return True
    if pair is not None:
        panel.remove_widget(pair)
        for w in reversed(panel._wifi_kept):
            panel.add_widget(w)
        panel._wifi_pair = panel._wifi_kept = None
    return False


def own_wifi(app) -> dict | None:
    """The own Wi-Fi's ``{ssid, password, qr}`` while it is up (phones join it first), or
    None (no network of the table's, or the box is on another network)."""
    net = getattr(app, "network", None)
    if net is None:
        return None
    own = net.status().get("own") or {}
    return own if own.get("up") else None


_load_kv()
