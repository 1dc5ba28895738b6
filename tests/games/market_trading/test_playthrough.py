"""Random playthroughs to the end for hundreds of seeds at every player count and a spread of
rule settings, each replayed from its log to the identical state."""
import random

import pytest

from companion.core.clock import FakeClock
from companion.core.errors import UndoError
from companion.core.log import MemoryLog
from companion.core.play import play_out
from companion.core.session import Session, fold

from .helpers import GAME, session

SPREAD = [
    {},
    {"improve_limit": "once-per-turn", "end": "equal-turns"},
    {"improve_limit": "unlimited", "forage_source": "hand"},
    {"build_payment": "market", "first_player": "random"},
    {"forage_source": "hand", "end": "equal-turns", "first_player": "random"},
    {"forage_source": "hand", "pass_empty_steps": False},
]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_random_playthroughs_end_and_replay_identically(n):
    for seed in range(120):
        opts = SPREAD[seed % len(SPREAD)]
        s = Session.start(GAME, [f"P{i}" for i in range(n)], MemoryLog(copy_records=False),
                          options=opts, seed=seed * 13 + n, clock=FakeClock(),
                          entropy=random.Random(seed).randbytes, session_id=f"t{seed}")
        bots = [GAME.bots["random" if (seed + i) % 3 else "greedy"] for i in range(n)]
        outcome = play_out(s, bots, random.Random(seed))
        d = s.state.data
        assert outcome.winners and all(0 <= w < n for w in outcome.winners)
        assert all(0 <= b <= GAME.rules.bowl for b in d.bowl)
        assert all(0 <= v <= GAME.rules.market_cap for v in d.market.values())
        assert all(n >= 0 for p in d.piles for n in p)
        assert d.stalled or any(b == 0 for b in d.bowl)
        if not d.stalled:
            assert all(d.bowl[w] == 0 for w in outcome.winners)
        assert len(d.face_up) == min(GAME.rules.face_up, len(d.face_up) + len(d.deck))
        assert fold(GAME, s.records).fingerprint() == s.state.fingerprint(), opts


def test_replay_with_undos_and_corrections():
    rng = random.Random(3)
    s = session(3, 21)
    steps = 0
    while not s.state.is_over():
        seat = min(s.state.prompts)
        s.execute(seat, *GAME.bots["random"](GAME, s.state, seat, rng))
        steps += 1
        if steps % 7 == 0:
            try:
                s.undo()
            except UndoError:
                pass
        if steps % 11 == 0 and s.state.data.bowl[1] > 1:
            s.correct(1, "bowl", -1, "took a token by hand")
        assert fold(GAME, s.records).fingerprint() == s.state.fingerprint()
