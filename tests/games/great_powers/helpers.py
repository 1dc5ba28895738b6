from companion.core.clock import FakeClock
from companion.core.flow import run as run_steps
from companion.core.game import apply, new_state
from companion.core.log import MemoryLog
from companion.core.session import Session
from companion.games import get

GAME = get("great-powers")


def fresh(n, seed=1, **options):
    return new_state(GAME, [f"P{i}" for i in range(n)], options, seed)


def session(n, seed=1, log=None, **options):
    return Session.start(GAME, [f"P{i}" for i in range(n)], log or MemoryLog(),
                         options=options, seed=seed, clock=FakeClock())


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
