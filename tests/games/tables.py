"""Tables for a game's own tests: a bare state to arrange by hand, or a session with its log."""
import random

from companion.core.clock import FakeClock
from companion.core.game import apply, new_state
from companion.core.log import MemoryLog
from companion.core.session import Session


def players(n):
    return [f"P{i}" for i in range(n)]


def fresh(game, n=2, seed=1, **options):
    """A new state of ``game`` for ``n`` players (no log)."""
    return new_state(game, players(n), options, seed)


def session(game, n=2, seed=1, log=None, clock=None, **options):
    """A session of ``game`` on a fake clock, its salts drawn from the seed."""
    return Session.start(game, players(n), log or MemoryLog(), options=options, seed=seed,
                         clock=clock or FakeClock(), entropy=random.Random(seed).randbytes)


def drive(game, state, until=None, bot="greedy", seed=0, limit=20_000, salt=None):
    """Let ``bot`` answer every prompt of a bare state (each command through the core's apply
    path, sealed ones with ``salt``) until ``until(state)`` is true, or to the end of the game
    when ``until`` is None."""
    rng = random.Random(seed)
    answer = game.bots[bot]
    for _ in range(limit):
        if until is None and state.is_over():
            return
        if until is not None and until(state):
            return
        assert not state.is_over(), "the game ended first"
        seat = min(state.prompts)
        move, args = answer(game, game.observe(state, seat), rng)
        record = {"kind": "move", "seat": seat, "move": move, "args": args}
        if salt is not None:
            record["salt"] = salt
        apply(game, state, record)
    raise AssertionError("the game did not end" if until is None else "never reached")


def play_until(s, until, bot="greedy", seed=0, limit=20_000):
    """Let ``bot`` answer through the session ``s`` (the first seat asked) until
    ``until(s.state)`` is true; returns ``s``."""
    rng = random.Random(seed)
    answer = s.game.bots[bot]
    for _ in range(limit):
        if until(s.state):
            return s
        assert not s.state.is_over(), "the game ended first"
        seat = min(s.state.prompts)
        s.execute(seat, *answer(s.game, s.game.observe(s.state, seat), rng))
    raise AssertionError("never reached")
