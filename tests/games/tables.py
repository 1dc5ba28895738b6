"""Tables for a game's own tests: a bare state to arrange by hand, or a session with its log."""
import random

from companion.core.clock import FakeClock
from companion.core.game import new_state
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
