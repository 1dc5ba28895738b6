"""Trade Warz / Tariff Warz screens: the CMYK Upkeep steps and the Disputes; the manual-effect
dialog (the table enters what a card's hand-resolved effect did).

Colour is never alone: every step shows its letter and name (Canary, Mint, Yeti, Kraken) and
what it resolves; the ring and fill colours follow the rulebook (see ui.theme.UPKEEP).
"""
from kivy.properties import (BooleanProperty, ColorProperty, DictProperty, ObjectProperty,
                             StringProperty)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.widget import Widget

from ui import model, theme
from ui.adapters.trade_warz import card_name, card_names
from ui.screens.base import ViewScreen
from ui.widgets.common import TButton, TLabel, fill
from ui.widgets.dialogs import Dialog

STATE_WORDS = {"done": "\u2713 done", "current": "now", "pending": "next",
               "empty": "nothing to do"}


class StepBadge(Widget):
    """A CMYK step: the fill colour inside its ring colour, the letter on top."""
    letter = StringProperty("")
    ring = ColorProperty(theme.MUTED)
    fill = ColorProperty(theme.PANEL_HI)
    lit = BooleanProperty(False)


class StepColumn(BoxLayout):
    letter = StringProperty("")
    name = StringProperty("")
    scope = StringProperty("")
    state = StringProperty("")
    ring = ColorProperty(theme.MUTED)
    fill = ColorProperty(theme.PANEL_HI)


class EffectLine(TLabel):
    """One effect under its CMYK step (layout in tw_upkeep.kv)."""


class UpkeepScreen(ViewScreen):
    headline = StringProperty("")
    prompt = StringProperty("")
    confirm_text = StringProperty("")
    can_confirm = BooleanProperty(False)
    manual = BooleanProperty(False)

    def update(self, view):
        gv = view.get("game_view") or {}
        up = gv.get("upkeep") or {}
        steps = up.get("steps") or [{"letter": k, "name": v["name"], "resolves": v["scope"],
                                     "effects": [], "state": "empty"}
                                    for k, v in theme.UPKEEP.items()]
        app = self.app
        u = app.u
        box = self.ids.steps
        if not box.children:                        # four columns with arrows between
            for i in range(4):
                box.add_widget(StepColumn())
                if i < 3:
                    box.add_widget(TLabel(text="\u2192", font_name=theme.FONT_SYM,
                                          halign="center", fs=20, size_hint_x=None,
                                          width=u * 14, color=theme.MUTED))
        columns = [w for w in reversed(box.children) if isinstance(w, StepColumn)]
        for col, st in zip(columns, steps):
            look = theme.UPKEEP.get(st["letter"], {})
            col.letter, col.name = st["letter"], st["name"]
            col.scope, col.state = st.get("resolves", ""), st.get("state", "")
            col.ring = look.get("ring", theme.MUTED)
            col.fill = look.get("fill", theme.PANEL_HI)
            shown = st.get("effects") or []
            lines = []
            for e in shown[:3]:
                owner = e.get("owner")
                who = app.adapter.seat_label(view, owner) if owner is not None else "Table"
                lines.append(f"[b]{_esc(e['name'])}[/b] \u00b7 {_esc(who)}"
                             + ("  [color=#ffb020]by hand[/color]" if e.get("manual")
                                else ""))
            if len(shown) > 3:
                lines.append(f"+{len(shown) - 3} more")
            if not shown:
                lines.append("No effects this round.")

            def put(lab, text):
                lab.text = text
            fill(col.ids.effects, lines, EffectLine, put)
        cur = up.get("current")
        self.headline = f"Upkeep \u00b7 {app.adapter.round_text(view)}"
        tp = view.get("table_prompt") or {}
        step = tp.get("step")
        self.manual = step == "manual"
        self.can_confirm = step in ("step", "manual")
        look = theme.UPKEEP.get(cur or "", {})
        if step == "step":
            self.prompt = f"Resolve the {cur} {look.get('name', '')} step ({look.get('scope')}) " \
                          f"at the table, then confirm."
            self.confirm_text = f"Confirm {cur} \u00b7 {look.get('name', '')}"
        elif step == "manual":
            self.prompt = f"By hand: {tp.get('text', '')}"
            self.confirm_text = "Done, no change"
        elif view.get("phase") == "upkeep":
            self.prompt = model.waiting_text(view) or "Upkeep resolves by itself."
            self.confirm_text = ""
        else:
            done = [st for st in steps if st.get("state") == "done"]
            self.prompt = f"Upkeep is over for this round ({len(done)} steps resolved)."
            self.confirm_text = ""

    def confirm(self):
        app = self.app
        app.command(app.hub.next)

    def adjust(self):
        ManualDialog(app=self.app).open()


def _esc(text):
    from kivy.utils import escape_markup
    return escape_markup(str(text))


# -- disputes --------------------------------------------------------------------------------------
class TWOrderChip(BoxLayout):
    name = StringProperty("")
    detail = StringProperty("")
    colour = ColorProperty(theme.MUTED)
    lit = BooleanProperty(False)


class ContestCard(BoxLayout):
    title = StringProperty("")
    state = StringProperty("")
    note = StringProperty("")
    lit = BooleanProperty(False)
    bad = BooleanProperty(False)


class ContestRow(BoxLayout):
    """One contestant: who, the Export, the bid lock or the power sum (layout in .kv)."""
    who = StringProperty("")
    card = StringProperty("")
    text = StringProperty("")
    colour = ColorProperty(theme.MUTED)


class DisputesScreen(ViewScreen):
    headline = StringProperty("")
    info = StringProperty("")
    checked = DictProperty({})          # "session:window" -> "ok" / "mismatch" (remembered)

    def update(self, view):
        gv = view.get("game_view") or {}
        app = self.app
        disp = gv.get("disputes") or {}
        order = disp.get("order") or []
        gdp = gv.get("gdp") or []
        names = card_names(gv)
        chooser = disp.get("chooser")

        def chip(c, s):
            c.name = view["players"][s]
            c.detail = f"{gdp[s] if s < len(gdp) else '?'} GDP" + \
                (" \u00b7 chooses" if s == chooser else "")
            c.colour, c.lit = theme.seat_colour(s), s == chooser
        fill(self.ids.order, order, TWOrderChip, chip)
        contests = disp.get("contests") or []
        self.headline = f"Disputes \u00b7 poorest first \u00b7 {len(contests)} contested" \
            if contests else "Disputes \u00b7 poorest first"
        fill(self.ids.contests, contests, ContestCard,
             lambda card, c: self._contest(card, view, c, names))
        self.ids.none.opacity = 0 if contests else 1
        waiting = view.get("waiting") or []
        if chooser is not None:
            self.info = f"{app.adapter.seat_label(view, chooser)} chooses which dispute to " \
                        f"settle next (on the phone)."
        elif disp.get("current") is not None and waiting:
            self.info = f"Blind bids: waiting for {model.names(view, waiting)}. Bid GDP on " \
                        f"your phone; nobody sees a bid until all are in."
        else:
            self.info = model.waiting_text(view) or ""

    def _window(self, view, c):
        wid = f"bid-r{view.get('round')}-{c['id']}"
        return model.find_window(view, wid), wid

    def _contest(self, card, view, c, names):
        app = self.app
        u = app.u
        state = c.get("state")
        card.title = f"{c['partner_name']} \u00b7 slot {c['slot']}"
        card.state = {"open": "contested", "bidding": "bidding",
                      "done": "settled"}.get(state, state or "")
        card.lit = state == "bidding"
        w, wid = self._window(view, c)
        locks = {x.seat: x for x in model.window_locks(view, w)} if w else {}
        key = f"{view.get('session')}:{wid}"
        if w is not None and w.get("revealed"):
            bad = any(x.state == "mismatch" for x in locks.values())
            self.checked[key] = "mismatch" if bad else "ok"

        def row(r, s):
            r.who = app.adapter.seat_label(view, s)
            r.card = card_name(names, (c.get("cards") or {}).get(str(s)))
            if state == "done":
                p = (c.get("parts") or {}).get(str(s)) or {}
                total = (c.get("power") or {}).get(str(s))
                text = f"{p.get('printed', 0)} + {p.get('influence', 0)} + " \
                       f"{p.get('effects', 0)} + bid {p.get('bid', 0)} = {total}"
                win = c.get("winner") == s
                r.text = text + ("  wins" if win else "")
                r.colour = theme.OK if win else theme.MUTED
            elif state == "bidding":
                lock = locks.get(s)
                done = lock is not None and lock.state == "locked"
                r.text = "\u2713 bid locked" if done else "bidding\u2026"
                r.colour = theme.OK if done else theme.MUTED
            else:
                r.text, r.colour = "", theme.MUTED
        seats = c.get("seats") or []
        fill(card.ids.rows, seats, ContestRow, row)
        note = ""
        card.bad = False
        if state == "done":
            verdict = self.checked.get(key)
            parts = ["power = printed + influence + effects + bid"]
            if c.get("tiebreak"):
                parts.append(f"tie: {c['tiebreak']}")
            if verdict == "ok":
                parts.append("\u2713 bids match their commitments")
            elif verdict == "mismatch":
                parts.append("\u26a0 a bid does NOT match its commitment")
                card.bad = True
            note = "  \u00b7  ".join(parts)
        card.note = note
        card.height = u * (40 + 28 * len(seats) + (22 if note else 0))


# -- a manual effect, entered by the table ---------------------------------------------------------
class ManualDialog(Dialog):
    """What a hand-resolved effect did: a GDP change per player (and, in a dispute, a power
    change). Confirm sends it as the table's ``confirm_manual``."""
    app = ObjectProperty(None)
    text = StringProperty("")

    def on_open(self):
        tp = self.app.view.get("table_prompt") or {}
        self.prompt = tp
        self.text = tp.get("text") or tp.get("name") or ""
        self.changes = {}
        self.power = {}
        targets = tp.get("targets") or list(range(len(self.app.view.get("players") or [])))
        self.targets = [t for t in targets if isinstance(t, int)]
        self._build()

    def _build(self):
        box = self.ids.rows
        box.clear_widgets()
        u = self.app.u
        dispute = "dispute" in self.prompt
        for s in self.targets:
            row = BoxLayout(spacing=u * 6, size_hint_y=None, height=u * 42)
            row.add_widget(TLabel(text=self.app.adapter.seat_label(self.app.view, s),
                                  font_name=theme.FONT_BOLD, shorten=True, shorten_ok=True,
                                  shorten_from="right"))
            for kind, store in (("GDP", self.changes),) + ((("power", self.power),)
                                                            if dispute else ()):
                for step in (-1, 1):
                    b = TButton(text=f"{step:+d}", size_hint_x=None, width=u * 52)
                    b.bind(on_release=lambda _b, s=s, st=step, d=store: self._step(d, s, st))
                    if step == 1:
                        row.add_widget(TLabel(text=f"{kind} {store.get(s, 0):+d}",
                                              halign="center", size_hint_x=None,
                                              width=u * 96))
                    row.add_widget(b)
            box.add_widget(row)
        self.ids.ok.text = "Confirm" if (self.changes or self.power) else "Confirm, no change"

    def _step(self, store, seat, by):
        v = store.get(seat, 0) + by
        if v:
            store[seat] = v
        else:
            store.pop(seat, None)
        self._build()

    def confirm(self):
        args = {}
        if self.changes:
            args["gdp"] = {str(s): v for s, v in self.changes.items()}
        if self.power:
            args["power"] = {str(s): v for s, v in self.power.items()}
        app = self.app
        app.command(app.hub.table_move, "confirm_manual", args)
        self.dismiss()


def _load_dialog_kv():
    from ui.app import KV, load_kv
    load_kv(KV / "tw_manual.kv")


_load_dialog_kv()
