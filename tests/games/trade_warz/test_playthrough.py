"""What only Trade Warz promises about a finished game, both editions and every variant (the
conformance suite plays every game to the end, replays it and takes back commands:
tests/conformance): no card is ever lost or duplicated, GDP never below zero, the game ends by
the Boom or after the last round, the curves cover every round."""
import collections

import pytest

from tests.conformance.driver import play

from .helpers import GAME

SPREAD = {
    "trade": [{}, {"chill": True}, {"quick_start": True}, {"diplomatic": True},
              {"chill": True, "quick_start": True, "diplomatic": True},
              {"policy_order": "poorest_first", "influence_gain": "one",
               "upkeep_confirm": "every"},
              {"leader_pick": "random", "check_reveals": False,
               "export_slot_limit": False, "pass_first_player": False}],
    "tariff": [{}, {"fast_pass": False}, {"policy_order": "poorest_first",
                                          "upkeep_confirm": "every"},
               {"leader_pick": "random", "check_reveals": False}, {"rounds": 3}],
}


def card_census(state):
    """Every card id wherever it is (face-down Exports are read from their sealed windows)."""
    d = state.data
    c = collections.Counter()
    for h in d.hands:
        c.update(h)
    for p in d.piles:
        c.update(p)
    c.update(d.out)
    for k in d.decks:
        c.update(d.decks[k])
        c.update(d.discards[k])
    c.update(t["card"] for t in d.board.in_play)
    c.update(p for p in d.board.policy if p)
    for slots in d.board.routes.values():
        c.update(cid for _, cid in slots.values())
    for p in d.trade.placements:
        if p["state"] == "down":
            c[state.windows[p["window"]].entries[p["seat"]].choice["card"]] += 1
        elif p["state"] in ("up", "won"):
            c[p["card"]] += 1
    return c


def starting_cards(state):
    d = state.data
    db = GAME.db
    c = collections.Counter()
    for kind in d.decks:
        c.update(db.deck(d.edition, kind, leaders=d.board.leaders))
    for lid in d.board.leaders:
        c.update(db.leader_deck(d.edition, lid))
    return c


@pytest.mark.parametrize("edition", ["trade", "tariff"])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_every_card_is_kept_and_the_game_ends_by_its_rules(edition, n):
    spread = SPREAD[edition]
    ends = collections.Counter()
    for seed in range(30):
        opts = dict(spread[seed % len(spread)], edition=edition)
        st = play(GAME, n, seed * 97 + n, opts).state
        outcome = st.outcome
        assert all(g >= 0 for g in st.data.gdp)
        assert outcome.scores == dict(enumerate(st.data.gdp))
        assert st.round <= st.data.rounds + GAME.rules.edition(edition).extra_rounds
        assert len(st.data.gdp_curve) == st.round == len(st.data.disputes_per_round)
        if "Economic Boom" in outcome.reason:
            assert max(st.data.gdp) >= 50
            ends["boom"] += 1
        else:
            assert st.round >= st.data.rounds
            ends["close"] += 1
        census = card_census(st)
        assert census == starting_cards(st), f"seed {seed}: cards lost or duplicated"
    assert sum(ends.values()) == 30
