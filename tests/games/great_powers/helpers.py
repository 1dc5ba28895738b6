"""Helpers for Great Powers tests: tables, and a rule function run on a hand-built state."""
import functools

from companion.core.flow import run as run_steps
from companion.games import get

from .. import tables

GAME = get("great-powers")


fresh = functools.partial(tables.fresh, GAME)
session = functools.partial(tables.session, GAME)


def move(state, seat, name, **args):
    """Run one move's rule function on a hand-built state and the steps it leaves pending (no
    phase change, no prompts check)."""
    got = GAME.moves[name].fn(state, seat, **args)
    run_steps(GAME, state)
    return got


def begin(state, phase):
    """Begin ``phase`` on a hand-built state: its ``on_begin`` and the steps it queues (the
    phase is not ended)."""
    state.phase = phase
    GAME.phases[phase].on_begin(state)
    run_steps(GAME, state)


def set_tokens(state, seat, **tok):
    state.data.tokens[seat].update(tok)
