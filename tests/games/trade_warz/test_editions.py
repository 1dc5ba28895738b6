"""The two editions differ exactly where DESIGN.md's table says, and the variants (Trade Warz
only) do what the rulebook says."""
import random

import pytest

from companion.core.play import play_out

from companion.core.errors import ConfigError, IllegalMoveError

from .helpers import GAME, Table, session
from .test_round import place_all, resolve_disputes, trade_table


def test_common_to_both_editions():
    for ed in ("trade", "tariff"):
        assert GAME.min_players == 2 and GAME.max_players == 6
        t = Table(6, seed=1, edition=ed)
        assert t.d.rounds == 5 and t.d.win == 50
        assert t.d.gdp_curve == [] and all(g >= 10 for g in t.d.gdp)      # 10 at the start
        assert Table(2, seed=1, edition=ed).st.round == 1
    with pytest.raises(ConfigError):
        session(7)


def test_personal_deck_row():
    t = Table(3, seed=1)
    ix = GAME.ix(t.st)
    usa = [ix[c].kind for c in GAME.db.leader_deck("trade", "usa")]
    assert sorted(usa) == ["export"] * 3 + ["policy"] * 3 + ["tactic"] * 2
    t2 = Table(3, seed=1, edition="tariff")
    ix2 = GAME.ix(t2.st)
    pile = [ix2[c] for c in GAME.db.leader_deck("tariff", "usa")]
    assert 8 <= len(pile) <= 12 and sum(c.kind == "policy" for c in pile) >= 6
    assert [c.signature for c in pile if c.kind != "policy"] == [True, True]


def test_global_decks_row():
    t = Table(4, seed=1)
    seen = {k: len(t.d.decks[k]) + len(t.d.discards[k]) for k in t.d.decks}
    drawn = sum(len(h) for h in t.d.hands)
    assert set(seen) == {"export", "tactic", "policy"}
    assert sum(seen.values()) + drawn - sum(
        1 for h in t.d.hands for c in h if GAME.ix(t.st)[c].deck == "leader") == 45
    t2 = Table(4, seed=1, edition="tariff")
    assert set(t2.d.decks) == {"export", "tactic"}                      # no Policy deck
    total = {k: len(t2.d.decks[k]) + len(t2.d.discards[k]) for k in t2.d.decks}
    in_hands = sum(1 for h in t2.d.hands for c in h if GAME.ix(t2.st)[c].deck == "global")
    assert sum(total.values()) + in_hands <= 108 and sum(total.values()) + in_hands >= 100
    assert GAME.db.deck("tariff", "export", leaders=t2.d.board.leaders)[-4:] == tuple(
        next(c.id for c in GAME.db.signature_cards(lid) if c.kind == "export")
        for lid in t2.d.board.leaders)


def test_draw_row():
    t = Table(3, seed=2)
    t.to_phase("draw", 1)
    assert [t.st.prompts[s]["count"] for s in range(3)] == [8, 7, 6]   # up to hand size
    t2 = Table(3, seed=2, edition="tariff")
    t2.to_phase("draw", 1)
    assert [t2.st.prompts[s]["count"] for s in range(3)] == [5, 4, 4]  # the Leader's number
    ix = GAME.ix(t2.st)
    assert ix.rules.hand_limit == 7 and GAME.ix(t.st).rules.hand_limit == 0


def test_export_cost_row():
    t = trade_table(3)
    t.set_gdp(10, 10, 10)
    t.d.hands[0] = ["bulk-coal"]
    t.do(0, "place_export", card="bulk-coal", partner="neutralia", slot=1)
    assert t.d.gdp[0] == 10                              # Trade Warz: after the disputes
    t2 = trade_table(3, edition="tariff")
    t2.set_gdp(10, 10, 10)
    t2.d.hands[0] = ["bulk-coal"]
    t2.do(0, "place_export", card="bulk-coal", partner="neutralia", slot=1)
    assert t2.d.gdp[0] == 8                              # Tariff Warz: on placement


@pytest.mark.parametrize("edition,counted", [("trade", True), ("tariff", False)])
def test_dispute_power_row(edition, counted):
    t = trade_table(3, edition=edition)
    t.set_gdp(10, 10, 20)
    t.d.influence[0]["neutralia"] = 4
    place_all(t, [(0, "soybean-surplus", "neutralia", 1), (1, "luxury-yachts", "neutralia", 1)])
    resolve_disputes(t, {}, [])
    c = t.d.disputes.contests[0]
    assert c["parts"]["0"]["influence"] == (4 if counted else 0)
    assert c["winner"] == (0 if counted else 1)


def test_influence_row():
    t = trade_table(3)
    t.set_gdp(10, 10, 10)
    t.d.board.routes["neutralia"][1] = [0, "luxury-yachts"]
    t.d.influence[1]["petrostan"] = 2
    t.do(1, "offer_influence", to=0, partner="petrostan", amount=1, price=2)
    for s in range(3):
        t.do(s, "done_trade")
    assert t.d.influence[0]["neutralia"] == 2            # accrues its printed influence
    t2 = trade_table(3, edition="tariff")
    with pytest.raises(IllegalMoveError, match="does not track influence"):
        t2.do(1, "offer_influence", to=0, partner="petrostan", amount=1, price=2)
    t2.d.board.routes["neutralia"][1] = [0, "luxury-yachts"]
    for s in range(3):
        t2.do(s, "done_trade")
    assert t2.d.influence[0] == {}


def test_influence_gain_option_one_per_route():
    t = trade_table(3, influence_gain="one")
    t.d.board.routes["neutralia"][1] = [0, "luxury-yachts"]
    for s in range(3):
        t.do(s, "done_trade")
    assert t.d.influence[0]["neutralia"] == 1


def test_fast_pass_row():
    t = trade_table(3)
    with pytest.raises(IllegalMoveError, match="without Fast-Pass"):
        t.do(0, "use_fast_pass")
    assert GAME.public_view(t.st)["fast_pass"] is None
    t2 = trade_table(3, edition="tariff")
    assert GAME.public_view(t2.st)["fast_pass"] == [True, True, True]
    t3 = trade_table(3, edition="tariff", fast_pass=False)             # "might cut"
    with pytest.raises(IllegalMoveError, match="without Fast-Pass"):
        t3.do(0, "use_fast_pass")


def test_tiebreak_row():
    assert GAME.rules.edition("trade").tiebreak == ("partners_influenced", "active_routes",
                                                    "gdp_in_hand")
    assert GAME.rules.edition("tariff").tiebreak == ("partners_influenced",)
    assert GAME.rules.edition("trade").boom == "first"
    assert GAME.rules.edition("tariff").boom == "highest"


@pytest.mark.parametrize("variant", ["chill", "quick_start", "diplomatic"])
def test_variants_row_tariff_has_none(variant):
    with pytest.raises(ConfigError, match="no .* variant"):
        session(3, edition="tariff", **{variant: True})
    assert session(3, **{variant: True}).state.config[variant] is True


# -- variants ------------------------------------------------------------------------------------

def test_chill_has_no_timer_and_places_clockwise_until_all_pass():
    t = Table(3, seed=3, chill=True)
    t.to_phase("trade", 1)
    d = t.d
    first = d.trade.turn
    assert list(t.st.prompts) == [first] and t.st.prompts[first]["moves"][:2] == (
        "place_export", "pass_turn")
    assert GAME.public_view(t.st)["trade"]["turn"] == first
    ix = GAME.ix(t.st)
    for s in range(3):
        d.hands[s] = ["soybean-surplus", "scrap-metal"]
    other = (first + 1) % 3
    with pytest.raises(IllegalMoveError, match="cannot place export now"):
        t.do(other, "place_export", card="soybean-surplus", partner="neutralia", slot=1)
    t.do(first, "place_export", card="soybean-surplus", partner="neutralia", slot=1)
    assert "trade" not in t.st.timers                     # no timer in Chill
    assert list(t.st.prompts) == [other]                  # one Export, then clockwise
    t.do(other, "pass_turn")
    third = (first + 2) % 3
    t.do(third, "pass_turn")
    t.do(first, "pass_turn")                              # three passes in a row: over
    assert t.st.phase != "trade" and len(ix.partners) == 10


def test_chill_passes_for_a_seat_that_cannot_place():
    t = Table(3, seed=3, chill=True)
    t.to_phase("trade", 1)
    first = t.d.trade.turn
    t.d.hands = [[], [], []]
    t.d.hands[first] = ["soybean-surplus"]
    t.do(first, "place_export", card="soybean-surplus", partner="neutralia", slot=1)
    assert t.st.phase != "trade"                            # nobody else can: all passed


def test_quick_start_15_gdp_no_first_event_four_rounds():
    t = Table(3, seed=4, quick_start=True)
    assert t.st.round == 1 and t.d.board.event is None
    assert any(n["kind"] == "EventSkipped" for n in t.st.notices)
    assert t.d.gdp == [15, 15, 15] and t.d.rounds == 4
    plain = Table(3, seed=4)
    assert plain.d.gdp == [10, 10, 10] and plain.d.rounds == 5
    closes = 0
    for seed in range(12):
        s = session(3, seed=seed, quick_start=True)
        play_out(s, [GAME.bots["greedy"]] * 3, random.Random(seed))
        st = s.state
        assert st.round <= 4 and len(st.data.gdp_curve) <= 4
        if "Global Close" in st.outcome.reason:
            closes += 1
            assert "after round 4" in st.outcome.reason and st.round == 4
    assert t.d.rounds == 4


def test_diplomatic_swaps_cards_one_for_one_and_notes_loans():
    t = trade_table(3, diplomatic=True)
    t.set_gdp(10, 10, 10)
    t.d.hands[0] = ["bulk-coal"]
    t.d.hands[1] = ["emergency-stimulus"]
    t.do(0, "offer_swap", to=1, give="bulk-coal")
    pub = GAME.public_view(t.st)
    assert pub["offers"] == [{"id": 1, "kind": "swap", "from": 0, "to": 1}]
    assert "bulk-coal" not in repr(pub) and "bulk-coal" in repr(GAME.seat_view(t.st, 1))
    assert "bulk-coal" not in repr(GAME.seat_view(t.st, 2)["swaps"])
    t.do(1, "answer_swap", offer=1, give="emergency-stimulus")
    assert t.d.hands[0] == ["emergency-stimulus"] and t.d.hands[1] == ["bulk-coal"]
    t.do(2, "note_loan", to=0, amount=3, terms="back in round 3")
    assert t.d.gdp == [13, 10, 7]
    assert GAME.public_view(t.st)["loans"] == [{"round": 1, "from": 2, "to": 0, "amount": 3,
                                                "terms": "back in round 3"}]


def test_diplomatic_moves_refused_without_the_variant():
    t = trade_table(3)
    t.d.hands[0] = ["bulk-coal"]
    with pytest.raises(IllegalMoveError, match="Diplomatic variant"):
        t.do(0, "offer_swap", to=1, give="bulk-coal")
    with pytest.raises(IllegalMoveError, match="Diplomatic variant"):
        t.do(0, "note_loan", to=1, amount=1)
