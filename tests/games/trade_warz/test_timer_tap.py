"""The table can start the Trade timer with a tap before the first Export."""
import random

import pytest

from companion.core.clock import FakeClock
from companion.core.errors import IllegalMoveError, NotYourTurnError
from companion.core.log import MemoryLog
from companion.core.session import Session
from companion.games import get

GAME = get("trade-warz")


def _to_trade(edition, **opts):
    s = Session.start(GAME, ["A", "B", "C"], MemoryLog(), options=dict(edition=edition, **opts),
                      seed=4, clock=FakeClock())
    rng = random.Random(1)
    while s.state.phase != "trade":
        seat = min(s.state.prompts, key=lambda x: -1 if x is None else x)
        bot = GAME.table_bot if seat is None else GAME.bots["random"]
        s.execute(seat, *bot(GAME, GAME.observe(s.state, seat), rng))
    return s


@pytest.mark.parametrize("edition", ["trade", "tariff"])
def test_a_tap_starts_the_trade_timer_once(edition):
    s = _to_trade(edition)
    assert "trade" not in s.state.timers
    with pytest.raises(NotYourTurnError):
        s.execute(0, "start_trade_timer")
    s.execute(None, "start_trade_timer")
    t = s.state.timers["trade"]
    assert t.duration == 180 and t.warn_before == 30
    with pytest.raises(IllegalMoveError, match="already running"):
        s.execute(None, "start_trade_timer")


def test_chill_has_no_timer_to_start():
    s = _to_trade("trade", chill=True)
    with pytest.raises(IllegalMoveError, match="Chill"):
        s.execute(None, "start_trade_timer")
