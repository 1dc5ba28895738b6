"""What only Great Powers promises about a finished game (the conformance suite plays every
game to the end, replays it and takes back commands: tests/conformance): ten turns (or the
``turns`` option), and no token count ever below zero."""
import pytest

from tests.conformance.driver import play

from .helpers import GAME

OPTION_SPREAD = [{}, {"ties": "all"}, {"require_payment": False},
                 {"final_tiebreak": "shared", "turns": 4}, {"bid_block": "tied-highest"}]


@pytest.mark.parametrize("n", range(3, 9))
def test_every_game_lasts_its_turns_and_no_token_goes_below_zero(n):
    for seed in range(40):
        opts = OPTION_SPREAD[seed % len(OPTION_SPREAD)]
        st = play(GAME, n, seed * 31 + n, opts).state
        assert st.round == opts.get("turns", 10)
        for tok in st.data.tokens:
            assert all(v >= 0 for v in tok.values())
