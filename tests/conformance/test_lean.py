"""The lean simulation path plays exactly the games the real session path plays.

Simulations (``companion simulate``, ``companion report --simulate``, the benches) run on a
:class:`~companion.core.session.LeanSession`: the same rules through the same ``apply``, without
log, salts and commitments, or notices. Here every registered game, at every player count and a
spread of options, with every bot, is played on both paths from the same seeds, and the final
states must be identical in everything but the salts and commitments the lean path leaves out:
the game's data, its random generator, the phase log, the score, the commands it took.
"""
import random

import pytest

from companion.core.clock import FakeClock
from companion.core.play import play_one, play_out, simulate
from companion.core.session import LeanSession
from companion.lab import simulate as lab_simulate

from .driver import GAMES, bots_for, configurations, players, start

NAMES = sorted(GAMES)
SEEDS_PER_CASE = 2       # every count x the whole spread of options: about 400 cases


def _without_commitments(state):
    """The state's fingerprint with every sealed entry's salt and commitment blanked (the only
    things a lean state does not make)."""
    for w in state.windows.values():
        for e in w.entries.values():
            e.salt = e.commitment = ""
    return state.fingerprint()


def _cases():
    """Every game, every player count, the whole spread of options; each case its own seeds."""
    out = []
    for name in NAMES:
        for n, options in configurations(GAMES[name]):
            k = len(out) * SEEDS_PER_CASE
            out.append((name, n, options, tuple(range(k, k + SEEDS_PER_CASE))))
    return out


@pytest.mark.parametrize("name, n, options, seeds", _cases())
def test_the_lean_path_plays_the_same_game_as_a_session(name, n, options, seeds):
    game = GAMES[name]
    for seed in seeds:
        full = start(game, n, seed, options)
        lean = LeanSession(game, players(n), options=options, seed=seed, clock=FakeClock())
        a = play_out(full, bots_for(game, n, seed), random.Random(seed))
        b = play_out(lean, bots_for(game, n, seed), random.Random(seed))
        assert lean.state.lean and not full.state.lean
        assert (b.winners, b.scores, b.reason, b.code, b.tiebreak) == \
            (a.winners, a.scores, a.reason, a.code, a.tiebreak), (name, n, options, seed)
        assert lean.version == full.version == len(full.records)
        assert lean.clock.now() == full.clock.now()
        assert game.summary(lean.state) == game.summary(full.state)
        assert _without_commitments(lean.state) == _without_commitments(full.state), \
            (name, n, options, seed)
        assert lean.state.notices == []                 # nothing kept that nobody reads
        sealed = [e for w in lean.state.windows.values() for e in w.entries.values()]
        assert all(e.salt == "" and e.commitment == "" for e in sealed)


@pytest.mark.parametrize("name", NAMES)
def test_simulate_and_the_lab_give_the_figures_of_real_sessions(name):
    """``simulate`` and the reports' games, lean, against the same games on real sessions."""
    game = GAMES[name]
    n = max(game.min_players, min(4, game.max_players))
    names = players(n)
    bots = [game.bots["greedy"]] * n
    options = game.resolve_options(None)
    for gseed in (11, 12, 13):
        o_full, s_full = play_one(game, names, gseed, bots, options)
        o_lean, s_lean = play_one(game, names, gseed, bots, options, lean=True)
        assert (o_lean.winners, o_lean.scores) == (o_full.winners, o_full.scores)
        assert s_lean.version == len(s_full.records)
        f_full = lab_simulate.play_one(game, names, gseed, bots, options, lean=False)
        f_lean = lab_simulate.play_one(game, names, gseed, bots, options)
        assert f_lean == f_full
    figures = simulate(game, names, 12, seed=5)
    assert sum(s["wins"] for s in figures["seats"]) == pytest.approx(12)
    assert figures["mean_commands"] == pytest.approx(
        sum(len(play_one(game, names, g, bots, options)[1].records)
            for g in _seeds(5, 12)) / 12)


def _seeds(seed, games):
    master = random.Random(seed)
    return [master.getrandbits(48) for _ in range(games)]
