"""Helpers for Battle Builder tests: drive a real state through the core's apply path."""
import functools

from companion.core.game import apply
from companion.games import get

from .. import tables

GAME = get("battle-builder")
SALT = "ab" * 16


fresh = functools.partial(tables.fresh, GAME)
session = functools.partial(tables.session, GAME)


def do(state, seat, move, **args):
    """One command through the flow engine, as the session would apply it."""
    apply(GAME, state, {"kind": "move", "seat": seat, "move": move, "args": args,
                        "salt": SALT})


def vote_monsters(state, monsters):
    """In the select phase (draw3): make team k's offer contain monsters[k] and vote for it."""
    d = state.data
    assert state.phase == "select", state.phase
    for k, team in enumerate(d.teams):
        if monsters[k] not in d.offers[k]:
            d.offers[k][0] = monsters[k]
        for s in team:
            state.prompts[s]["options"] = list(d.offers[k])
    for k, team in enumerate(d.teams):
        for s in team:
            do(state, s, "choose_monster", monster=monsters[k])


def in_battle(monster="slime", n=2, seed=1, **options):
    """A bare state at its first battle, against ``monster`` (abilities off unless given)."""
    options.setdefault("monster_abilities", "none")
    st = fresh(n, seed, **options)
    vote_monsters(st, [monster] * len(st.data.teams))
    assert st.phase == "battle"
    return st


def battle(state, k=0):
    d = state.data
    return list(d.battles.values())[k]


def set_fighter(state, seat, hp=None, stamina=None, pile=None, ddeck=None):
    d = state.data
    if hp is not None:
        d.hp[seat] = hp
    if stamina is not None:
        d.stamina[seat] = stamina
        p = state.prompts.get(seat)
        if p and "stamina" in p:
            p["stamina"] = stamina
    if pile is not None:
        d.pile[seat] = list(pile)
    if ddeck is not None:
        d.ddeck[seat] = list(ddeck)       # drawn from the end
        d.ddiscard[seat] = []


def set_monster(state, i=0, k=0, **fields):
    m = battle(state, k)["monsters"][i]
    m.update(fields)
    return m


def turn(state, plays):
    """plays: {seat: (card, stamina) or (card, stamina, target)}."""
    for seat, p in sorted(plays.items()):
        args = {"card": p[0], "stamina": p[1]}
        if len(p) > 2:
            args["target"] = p[2]
        do(state, seat, "play_turn", **args)


def play_to_end(state, bot="greedy", seed=0, limit=20000):
    tables.drive(GAME, state, None, bot, seed, limit, salt=SALT)


def drive(state, until, bot="greedy", seed=0, limit=20000):
    """Let bots play until ``until(state)`` is true."""
    tables.drive(GAME, state, until, bot, seed, limit, salt=SALT)

