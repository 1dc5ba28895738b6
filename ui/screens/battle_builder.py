"""Battle Builder: each battle on the table, the monster with its HP, every fighter's HP and
stamina, who has locked this turn's card, and the turn order and log after the reveal."""
from kivy.properties import BooleanProperty, ColorProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from ui import model, theme
from ui.adapters.battle_builder import actor_name, log_line
from ui.screens.base import ViewScreen
from ui.widgets.bar import Bar  # noqa: F401  (used by bb_battle.kv)
from ui.widgets.common import TText, fill

DIFF = {"easy": theme.OK, "medium": theme.WARN, "hard": theme.DANGER}


class MonsterRow(BoxLayout):
    name = StringProperty("")
    difficulty = StringProperty("")
    hp = NumericProperty(0)
    max_hp = NumericProperty(1)
    stats = StringProperty("")
    diff_colour = ColorProperty(theme.LINE)


class FighterRow(BoxLayout):
    name = StringProperty("")
    colour = ColorProperty(theme.MUTED)
    hp = NumericProperty(0)
    max_hp = NumericProperty(1)
    stamina = StringProperty("")
    mark = StringProperty("")
    mark_colour = ColorProperty(theme.MUTED)


class LogLine(TText):
    """A line of the last turn, wrapped (layout in bb_battle.kv)."""


class BattlePanel(BoxLayout):
    title = StringProperty("")
    status = StringProperty("")
    order = StringProperty("")
    lit = BooleanProperty(False)


class BattleScreen(ViewScreen):
    headline = StringProperty("")

    def update(self, view):
        gv = view.get("game_view") or {}
        battles = gv.get("battles_now") or []
        fill(self.ids.battles, battles, BattlePanel, lambda p, b: self._panel(p, view, b))
        self.ids.none.opacity = 0 if battles else 1
        if battles and battles[0].get("kind") == "pvp":
            # PvPs are counted on their own: "PvP 2 of 3", never the monster battle's number
            self.headline = f"PvP {gv.get('pvp_no', '')} of {gv.get('pvps', '')} \u00b7 after " \
                            f"battle {gv.get('battle', '')} of {gv.get('battles', '')}"
        else:
            self.headline = f"Battle {gv.get('battle', '')} of {gv.get('battles', '')}"

    def _panel(self, p, view, b):
        w = model.find_window(view, b.get("window") or "")
        locks = {x.seat: x for x in model.window_locks(view, w)} if w else {}
        if b.get("over"):
            status = {"won": "won", "lost": "lost"}.get(b.get("result"), "over")
            if b.get("winner") is not None and b.get("kind") == "pvp":
                status = f"{model.names(view, [b['winner']])} wins"
        else:
            done = sum(1 for x in locks.values() if x.state == "locked")
            status = f"Turn {b.get('turn')} \u00b7 {done} of {len(locks)} locked" \
                if locks else f"Turn {b.get('turn')}"
        p.title = ("PvP " if b.get("kind") == "pvp" else "") + \
            model.names(view, b.get("seats") or [])
        p.status, p.lit = status, not b.get("over")

        def monster(r, m):
            r.name, r.difficulty = m["name"], m.get("difficulty", "")
            r.diff_colour = DIFF.get(m.get("difficulty"), theme.LINE)
            r.hp, r.max_hp = m["hp"], m["max_hp"] or 1
            r.stats = f"{m['hp']} / {m['max_hp']} HP  \u00b7  ATK {m['attack']}" \
                      f"  \u00b7  SPD {m['speed']}"
        fill(p.ids.monsters, b.get("monsters") or [], MonsterRow, monster)

        def fighter(r, s):
            f = (b.get("fighters") or {}).get(str(s)) or {}
            lock = locks.get(s)
            r.name, r.colour = model.names(view, [s]), theme.seat_colour(s)
            r.hp, r.max_hp = f.get("hp", 0), f.get("max_hp", 0) or 1
            r.stamina = f"ST {f.get('stamina', 0)}"
            if r.hp <= 0:
                r.mark, r.mark_colour = "out", theme.DIM
            elif lock is not None and lock.state == "locked":
                r.mark, r.mark_colour = "\u2713", theme.OK
            elif lock is not None:
                r.mark, r.mark_colour = "\u2026", theme.MUTED
            else:
                r.mark = ""
        fill(p.ids.fighters, b.get("seats") or [], FighterRow, fighter)
        last = b.get("last_turn") or {}
        order = last.get("order") or []
        p.order = ("Turn order: " + " \u2192 ".join(actor_name(view, b, a) for a in order)) \
            if order else ""

        def put(lab, e):
            lab.text = log_line(view, b, e)
        fill(p.ids.log, last.get("log") or [], LogLine, put)
