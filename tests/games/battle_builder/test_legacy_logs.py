"""Sessions recorded before the ``turn_limit_reward`` option still replay, with the outcome they
had.

``data/legacy-logs-v1.json.gz`` holds 10 record streams played by the bots on the code of commit
6d44e62 (easy monsters, every ability and environments, so battles often run out of turns; dual
monsters and single; token systems A-D; 2-4 players). Back then a battle out of turns paid the
full printed reward; the default now pays only for monsters beaten (issue 12). The first 8 had
such battles (most of them later spend those tokens). Their options predate
``turn_limit_reward``, so they replay with ``full`` (docs/battle-builder.md, ruling 16).
"""
import copy

import pytest

from companion.core.errors import IllegalMoveError
from companion.core.session import fold

from ..legacy import beside, replayed
from .helpers import GAME


def _logs():
    return beside(__file__)


@pytest.mark.parametrize("i", range(10))
def test_a_session_recorded_before_the_option_replays_to_its_outcome(i):
    log = _logs()[i]
    assert "turn_limit_reward" not in log["records"][0]["options"]
    st = replayed(GAME, log)
    assert st.config["turn_limit_reward"] == "full"
    assert st.data.vp_curve == log["vp_curve"] and st.data.tokens == log["tokens"]
    limits = [b["id"] for b in st.data.track["battles"] if b["why"] == "turn limit"]
    assert limits == log["turn_limit"] and bool(limits) == (i < 8)


@pytest.mark.parametrize("i", range(8))
def test_the_rulebook_reading_would_replay_them_differently(i):
    log = _logs()[i]
    records = copy.deepcopy(log["records"])
    records[0]["options"] = dict(records[0]["options"], turn_limit_reward="defeated")
    try:
        st = fold(GAME, records)
    except IllegalMoveError:
        return                              # a purchase the smaller reward cannot pay for
    assert st.data.tokens != log["tokens"]


def test_new_sessions_default_to_the_rulebook_reading():
    assert GAME.resolve_options({})["turn_limit_reward"] == "defeated"
    every = {o.name: o.default for o in GAME.options}          # the Home screen's way
    assert GAME.resolve_options(every)["turn_limit_reward"] == "defeated"
    stored = GAME.resolve_options({})
    assert GAME.resolve_options(stored) == stored
