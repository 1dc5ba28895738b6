"""Trade Warz / Tariff Warz screens: the Leader pick result, the CMYK Upkeep steps, the Policy
reveal as a large card per player, the Export flip, and the Disputes.

Colour is never alone: every step shows its letter and name (Canary, Mint, Yeti, Kraken) and
what it resolves; the ring and fill colours follow the rulebook (see ui.theme.UPKEEP). Every
table question (confirm a step, adjust by hand, settle a scanned card) is drawn from the
public view's ``table_legal`` by :class:`ui.widgets.picker.TableMoves`.
"""
from kivy.properties import (BooleanProperty, ColorProperty, DictProperty, StringProperty)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.widget import Widget

from ui import model, theme
from ui.adapters.trade_warz import card_name, card_names
from ui.screens.base import ViewScreen
from ui.widgets.common import TLabel, TText, fill

STATE_WORDS = {"done": "\u2713 done", "current": "now", "pending": "next",
               "empty": "nothing to do"}
ORDINAL = {1: "1st", 2: "2nd", 3: "3rd"}


def ordinal(n) -> str:
    return ORDINAL.get(n, f"{n}th")


def _esc(text):
    from kivy.utils import escape_markup
    return escape_markup(str(text))


# -- the Leader pick result -----------------------------------------------------------------------
class LeaderCard(BoxLayout):
    player = StringProperty("")
    leader = StringProperty("")
    how = StringProperty("")
    detail = StringProperty("")
    colour = ColorProperty(theme.MUTED)


HOW_WORDS = {"pick": "Blind pick: the first wishes were served in pick order; a Leader "
                     "everyone wanted went by lot.",
             "random": "Leaders were dealt at random.",
             "fixed": "Leaders were set for this game."}


class LeadersScreen(ViewScreen):
    """Who got which Leader, and how (their 1st or 2nd wish, or by lot), once, until the
    table taps Continue."""
    headline = StringProperty("")
    how = StringProperty("")

    def update(self, view):
        gv = view.get("game_view") or {}
        lp = gv.get("leader_pick") or {}
        leaders = gv.get("leaders") or []
        seats = lp.get("seats") or []
        self.headline = "Leaders"
        self.how = HOW_WORDS.get(lp.get("how"), "")
        if lp.get("how") == "pick" and lp.get("order"):
            # the lot's order explains a first wish that lost to another's second
            lots = any(r.get("by_lot") for r in seats)
            self.how = ("Blind pick. The lot set the pick order: " +
                        ", ".join(model.names(view, [s]) for s in lp["order"]) +
                        ". Each in turn took the first of their wishes still free" +
                        ("; whoever found every wish taken got a Leader by lot." if lots
                         else "."))

        def card(c, r):
            s = r["seat"]
            c.player = r.get("player") or model.names(view, [s])
            c.leader = r.get("name") or ""
            if lp.get("how") == "pick":
                c.how = f"{ordinal(r['wish'])} wish" if r.get("wish") else "by lot"
            else:
                c.how = ""
            lead = leaders[s] if s < len(leaders) else None
            c.detail = (lead or {}).get("ability") or (lead or {}).get("text") or ""
            c.colour = theme.seat_colour(s)
        grid = self.ids.cards
        grid.cols = 2 if len(seats) <= 4 else 3
        fill(grid, seats, LeaderCard, card)

    def done(self):
        self.app.ack(("leaders", self.app.view.get("session")))


# -- the Policy reveal ------------------------------------------------------------------------------
class PolicyCard(BoxLayout):
    player = StringProperty("")
    name = StringProperty("")
    meta = StringProperty("")
    text = StringProperty("")
    colour = ColorProperty(theme.MUTED)
    none = BooleanProperty(False)


def policy_meta(r) -> str:
    """Cost and what the Policy was aimed at, in words."""
    parts = []
    if r.get("cost") is not None and r.get("card"):
        parts.append(f"Cost {r['cost']} GDP")
    if r.get("target_name"):
        parts.append(f"on {r['target_name']}")
    if r.get("partner_name"):
        parts.append(f"at {r['partner_name']}")
    if r.get("fast_pass"):
        parts.append("Fast-Pass: board locked")
    if r.get("kept") == "chosen":
        parts.append("the phone's choice kept")
    elif r.get("kept") == "scanned":
        parts.append("the scanned card kept")
    elif r.get("checked"):
        parts.append("scanned, matches")
    return " \u00b7 ".join(parts)


class PoliciesScreen(ViewScreen):
    """The Policy reveal: a large card per player, all at once."""
    table_moves = True
    headline = StringProperty("")
    hint = StringProperty("")

    def _even(self, *_):
        """The cards of a row as tall as the tallest, their texts from the top."""
        grid = self.ids.cards
        cards = list(reversed(grid.children))
        cols = max(1, grid.cols)
        for i in range(0, len(cards), cols):
            row = cards[i:i + cols]
            h = max(c.minimum_height for c in row)
            for c in row:
                c.height = h

    def update(self, view):
        gv = view.get("game_view") or {}
        reveal = gv.get("policy_reveal") or {}
        rows = [r for _k, r in sorted(reveal.items(), key=lambda kv: int(kv[0]))]

        def card(c, r):
            s = r.get("seat", 0)
            c.player = self.app.adapter.seat_label(view, s)
            c.none = not r.get("card")
            c.name = r.get("name") or ("Fast-Pass" if r.get("fast_pass") else "No Policy")
            c.meta = policy_meta(r)
            c.text = r.get("text") or ""
            c.colour = theme.seat_colour(s)
        grid = self.ids.cards
        grid.cols = 2                        # large cards; five or six players scroll
        cards = fill(grid, rows, PolicyCard, card)
        for c in cards:
            c.unbind(minimum_height=self._even)
            c.bind(minimum_height=self._even)
        self._even()
        tp = view.get("table_prompt") or {}
        self.hint = tp.get("text") or model.waiting_text(view)
        self.headline = "" if "Policies revealed" in self.hint else "Policies revealed"
        self.ids.moves.show(view)


# -- the Export flip --------------------------------------------------------------------------------
class FlipRow(BoxLayout):
    slot = StringProperty("")
    player = StringProperty("")
    card = StringProperty("")
    state = StringProperty("")
    colour = ColorProperty(theme.MUTED)
    bad = BooleanProperty(False)
    contested = BooleanProperty(False)


class FlipHeader(TLabel):
    """A Trade Partner's name above its flipped Exports (flip rows)."""


FLIP_WORDS = {"up": "face up", "void": "no card", "discarded": "discarded",
              "won": "won the dispute", "lost": "lost the dispute", "unpaid": "unpaid",
              "established": "route"}


class FlipScreen(ViewScreen):
    """The Export flip: every flipped Export on its partner and slot, contested ones
    marked."""
    table_moves = True
    headline = StringProperty("")
    hint = StringProperty("")

    def update(self, view):
        gv = view.get("game_view") or {}
        flip = list(gv.get("flip") or [])
        flip.sort(key=lambda x: (x.get("partner_name") or "", x.get("slot") or 0,
                                 x.get("seat") or 0))
        items = []
        last = None
        for x in flip:
            if x.get("partner_name") != last:
                last = x.get("partner_name")
                items.append(("head", last))
            items.append(("row", x))
        contested = sum(1 for c in (gv.get("disputes") or {}).get("contests") or []
                        if c.get("round", view.get("round")) == view.get("round"))
        self.headline = f"Exports flipped \u00b7 {len(flip)} " \
                        f"Export{'s' if len(flip) != 1 else ''}" + \
            (f" \u00b7 {contested} contested" if contested else "")
        box = self.ids.rows
        kids = list(reversed(box.children))
        if [type(k).__name__ for k in kids] != ["FlipHeader" if k == "head" else "FlipRow"
                                                for k, _ in items]:
            box.clear_widgets()
            kids = []
            for kind, _x in items:
                w = FlipHeader() if kind == "head" else FlipRow()
                box.add_widget(w)
                kids.append(w)
        for w, (kind, x) in zip(kids, items):
            if kind == "head":
                w.text = x or ""
                continue
            w.slot = f"Slot {x.get('slot')}"
            w.player = x.get("player") or model.names(view, [x.get("seat")])
            w.card = x.get("name") or "no card"
            word = FLIP_WORDS.get(x.get("state"), x.get("state") or "")
            w.contested = bool(x.get("contested") and x.get("state") == "up")
            w.state = "contested" if w.contested else word
            if x.get("kept") == "chosen":
                w.state += " \u00b7 phone's choice kept"
            elif x.get("checked"):
                w.state += " \u00b7 scanned"
            w.bad = x.get("state") in ("void", "discarded", "unpaid", "lost")
            w.colour = theme.seat_colour(x.get("seat") or 0)
        self.ids.none.opacity = 0 if flip else 1
        tp = view.get("table_prompt") or {}
        self.hint = tp.get("text") or model.waiting_text(view)
        self.ids.moves.show(view)


# -- the Upkeep -------------------------------------------------------------------------------------
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


class EffectLine(TText):
    """One effect under its CMYK step (layout in tw_upkeep.kv)."""


class UpkeepScreen(ViewScreen):
    table_moves = True
    headline = StringProperty("")
    prompt = StringProperty("")

    def update(self, view):
        gv = view.get("game_view") or {}
        up = gv.get("upkeep") or {}
        steps = up.get("steps") or [{"letter": k, "name": v["name"], "resolves": v["scope"],
                                     "effects": [], "state": "empty"}
                                    for k, v in theme.UPKEEP.items()]
        app = self.app
        box = self.ids.steps
        if not box.children:                        # four columns, in upkeep order
            for _ in range(4):
                box.add_widget(StepColumn())
        columns = [w for w in reversed(box.children) if isinstance(w, StepColumn)]
        for col, st in zip(columns, steps):
            look = theme.UPKEEP.get(st["letter"], {})
            col.letter, col.name = st["letter"], st["name"]
            col.scope = look.get("scope") or st.get("resolves", "")
            col.state = st.get("state", "")
            col.ring = look.get("ring", theme.MUTED)
            col.fill = look.get("fill", theme.PANEL_HI)
            shown = st.get("effects") or []
            lines = []
            for e in shown[:3]:
                owner = e.get("owner")
                who = model.names(view, [owner]) if owner is not None else "Table"
                lines.append(f"[b]{_esc(e['name'])}[/b] \u00b7 {_esc(who)}"
                             + ("  [color=#ffb020]by hand[/color]" if e.get("manual")
                                else ""))
            if len(shown) > 3:
                lines.append(f"+{len(shown) - 3} more")
            if not shown:
                lines.append("No effects.")

            def put(lab, text):
                lab.text = text
            fill(col.ids.effects, lines, EffectLine, put)
        cur = up.get("current")
        self.headline = f"Upkeep \u00b7 {app.adapter.round_text(view)}"
        tp = view.get("table_prompt") or {}
        step = tp.get("step")
        look = theme.UPKEEP.get(cur or "", {})
        labels = {}
        if step == "step":
            self.prompt = f"Resolve the {cur} {look.get('name', '')} step " \
                          f"({look.get('scope')}) at the table, then confirm."
            labels["confirm_step"] = f"Confirm {cur} \u00b7 {look.get('name', '')}"
        elif tp:
            self.prompt = tp.get("text") or model.waiting_text(view)
        elif view.get("phase") == "upkeep":
            self.prompt = model.waiting_text(view) or "Upkeep resolves by itself."
        else:
            done = [st for st in steps if st.get("state") == "done"]
            self.prompt = f"Upkeep is over for this round ({len(done)} steps resolved)."
        self.ids.moves.labels = labels
        self.ids.moves.show(view)


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


CONTEST_WORDS = {"open": "contested", "bidding": "bidding", "revealed": "bids revealed",
                 "done": "settled"}


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

        at_start = disp.get("order_gdp") or []

        def chip(c, s):
            # the order is by GDP when the disputes began; bids paid since change the GDP
            k = order.index(s)
            then = at_start[k] if k < len(at_start) else None
            now = gdp[s] if s < len(gdp) else None
            c.name = view["players"][s]
            # (the GDP now is on the GDP track; six chips leave no room for both)
            c.detail = f"{then if then is not None else now} GDP" + \
                (" \u00b7 chooses" if s == chooser and len(order) <= 4 else "")
            c.colour, c.lit = theme.seat_colour(s), s == chooser
        fill(self.ids.order, order, TWOrderChip, chip)
        contests = [c for c in disp.get("contests") or []
                    if c.get("round", view.get("round")) == view.get("round")]
        self.headline = f"Disputes \u00b7 poorest first \u00b7 {len(contests)} contested" \
            if contests else "Disputes \u00b7 poorest first"
        if any(a != (gdp[s] if s < len(gdp) else a) for a, s in zip(at_start, order)):
            self.headline += " (GDP at the start)"
        fill(self.ids.contests, contests, ContestCard,
             lambda card, c: self._contest(card, view, c, names))
        self.ids.none.opacity = 0 if contests else 1
        waiting = view.get("waiting") or []
        bidding = disp.get("bidding")
        if view.get("phase") == "exports":
            self.info = "Exports are flipped; the disputes follow, poorest first."
        elif chooser is not None:
            self.info = f"{app.adapter.seat_label(view, chooser)} chooses which dispute to " \
                        f"settle next (on the phone)."
        elif bidding and waiting:
            self.info = f"Blind bids: waiting for {model.names(view, waiting)}. Bid GDP on " \
                        f"your phone; nobody sees a bid until all are in."
        else:
            self.info = (view.get("table_prompt") or {}).get("text") or \
                model.waiting_text(view) or ""

    def _window(self, view, c):
        wid = c.get("window") or f"bid-r{view.get('round')}-{c['id']}"
        return model.find_window(view, wid), wid

    def _contest(self, card, view, c, names):
        app = self.app
        u = app.u
        state = c.get("state")
        card.title = c.get("label") or f"{c['partner_name']} \u00b7 slot {c['slot']}"
        card.state = CONTEST_WORDS.get(state, state or "")
        card.lit = state == "bidding"
        w, wid = self._window(view, c)
        locks = {x.seat: x for x in model.window_locks(view, w)} if w else {}
        key = f"{view.get('session')}:{wid}"
        if w is not None and w.get("revealed"):
            bad = any(x.state == "mismatch" for x in locks.values())
            self.checked[key] = "mismatch" if bad else "ok"
        shown_power = state in ("revealed", "done") or (w is not None and w.get("revealed"))
        cnames = c.get("card_names") or {}

        def row(r, s):
            r.who = app.adapter.seat_label(view, s)
            cid = (c.get("cards") or {}).get(str(s))
            r.card = cnames.get(str(s)) or card_name(names, cid)
            if shown_power and c.get("parts"):
                p = (c.get("parts") or {}).get(str(s)) or {}
                total = (c.get("power") or {}).get(str(s))
                text = f"{p.get('printed', 0)} + {p.get('influence', 0)} + " \
                       f"{p.get('effects', 0)} + bid {p.get('bid', 0)} = {total}"
                win = state == "done" and c.get("winner") == s
                r.text = text + ("  wins" if win else "")
                r.colour = theme.OK if win else theme.TEXT
            elif state == "bidding":
                lock = locks.get(s)
                done = lock is not None and lock.state in ("locked", "revealed")
                r.text = "\u2713 bid locked" if done else "bidding\u2026"
                r.colour = theme.OK if done else theme.MUTED
            else:
                r.text, r.colour = "waits its turn", theme.MUTED
        seats = c.get("seats") or []
        fill(card.ids.rows, seats, ContestRow, row)
        note = ""
        card.bad = False
        if shown_power:
            verdict = self.checked.get(key)
            parts = ["power = printed + influence + effects + bid"]
            if c.get("tiebreak"):
                parts.append(f"tie: {c['tiebreak']}")
            if verdict == "ok":
                parts.append("\u2713 bids match their commitments")
            elif verdict == "mismatch":
                parts.append("\u26a0 a bid does NOT match its commitment")
                card.bad = True
            note = " \u00b7 ".join(parts)
        card.note = note
