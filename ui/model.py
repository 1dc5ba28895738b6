"""Pure helpers that turn the hub's *public* view into what the screens show.

No Kivy here, so all of it is tested without a window. Nothing here knows a game's rules: it
formats, orders and checks what the public view already says.
"""
import dataclasses

from companion.core.args import is_whole
from companion.core.clock import fmt_clock  # noqa: F401  (the screens' name for it)
from companion.core.sealed import verify


# -- time ---------------------------------------------------------------------------------------
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
        if is_whole(v) and v > 0:
            return v
    opts = (view.get("hub") or {}).get("options") or {}
    for key in ("rounds", "turns"):
        v = opts.get(key)
        if is_whole(v) and v > 0:
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


def game_over_text(view: dict) -> str:
    """``Game over: Ann wins.`` (or ``Ann and Bo win.``) once the game has ended."""
    winners = (view.get("outcome") or {}).get("winners") or []
    if not winners:
        return "Game over."
    return f"Game over: {names(view, winners)} {'wins' if len(winners) == 1 else 'win'}."


def waiting_text(view: dict) -> str:
    w = view.get("waiting") or []
    if view.get("table_prompt"):
        return "The table's turn: its buttons are below."
    if not w:
        return ""
    what = (view.get("game_view") or {}).get("waiting_for")
    return f"Waiting for {names(view, w)}" + (f": {what}." if what else ".")


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


def says(notices) -> list:
    """The sentences of the public notices that say themselves in words (``says``: "Ann
    played Assassination on Bo: ...", "P0 and P1 defeated Slime: ..."), in order."""
    return [n["says"] for n in public_notices(notices) if isinstance(n.get("says"), str)]


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
    "club": "Club",
    "club_joined": "Club \u2713",
}
ALERT_TONES = {"reader": "danger", "reader_unplugged": "danger", "network": "danger",
               "devices": "danger", "club_joined": "ok"}


def alert_rows(view: dict, dismissed=frozenset()) -> list:
    """``[(title, message, tone, key)]`` for the banners, newest last, without dismissed
    ones. A refused scan's alert is left out when the hub reports the scan itself
    (``hub.scan``): :func:`scan_row` shows it under the right heading."""
    out = []
    hub = view.get("hub") or {}
    for a in hub.get("alerts") or []:
        key = (a.get("kind"), a.get("message"))
        if key in dismissed:
            continue
        if a.get("kind") == "scan" and hub.get("scan"):
            continue
        kind = a.get("kind") or "alert"
        title = ALERT_TITLES.get(kind, kind.replace("_", " ").capitalize())
        out.append((title, a.get("message") or "", ALERT_TONES.get(kind, "warn"), key))
    return out


SCAN_TITLES = {"matched": "Card scanned \u2713", "recorded": "Card scanned",
               "read": "Card scanned", "mismatch": "Scanned card does not match",
               "refused": "Scan not accepted", "unknown": "Card not recognised",
               "settled": "Scanned card settled"}
SCAN_TONES = {"matched": "ok", "recorded": "info", "read": "info", "mismatch": "danger",
              "settled": "info",
              "refused": "warn", "unknown": "warn"}
SCAN_STICKY = ("mismatch", "refused", "unknown")     # shown until their phase ends


def scan_row(scan: dict | None):
    """The banner acknowledging a card scan (``hub.scan``): what was read and whether it
    matches, as ``(title, message, tone, key)``; None when there is none."""
    if not scan:
        return None
    result = scan.get("result") or "read"
    name = scan.get("name") or scan.get("card")
    message = scan.get("message") or ""
    if name and result != "unknown":
        message = f"{name}: {message}" if message else str(name)
    return (SCAN_TITLES.get(result, "Card scanned"), message,
            SCAN_TONES.get(result, "info"), ("scan", scan.get("at")))


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
    """Where the game is: a tab tapped here holds until this changes (the game ending is a
    change: the Victory screen takes over at once)."""
    return (view.get("session"), view.get("phase"), view.get("round"),
            view.get("outcome") is not None)


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
        return adapter.at_end(view, nav.acks, journal) or "victory"
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


# -- pickers drawn from legal-move specs (docs/protocol.md 4.7) ------------------------------------
def _key(v):
    import json
    return json.dumps(v, sort_keys=True)


def pick_defaults(specs) -> dict:
    """The arguments a picker starts with: each active spec's ``default``, a number's zero (or
    its lowest value when zero is out of range), a flag's default. Nothing is chosen for the player in a ``one``/``order``/``subset``
    unless the spec says so."""
    return pick_prune(specs, {}, fill=True)


def pick_prune(specs, args, fill=False) -> dict:
    """``args`` with every answer that no longer applies dropped (an earlier answer changed
    which specs or options hold), in spec order. ``fill``: give unanswered numbers, flags and
    counts their starting value."""
    from companion.core import choices
    out = {}
    seen = set()
    for s in specs:
        name = s["name"]
        if name in seen or not choices._holds(s.get("when"), out):
            continue
        seen.add(name)
        kind = s["kind"]
        vals = {_key(o["value"]) for o in choices.options_now(s, out)
                if not o.get("disabled")}
        v = args.get(name)
        has = name in args
        if has and kind == "one" and _key(v) not in vals:
            has = False
        if has and kind in ("order", "subset"):
            v = [x for x in (v or []) if _key(x) in vals]
        if has and kind == "counts":
            v = {k: n for k, n in (v or {}).items() if _key(_count_value(s, out, k)) in vals}
        if has and kind == "number" and not (isinstance(v, int) and s["min"] <= v <= s["max"]):
            has = False
        if has:
            out[name] = v
        elif "default" in s and s["default"] is not None:
            out[name] = s["default"]
        elif fill and kind == "number":
            out[name] = 0 if s["min"] <= 0 <= s["max"] else s["min"]
        elif fill and kind == "flag":
            out[name] = bool(s.get("default", False))
        elif fill and kind == "counts":
            out[name] = {}
        elif fill and kind in ("order", "subset"):
            out[name] = []
    return out


def _count_value(spec, args, key):
    from companion.core import choices
    for o in choices.options_now(spec, args):
        if str(o["value"]) == key:
            return o["value"]
    return key


def pick_rows(specs, args) -> list:
    """``[(spec, options)]``: the questions to show now, in order, with their options as they
    stand given the answers so far."""
    from companion.core import choices
    return [(s, choices.options_now(s, args)) for s in choices.active(specs, args)]


def pick_problem(specs, args) -> str:
    """Why these answers cannot be sent yet (a sentence), or "" when they can."""
    from companion.core import choices
    from companion.core.errors import IllegalMoveError
    try:
        choices.check(specs, pick_clean(specs, args))
    except IllegalMoveError as e:
        return str(e)
    return ""


def pick_clean(specs, args) -> dict:
    """The arguments to send: zeros left out of counts, empty optional answers left out."""
    from companion.core import choices
    out = {}
    for s in choices.active(specs, args):
        name = s["name"]
        if name not in args:
            continue
        v = args[name]
        if s["kind"] == "counts":
            v = {k: n for k, n in v.items() if n}
        if s.get("optional") and v in ([], {}, None):
            continue
        out[name] = v
    return out


def pick_toggle(spec, current, value) -> list:
    """A tap on an option of an ``order`` or ``subset``: add it (at the end) or take it out;
    a full pick takes no more."""
    cur = list(current or [])
    k = _key(value)
    if any(_key(x) == k for x in cur):
        return [x for x in cur if _key(x) != k]
    if len(cur) >= spec.get("max", len(cur) + 1):
        if spec.get("max") == 1:
            return [value]
        return cur
    return cur + [value]


def pick_step_count(spec, current, key, by, options) -> dict:
    """A +/- on one option of a ``counts``: within the option's own ``max``, and the sum within
    the spec's ``total`` (or ``max``)."""
    cur = dict(current or {})
    cap = next((int(o.get("max", 10**6)) for o in options if str(o["value"]) == key), 0)
    hi = spec.get("total", spec.get("max", 10**6))
    n = cur.get(key, 0) + by
    if n < 0 or n > cap or (by > 0 and sum(cur.values()) + by > hi):
        return cur
    cur[key] = n
    return cur


def pick_room(spec, current, key, options) -> int:
    """How many one tap may add to one option of a ``counts`` at once: what is left of the
    total (or ``max``), within the option's own ``max``."""
    cur = dict(current or {})
    cap = next((int(o.get("max", 10**6)) for o in options if str(o["value"]) == key), 0)
    hi = spec.get("total", spec.get("max", 10**6))
    return max(0, min(cap - cur.get(key, 0), hi - sum(cur.values())))


def pick_fill_count(spec, current, key, options) -> dict:
    """All that is left on one option of a ``counts`` (a draw of eight from one pile is
    one tap, not eight)."""
    cur = dict(current or {})
    add = pick_room(spec, cur, key, options)
    if add:
        cur[key] = cur.get(key, 0) + add
    return cur


def spec_question(spec, value=None) -> str:
    """The question a spec asks now: an ordered pick with ``pick_labels`` asks the one for its
    next pick ("Which Policy resolves second?"), else its ``label``."""
    picks = spec.get("pick_labels") or []
    if spec.get("kind") == "order" and picks:
        n = len(value or [])
        return picks[n] if n < len(picks) else spec.get("label") or ""
    return spec.get("label") or ""


def pick_summary(spec, value, options) -> str:
    """An answer in words (for the confirm line)."""
    labels = {_key(o["value"]): o["label"] for o in options}
    kind = spec["kind"]
    if kind == "one":
        return labels.get(_key(value), str(value))
    if kind in ("order", "subset"):
        return ", ".join(labels.get(_key(v), str(v)) for v in value or []) or "none"
    if kind == "counts":
        by = {str(o["value"]): o["label"] for o in options}
        return ", ".join(f"{n} {by.get(k, k)}" for k, n in (value or {}).items() if n) or \
            "none"
    if kind == "flag":
        return "yes" if value else "no"
    return str(value)


# -- the box ----------------------------------------------------------------------------------------
NO_NETWORK = "No network yet: phones can join when the box is on Wi-Fi or Ethernet."


def join_seats_text(seats: list, offline: bool = False) -> str:
    """What the join QR is for, from the public seats: the free seats, the seats whose phones
    are offline (their players scan it and type their name to come back: protocol section 9.3),
    or that every seat has a phone. ``offline``: the box has no network yet (no QR to scan).

    >>> join_seats_text([{"seat": 0, "name": "Ann", "phone": True, "online": True},
    ...                  {"seat": 1, "name": "Bo", "phone": True, "online": False},
    ...                  {"seat": 2, "name": "Seat 3", "phone": False}])
    'Free: Seat 3. A new phone scans this and takes a free seat. Phone offline: Bo. Scan this and type the name to come back to that seat.'
    """
    if not seats:
        return "Choose a game on Home first."
    name = lambda s: s.get("name") or f"Seat {s['seat'] + 1}"      # noqa: E731
    free = [name(s) for s in seats if not s.get("phone")]
    away = [name(s) for s in seats if s.get("phone") and not s.get("online")]
    parts = []
    if free:
        parts.append(f"Free: {', '.join(free)}." + (
            "" if offline else " A new phone scans this and takes a free seat."))
    if away:
        parts.append(f"Phone offline: {', '.join(away)}." + (
            "" if offline else " Scan this and type the name to come back to that seat."))
    if not parts:
        parts.append("Every seat has a phone." + (
            "" if offline else " A player whose phone dropped out scans this and types their "
                               "name to come back."))
    return " ".join(parts)


def service_status(view: dict, screen: str, title: str = "") -> str:
    """What the table is doing, in one line for ``systemctl status``.

    >>> hub = {"game": "great-powers", "seats": [{"phone": True, "online": True}] * 4}
    >>> service_status({"session": 3, "round": 2, "hub": hub}, "gp_action", "Great Powers")
    'Great Powers, round 2, 4 phones'
    >>> service_status({"hub": hub}, "home")
    'Home: choose a game'
    >>> service_status({"hub": dict(hub, seats=[{"phone": True}, {}])}, "lobby", "Great Powers")
    'Great Powers: setting up, 1 of 2 phones joined'
    """
    hub = view.get("hub") or {}
    seats = hub.get("seats") or []
    if screen == "home" or not (view.get("session") is not None or hub.get("game")):
        return "Home: choose a game"
    title = title or view.get("title") or hub.get("game") or "A game"
    if view.get("session") is None:
        joined = sum(1 for s in seats if s.get("phone"))
        return f"{title}: setting up, {joined} of {len(seats)} phones joined"
    if view.get("outcome") is not None:
        return f"{title}: game over"
    online = sum(1 for s in seats if s.get("phone") and s.get("online"))
    parts = [title]
    if view.get("round"):
        parts.append(f"round {view['round']}")
    parts.append(f"{online} phone{'' if online == 1 else 's'}")
    return ", ".join(parts)
