"""Sessions recorded before rules version 2 still replay, with the outcome they had.

``data/legacy-logs-v1.json.gz`` holds 13 record streams played by the bots on the code of
commit 9a71e50 (before the companion computed Crypto Isle, Maple Dominion, Port Strike and the
other effects it now knows, and before the Draw count was taken when the player draws). They
cover every hand-resolved effect of the shipped cards (each confirmed by the table with the GDP
or power it entered), a Tactic played during Draw before drawing, card swaps, loans, influence
offers, disputes chosen by partner and slot, and the Fast-Pass. Their options predate the
``rules`` marker, so they replay under rules version 1 (docs/trade-warz.md, "Rules versions").
"""
import pytest

from ..legacy import beside, replayed
from .helpers import GAME


def _logs():
    return beside(__file__)


@pytest.mark.parametrize("i", range(13))
def test_a_session_recorded_before_rules_version_2_replays_to_its_outcome(i):
    log = _logs()[i]
    st = replayed(GAME, log)
    assert st.data.gdp_curve == log["gdp_curve"]


def test_new_sessions_are_rules_version_2_and_old_option_sets_version_1():
    from companion.games.trade_warz.game import V1_OPTIONS
    assert GAME.resolve_options({})["rules"] == 2
    assert GAME.resolve_options({"edition": "tariff"})["rules"] == 2
    every = {o.name: o.default for o in GAME.options}          # the Home screen's way
    assert GAME.resolve_options(every)["rules"] == 2
    stored = GAME.resolve_options({})                           # what a new log keeps
    assert GAME.resolve_options(stored) == stored
    old = {k: v for k, v in stored.items() if k in V1_OPTIONS}  # what an old log kept
    assert GAME.resolve_options(old)["rules"] == 1
