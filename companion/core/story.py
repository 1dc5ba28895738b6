"""The story of a session: what happened, in sentences, for every screen's feed.

Each entry is ``{"rev": r, "says": "..."}`` (plus ``"to": seat`` for a sentence meant for one
seat alone): ``rev`` is the revision of the session's log whose documents first show it. The
sentences are derived from the notices each command made (:func:`entries`), so a session
loaded from its log tells the same story (``session.replay_story``) and nothing needs
storing.

What goes in: every notice that says itself in words (``says``, the games' own sentences,
public or addressed to one seat), a lock-in ("Ann locked in."), a lock-in the table took back,
any other undo, a reveal, a correction, a rename, a timer paused or running again or run out,
where the game is now (once per command) and its end. A secret never does: a lock-in says who,
never what, and a notice addressed to a seat keeps its ``to``, which every projection honours
(:func:`visible`).
"""
from __future__ import annotations

import re

from .clock import fmt_clock

def and_words(items) -> str:
    """``a``, ``a and b``, ``a, b and c``: names or things in one sentence (every game's)."""
    items = list(items)
    return " and ".join(items) if len(items) < 3 else ", ".join(items[:-1]) + " and " + items[-1]


#: Entries a view carries: the newest public ones (and a seat's own alongside them).
SHOWN = 30


#: What the table's own commands were, for "The table undid ...".
_UNDONE = {"Corrected": "a correction", "TimerPaused": "a pause",
           "TimerResumed": "a timer's restart", "WindowClosed": "closing a choice",
           "GameEndedEarly": "ending the game"}


def _name(state, seat) -> str:
    if isinstance(seat, int) and 0 <= seat < len(state.players):
        return state.players[seat]
    return "The table" if seat is None else f"Seat {seat}"


def _words(kind: str) -> str:
    """``NumberSealed`` -> ``number sealed``."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", str(kind or "the last move")).lower()


def _timer(name) -> str:
    return "The " + re.sub(r"[-_]+", " ", str(name).split(":")[0]) + " timer"


def _phase(game, state, phase, rnd) -> str:
    p = game.phases.get(phase) if game is not None else None
    label = (getattr(p, "label", None) or str(phase).replace("_", " ").capitalize())
    return f"Now: {label}" + (f", round {rnd}." if rnd else ".")


def doing(game, state, rec) -> str | None:
    """What a seat's (or the table's) move was, by its name, for a move whose notices say
    nothing in words: "Di: Take a card." (never its arguments; nothing for a private
    move, which no other view shows)."""
    if rec.get("kind") != "move":
        return None
    m = game.moves.get(rec.get("move")) if game is not None else None
    if m is not None and m.private:
        return None                     # a move the views keep to its seat: nobody is told
    label = m.title() if m is not None else _words(rec.get("move"))
    return f"{_name(state, rec.get('seat'))}: {label}."


def entries(game, state, notices, rev, rec=None) -> list:
    """The story entries of one command's ``notices`` (in order), shown from ``rev`` on;
    ``rec``, the command's record: a move that says nothing else is told by its name."""
    out = []
    phase = None
    withdrawn = False

    def add(says, to=None, not_for=None):
        e = {"rev": rev, "says": says}
        if to is not None:
            e["to"] = to
        if not_for is not None:
            e["not_for"] = not_for      # that seat has its own sentence of it ("... on you")
        out.append(e)

    for n in notices or ():
        kind = n.get("kind")
        to = n.get("to")
        if isinstance(n.get("says"), str) and n["says"]:
            add(n["says"], to, n.get("not_for"))
            continue
        if to is not None:
            continue                    # a private fact without words: nothing to say
        if kind == "ChoiceLocked":
            add(f"{_name(state, n.get('seat'))} locked in.")
        elif kind == "ChoiceWithdrawn":
            withdrawn = True
            add(f"The table undid {_name(state, n.get('seat'))}’s lock-in.")
        elif kind == "Undone":
            if withdrawn:
                continue                # said by the lock-in it took back
            if isinstance(n.get("seat"), int):
                what = n.get("label") or _words(n.get("what"))
                add(f"The table undid {_name(state, n['seat'])}’s move: {what}.")
            else:
                what = _UNDONE.get(n.get("what")) or n.get("label") or _words(n.get("what"))
                add(f"The table undid {what}.")
        elif kind == "ChoicesRevealed":
            w = state.windows.get(n.get("window"))
            label = w.label if w is not None and w.label else "the secret choices"
            add(f"Revealed: {label}" + ("" if label.endswith(("?", "!", ".")) else "."))
        elif kind == "WindowClosed" and n.get("defaulted"):
            who = ", ".join(_name(state, s) for s in n["defaulted"])
            add(f"The table closed the choice: {who} made no choice.")
        elif kind == "Corrected":
            d = n.get("delta") or 0
            whose = "" if n.get("seat") is None else _name(state, n.get("seat")) + "’s "
            add(f"Correction: {whose}{n.get('counter')} {'+' if d > 0 else ''}{d}, now "
                f"{n.get('value')} ({n.get('reason')}).")
        elif kind == "SeatRenamed":
            if re.fullmatch(r"Seat \d+", str(n.get("old") or "")):
                # a free seat's placeholder name is no player: a late joiner took the seat
                add(f"{n.get('name')} took a free seat.")
            else:
                add(f"{n.get('old') or 'A player'} is now {n.get('name')}.")
        elif kind == "TimerPaused":
            add(f"{_timer(n.get('timer'))} is paused at {fmt_clock(n.get('remaining'))}.")
        elif kind == "TimerResumed":
            add(f"{_timer(n.get('timer'))} is running again: {fmt_clock(n.get('remaining'))} "
                f"left.")
        elif kind == "TimerExpired":
            add(f"{_timer(n.get('timer'))} ran out.")
        elif kind == "PhaseBegan":
            phase = (n.get("phase"), n.get("round"))
        elif kind == "GameEnded":
            names = [_name(state, s) for s in n.get("winners") or ()]
            who = " and ".join(names) if len(names) < 3 else \
                ", ".join(names[:-1]) + " and " + names[-1]
            why = str(n.get("reason") or "").strip().rstrip(".")
            add(f"Game over: {who or 'nobody'} {'wins' if len(names) == 1 else 'win'}"
                + (f" ({why})." if why else "."))
    if rec is not None and not any("to" not in e for e in out):
        told = doing(game, state, rec)
        if told:
            add(told)
    if phase is not None and state.outcome is None:
        # a phase's on_begin may count the round on (PhaseBegan has the round before it)
        add(_phase(game, state, phase[0],
                   state.round if phase[0] == state.phase else phase[1]))
    return out


def begun(game, state) -> list:
    """The first entries: the game began (rev 1), and where it stands."""
    title = getattr(game, "title", None) or "The game"
    # a free seat's placeholder ("Seat 4") is no player's name: said as a free seat
    who = [("a free seat" if re.fullmatch(r"Seat \d+", p) else p) for p in state.players]
    out = [{"rev": 1, "says": f"{title} began: {', '.join(who)}."}]
    return out + entries(game, state, state.notices, 1)


def visible(story, viewer=None, shown=SHOWN) -> list:
    """What ``viewer`` (a seat, None: the public) may see of ``story``: the newest ``shown``
    public entries and, for a seat, its own entries among them (from the oldest public entry
    shown on). A seat's list without its own entries is the public list exactly, less a public
    entry marked ``not_for`` that seat (it has its own words for it: "... on you", never also
    "... on Alice")."""
    public = [i for i, e in enumerate(story) if "to" not in e][-shown:]
    if viewer is None:
        return [dict(story[i]) for i in public]
    start = public[0] if public and len(public) == shown else 0
    return [dict(e) for e in story[start:] if e.get("to", viewer) == viewer and
            e.get("not_for") != viewer]
