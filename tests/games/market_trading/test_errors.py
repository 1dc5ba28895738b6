"""Every illegal move gets a specific, readable error and changes nothing."""
import random

import pytest

from companion.core.errors import IllegalMoveError, NotYourTurnError, UnknownMoveError

from .helpers import GAME, session


def refused(s, seat, move, args, err=IllegalMoveError, match=None):
    before, version = s.state.fingerprint(), s.version
    with pytest.raises(err, match=match) as e:
        s.execute(seat, move, args)
    assert str(e.value) and "Traceback" not in str(e.value)
    assert s.state.fingerprint() == before and s.version == version


def until(s, cond, seed=0, bot="greedy"):
    rng = random.Random(seed)
    for _ in range(5000):
        if cond(s.state):
            return
        seat = min(s.state.prompts)
        s.execute(seat, *GAME.bots[bot](GAME, GAME.observe(s.state, seat), rng))
    raise AssertionError("not reached")


def test_refusals_at_every_step():
    s = session(2, 2)
    refused(s, 0, "dance", {}, UnknownMoveError, "no move called 'dance'")
    refused(s, 5, "forage", {"tile": 0}, NotYourTurnError, "no seat 5")
    until(s, lambda st: st.phase == "forage")
    active = s.state.data.active
    refused(s, 1 - active, "forage", {"tile": 0}, NotYourTurnError, "cannot forage now")
    refused(s, active, "forage", {"tile": "north"}, match="Choose a tile")
    refused(s, active, "forage", {"tile": [1]}, match="Choose a tile")
    refused(s, active, "forage", {}, match="forage")
    refused(s, active, "build", {"improvement": "mill"}, NotYourTurnError)
    refused(s, active, "trade", {"give": {"wood": 1}, "take": {"grain": 1}}, NotYourTurnError)
    until(s, lambda st: st.phase in ("trade", "trade_again") and st.prompts)
    active = s.state.data.active
    refused(s, active, "trade", {"give": {"wood": 1}}, match="trade")
    refused(s, active, "trade", {"give": {"wood": 99}, "take": {"grain": 1}},
            match="to give, not 99")
    if "improve" in s.state.prompts[active]["moves"]:
        refused(s, active, "improve", {"improvement": 42}, match="no improvement 42")
    else:                                   # owns nothing that converts: no Improve at all
        refused(s, active, "improve", {"improvement": 42}, NotYourTurnError,
                "cannot improve now")
    refused(s, active, "forage", {"tile": 0}, NotYourTurnError)
    until(s, lambda st: st.phase == "build" and st.prompts)
    active = s.state.data.active
    refused(s, active, "build", {"improvement": "castle"}, match="not face up")
    unaffordable = [c for c in s.state.data.face_up if c not in GAME.affordable(s.state)]
    if unaffordable:
        refused(s, active, "build", {"improvement": unaffordable[0]},
                match="cannot afford it")


def test_a_finished_game_refuses_moves():
    s = session(2, 2)
    until(s, lambda st: st.is_over())
    refused(s, 0, "end_step", {}, match="The game is over")


def test_corrections_of_the_bowl():
    s = session(2, 2)
    refused_c = s.state.fingerprint()
    with pytest.raises(IllegalMoveError, match="whose bowl"):
        s.correct(None, "bowl", 1, "x")
    assert s.state.fingerprint() == refused_c
    s.correct(0, "bowl", -2, "two tokens taken by hand")
    assert s.state.data.bowl[0] == 28 and s.state.data.earned[0] == 2
