"""Random playthroughs to the end, hundreds of seeds at every player count; replay equality."""
import random

import pytest

from companion.core.play import play_out
from companion.core.session import fold

from .helpers import GAME, session

OPTION_SPREAD = [{}, {"ties": "all"}, {"require_payment": False},
                 {"final_tiebreak": "shared", "turns": 4}, {"bid_block": "tied-highest"}]


@pytest.mark.parametrize("n", range(3, 9))
def test_random_playthroughs_end_and_replay_identically(n):
    for seed in range(200):
        opts = OPTION_SPREAD[seed % len(OPTION_SPREAD)]
        s = session(n, seed=seed * 31 + n, **opts)
        bots = [GAME.bots["random" if (seed + i) % 3 else "greedy"] for i in range(n)]
        outcome = play_out(s, bots, random.Random(seed))
        st = s.state
        assert outcome.winners and all(0 <= w < n for w in outcome.winners)
        assert st.round == opts.get("turns", 10)
        for tok in st.data.tokens:
            assert all(v >= 0 for v in tok.values())
        assert fold(GAME, s.records).fingerprint() == st.fingerprint()


def test_replay_with_undos_and_corrections_in_the_middle():
    rng = random.Random(5)
    s = session(5, seed=77)
    bots = [GAME.bots["random"]] * 5
    steps = 0
    while not s.state.is_over():
        seat = min(s.state.prompts)
        s.execute(seat, *bots[seat](GAME, s.state, seat, rng))
        steps += 1
        if steps % 9 == 0:
            try:
                s.undo()
            except Exception:
                pass
        if steps % 13 == 0:
            s.correct(rng.randrange(5), "vp", 1, "scored a bonus the app missed")
        assert fold(GAME, s.records).fingerprint() == s.state.fingerprint()
