"""Helpers for Market Trading tests: real states through the core's apply path."""
import functools
import random

from companion.core.game import advance, apply, enter
from companion.games import get

from .. import tables

GAME = get("market-trading")


fresh = functools.partial(tables.fresh, GAME)
session = functools.partial(tables.session, GAME)


def do(state, seat, move, **args):
    apply(GAME, state, {"kind": "move", "seat": seat, "move": move, "args": args})


def at_step(state, step, hand=None, market=None, go_on=False):
    """Put the active player at ``step`` (a phase name) holding ``hand``; with ``go_on``, let
    the flow continue to the next prompt as the engine would."""
    d = state.data
    state.prompts.clear()
    if hand is not None:
        d.hand = dict(hand)
    if market is not None:
        d.market.update(market)
    enter(GAME, state, step)
    if go_on:
        advance(GAME, state)


def play_to_end(state, bot="greedy", seed=0, limit=20000):
    tables.drive(GAME, state, None, bot, seed, limit)


def step(state, bot="greedy", seed=0):
    """One bot command."""
    rng = random.Random(seed)
    seat = min(state.prompts)
    move, args = GAME.bots[bot](GAME, GAME.observe(state, seat), rng)
    do(state, seat, move, **args)
