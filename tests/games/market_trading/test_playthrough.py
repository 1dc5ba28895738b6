"""What only Market Trading promises about a finished game (the conformance suite plays every
game to the end, replays it and takes back commands: tests/conformance): bowls, the market and
the piles stay in bounds, and a game ends with an empty bowl or a stall."""
import pytest

from tests.conformance.driver import play

from .helpers import GAME

SPREAD = [
    {},
    {"improve_limit": "once-per-turn", "end": "equal-turns"},
    {"improve_limit": "unlimited", "forage_source": "hand"},
    {"build_payment": "market", "first_player": "random"},
    {"forage_source": "hand", "end": "equal-turns", "first_player": "random"},
    {"forage_source": "hand", "pass_empty_steps": False},
]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_bowls_markets_and_piles_stay_in_bounds_and_the_game_ends_as_it_says(n):
    for seed in range(60):
        opts = SPREAD[seed % len(SPREAD)]
        s = play(GAME, n, seed * 13 + n, opts)
        outcome = s.state.outcome
        d = s.state.data
        assert all(0 <= b <= GAME.rules.bowl for b in d.bowl)
        assert all(0 <= v <= GAME.rules.market_cap for v in d.market.values())
        assert all(n >= 0 for p in d.piles for n in p)
        assert d.stalled or any(b == 0 for b in d.bowl)
        if not d.stalled:
            assert all(d.bowl[w] == 0 for w in outcome.winners)
        assert len(d.face_up) == min(GAME.rules.face_up, len(d.face_up) + len(d.deck))
