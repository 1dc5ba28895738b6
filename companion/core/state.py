"""Game state: the flow bookkeeping (phase, round, prompts, sealed windows, timers, outcome)
apart from the game's own data (``state.data``, owned by the game module).

The state is mutable and is only ever changed by the core applying a recorded command, so a
session's log folds back into an identical state (see :meth:`State.fingerprint`).
"""
import dataclasses
import json
import random

from . import flow as _flow
from .errors import IllegalMoveError
from .sealed import Window


@dataclasses.dataclass
class Timer:
    """A deadline on the session clock. Paused timers keep ``remaining`` instead."""
    name: str
    duration: float
    deadline: float | None          # None while paused
    remaining: float                # valid while paused
    warn_before: float = 0.0        # seconds before the deadline when the table is warned
    warned: bool = False            # the warning was given (recorded: never twice)

    def left(self, now: float) -> float:
        if self.deadline is None:
            return self.remaining
        return max(0.0, self.deadline - now)

    def is_paused(self) -> bool:
        return self.deadline is None


@dataclasses.dataclass
class Outcome:
    """How a game ended: the winning seats, why (a sentence), the final scores, and ``code``:
    a short name for the way it ended that ``companion stats`` groups by (each game names its
    own: ``last_turn``, ``boom``, ``stalled``...; the core's is ``ended_early``)."""
    winners: list
    reason: str
    scores: dict
    tiebreak: str | None = None
    code: str = "end"


def _no_note(kind, to=None, **data):
    """:meth:`State.note` of a lean state: nobody reads its notices."""


class State:
    def __init__(self, game, players, config, seed, lean=False):
        self.game_name = game.name
        self.players = list(players)        # display names, seat order = clockwise
        self.n = len(self.players)
        self.config = dict(config)
        self.seed = seed
        self.rng = random.Random(seed)
        self.data = None                    # the game's own data
        self.phase = None
        self.round = 0
        self.prompts = {}                   # seat (or None for the table) -> prompt dict
        self.windows = {}                   # window id -> Window
        self.timers = {}                    # name -> Timer
        self.outcome = None
        self.now = 0.0                      # session time of the command being applied
        self.seq = 0                        # commands applied
        self.last_reveal_seq = 0            # undo may not cross this
        self.phase_log = []                 # [phase, round, started_at, ended_at]
        self.notices = []                   # what the last command did, for views
        self.flow = _flow.Flow()            # pending steps and the questions they wait on
        self._derived = {}                  # key -> (record, its version, value)
        # A lean state (simulations, core/session.py LeanSession): no notices are kept and
        # sealed choices carry no salt or commitment; the rules run exactly as they do at a
        # table (tests/conformance/test_lean.py proves the outcomes equal).
        self.lean = lean
        if lean:
            self.note = _no_note

    # -- questions --------------------------------------------------------------------------
    def is_over(self) -> bool:
        return self.outcome is not None

    def seats(self):
        return range(self.n)

    def left_of(self, seat: int) -> int:
        return (seat + 1) % self.n

    def right_of(self, seat: int) -> int:
        return (seat - 1) % self.n

    def next_deadline(self):
        live = [t.deadline for t in self.timers.values() if t.deadline is not None]
        return min(live) if live else None

    # -- notices ----------------------------------------------------------------------------
    def note(self, kind: str, to=None, **data):
        """Record something that happened. ``to`` = a seat for a private notice."""
        data["kind"] = kind
        if to is not None:
            data["to"] = to
        self.notices.append(data)

    # -- prompts (who is expected to act, with what) ----------------------------------------
    def prompt(self, seat, moves, **info):
        info["moves"] = tuple(moves)
        self.prompts[seat] = info

    def clear_prompt(self, seat):
        self.prompts.pop(seat, None)

    # -- derived data (core/derived.py) ----------------------------------------------------
    def derived(self, key, compute, record):
        """``compute()``, cached until the :class:`~.derived.Tracked` ``record`` it reads
        changes (``key`` names the value, e.g. ``("mods", "slots")``)."""
        got = self._derived.get(key)
        version = record.version()
        if got is not None and got[0] is record and got[1] == version:
            return got[2]
        value = compute()
        self._derived[key] = (record, version, value)
        return value

    # -- pending steps (core/flow.py) ------------------------------------------------------
    def push(self, steps, front=False, lane=_flow.MAIN):
        """Queue steps for the flow to run: at the end, or (``front``) right after the running
        one."""
        self.flow.push(steps, front, lane)

    def ask(self, seat, moves, lane=_flow.MAIN, **info):
        """Pause the running step: ``seat`` (None: the table) is asked to make one of
        ``moves``. A step function returns what this returns."""
        return _flow.ask(self, seat, moves, lane, **info)

    def question(self, lane=_flow.MAIN):
        """The open question of a lane (``{"seat", "moves", ...}``), or None."""
        return self.flow.asks.get(lane)

    def waiting_step(self, seat, move, refusal=None):
        """The step that waits for ``seat``'s ``move``; ``refusal`` (a sentence a player can
        read) if none does."""
        return self.flow.waiting_step(seat, move, refusal)

    def resume(self, step):
        """The answer is in ``step``: it runs again when the flow settles."""
        _flow.resume(self, step)

    # -- sealed windows ---------------------------------------------------------------------
    def open_window(self, wid, kind, seats, on_reveal, default=None, label="",
                    hold=False) -> Window:
        """A sealed window. It reveals when every seat is in, or, with ``hold=True``, only
        when the game or the table closes it (a face-down card that stays down until a flip);
        then ``on_reveal(state, window)`` is called (a method of the game)."""
        if wid in self.windows:
            raise IllegalMoveError(f"window {wid} is already open")
        w = Window(wid, kind, seats, on_reveal, default=default, label=label, hold=hold)
        self.windows[wid] = w
        return w

    def window(self, wid) -> Window:
        try:
            return self.windows[wid]
        except KeyError:
            raise IllegalMoveError(f"There is no sealed choice called {wid}.") from None

    def open_windows(self):
        return [w for w in self.windows.values() if not w.revealed_flag]

    # -- timers -----------------------------------------------------------------------------
    def start_timer(self, name, duration, warn_before=0.0):
        self.timers[name] = Timer(name, float(duration), self.now + duration, float(duration),
                                  float(warn_before))
        self.note("TimerStarted", timer=name, duration=duration)

    def pause_timer(self, name):
        t = self.timers.get(name)
        if t is None or t.deadline is None:
            raise IllegalMoveError(f"The {name} timer is not running.")
        t.remaining = t.left(self.now)
        t.deadline = None
        self.note("TimerPaused", timer=name, remaining=t.remaining)

    def resume_timer(self, name):
        t = self.timers.get(name)
        if t is None or t.deadline is not None:
            raise IllegalMoveError(f"The {name} timer is not paused.")
        t.deadline = self.now + t.remaining
        self.note("TimerResumed", timer=name, remaining=t.remaining)

    def stop_timer(self, name):
        self.timers.pop(name, None)

    def due_timers(self, now):
        return [t.name for t in self.timers.values()
                if t.deadline is not None and t.deadline <= now]

    # -- ending -----------------------------------------------------------------------------
    def finish(self, winners, reason, scores, tiebreak=None, code="end"):
        """The game is over: ``code`` names how it ended (see :class:`Outcome`)."""
        self.outcome = Outcome(list(winners), reason, dict(scores), tiebreak, code)
        self.prompts.clear()
        self.note("GameEnded", winners=list(winners), reason=reason, tiebreak=tiebreak)

    # -- identity ---------------------------------------------------------------------------
    def fingerprint(self) -> str:
        """A canonical text of everything in the state; equal states give equal text."""
        body = {
            "game": self.game_name, "players": self.players, "config": self.config,
            "seed": self.seed, "rng": self.rng.getstate(), "data": _plain(self.data),
            "phase": self.phase, "round": self.round,
            "prompts": {str(k): v for k, v in self.prompts.items()},
            "windows": [w.fingerprint() for w in self.windows.values()],
            "timers": [dataclasses.asdict(t) for t in self.timers.values()],
            "outcome": dataclasses.asdict(self.outcome) if self.outcome else None,
            "seq": self.seq, "last_reveal_seq": self.last_reveal_seq,
            "phase_log": self.phase_log,
            "flow": {"steps": {str(k): v for k, v in self.flow.lanes.items()},
                     "asks": {str(k): v for k, v in self.flow.asks.items()}},
        }
        return json.dumps(body, sort_keys=True, default=_plain)


def _plain(obj):
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: _plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, (set, frozenset)):
        return sorted(_plain(v) for v in obj)
    return obj
