"""Battle Builder: each battle on the table, the monster with its HP, every fighter's HP and
stamina, who has locked this turn's card, and the turn order and log after the reveal."""
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.widget import Widget

from ui import model, theme
from ui.adapters.battle_builder import actor_name, log_line
from ui.screens.base import ViewScreen
from ui.widgets.bar import Bar
from ui.widgets.common import Chip, Dot, TLabel, TMuted


class BattlePanel(BoxLayout):
    title = StringProperty("")
    status = StringProperty("")
    lit = BooleanProperty(False)


class BattleScreen(ViewScreen):
    headline = StringProperty("")

    def update(self, view):
        gv = view.get("game_view") or {}
        battles = gv.get("battles_now") or []
        box = self.ids.battles
        box.clear_widgets()
        for b in battles:
            box.add_widget(self._panel(view, b))
        if not battles:
            box.add_widget(TMuted(text="No battle is being fought.", halign="center"))
        kind = "PvP battle" if battles and battles[0].get("kind") == "pvp" else "Battle"
        self.headline = f"{kind} {gv.get('battle', '')} of {gv.get('battles', '')}"

    def _panel(self, view, b):
        u = self.app.u
        w = model.find_window(view, b.get("window") or "")
        locks = {x.seat: x for x in model.window_locks(view, w)} if w else {}
        if b.get("over"):
            status = {"won": "won", "lost": "lost"}.get(b.get("result"), "over")
            if b.get("winner") is not None and b.get("kind") == "pvp":
                status = f"{model.names(view, [b['winner']])} wins"
        else:
            done = sum(1 for x in locks.values() if x.state == "locked")
            status = f"turn {b.get('turn')} \u00b7 {done} of {len(locks)} locked" \
                if locks else f"turn {b.get('turn')}"
        p = BattlePanel(title=("PvP " if b.get("kind") == "pvp" else "") +
                        f"{model.names(view, b.get('seats') or [])}",
                        status=status, lit=not b.get("over"))
        rows = p.ids.rows
        for m in b.get("monsters") or []:
            rows.add_widget(self._monster(m))
        for s in b.get("seats") or []:
            f = (b.get("fighters") or {}).get(str(s)) or {}
            rows.add_widget(self._fighter(view, s, f, locks.get(s)))
        last = b.get("last_turn") or {}
        order = last.get("order") or []
        if order:
            rows.add_widget(TMuted(text="Turn order: " + " \u2192 ".join(
                actor_name(view, b, a) for a in order), font_name=theme.FONT_SYM,
                size_hint_y=None, height=u * 22, shorten=True, shorten_ok=True,
                shorten_from="right"))
        for e in (last.get("log") or [])[-3:]:
            rows.add_widget(TMuted(text=log_line(view, b, e), fs=12.5, size_hint_y=None,
                                   height=u * 18, shorten=True, shorten_ok=True,
                                   shorten_from="right"))
        rows.add_widget(Widget())
        return p

    def _monster(self, m):
        u = self.app.u
        row = BoxLayout(orientation="vertical", size_hint_y=None, height=u * 58,
                        spacing=u * 2)
        top = BoxLayout(spacing=u * 6)
        top.add_widget(TLabel(text=m["name"], font_name=theme.FONT_BOLD, shorten=True,
                              shorten_ok=True, shorten_from="right"))
        top.add_widget(Chip(text=m.get("difficulty", ""), bg=DIFF.get(m.get("difficulty"),
                                                                      theme.LINE),
                            size_hint_x=None, width=u * 64))
        row.add_widget(top)
        row.add_widget(Bar(value=m["hp"], maximum=m["max_hp"] or 1, colour=theme.DANGER,
                           text=f"{m['hp']} / {m['max_hp']} HP  \u00b7  ATK {m['attack']}"
                                f"  \u00b7  SPD {m['speed']}"))
        return row

    def _fighter(self, view, s, f, lock):
        u = self.app.u
        row = BoxLayout(size_hint_y=None, height=u * 30, spacing=u * 6)
        row.add_widget(Dot(colour=theme.seat_colour(s), size_hint_x=None, width=u * 12))
        row.add_widget(TLabel(text=model.names(view, [s]), font_name=theme.FONT_BOLD,
                              fs=15, size_hint_x=0.3, shorten=True, shorten_ok=True,
                              shorten_from="right"))
        hp, mx = f.get("hp", 0), f.get("max_hp", 0) or 1
        row.add_widget(Bar(value=hp, maximum=mx, colour=theme.OK if hp > 0 else theme.DIM,
                           text=f"{hp} / {mx} HP"))
        row.add_widget(TLabel(text=f"ST {f.get('stamina', 0)}", fs=14, halign="center",
                              size_hint_x=None, width=u * 52))
        if hp <= 0:
            word, colour = "out", theme.DIM
        elif lock is not None and lock.state == "locked":
            word, colour = "\u2713", theme.OK
        elif lock is not None:
            word, colour = "\u2026", theme.MUTED
        else:
            word, colour = "", theme.MUTED
        row.add_widget(TLabel(text=word, font_name=theme.FONT_SYM, color=colour,
                              halign="center", size_hint_x=None, width=u * 26))
        return row


DIFF = {"easy": theme.OK, "medium": theme.WARN, "hard": theme.DANGER}
