"""Pickers drawn from a legal move's argument specs (docs/protocol.md 4.7), so the table answers
every question by taps: ``one`` as buttons, ``number`` as a stepper, ``order`` tapped in order,
``subset`` as toggles, ``counts`` as steppers with the total, ``flag`` as a toggle. No free
text (a ``text`` spec, always optional at the table, is left out), no ids, no JSON.

* :class:`MovePicker`: the questions of one move, in order; a question that depends on an
  earlier answer (``when``) appears once that answer is given. Send is enabled only when the
  answers pass :func:`companion.core.choices.check`, so what is sent is legal at that ``rev``.
* :class:`PickerDialog`: a MovePicker in a dialog, with the prompt's own sentence.
* :class:`TableMoves`: the table's moves now (``table_legal``), one button each; the move the
  prompt goes on with (``next``), when its only question is a short ``one``, shows its options
  as buttons right there (e.g. "Keep the scanned card" / "Keep the phone's choice"); any other
  question opens a PickerDialog.

Every control has a stable ``tid`` for test drivers: ``table:<move>``,
``table:<move>:<arg>=<value>``, ``pick:<arg>=<value>``, ``pick:<arg>:minus|plus``,
``pick:<arg>=<value>:minus|plus|rest`` (counts; ``rest``: all that is left, on that one),
``pick:<arg>`` (flag), ``pick:send``,
``pick:cancel``.
"""
import time

from kivy.app import App
from kivy.properties import (BooleanProperty, DictProperty, NumericProperty, ObjectProperty,
                             StringProperty)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.gridlayout import GridLayout

from ui import model, theme
from ui.widgets.common import TButton, TLabel, TNote, TText, fit_cols
from ui.widgets.dialogs import Dialog


def _u():
    return App.get_running_app().u


def value_tid(v) -> str:
    return "null" if v is None else str(v).lower() if isinstance(v, bool) else str(v)


class MovePicker(BoxLayout):
    """The questions of one legal move (``move``: ``{"move", "label", "args": [spec...]}``).
    ``on_change`` is called after every tap; :attr:`problem` says why it cannot be sent yet."""
    move = DictProperty({})
    problem = StringProperty("")

    def __init__(self, move, on_change=None, **kw):
        kw.setdefault("orientation", "vertical")
        kw.setdefault("size_hint_y", None)
        super().__init__(**kw)
        self.bind(minimum_height=self.setter("height"))
        self.spacing = _u() * 10
        self.on_change = on_change
        self.move = dict(move)
        self.specs = [s for s in self.move.get("args") or []
                      if not (s["kind"] == "text" and s.get("optional"))]
        self.args = model.pick_defaults(self.specs)
        self.rebuild()

    # -- answers --------------------------------------------------------------------------------
    def set(self, name, value):
        self.args[name] = value
        self.args = model.pick_prune(self.specs, self.args, fill=True)
        self.rebuild()

    def answers(self) -> dict:
        return model.pick_clean(self.specs, self.args)

    # -- drawing ----------------------------------------------------------------------------------
    def rebuild(self):
        self.clear_widgets()
        u = _u()
        for spec, options in model.pick_rows(self.specs, self.args):
            box = BoxLayout(orientation="vertical", size_hint_y=None, spacing=u * 4)
            box.bind(minimum_height=box.setter("height"))
            box.add_widget(TText(text=model.spec_question(spec, self.args.get(spec["name"])),
                                 font_name=theme.FONT_BOLD, fs=20))
            box.add_widget(getattr(self, "_" + spec["kind"], self._unknown)(spec, options))
            self.add_widget(box)
        self.problem = model.pick_problem(self.specs, self.args)
        if self.on_change is not None:
            self.on_change(self)

    def _grid(self, n, cols=None, tall=False):
        """Up to three buttons a row (two when they carry a detail line, one past six); each
        row as tall as its most wrapped button, at least 52 (70 with details) units."""
        u = _u()
        cols = cols or (1 if n > 6 else min(2 if tall else 3, max(1, n)))
        g = GridLayout(cols=cols, spacing=u * 6, size_hint_y=None)
        g.most = cols
        g.bind(minimum_height=g.setter("height"))
        g.least = u * (70 if tall else 52)
        return g

    @staticmethod
    def _grow(g, b):
        """``b`` in grid ``g``; the grid's buttons all as tall as the most wrapped one needs
        (never cut at the row's edge, and a row stays even)."""
        u = _u()
        b.size_hint_y = None

        def fit(*_):
            h = max([g.least] + [c.texture_size[1] + u * 14 for c in g.children])
            for c in g.children:
                c.height = h
        b.bind(texture_size=fit)
        g.add_widget(b)
        fit()
        if not getattr(g, "fitting", False):      # fewer columns when a word would not fit
            g.fitting = True

            def cols(*_):
                g.cols = fit_cols([c.text for c in g.children], g.width, theme.FONT_BOLD,
                                  u * 19, g.most, spacing=u * 6, pad=u * 8) \
                    if g.width > 1 else g.most
            g.bind(width=cols)

    def _option_button(self, spec, o, selected, text=None):
        text = text or o["label"]
        if o.get("detail"):
            text += "\n" + o["detail"]
        b = TButton(text=text, selected=selected, fs=19,
                    tid=f"pick:{spec['name']}={value_tid(o['value'])}")
        if o.get("disabled"):
            b.disabled = True
            b.text = f"{b.text} ({o['disabled']})"
        return b

    def _one(self, spec, options):
        g = self._grid(len(options), tall=any(o.get("detail") for o in options))
        cur = self.args.get(spec["name"], object())
        for o in options:
            b = self._option_button(spec, o, model._key(o["value"]) == model._key(cur)
                                    if spec["name"] in self.args else False)
            b.bind(on_release=lambda _b, v=o["value"]: self.set(spec["name"], v))
            self._grow(g, b)
        return g

    def _order(self, spec, options):
        g = self._grid(len(options), tall=any(o.get("detail") for o in options))
        cur = self.args.get(spec["name"]) or []
        keys = [model._key(x) for x in cur]
        for o in options:
            k = model._key(o["value"])
            at = keys.index(k) + 1 if k in keys else 0
            b = self._option_button(spec, o, bool(at),
                                    f"{at}. {o['label']}" if at else o["label"])
            b.bind(on_release=lambda _b, v=o["value"]: self.set(
                spec["name"], model.pick_toggle(spec, self.args.get(spec["name"]), v)))
            self._grow(g, b)
        return g

    def _subset(self, spec, options):
        g = self._grid(len(options), tall=any(o.get("detail") for o in options))
        keys = {model._key(x) for x in self.args.get(spec["name"]) or []}
        for o in options:
            b = self._option_button(spec, o, model._key(o["value"]) in keys,
                                    ("\u2713 " if model._key(o["value"]) in keys else "") +
                                    o["label"])
            b.font_name = theme.FONT_SYM
            b.bind(on_release=lambda _b, v=o["value"]: self.set(
                spec["name"], model.pick_toggle(spec, self.args.get(spec["name"]), v)))
            self._grow(g, b)
        return g

    def _stepper(self, tid, text, minus, plus, can_minus=True, can_plus=True):
        u = _u()
        row = BoxLayout(size_hint_y=None, height=u * 52, spacing=u * 8)
        m = TButton(text="\u2212", fs=26, size_hint_x=None, width=u * 64, tid=tid + ":minus",
                    disabled=not can_minus)
        m.bind(on_release=lambda _b: minus())
        p = TButton(text="+", fs=26, size_hint_x=None, width=u * 64, tid=tid + ":plus",
                    disabled=not can_plus)
        p.bind(on_release=lambda _b: plus())
        row.add_widget(m)
        row.add_widget(TLabel(text=text, fs=22, halign="center", font_name=theme.FONT_BOLD))
        row.add_widget(p)
        return row

    def _number(self, spec, options):
        name, step = spec["name"], spec.get("step") or 1
        v = self.args.get(name, spec["min"])
        return self._stepper(
            f"pick:{name}", str(v),
            lambda: self.set(name, max(spec["min"], v - step)),
            lambda: self.set(name, min(spec["max"], v + step)),
            v > spec["min"], v < spec["max"])

    def _counts(self, spec, options):
        u = _u()
        name = spec["name"]
        box = BoxLayout(orientation="vertical", size_hint_y=None, spacing=u * 4)
        box.bind(minimum_height=box.setter("height"))
        cur = self.args.get(name) or {}
        hi = spec.get("total", spec.get("max", 10**6))
        full = sum(cur.values()) >= hi
        for o in options:
            key = str(o["value"])
            n = cur.get(key, 0)
            row = BoxLayout(size_hint_y=None, height=u * 52, spacing=u * 8)
            row.add_widget(TLabel(text=o["label"], fs=19, shorten=True, shorten_ok=True,
                                  shorten_from="right"))
            room = model.pick_room(spec, cur, key, options)
            rest = TButton(text=f"+{room} here", fs=19,
                           size_hint_x=None, width=u * 104, disabled=room < 2,
                           tid=f"pick:{name}={value_tid(o['value'])}:rest")
            rest.bind(on_release=lambda _b, k=key: self.set(name, model.pick_fill_count(
                spec, self.args.get(name), k, options)))
            row.add_widget(rest)
            st = self._stepper(f"pick:{name}={value_tid(o['value'])}", str(n),
                               lambda k=key: self.set(name, model.pick_step_count(
                                   spec, self.args.get(name), k, -1, options)),
                               lambda k=key: self.set(name, model.pick_step_count(
                                   spec, self.args.get(name), k, 1, options)),
                               n > 0, n < int(o.get("max", 10**6)) and not full)
            st.size_hint_x = None
            st.width = u * 200
            row.add_widget(st)
            box.add_widget(row)
        total = sum(cur.values())
        want = spec["total"] if "total" in spec else None
        box.add_widget(TText(text=f"{total} of {want}" if want is not None else
                             f"{total} in all ({spec.get('min', 0)} to {spec.get('max')})",
                             fs=19, color=theme.MUTED))
        return box

    def _flag(self, spec, options):
        name = spec["name"]
        on = bool(self.args.get(name))
        b = TButton(text="Yes" if on else "No", selected=on, fs=20, size_hint_y=None,
                    height=_u() * 52, tid=f"pick:{name}")
        b.bind(on_release=lambda _b: self.set(name, not on))
        return b

    def _unknown(self, spec, options):
        return TNote(text="Answer this one on a phone.", fs=18)

    _text = _unknown


class PickerDialog(Dialog):
    """One move's questions in a dialog: the prompt's sentence, the pickers, Cancel and the
    move's own button. ``send(move, args)`` is called with legal arguments only."""
    title = StringProperty("")
    text = StringProperty("")
    problem = StringProperty("")
    send_text = StringProperty("Confirm")
    move = DictProperty({})
    send = ObjectProperty(None)

    def on_open(self):
        box = self.ids.body
        box.clear_widgets()
        self.picker = MovePicker(self.move, on_change=self._changed)
        box.add_widget(self.picker)

    def _changed(self, picker):
        self.problem = picker.problem
        self.ids.go.disabled = bool(picker.problem)

    def confirm(self):
        if self.picker.problem:
            return
        args = self.picker.answers()
        self.dismiss()
        if self.send is not None:
            self.send(self.move["move"], args)


def inline_options(move):
    """A move whose one question is a short ``one`` (at most three options, nothing
    dependent): its options, drawn as buttons right on the screen; else None."""
    specs = move.get("args") or []
    if len(specs) != 1 or specs[0]["kind"] != "one" or specs[0].get("when"):
        return None
    opts = specs[0].get("options") or []
    if not 1 <= len(opts) <= 3 or any(o.get("when") for o in opts):
        return None
    return specs[0], opts


class TableMoves(BoxLayout):
    """The table's moves now, drawn from the public view's ``table_legal``: the move the
    prompt goes on with (``next``) first and primary. Tapping sends it through the app's
    command worker; a move with questions opens a :class:`PickerDialog`. Up to ``max_cols``
    buttons a row; as tall as its rows (``row_height`` units each, more for wrapped words).

    Nothing moves under a finger (issue 22): a question that interrupts the table (the
    adapter's ``interrupts``: a scanned card nobody asked for) is drawn in its own row above,
    none of its buttons primary, while the buttons it interrupts stay where they were,
    disabled, until it is settled. A button that appears or changes in a place where another
    was shown a moment ago ignores taps for ``app.tap_guard`` seconds."""
    fs = NumericProperty(20)
    max_cols = NumericProperty(3)
    row_height = NumericProperty(58)
    labels = DictProperty({})            # {move: label}: a screen's own words for a move
    #: its first buttons are guarded too: it rises under a screen already shown (the bar)
    guard_first = BooleanProperty(False)

    def __init__(self, **kw):
        kw.setdefault("size_hint_y", None)
        kw.setdefault("orientation", "vertical")
        super().__init__(**kw)
        self.height = 0
        self.bind(minimum_height=self.setter("height"))
        self.alert = self._grid()
        self.main = self._grid()
        self.bind(width=lambda *_: [self._cols(g) for g in (self.alert, self.main)])
        self.add_widget(self.main)
        self._main, self._main_at = [], None     # the last uninterrupted buttons, and where
        self._view = {}

    def _grid(self):
        g = GridLayout(cols=1, size_hint_y=None, height=0)
        g.bind(minimum_height=g.setter("height"))
        g.sig = None
        self.fbind("spacing", lambda *_a, g=g: setattr(g, "spacing", self.spacing))
        g.spacing = self.spacing
        return g

    def show(self, view, app=None):
        app = app or App.get_running_app()
        buttons = table_buttons(view, app.adapter.table_actions(view) if view.get(
            "table_prompt") else ())
        for b in buttons:
            if b.get("move") in self.labels and "ask" not in b and b["tid"] == \
                    f"table:{b['move']}":
                b["text"] = self.labels[b["move"]]
        where = (view.get("session"), view.get("phase"), view.get("round"))
        if buttons and app.adapter.interrupts(view):
            alert = [dict(b, tone="warn") for b in buttons]
            main = [dict(b, disabled=True) for b in self._main] \
                if self._main_at == where else []
        else:
            alert, main = [], buttons
            self._main, self._main_at = buttons, where
        guard = float(getattr(app, "tap_guard", 0) or 0)
        if self.main.sig is None and self.alert.sig is None and not self.guard_first:
            guard = 0                    # first drawn with its screen: nothing moved
        self._draw(self.main, main, guard)
        self._draw(self.alert, alert, guard)
        if alert and self.alert.parent is None:
            self.add_widget(self.alert, index=len(self.children))    # above the main row
        elif not alert and self.alert.parent is not None:
            self.remove_widget(self.alert)
        self._view = view
        return len(alert) + len(main)

    def _draw(self, grid, buttons, guard):
        sig = [(b["tid"], b["text"], b["tone"], bool(b.get("disabled"))) for b in buttons]
        if sig != grid.sig:
            old = grid.sig
            grid.sig = sig
            grid.clear_widgets()
            until = time.monotonic() + guard
            for i, b in enumerate(buttons):
                w = TButton(text=b["text"], tone=b["tone"], fs=self.fs, tid=b["tid"],
                            size_hint_y=None)
                w.bind(texture_size=self._fit)
                w.disabled = bool(b.get("disabled"))
                w.bind(on_release=lambda btn: self.act(btn.action))
                if guard and (i >= len(old or ()) or old[i][:2] != sig[i][:2]):
                    w.guard_until = until          # new under a finger that may be moving
                grid.add_widget(w)
        # the actions are the view's own, even when the buttons look the same as before
        # (a round later, "Check a card without the reader" asks about this round's cards)
        for w, b in zip(reversed(grid.children), buttons):
            w.action = b
        grid.texts = [b["text"] for b in buttons]
        self._cols(grid)
        for w in grid.children:
            self._fit(w)

    def _cols(self, grid, *_):
        """Up to ``max_cols`` a row, fewer when a word would not fit its button whole."""
        u = App.get_running_app().u
        texts = getattr(grid, "texts", [])
        most = max(1, min(len(texts), int(self.max_cols)))
        grid.cols = fit_cols(texts, self.width, theme.FONT_BOLD, u * self.fs, most,
                             spacing=self.spacing, pad=u * 8) if self.width > 1 else most

    def _fit(self, w, *_):
        """A button as tall as its (wrapped) words need, at least ``row_height``."""
        u = App.get_running_app().u
        w.height = max(u * self.row_height, w.texture_size[1] + u * 14)

    def act(self, action):
        act(App.get_running_app(), action, getattr(self, "_view", {}))


def table_buttons(view, extra=()) -> list:
    """``[{"tid", "text", "tone", "move", "args" | "ask" | "call"}]``: one per table move
    (options of a short ``one`` inline), the prompt's ``next`` first. ``extra``: a game
    adapter's ``table_actions`` for moves whose questions the view does not spell out yet;
    a move they send is not drawn again."""
    tp = view.get("table_prompt") or {}
    legal = list(view.get("table_legal") or [])
    nxt = tp.get("next")
    legal.sort(key=lambda m: m["move"] != nxt)
    covered = {what[5:] for _text, what, _args in extra if what.startswith("move:")}
    out = []
    for text, what, args in extra:
        move = what[5:] if what.startswith("move:") else None
        out.append({"tid": f"action:{what}" + (
                    "".join(f":{k}={value_tid(v)}" for k, v in sorted(args.items()))
                    if move else ""),
                    "text": text, "tone": "primary" if move == nxt and args == (
                        tp.get("next_args") or {}) else "normal",
                    **({"move": move, "args": dict(args)} if move else {"call": what,
                                                                          "args": args})})
    for m in legal:
        if m["move"] in covered:
            continue
        if m["move"] == "scan_card" and not m.get("args"):
            continue                     # the card reader's move: scanned, never tapped
        specs = m.get("args") or []
        inline = inline_options(m) if m["move"] == nxt else None   # the prompt's own question
        if not specs:
            args = dict(tp.get("next_args") or {}) if m["move"] == nxt else {}
            text = model.next_label(view) if m["move"] == nxt and m["label"] == \
                m["move"].replace("_", " ").capitalize() else m["label"]
            out.append({"tid": f"table:{m['move']}", "text": text,
                        "tone": "primary" if m["move"] == nxt else "normal",
                        "move": m["move"], "args": args})
        elif inline:
            spec, opts = inline
            for o in opts:
                out.append({"tid": f"table:{m['move']}:{spec['name']}={value_tid(o['value'])}",
                            "text": o["label"], "disabled": o.get("disabled"),
                            "tone": "primary" if m["move"] == nxt and
                            model._key(o["value"]) == model._key(
                                (tp.get("next_args") or {}).get(spec["name"], object()))
                            else "normal",
                            "move": m["move"], "args": {spec["name"]: o["value"]}})
        else:
            out.append({"tid": f"table:{m['move']}", "text": m["label"] + "\u2026",
                        "tone": "primary" if m["move"] == nxt else "normal",
                        "move": m["move"], "ask": m})
    return out


def act(app, action, view):
    """Do a table button's action: send the move, or ask its questions first."""
    if "call" in action:
        getattr(app.adapter, action["call"])(app, action.get("args") or {})
        return
    if "ask" in action:
        tp = view.get("table_prompt") or {}
        PickerDialog(title=action["ask"]["label"], text=tp.get("text") or "",
                     move=action["ask"], send_text=action["ask"]["label"],
                     send=lambda move, args: app.command(app.hub.table_move, move, args)
                     ).open()
        return
    app.command(app.hub.table_move, action["move"], action.get("args") or {})
