"""Effects the companion computes instead of asking the table (issue 10, "Compute what the
companion knows"; docs/trade-warz.md, "Computed effects"): each shipped one, its rulings, and
the by-hand way that ``auto_effects=false`` (and logs recorded before) keep."""
import pytest

from companion.core.errors import IllegalMoveError
from companion.games.trade_warz.cards import parse_effect

from .helpers import GAME, Table
from .test_round import clean, flip_event, place_all, resolve_disputes, trade_table


def kinds(notes):
    return [n["kind"] for n in notes]


def computed(notes):
    return [n for n in notes if n["kind"] == "EffectComputed"]


def upkeep_of(t):
    t.st.phase = "upkeep"
    t.begin("upkeep")
    t.settle()
    t.settle()


# -- Crypto Isle (Upkeep) -----------------------------------------------------------------------

def test_crypto_isle_pays_the_player_with_the_most_routes_there():
    t = clean(Table(4, seed=3))
    t.set_gdp(10, 10, 10, 10)
    r = t.d.board.routes["crypto-isle"]
    r[1], r[2], r[3] = [2, "bulk-coal"], [2, "scrap-metal"], [1, "kale-futures"]
    upkeep_of(t)
    assert t.d.gdp == [10, 10, 11, 10] and None not in t.st.prompts
    note = computed(t.st.notices)[-1]
    assert (note["source"], note["seat"], note["routes"], note["gdp"]) == \
        ("crypto-isle", 2, 2, 1)


def test_crypto_isle_tie_goes_to_the_poorest_of_them():
    t = clean(Table(4, seed=3))
    t.set_gdp(9, 6, 8, 6)
    r = t.d.board.routes["crypto-isle"]
    r[1], r[2] = [0, "bulk-coal"], [2, "scrap-metal"]
    upkeep_of(t)
    assert t.d.gdp == [9, 6, 9, 6]                     # 0 and 2 tied on routes: 2 is poorer


def test_crypto_isle_with_no_route_is_skipped_with_a_notice():
    t = clean(Table(3, seed=3))
    before = list(t.d.gdp)
    upkeep_of(t)
    assert t.d.gdp == before and None not in t.st.prompts
    assert "nobody has a route" in computed(t.st.notices)[-1]["skipped"]


def test_by_hand_when_auto_effects_is_off():
    t = clean(Table(3, seed=3, auto_effects=False))
    t.d.board.routes["crypto-isle"][1] = [1, "bulk-coal"]
    upkeep_of(t)
    p = t.st.prompts[None]
    assert p["moves"] == ("confirm_manual", "adjust") and "Crypto Isle" in p["text"]


# -- The Polite Maple Dominion (in the dispute) ---------------------------------------------------

def test_maple_dominion_gives_the_poorer_player_one_more_dispute_power():
    t = trade_table(3)
    t.set_gdp(8, 12, 20)
    place_all(t, [(0, "soybean-surplus", "maple-dominion", 1),
                  (1, "soybean-surplus", "maple-dominion", 1)])
    resolve_disputes(t, {0: 0, 1: 0}, [])
    c = t.d.disputes.contests[0]
    assert c["power"] == {"0": 1 + 1, "1": 1} and c["winner"] == 0
    assert c["parts"]["0"]["effects"] == 1 and c["parts"]["1"]["effects"] == 0
    assert c["parts"]["0"]["sources"] == [{"source": "maple-dominion",
                                           "name": "The Polite Maple Dominion", "amount": 1}]
    assert t.st.prompts.get(None) is None               # nobody was asked


def test_maple_dominion_counts_gdp_before_bids_and_ties_each_get_it():
    t = trade_table(4)
    t.set_gdp(7, 7, 12, 20)
    place_all(t, [(0, "soybean-surplus", "maple-dominion", 1),
                  (1, "soybean-surplus", "maple-dominion", 1),
                  (2, "soybean-surplus", "maple-dominion", 1)])
    resolve_disputes(t, {0: 3, 1: 0, 2: 0}, [])
    c = t.d.disputes.contests[0]
    assert c["power"] == {"0": 1 + 1 + 3, "1": 1 + 1, "2": 1}
    assert c["winner"] == 0


def test_maple_dominion_ties_give_nobody_the_bonus_if_the_table_says_so():
    t = trade_table(4, poorer_ties="none")
    t.set_gdp(7, 7, 12, 20)
    place_all(t, [(0, "soybean-surplus", "maple-dominion", 1),
                  (1, "soybean-surplus", "maple-dominion", 1),
                  (2, "soybean-surplus", "maple-dominion", 1)])
    resolve_disputes(t, {0: 3, 1: 0, 2: 0}, [])
    assert t.d.disputes.contests[0]["power"] == {"0": 1 + 3, "1": 1, "2": 1}


def test_maple_dominion_by_hand_asks_the_table_for_power():
    t = trade_table(3, auto_effects=False)
    t.set_gdp(8, 12, 20)
    place_all(t, [(0, "soybean-surplus", "maple-dominion", 1),
                  (1, "soybean-surplus", "maple-dominion", 1)])
    t.do(0, "bid", amount=0)
    t.do(1, "bid", amount=1)
    p = t.st.prompts[None]
    assert p["moves"] == ("confirm_manual", "adjust") and p["dispute"] == 0
    assert t.d.disputes.contests[0]["state"] == "revealed"        # bids shown while the table decides
    t.table("confirm_manual", power={"0": 1})
    assert t.d.disputes.contests[0]["power"] == {"0": 2, "1": 2} and t.d.disputes.contests[0]["winner"] == 0


# -- Income: Sovereign Wealth Fund, Exported Regulations -------------------------------------------

def income_of(t):
    """End Trade with nothing placed: the round's Income runs (and the next round begins)."""
    r = t.st.round
    for s in range(t.st.n):
        if t.st.phase == "trade":
            t.do(s, "done_trade")
    assert t.st.round == r + 1 and t.st.phase in ("upkeep", "draw")


def test_sovereign_wealth_fund_earns_per_partner_with_a_route():
    t = trade_table(3, edition="tariff")
    t.set_gdp(10, 10, 10)
    r = t.d.board.routes
    r["neutralia"][1] = [0, "sovereign-wealth-fund"]       # value 3 + bonus 3
    r["petrostan"][1] = [0, "bulk-coal"]
    r["petrostan"][2] = [0, "scrap-metal"]
    income_of(t)
    inc = GAME.public_view(t.st)["income"][0]
    assert {"source": "Sovereign Wealth Fund", "amount": 2} in inc["effects"]   # 2 partners


def test_exported_regulations_earns_per_opponent_route_where_you_trade_too():
    t = trade_table(3)
    t.set_gdp(10, 10, 10)
    r = t.d.board.routes
    r["neutralia"][1] = [0, "eu-exported-regulations"]
    r["neutralia"][2] = [1, "bulk-coal"]
    r["neutralia"][3] = [2, "scrap-metal"]
    r["petrostan"][1] = [1, "kale-futures"]                # not shared: does not count
    income_of(t)
    inc = GAME.public_view(t.st)["income"][0]
    assert {"source": "Exported Regulations", "amount": 2} in inc["effects"]


# -- Infrastructure Diplomacy (Upkeep, chooses a partner) ---------------------------------------

def test_infrastructure_diplomacy_asks_among_partners_with_routes():
    t = clean(Table(3, seed=3))
    t.d.board.policy[0] = "infrastructure-diplomacy"
    r = t.d.board.routes
    r["neutralia"][1] = [0, "bulk-coal"]
    r["neutralia"][2] = [0, "scrap-metal"]
    r["petrostan"][1] = [0, "kale-futures"]
    upkeep_of(t)
    p = t.st.prompts[0]
    assert p["moves"] == ("choose_partner",) and sorted(p["options"]) == ["neutralia",
                                                                          "petrostan"]
    with pytest.raises(IllegalMoveError, match="one of these Trade Partners"):
        t.do(0, "choose_partner", partner="bananastan")
    t.do(0, "choose_partner", partner="neutralia")
    assert t.d.influence[0]["neutralia"] == 2


def test_infrastructure_diplomacy_with_one_partner_needs_no_question():
    t = clean(Table(3, seed=3))
    t.d.board.policy[0] = "infrastructure-diplomacy"
    t.d.board.routes["petrostan"][1] = [0, "kale-futures"]
    upkeep_of(t)
    assert 0 not in t.st.prompts and t.d.influence[0]["petrostan"] == 1


# -- Port Strike, Black Swan: the Trade timer and the Event --------------------------------------

def test_port_strike_runs_the_trade_timer_for_two_minutes():
    t = trade_table(3)
    flip_event(t, "port-strike")
    assert None not in t.st.prompts and computed(t.st.notices)[0]["seconds"] == 120
    t.st.phase = "trade"
    t.d.hands[0] = ["bulk-coal"]
    t.do(0, "place_export", card="bulk-coal", partner="neutralia", slot=1)
    assert t.st.timers["trade"].duration == 120
    assert GAME.public_view(t.st)["trade"]["seconds"] == 120
    t.tick(119)
    assert t.st.phase == "trade"
    t.tick(1)
    assert t.st.phase != "trade"


def test_the_table_tap_starts_the_short_timer_too():
    t = trade_table(3)
    flip_event(t, "port-strike")
    t.st.phase = "trade"
    t.table("start_trade_timer")
    assert t.st.timers["trade"].duration == 120


def test_black_swan_replaces_the_event_and_a_running_timer_feels_port_strike():
    t = trade_table(3)
    flip_event(t, "supply-chain-hiccup")
    t.st.phase = "trade"
    base = GAME.cost_of(t.st, 0, "bulk-coal", "neutralia")
    t.d.hands[0] = ["bulk-coal"]
    t.do(0, "place_export", card="bulk-coal", partner="neutralia", slot=1)
    t.tick(30)                                          # 2:30 left
    t.d.events.clear()
    t.d.events.append("port-strike")                    # the only other Event in the deck
    t.d.hands[1] = ["black-swan"]
    t.set_gdp(10, 10, 10)
    notes = t.do(1, "play_tactic", card="black-swan")
    assert t.d.board.event == "port-strike" and t.d.events == ["supply-chain-hiccup"]
    assert "EventFlipped" in kinds(notes) and "TimerShortened" in kinds(notes)
    assert GAME.cost_of(t.st, 0, "bulk-coal", "neutralia") == base - 1   # Hiccup is gone
    timer = t.st.timers["trade"]
    assert timer.duration == 120 and timer.left(t.now) == pytest.approx(90)


def test_black_swan_resolves_the_new_events_immediate_effects():
    t = trade_table(3)
    flip_event(t, "grand-trade-expo")
    t.st.phase = "trade"
    t.d.events[:] = ["stimulus-cheques"]
    t.d.hands[0] = ["black-swan"]
    t.set_gdp(10, 10, 10)
    t.do(0, "play_tactic", card="black-swan")
    assert t.d.board.event == "stimulus-cheques" and t.d.gdp == [10 - 2 + 2, 12, 12]


# -- Tactics against one opponent (Tariff Warz) ----------------------------------------------------

def test_hold_music_stops_the_target_playing_tactics_this_round():
    t = trade_table(3, edition="tariff")
    t.set_gdp(10, 10, 10)
    t.d.hands[0] = ["hold-music"]
    t.d.hands[1] = ["emergency-stimulus"]
    t.do(0, "play_tactic", card="hold-music", target=1)
    with pytest.raises(IllegalMoveError, match="Hold Music"):
        t.do(1, "play_tactic", card="emergency-stimulus")
    assert GAME.public_view(t.st)["silenced"] == [{"seat": 1, "source": "hold-music",
                                                   "name": "Hold Music"}]
    t.begin("cleanup")                          # the Tactic leaves play
    assert GAME.silenced(t.st, 1) is None


@pytest.mark.parametrize("gdp, swapped", [((6, 10, 30), True), ((6, 12, 30), False),
                                          ((10, 6, 30), False)])
def test_currency_manipulation_swaps_gdp_within_five(gdp, swapped):
    t = trade_table(3, edition="tariff")
    t.set_gdp(*gdp)
    t.d.hands[0] = ["currency-manipulation"]
    t.do(0, "play_tactic", card="currency-manipulation", target=1)
    a, b = gdp[0] - 3, gdp[1]                            # the Tactic costs 3
    assert t.d.gdp[:2] == ([b, a] if swapped and b - a <= 5 and b > a else [a, b])


def test_cricket_diplomacy_both_draw_then_fewer_routes_gain_two():
    t = Table(3, seed=5, edition="tariff", leaders="india,usa,china")
    t.to_phase("policy", 1)
    clean(t)
    t.st.windows.pop(GAME.moves["choose_policy"].sealed(t.st, None))
    t.d.hands = [["india-cricket-diplomacy"], [], []]
    t.set_gdp(10, 10, 10)
    t.d.board.routes["neutralia"][1] = [1, "bulk-coal"]       # seat 1 has more routes
    t.begin("policy")
    t.settle()
    t.do(0, "choose_policy", card="india-cricket-diplomacy", target=1,
         draw={"export": 1})
    t.table("resolve_policies")
    p = t.st.prompts[1]                                 # the opponent chooses its pile
    assert p["moves"] == ("draw_cards",) and p["count"] == 1
    t.do(1, "draw_cards", tactic=1)
    assert len(t.d.hands[0]) == 1 and len(t.d.hands[1]) == 1
    assert t.d.gdp[0] == 10 - 1 + 2                      # fewer routes: seat 0 gains 2


# -- the vocabulary -----------------------------------------------------------------------------

@pytest.mark.parametrize("table, words", [
    ({"kind": "manual", "text": "x", "amount": 2}, "read only by a computation"),
    ({"kind": "manual", "text": "x", "compute": "trade_timer"}, "needs seconds"),
    ({"kind": "manual", "text": "x", "compute": "swap_gdp", "target": "opponent",
      "max_gap": 5, "amount": 1}, "not read by compute swap_gdp"),
    ({"kind": "manual", "text": "x", "compute": "most_routes", "when": "immediate"},
     "must be one of upkeep, income"),
    ({"kind": "manual", "text": "x", "compute": "most_rout"}, "must be one of"),
])
def test_computations_are_checked_like_the_rest_of_the_vocabulary(table, words):
    errors = []
    parse_effect(table, owner="tactic" if table.get("target") == "opponent" else "partner",
                 errors=errors)
    assert errors and words in str(errors[0])
