"""Pure helpers that turn the hub's *public* view into what the screens show.

No Kivy here, so all of it is tested without a window. Nothing here knows a game's rules: it
formats, orders and checks what the public view already says.
"""
import dataclasses
import math

from companion.core.sealed import verify


# -- time ---------------------------------------------------------------------------------------
def fmt_clock(seconds: float) -> str:
    """A countdown as players read it: whole seconds rounded up, ``m:ss``.

    >>> fmt_clock(180), fmt_clock(29.2), fmt_clock(0.0), fmt_clock(-3)
    ('3:00', '0:30', '0:00', '0:00')
    """
    s = max(0, math.ceil(round(seconds, 3)))
    return f"{s // 60}:{s % 60:02d}"


def timer_left(timer: dict, now: float | None) -> float:
    """Seconds left on a public-view timer at session time ``now`` (``left`` when paused or when
    no clock is known)."""
    if timer.get("paused") or timer.get("deadline") is None or now is None:
        return max(0.0, float(timer.get("left", 0.0)))
    return max(0.0, timer["deadline"] - now)


def timer_mode(timer: dict, left: float) -> str:
    """``paused``, ``done``, ``warning`` (inside the warning window) or ``running``."""
    if timer.get("paused"):
        return "paused"
    if left <= 0:
        return "done"
    warn = float(timer.get("warn_before") or 0)
    if warn > 0 and left <= warn + 1e-9:
        return "warning"
    return "running"


def main_timer(view: dict):
    """The timer the table cares about most: a running one, soonest first; else a paused one."""
    timers = list((view.get("timers") or {}).items())
    if not timers:
        return None, None
    timers.sort(key=lambda kv: (kv[1].get("paused", False), kv[1].get("left", 0.0)))
    return timers[0]


def timer_title(name: str) -> str:
    return name.replace("_", " ").replace("-", " ").strip().capitalize() or "Timer"


# -- phases and rounds --------------------------------------------------------------------------
def phase_ring(game) -> list:
    """``[(name, label)]`` of a game's phases in their declared order (the ring)."""
    return [(name, ph.label or name.replace("_", " ").title())
            for name, ph in game.phases.items()]


def rounds_total(view: dict):
    """How many rounds the game has, if the public view or the options say."""
    gv = view.get("game_view") or {}
    for key in ("rounds", "turns", "max_rounds", "round_limit"):
        v = gv.get(key)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return v
    opts = (view.get("hub") or {}).get("options") or {}
    for key in ("rounds", "turns"):
        v = opts.get(key)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return v
    return None


def round_text(view: dict, word: str = "Round") -> str:
    n, total = view.get("round") or 0, rounds_total(view)
    if not n:
        return ""
    return f"{word} {n} of {total}" if total else f"{word} {n}"


def names(view: dict, seats) -> str:
    players = view.get("players") or []
    out = [players[s] if isinstance(s, int) and 0 <= s < len(players) else "the table"
           for s in seats]
    if len(out) <= 1:
        return "".join(out)
    return ", ".join(out[:-1]) + " and " + out[-1]


def waiting_text(view: dict) -> str:
    w = view.get("waiting") or []
    if view.get("table_prompt"):
        return "The table: tap Next to go on."
    if not w:
        return ""
    return f"Waiting for {names(view, w)}."


def next_label(view: dict) -> str:
    p = view.get("table_prompt") or {}
    for key in ("label", "next_label", "button"):
        if isinstance(p.get(key), str) and p[key]:
            return p[key]
    return "Next"


# -- sealed choices -----------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class SeatLock:
    seat: int
    name: str
    state: str            # "choosing", "locked", "revealed", "defaulted", "mismatch"
    commitment: str       # short form, "" if none
    choice: object = None


def window_locks(view: dict, window: dict) -> list:
    """Each seat of a sealed window: has it locked, and after the reveal, does the revealed
    choice match the commitment published at lock-in (checked here, independently)."""
    players = view.get("players") or []
    out = []
    for s in window.get("seats", []):
        name = players[s] if s < len(players) else f"Seat {s + 1}"
        e = window.get("locked", {}).get(str(s))
        if e is None:
            out.append(SeatLock(s, name, "choosing", ""))
            continue
        short = (e.get("commitment") or "")[:8]
        if not window.get("revealed"):
            out.append(SeatLock(s, name, "locked", short))
        elif e.get("defaulted"):
            out.append(SeatLock(s, name, "defaulted", "", e.get("choice")))
        elif verify(window["id"], s, e.get("choice"), e.get("salt", ""), e.get("commitment")):
            out.append(SeatLock(s, name, "revealed", short, e.get("choice")))
        else:
            out.append(SeatLock(s, name, "mismatch", short, e.get("choice")))
    return out


def open_window(view: dict, kind: str | None = None):
    for w in view.get("windows") or []:
        if not w.get("revealed") and (kind is None or w.get("kind") == kind):
            return w
    return None


def find_window(view: dict, wid: str):
    for w in view.get("windows") or []:
        if w.get("id") == wid:
            return w
    return None


# -- notices and alerts ---------------------------------------------------------------------------
def public_notices(notices) -> list:
    """The notices anyone may see: private ones (addressed ``to`` a seat) are dropped. This is
    the same projection the core's public view applies; the screen never sees the others."""
    return [dict(n) for n in notices or () if "to" not in n]


class Journal:
    """Public notices in the order the table saw them, one entry per command, so a screen can
    show what a cascade of phases did (a score phase that passed in one command, say). Undo
    takes back the last command: its entry goes too."""

    def __init__(self, limit=60):
        self.entries = []           # [(version, [notice, ...])]
        self.limit = limit

    def add(self, version, notices):
        notices = public_notices(notices)
        if any(n.get("kind") == "Undone" for n in notices):
            if self.entries:
                self.entries.pop()
            return
        if self.entries and self.entries[-1][0] >= version:
            return                   # already seen (a view re-read)
        self.entries.append((version, notices))
        del self.entries[:-self.limit]

    def clear(self):
        self.entries = []

    def notices(self):
        for _, ns in self.entries:
            yield from ns


ALERT_TITLES = {
    "scan": "Card not recognised",
    "unknown_card": "Card not recognised",
    "reader": "Card reader",
    "reader_unplugged": "Card reader unplugged",
    "devices": "Buzzer and buttons",
    "phone_disconnected": "Phone disconnected",
    "button": "Button",
    "timer": "Timer",
    "network": "Network",
}
ALERT_TONES = {"reader": "danger", "reader_unplugged": "danger", "network": "danger",
               "devices": "danger"}


def alert_rows(view: dict, dismissed=frozenset()) -> list:
    """``[(title, message, tone)]`` for the banners, newest last, without dismissed ones."""
    out = []
    for a in (view.get("hub") or {}).get("alerts") or []:
        key = (a.get("kind"), a.get("message"))
        if key in dismissed:
            continue
        kind = a.get("kind") or "alert"
        title = ALERT_TITLES.get(kind, kind.replace("_", " ").capitalize())
        out.append((title, a.get("message") or "", ALERT_TONES.get(kind, "warn"), key))
    return out


# -- navigation -----------------------------------------------------------------------------------
@dataclasses.dataclass
class Nav:
    """Where the screen is. ``follow``: the screen follows the game (the phase decides);
    a tab tapped by a player stays until the phase or round changes."""
    home: bool = False               # the table asked for Home (new game)
    tab: str | None = None
    tab_at: tuple | None = None      # (session, phase, round) when the tab was chosen
    acks: set = dataclasses.field(default_factory=set)


def where(view: dict) -> tuple:
    return (view.get("session"), view.get("phase"), view.get("round"))


def route(view: dict, nav: Nav, adapter, journal=None) -> str:
    if view.get("session") is None:
        if nav.home or not (view.get("hub") or {}).get("game"):
            return "home"
        return "lobby"
    if nav.home:
        return "home"
    if view.get("outcome") is not None:
        if nav.tab and nav.tab_at == where(view):
            return nav.tab
        return "victory"
    if nav.tab:
        if nav.tab_at == where(view):
            return nav.tab
        nav.tab = nav.tab_at = None
    name = adapter.route(view, nav.acks, journal)
    if name:
        return name
    if view.get("timers"):
        return "timer"          # running or paused: the table wants to see it
    return "round"
