"""Sessions recorded before rules version 2 still replay, with the outcome they had.

``data/legacy-logs-v1.json.gz`` holds 12 record streams played by the bots on the code of
commit 6d44e62, before issue 12's fix (a trade step was passed when only trades giving several
copies were possible). In the first 8 that happened, so under version 2 a player would be
prompted to trade where the log goes on to build or forage. Their options predate the
``rules`` marker, so they replay under rules version 1 (docs/market-trading.md).
"""
import copy

import pytest

from companion.core.errors import IllegalMoveError
from companion.core.session import fold
from companion.games.market_trading.game import V1_OPTIONS

from ..legacy import beside, replayed
from .helpers import GAME


def _logs():
    return beside(__file__)


@pytest.mark.parametrize("i", range(12))
def test_a_session_recorded_before_rules_version_2_replays_to_its_outcome(i):
    log = _logs()[i]
    st = replayed(GAME, log)
    assert st.config["rules"] == 1
    assert st.data.vp_curve == log["vp_curve"]


@pytest.mark.parametrize("i", range(8))
def test_the_same_commands_do_not_fit_rules_version_2(i):
    records = copy.deepcopy(_logs()[i]["records"])
    records[0]["options"] = dict(records[0]["options"], rules=2)
    with pytest.raises(IllegalMoveError, match="cannot"):
        fold(GAME, records)


def test_new_sessions_are_rules_version_2_and_old_option_sets_version_1():
    assert GAME.resolve_options({})["rules"] == 2
    every = {o.name: o.default for o in GAME.options}          # the Home screen's way
    assert GAME.resolve_options(every)["rules"] == 2
    stored = GAME.resolve_options({})                           # what a new log keeps
    assert GAME.resolve_options(stored) == stored
    old = {k: v for k, v in stored.items() if k in V1_OPTIONS}  # what an old log kept
    assert GAME.resolve_options(old)["rules"] == 1
