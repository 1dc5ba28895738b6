"""Great Powers screens: the Powers board (the seven token types for 3-8 players, who has
locked a bid), the bid reveal in sequence, the action cards, the score phase and war sides.

Public choices (taking an action card, picking a war side, a score bonus) may be made by a tap
here as well as on the phone; sealed bids are only ever made on the phones.
"""
from kivy.clock import Clock
from kivy.properties import (BooleanProperty, ColorProperty, NumericProperty, ObjectProperty,
                             StringProperty)
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout

from companion.games.great_powers.data import TOKEN_NAMES, TOKENS, TRAITS
from ui import model, theme
from ui.adapters.great_powers import turn_recap
from ui.screens.base import ViewScreen
from ui.widgets.common import Chip, Dot, TButton, TLabel, TMuted, fill
from ui.widgets.dialogs import Dialog

ORD = {1: "1st", 2: "2nd", 3: "3rd"}
BONUS_WORDS = {
    "steal_colony": "may steal 1 Colony",
    "extra_bid": "1 extra bid next turn",
    "peek_event": "sees the next Event",
    "draw_three": "draw 3 Actions, resolve 1",
}


def ordinal(n: int) -> str:
    return ORD.get(n, f"{n}th")


def token_chip(token: str, **kw) -> Chip:
    short, _name, colour = theme.GP_TOKENS[token]
    border = theme.MUTED if token == "industry" else (0, 0, 0, 0)
    return Chip(text=short, bg=colour, border=border, **kw)


def gains_text(gain: dict) -> str:
    return ", ".join(f"+{n} {TOKEN_NAMES[t]}" for t, n in gain.items())


def seat_name(view, seat) -> str:
    players = view.get("players") or []
    return players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else "Nobody"


# -- the Powers board -----------------------------------------------------------------------------
def bid_status(view, seat) -> tuple:
    """(text, colour) for the board's last column."""
    gv = view.get("game_view") or {}
    phase = view.get("phase")
    if phase == "bid":
        w = model.open_window(view, "bids")
        if w is None or seat not in w.get("seats", []):
            return "no bids", theme.DIM
        if str(seat) in (w.get("locked") or {}):
            return "\u2713 locked", theme.OK
        slots = (gv.get("bid_slots") or [0] * (seat + 1))[seat]
        return f"choosing {slots}", theme.MUTED
    if phase == "action":
        taken = (gv.get("taken") or {})
        if str(seat) in taken:
            t = taken[str(seat)]
            if t is None:
                return "passed", theme.DIM
            return ("took a card" if t.get("resolved") else "discarded"), theme.MUTED
        if seat in (view.get("waiting") or []):
            return "choosing", theme.ACCENT
        return "waits", theme.DIM
    if seat in (view.get("waiting") or []):
        return "to choose", theme.ACCENT
    return "", theme.MUTED


class PowersScreen(ViewScreen):
    headline = StringProperty("")
    info = StringProperty("")
    can_close = BooleanProperty(False)

    def __init__(self, **kw):
        super().__init__(**kw)
        self._rows = []
        self._n = None

    def _build(self, n):
        u = self.app.u
        grid = self.ids.grid
        grid.clear_widgets()
        grid.cols = 2 + len(TOKENS)
        head = dict(size_hint_y=None, height=u * 32)
        grid.add_widget(TMuted(text="Player", size_hint_x=1, **head))
        for t in TOKENS:
            grid.add_widget(token_chip(t, size_hint_x=None, width=u * 50, fs=18,
                                       **head))
        grid.add_widget(TMuted(text="Bid", size_hint_x=None, width=u * 112,
                               halign="center", **head))
        self._rows = []
        for _s in range(n):
            name = PlayerCell()
            grid.add_widget(name)
            cells = []
            for _t in TOKENS:
                c = TokenCell(size_hint_x=None, width=u * 50)
                grid.add_widget(c)
                cells.append(c)
            st = StatusCell(size_hint_x=None, width=u * 112)
            grid.add_widget(st)
            self._rows.append((name, cells, st))
        self._n = n

    def update(self, view):
        gv = view.get("game_view") or {}
        players = view.get("players") or []
        n = len(players)
        if n != self._n:
            self._build(n)
        tokens = gv.get("tokens") or []
        blocked = gv.get("blocked") or [[] for _ in players]
        # the largest count of each token is bold, unless everyone has it
        tops = {}
        for t in TOKENS:
            vals = [tok[t] for tok in tokens]
            if vals and vals.count(max(vals)) < len(vals):
                tops[t] = max(vals)
        waiting = set(view.get("waiting") or [])
        for s, (name, cells, st) in enumerate(self._rows):
            name.name = players[s]
            name.colour = theme.seat_colour(s)
            name.leader = s == gv.get("baton")
            name.active = s in waiting
            for t, c in zip(TOKENS, cells):
                v = tokens[s][t] if s < len(tokens) else 0
                c.top = v == tops.get(t)
                c.blocked = t in blocked[s]
                c.value = str(v)
            st.text, st.color = bid_status(view, s)
        phase = view.get("phase")
        w = model.open_window(view, "bids")
        self.can_close = phase == "bid" and w is not None
        if phase == "bid" and w is not None:
            locked = len(w.get("locked") or {})
            self.headline = f"Bids: {locked} of {len(w['seats'])} locked in"
            self.info = "Choose your bid cards on your phone, first to last."
        elif phase == "bid":
            self.headline = "No bids this turn"
            self.info = ""
        else:
            self.headline = view.get("phase_label") or ""
            self.info = model.waiting_text(view)

    def close_bids(self):
        w = model.open_window(self.app.view, "bids")
        if w is not None:
            app = self.app
            app.command(app.hub.close_window, w["id"])


class PlayerCell(BoxLayout):
    name = StringProperty("")
    colour = ColorProperty(theme.MUTED)
    leader = BooleanProperty(False)
    active = BooleanProperty(False)


class TokenCell(TLabel):
    """A token count; bold when it is the most, a no-entry sign when the seat may not bid on
    it (layout in gp_powers.kv)."""
    value = StringProperty("")
    top = BooleanProperty(False)
    blocked = BooleanProperty(False)


class StatusCell(TLabel):
    pass


# -- the bid reveal, in sequence -----------------------------------------------------------------
class RevealScreen(ViewScreen):
    shown = NumericProperty(0)           # steps shown so far
    total = NumericProperty(0)
    headline = StringProperty("")
    detail = StringProperty("")
    check = StringProperty("")
    check_ok = BooleanProperty(True)

    def __init__(self, **kw):
        super().__init__(**kw)
        self._key = None
        self._ev = None
        self._steps = []
        self._view = {}

    def on_enter(self):
        self._start()

    def on_leave(self):
        self.stop()

    def stop(self):
        """No more steps by themselves (the screen is left, or the app closes)."""
        if self._ev is not None:
            self._ev.cancel()
            self._ev = None

    def _start(self):
        step = self.app.reveal_step
        if self._ev is None and self.shown < self.total and step:
            self._ev = Clock.schedule_interval(self._advance, step)

    def _advance(self, _dt=None):
        if self.shown < self.total:
            self.shown += 1
            self._draw()
        if self.shown >= self.total and self._ev is not None:
            self._ev.cancel()
            self._ev = None

    def show_all(self):
        self.shown = self.total
        self._draw()

    def update(self, view):
        gv = view.get("game_view") or {}
        key = (view.get("session"), gv.get("turn"))
        self._view = view
        self._steps = list(gv.get("results") or [])
        self.total = len(self._steps)
        if key != self._key:
            self._key = key
            self.shown = 1 if self._steps else 0
            self._build_columns()
        self._check(view)
        self._draw()
        if self.manager is not None and self.manager.current == self.name:
            self._start()

    def _build_columns(self):
        box = self.ids.columns
        if not getattr(self, "_bound", False):       # the chips' lines follow the room
            self._bound = True
            box.bind(height=lambda *_: self._draw() if self._view else None)
        box.clear_widgets()
        self._cols = {}
        u = self.app.u
        for t in TRAITS:
            col = BoxLayout(orientation="vertical", spacing=u * 4)
            col.add_widget(token_chip(t, size_hint_y=None, height=u * 32, fs=18))
            stack = BoxLayout(orientation="vertical", spacing=u * 2)
            col.add_widget(stack)
            box.add_widget(col)
            self._cols[t] = stack

    def _draw(self):
        view = self._view
        steps = self._steps[:self.shown]
        per_col = {}
        for st in steps:
            per_col.setdefault(st["trait"], []).append(st)
        # every column has the same number of equal slots, filled from the top; a chip is two
        # lines (name, change) while two lines of 18 px fit in its slot, else one line
        slots = max([len(v) for v in per_col.values()] + [5])
        u = self.app.u
        room = self.ids.columns.height - u * (32 + 4) - u * 2 * (slots - 1)
        compact = room / slots < u * CHIP_TWO_LINES

        def chip(c, st):
            c.opacity = 0 if st is None else 1
            c.compact = compact
            if st is not None:
                name = seat_name(view, st["seat"])
                c.name = short_name(name) if compact else name
                c.colour = theme.seat_colour(st["seat"])
                c.change = step_change(st, short=compact)
                c.latest = st is steps[-1]
        for t in TRAITS:
            items = per_col.get(t, [])
            fill(self._cols[t], items + [None] * (slots - len(items)), BidChip, chip)
        if steps:
            st = steps[-1]
            bids = max((s["bid"] for s in self._steps), default=1)
            self.headline = (f"{ordinal(st['bid'])} bids of {bids}  ·  "
                             f"{seat_name(view, st['seat'])} bids on "
                             f"{TOKEN_NAMES[st['trait']]}")
            self.detail = step_sentence(st)
        else:
            self.headline = "Nobody bid this turn."
            self.detail = ""
        self.ids.progress.text = f"{self.shown} of {self.total}"

    def _check(self, view):
        ws = [w for w in view.get("windows") or [] if w.get("kind") == "bids" and
              w.get("revealed")]
        if not ws:
            self.check, self.check_ok = "", True
            return
        locks = model.window_locks(view, ws[-1])
        bad = [x.name for x in locks if x.state == "mismatch"]
        missed = [x.name for x in locks if x.state == "defaulted"]
        ok = [x for x in locks if x.state == "revealed"]
        if bad:
            self.check = (f"\u26a0 {', '.join(bad)}: the revealed bid does NOT match the "
                          f"commitment made at lock-in!")
            self.check_ok = False
            return
        self.check_ok = True
        text = f"\u2713 {len(ok)} sealed bid{'s' if len(ok) != 1 else ''} match " \
               f"{'their commitments' if len(ok) != 1 else 'its commitment'}."
        if missed:
            text += f" No bid from {', '.join(missed)} (closed by the table)."
        self.check = text

    def done(self):
        v = self._view
        self.app.ack(("reveal", v.get("session"), (v.get("game_view") or {}).get("turn")))


CHIP_TWO_LINES = 48        # units a bid chip needs for its two lines (18 px each, padding)


def step_change(st, short=False) -> str:
    out = f"{st['change']:+d}" if st["change"] else "\u00b10"
    lost = st.get("lost")
    if lost and lost.get("count") and not short:
        out += f"  \u2212{lost['count']} {theme.GP_TOKENS[lost['token']][0]}"
    return out


def step_sentence(st) -> str:
    trait = TOKEN_NAMES[st["trait"]]
    nth = ordinal(st["nth"])
    if st["change"] > 0:
        s = f"{nth} bid on {trait} this turn: gains {st['change']} {trait}."
    elif st["change"] < 0:
        s = f"{nth} bid on {trait} this turn: loses {-st['change']} {trait}."
    else:
        s = f"{nth} bid on {trait} this turn: misses the boat, nothing."
    lost = st.get("lost")
    if lost:
        why = lost.get("why") or ""
        s += f" Loses {lost['count']} {TOKEN_NAMES[lost['token']]}" + \
             (f" ({why})." if why else ".")
    return s


def short_name(name: str) -> str:
    """A name in a crowded reveal column: its first word, at most six letters."""
    return (name.split() or [""])[0][:6]


class BidChip(BoxLayout):
    compact = BooleanProperty(False)     # one line: a short name and the change
    name = StringProperty("")
    change = StringProperty("")
    colour = ColorProperty(theme.MUTED)
    latest = BooleanProperty(False)


# -- the action phase ------------------------------------------------------------------------------
class CardTile(ButtonBehavior, BoxLayout):
    tid = StringProperty("")
    card = ObjectProperty(None)
    title = StringProperty("")
    text = StringProperty("")
    target = BooleanProperty(False)
    live = BooleanProperty(False)


class ActionScreen(ViewScreen):
    headline = StringProperty("")
    info = StringProperty("")
    chooser = NumericProperty(-1)          # the seat choosing now, -1 if none

    def update(self, view):
        gv = view.get("game_view") or {}
        phase = view.get("phase")
        waiting = view.get("waiting") or []
        self.chooser = waiting[0] if phase == "action" and waiting else -1
        cards = gv.get("face_up") or []
        grid = self.ids.cards
        grid.cols = 3 if len(cards) > 4 else 2
        live = self.chooser >= 0

        def tile(t, c):
            t.card, t.title, t.text, t.target, t.live = c, c["name"], c["text"], c["target"], live
            t.tid = f"gp:card:{c['id']}"
        fill(grid, cards, self._tile, tile)
        self._share()
        self.ids.empty.opacity = 0 if cards else 1
        order = gv.get("order") or []
        taken = gv.get("taken") or {}

        def chip(c, s):
            c.name, c.colour, c.now = seat_name(view, s), theme.seat_colour(s), False
            t = taken.get(str(s), "-")
            if s == self.chooser:
                c.status, c.now = "now", True
            elif t is None:
                c.status = "passed"
            elif t != "-":
                c.status = "took" if t.get("resolved") else "discarded"
            else:
                c.status = "next" if phase == "action" else ""
        # one row up to four players, two rows beyond (a name and its word fit)
        self.ids.order.cols = max(1, len(order) if len(order) <= 4 else -(-len(order) // 2))
        fill(self.ids.order, order, OrderChip, chip)
        if self.chooser >= 0:
            who = seat_name(view, self.chooser)
            self.headline = f"{who}: take one Action card"
            self.info = f"Tap a card to take it for {who}, or use the phone."
            self.ids.pass_btn.text = f"{who} passes"
        elif phase == "action":
            self.headline = "Action phase"
            self.info = model.waiting_text(view)
        else:
            self.headline = "Face-up Action cards"
            self.info = "Taken in the Action phase, in bidding order, after the reveal."
        self.ids.pass_btn.disabled = self.chooser < 0
        self.ids.pass_btn.opacity = 1 if self.chooser >= 0 else 0

    def _tile(self):
        t = CardTile()
        t.bind(on_release=self.pick, minimum_height=self._share)
        return t

    def _share(self, *_):
        """Every card as tall as the tallest needs (its title and text, inside its border),
        and the rows fill the panel when they fit; otherwise they scroll."""
        grid, scroll = self.ids.cards, self.ids.scroll
        if not getattr(self, "_bound", False):
            self._bound = True
            scroll.bind(height=self._share)
        tiles = list(grid.children)
        if not tiles:
            return
        rows = max(1, -(-len(tiles) // grid.cols))
        share = (scroll.height - grid.spacing[1] * (rows - 1)) / rows
        h = max([share] + [t.minimum_height for t in tiles])
        for t in tiles:
            t.height = h

    def pick(self, tile):
        if self.chooser < 0:
            self.app.show_toast("Action cards are taken in the Action phase.")
            return
        ActionDialog(app=self.app, seat=self.chooser, card=tile.card).open()

    def pass_turn(self):
        if self.chooser >= 0:
            app = self.app
            app.command(app.hub.submit, self.chooser, "pass_action")


class OrderChip(BoxLayout):
    name = StringProperty("")
    status = StringProperty("")
    colour = ColorProperty(theme.MUTED)
    now = BooleanProperty(False)


class ActionDialog(Dialog):
    app = ObjectProperty(None)
    seat = NumericProperty(0)
    card = ObjectProperty(None)
    target = NumericProperty(-1)
    drawn = BooleanProperty(False)         # one of the three drawn by the Colony bonus

    def on_open(self):
        view = self.app.view
        box = self.ids.targets
        box.clear_widgets()
        if self.card.get("target"):
            for s, name in enumerate(view.get("players") or []):
                if s == self.seat:
                    continue
                b = TButton(text=name, fs=20, shorten=True,
                            shorten_ok=True, tid=f"gp:target:{s}")
                b.seat = s
                b.bind(on_release=self._target)
                box.add_widget(b)
        self._refresh()

    def _target(self, btn):
        self.target = btn.seat
        for b in self.ids.targets.children:
            b.selected = b.seat == self.target
        self._refresh()

    def _refresh(self):
        need = bool(self.card.get("target"))
        self.ids.resolve.disabled = need and self.target < 0

    def take(self, resolve):
        app = self.app
        if self.drawn:
            args = {"card": self.card["id"]}
            move = "resolve_drawn"
        else:
            args = {"card": self.card["id"], "resolve": resolve}
            move = "take_action"
        if resolve and self.card.get("target"):
            args["target"] = self.target
        app.command(app.hub.submit, self.seat, move, args)
        self.dismiss()


# -- the score phase and the turn's recap --------------------------------------------------------
class ScorePhaseScreen(ViewScreen):
    headline = StringProperty("")
    event_title = StringProperty("")
    event_text = StringProperty("")
    pending = StringProperty("")
    recap = BooleanProperty(False)

    def update(self, view):
        gv = view.get("game_view") or {}
        app = self.app
        phase = view.get("phase")
        turn = gv.get("turn") or view.get("round")
        self.recap = phase not in ("score", "event")
        shown_turn = turn - 1 if self.recap and phase == "bid" else turn
        self._turn = shown_turn
        rec = turn_recap(list(app.journal.notices()), shown_turn)
        self.headline = f"Turn {shown_turn}: scoring" + (" and event" if rec["event"] else "")
        self._awards(view, rec)
        self._event(view, gv, rec)
        self._pending(view, gv, phase)

    def _rules(self):
        game = self.app.hub.game
        return game.rules.score if game is not None else ()

    def _awards(self, view, rec):
        scored = {n["trait"]: n for n in rec["scored"]}
        rules = self._rules() or [(n["trait"], n["vp"], {}, None) for n in rec["scored"]]

        def row(r, rule):
            trait, vp, gain, bonus = rule
            n = scored.get(trait)
            extra = [f"+{vp} VP"] + ([gains_text(gain)] if gain else []) + \
                ([BONUS_WORDS.get(bonus, bonus)] if bonus else [])
            if n is None:
                r.who, r.colour = "not scored yet", theme.DIM
            elif n["seats"]:
                r.who, r.colour = ", ".join(seat_name(view, s) for s in n["seats"]), theme.TEXT
            else:
                r.who, r.colour = "tied: nobody scores", theme.MUTED
            r.what = " \u00b7 ".join(extra)
            short, _name, colour = theme.GP_TOKENS[trait]
            r.token, r.token_colour = short, colour
        fill(self.ids.awards, list(rules), AwardRow, row)

    def _event(self, view, gv, rec):
        ev = rec["event"]
        if ev is None and gv.get("event") and view.get("phase") == "event":
            ev = gv["event"]
        if ev is None:
            self.event_title, self.event_text = "Event", "Flipped after scoring."
            return
        self.event_title = f"Event: {ev['name']}"
        lines = [ev.get("text", "")]
        aw = rec["awarded"]
        if aw is not None:
            lines.append(f"+{aw['vp']} VP to {model.names(view, aw['seats'])}." if aw["seats"]
                         else "Tied: nobody scores it.")
        war = rec["war"]
        if war is not None:
            if war["kind"] == "WarWon":
                lines.append(f"{model.names(view, war['winners'])} won the war against "
                             f"{model.names(view, war['losers'])} (+{war['vp']} VP each).")
            else:
                lines.append("The war ended in a stalemate.")
        if rec["peeked"]:
            lines.append(f"{model.names(view, [p['seat'] for p in rec['peeked']])} looked at "
                         f"the next Event.")
        self.event_text = "\n".join(x for x in lines if x)

    def _pending(self, view, gv, phase):
        box = self.ids.choices
        box.clear_widgets()
        u = self.app.u
        waiting = view.get("waiting") or []
        self.ids.cont.opacity = 1 if self.recap else 0
        self.ids.cont.disabled = not self.recap
        if phase != "score" or not waiting:
            self.pending = "" if self.recap else model.waiting_text(view)
            return
        seat = waiting[0]
        who = seat_name(view, seat)
        drawn = gv.get("drawn") or []
        if drawn:
            self.pending = f"{who} drew 3 Action cards and may resolve one:"
            for c in drawn:
                b = TButton(text=c["name"], fs=18, tid=f"gp:drawn:{c['id']}")
                b.bind(on_release=lambda _b, c=c: ActionDialog(
                    app=self.app, seat=seat, card=c, drawn=True).open())
                box.add_widget(b)
        else:
            self.pending = f"{who} may steal 1 Colony from:"
            for s, name in enumerate(view.get("players") or []):
                if s == seat:
                    continue
                b = TButton(text=name, fs=18, shorten=True, shorten_ok=True,
                            tid=f"gp:steal:{s}")
                b.bind(on_release=lambda _b, s=s: self._submit(seat, "steal_colony",
                                                               {"target": s}))
                box.add_widget(b)
        d = TButton(text="Decline", tone="ghost", fs=18, tid="gp:decline")
        d.bind(on_release=lambda _b: self._submit(seat, "decline_bonus", {}))
        box.add_widget(d)

    def _submit(self, seat, move, args):
        app = self.app
        app.command(app.hub.submit, seat, move, args)

    def choice_cols(self, width, children):
        """Two choices a row, one when a word of one would not fit half the row whole."""
        from ui.widgets.common import fit_cols
        u = self.app.u
        return fit_cols([c.text for c in children], width, theme.FONT_BOLD, u * 18, 2,
                        spacing=u * 6, pad=u * 8)

    def done(self):
        self.app.ack(("recap", self.app.view.get("session"), self._turn))


class AwardRow(BoxLayout):
    who = StringProperty("")
    what = StringProperty("")
    colour = ColorProperty(theme.TEXT)
    token = StringProperty("")
    token_colour = ColorProperty(theme.PANEL_HI)


# -- war -------------------------------------------------------------------------------------------
class WarScreen(ViewScreen):
    title = StringProperty("")
    text = StringProperty("")
    prompt = StringProperty("")

    def update(self, view):
        gv = view.get("game_view") or {}
        war = gv.get("war") or {}
        ev = gv.get("event") or {}
        self.title = ev.get("name") or "War"
        self.text = ev.get("text") or ""
        sides = war.get("sides") or [[], []]
        tokens = gv.get("tokens") or []
        for box, side, label in ((self.ids.side_a, sides[0], "Leader's side"),
                                 (self.ids.side_b, sides[1], "Foe's side")):
            box.clear_widgets()
            box.add_widget(TMuted(text=label, size_hint_y=None, height=self.app.u * 26))
            for s in side:
                box.add_widget(self._member(view, s, tokens))
            box.add_widget(BoxLayout())
        free = war.get("free") or []
        waiting = view.get("waiting") or []
        picker = waiting[0] if waiting else None
        box = self.ids.free
        box.clear_widgets()
        if picker is not None and free:
            what = "a Foe" if war.get("foe") is None else "an ally"
            self.prompt = f"{seat_name(view, picker)} picks {what}:"
            for s in free:
                b = TButton(text=seat_name(view, s), fs=20,
                            shorten=True, shorten_ok=True, tid=f"gp:side:{s}")
                b.bind(on_release=lambda _b, s=s: self._pick(picker, s))
                box.add_widget(b)
        else:
            self.prompt = "Sides are set." if war.get("done") else model.waiting_text(view)

    def _member(self, view, s, tokens):
        u = self.app.u
        row = BoxLayout(size_hint_y=None, height=u * 36, spacing=u * 8)
        row.add_widget(Dot(colour=theme.seat_colour(s), size_hint_x=None, width=u * 14))
        row.add_widget(TLabel(text=seat_name(view, s), font_name=theme.FONT_BOLD,
                              shorten=True, shorten_ok=True))
        if s < len(tokens):
            t = tokens[s]
            row.add_widget(TMuted(text=f"Army {t['army']} · Navy {t['navy']}",
                                  size_hint_x=None, width=u * 170, halign="right"))
        return row

    def _pick(self, picker, player):
        app = self.app
        app.command(app.hub.submit, picker, "pick_side", {"player": player})


