"""Each phase of the round, against the rulebooks (shared/rules/trade-warz.md, tariff-warz.md)
and the rulings in docs/trade-warz.md."""
import pytest

from companion.core.errors import IllegalMoveError, SealedChoiceError

from .helpers import GAME, Table


def clean(t):
    """No Event, Policies or Tactics in play: a bare table for a rule test."""
    d = t.d
    d.board.event = None
    d.board.policy = [None] * t.st.n
    d.board.policy_ch = [{} for _ in range(t.st.n)]
    d.board.in_play = []
    t.st.flow.drop()
    return t


def trade_table(n=4, edition="trade", seed=1, **opts):
    t = Table(n, seed=seed, edition=edition, **opts)
    t.to_phase("trade", 1)
    clean(t)
    for s in range(n):
        t.d.hands[s] = []
    t.d.events.append("grand-trade-expo")       # round 2 opens quietly (no GDP, no discards)
    return t


def flip_event(t, eid):
    """Flip ``eid`` as this round's Event, the way the Event phase does."""
    t.d.events.append(eid)
    t.st.round -= 1
    t.begin("event")
    t.settle()
    t.settle()


# -- Event ---------------------------------------------------------------------------------------

def test_event_immediate_effects_resolve_at_once():
    t = clean(Table(3, seed=2))
    t.set_gdp(10, 14, 7)
    flip_event(t, "stimulus-cheques")
    assert t.d.gdp == [12, 16, 9]
    flip_event(t, "market-correction")            # the richest loses 3
    assert t.d.gdp == [12, 13, 9]
    t.set_gdp(9, 13, 9)
    flip_event(t, "too-small-to-fail")            # every player tied for poorest gains 3
    assert t.d.gdp == [12, 13, 12]


def test_event_ongoing_effects_last_the_round_only():
    t = clean(Table(3, seed=2))
    base = GAME.cost_of(t.st, 0, "bulk-coal", "neutralia")
    flip_event(t, "supply-chain-hiccup")
    assert GAME.cost_of(t.st, 0, "bulk-coal", "neutralia") == base + 1
    flip_event(t, "boat-stuck-in-canal")          # replaces the Event: slots -1, costs back
    assert GAME.cost_of(t.st, 0, "bulk-coal", "neutralia") == base
    assert GAME.slots_at(t.st, "neutralia") == GAME.ix(t.st)["neutralia"].slots - 1
    t.begin("cleanup")
    assert t.d.board.event is None and "boat-stuck-in-canal" in t.d.event_discard
    assert GAME.slots_at(t.st, "neutralia") == GAME.ix(t.st)["neutralia"].slots


def test_event_that_makes_everyone_draw_asks_each_player_for_piles():
    t = clean(Table(3, seed=2))
    before = [len(h) for h in t.d.hands]
    flip_event(t, "meme-economy")
    order = []
    while t.st.question() is not None:
        a = t.st.question()
        assert a["kind"] == "draw" and a["count"] == 1
        assert t.st.prompts == {a["seat"]: t.st.prompts[a["seat"]]}      # only the drawer
        order.append(a["seat"])
        t.do(a["seat"], "draw_cards", tactic=1)
    assert sorted(order) == [0, 1, 2]
    assert [len(h) for h in t.d.hands] == [b + 1 for b in before]


def test_manual_event_is_a_table_confirmation_with_its_text():
    t = clean(Table(3, seed=2))
    flip_event(t, "leaked-cables")
    p = t.st.prompts[None]
    assert p["moves"] == ("confirm_manual", "adjust") and "shows their hand" in p["text"]
    t.table("confirm_manual")
    assert t.st.question() is None


# -- Upkeep ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("auto", [True, False])
def test_upkeep_resolves_c_m_y_k_and_poorest_first_within_a_colour(auto):
    t = clean(Table(4, seed=3, auto_effects=auto))
    d = t.d
    d.board.policy = ["infrastructure-week", "money-printer", "farm-subsidies", "infrastructure-week"]
    t.set_gdp(20, 12, 9, 5)
    d.board.routes["crypto-isle"][1] = [2, "bulk-coal"]
    t.st.phase = "upkeep"
    t.begin("upkeep")
    steps = {s["letter"]: s for s in d.upkeep}
    assert [s["letter"] for s in d.upkeep] == ["C", "M", "Y", "K"]
    printer = GAME.ix(t.st)["money-printer"].name
    assert [e["name"] for e in steps["C"]["effects"]] == [printer, printer]
    assert [(e["owner"], e["name"]) for e in steps["M"]["effects"]] == [
        (3, "Infrastructure Week"), (0, "Infrastructure Week")]     # poorest (5 GDP) first
    assert steps["Y"]["state"] == "empty"
    assert steps["K"]["effects"][0]["manual"] is not auto and steps["K"]["name"] == "Kraken"
    assert steps["K"]["effects"][0]["computed"] is auto
    t.settle()
    # C (Money Printer: +3 for seat 1, +1 for each opponent) and M resolved by themselves
    if auto:        # K: Crypto Isle too: seat 2 has the most routes there
        assert d.gdp == [20 + 1 + 1, 12 + 3, 9 + 1 + 1, 5 + 1 + 1]
        assert t.st.question() is None and None not in t.st.prompts
        return
    assert d.gdp == [20 + 1 + 1, 12 + 3, 9 + 1, 5 + 1 + 1]
    # K: by hand (auto_effects=false), so the table confirms it (and may apply the GDP)
    p = t.st.prompts[None]
    assert p["moves"] == ("confirm_manual", "adjust") and "Crypto Isle" in p["text"]
    assert steps["K"]["state"] == "current" and steps["M"]["state"] == "done"
    assert GAME.cue(t.st) == {"upkeep": "K"}             # the table's light shows the step
    t.table("confirm_manual", gdp={"2": 1})
    assert d.gdp[2] == 11 and t.st.question() is None


def test_upkeep_confirm_every_step_waits_for_the_table():
    t = clean(Table(3, seed=3, upkeep_confirm="every"))
    t.d.board.policy = ["infrastructure-week", None, None]
    t.st.phase = "upkeep"
    t.begin("upkeep")
    t.settle()
    p = t.st.prompts[None]
    assert p["moves"] == ("confirm_step",) and p["letter"] == "M" and p["name"] == "Mint"
    before = t.d.gdp[0]
    t.table("confirm_step")
    assert t.d.gdp[0] == before + 1


def test_upkeep_opponent_effect_asks_its_owner_whom():
    t = clean(Table(3, seed=3))
    t.d.board.policy = [None, "sanctions-package", None]
    t.set_gdp(10, 10, 10)
    t.st.phase = "upkeep"
    t.begin("upkeep")
    t.settle()
    p = t.st.prompts[1]
    assert p["moves"] == ("choose_target",) and p["options"] == [0, 2]
    with pytest.raises(IllegalMoveError):
        t.do(1, "choose_target", target=1)
    t.do(1, "choose_target", target=2)
    assert t.d.gdp == [10, 10, 9]


# -- Draw ----------------------------------------------------------------------------------------

def test_trade_warz_draws_up_to_the_hand_size_from_any_decks():
    t = Table(3, seed=4)                                 # usa 8, china 7, russia 6
    t.to_phase("draw", 1)
    assert [p["count"] for p in (t.st.prompts[s] for s in range(3))] == [8, 7, 6]
    assert set(t.st.prompts[0]["piles"]) == {"export", "tactic", "policy", "personal"}
    with pytest.raises(IllegalMoveError, match="exactly 8"):
        t.do(0, "draw_cards", export=3)
    t.do(0, "draw_cards", export=4, tactic=1, policy=1, personal=2)
    ix = GAME.ix(t.st)
    kinds = sorted(ix[c].kind for c in t.d.hands[0])
    assert kinds.count("export") >= 4 and len(t.d.hands[0]) == 8
    assert len(t.d.piles[0]) == 6


def test_a_tactic_played_during_draw_still_leaves_a_full_hand():
    # issue 12: USA holds 1 card, is told to draw 7, plays it (Emergency Stimulus) and must
    # then draw 8: Draw is "up to" the hand size, counted when the player draws
    t = Table(3, seed=4)
    t.to_phase("draw", 1)
    t.d.hands[0] = ["emergency-stimulus"]
    t.begin("draw")
    t.settle()
    assert t.st.prompts[0]["count"] == 7
    t.do(0, "play_tactic", card="emergency-stimulus")
    assert t.d.hands[0] == [] and t.st.prompts[0]["count"] == 8
    with pytest.raises(IllegalMoveError, match="exactly 8"):
        t.do(0, "draw_cards", export=7)
    t.do(0, "draw_cards", export=5, tactic=3)
    assert len(t.d.hands[0]) == 8


def test_a_hand_filled_during_draw_has_nothing_left_to_draw():
    t = Table(3, seed=4)
    t.to_phase("draw", 1)
    t.d.hands[1] = ["bulk-coal"] * 6                     # China: hand size 7, so 1 to draw
    t.begin("draw")
    t.settle()
    assert t.st.prompts[1]["count"] == 1
    t.d.hands[1].append("scrap-metal")                   # a card from an effect: now full
    t.do(0, "draw_cards", export=8)
    assert 1 not in t.st.prompts and t.d.draw.to_draw[1] == 0


def test_tariff_warz_draws_the_leaders_number_and_skips_an_empty_pile():
    t = Table(3, seed=4, edition="tariff")
    t.to_phase("draw", 1)
    assert [t.st.prompts[s]["count"] for s in range(3)] == [5, 4, 4]
    assert set(t.st.prompts[0]["piles"]) == {"export", "tactic", "personal"}
    t.d.piles[1] = []
    t.begin("draw")
    t.settle()
    assert "personal" not in t.st.prompts[1]["piles"]


# -- Policy --------------------------------------------------------------------------------------

def policy_table(n=3, edition="trade", **opts):
    t = Table(n, seed=5, edition=edition, **opts)
    t.to_phase("policy", 1)
    clean(t)
    t.st.windows.pop(GAME.moves["choose_policy"].sealed(t.st, None))      # the test deals hands, then opens it again
    return t


def test_policies_are_sealed_then_revealed_together_and_paid_at_once():
    t = policy_table()
    pol = [c for c in GAME.ix(t.st).policies if GAME.ix(t.st)[c].deck == "global"]
    for s in range(3):
        t.d.hands[s] = ["most-favoured-nation", "austerity"]
    t.set_gdp(10, 10, 10)
    t.begin("policy")
    t.settle()
    t.do(0, "choose_policy", card="most-favoured-nation")
    assert t.d.pol.revealed == {} and t.d.gdp == [10, 10, 10]         # nothing shows yet
    with pytest.raises(SealedChoiceError, match="already locked in"):
        t.do(0, "choose_policy", card="austerity")                # a second Policy
    t.do(1, "choose_policy", card="austerity")
    t.do(2, "choose_policy", card=None)
    assert t.d.pol.revealed[0]["card"] == "most-favoured-nation"     # revealed together
    assert t.st.prompts[None]["moves"][0] == "resolve_policies"  # the table checks them
    t.table("resolve_policies")
    # ongoing one stays in the slot (cost 2 paid), the immediate one resolves and goes
    assert t.d.board.policy[0] == "most-favoured-nation" and t.d.gdp[0] == 8
    assert t.d.board.policy[1] is None and t.d.gdp[1] == 13 and "austerity" in t.d.discards["policy"]
    assert len(pol) == 15


def test_a_new_ongoing_policy_replaces_the_previous_one():
    t = policy_table()
    t.d.board.policy[0] = "farm-subsidies"
    t.d.hands[0] = ["most-favoured-nation"]
    for s in (1, 2):
        t.d.hands[s] = []
    t.begin("policy")
    t.settle()
    t.do(0, "choose_policy", card="most-favoured-nation")
    t.table("resolve_policies")
    assert t.d.board.policy[0] == "most-favoured-nation"
    assert "farm-subsidies" in t.d.discards["policy"]


def test_the_poorest_player_orders_conflicting_policies():
    t = policy_table()
    t.set_gdp(12, 6, 9)
    t.d.hands = [["austerity"], ["snap-election"], ["trade-mission"]]
    t.begin("policy")
    t.settle()
    t.do(0, "choose_policy", card="austerity")
    t.do(1, "choose_policy", card="snap-election")
    t.do(2, "choose_policy", card="trade-mission", partner="neutralia")
    t.table("resolve_policies")
    p = t.st.prompts[1]                                   # seat 1 is the poorest
    assert p["moves"] == ("order_policies",) and sorted(p["seats"]) == [0, 1, 2]
    with pytest.raises(IllegalMoveError, match="each once"):
        t.do(1, "order_policies", order=[1, 1, 0])
    t.do(1, "order_policies", order=[2, 0, 1])
    played = [n["seat"] for n in t.st.notices if n["kind"] == "PolicyPlayed"]
    assert played == [2, 0, 1]
    assert t.d.influence[2]["neutralia"] == 1


def test_poorest_first_order_option_needs_no_prompt():
    t = policy_table(policy_order="poorest_first")
    t.set_gdp(12, 6, 9)
    t.d.hands = [["austerity"], ["snap-election"], ["trade-mission"]]
    t.begin("policy")
    t.settle()
    t.do(0, "choose_policy", card="austerity")
    t.do(1, "choose_policy", card="snap-election")
    t.do(2, "choose_policy", card="trade-mission", partner="neutralia")
    notes = list(t.table("resolve_policies"))
    while t.st.question() is not None:                 # Snap Election draws a card: from which pile?
        notes += t.bot_step()
    assert [n["seat"] for n in notes if n["kind"] == "PolicyPlayed"] == [1, 2, 0]


def test_extra_policy_from_an_event_opens_a_second_sealed_round():
    t = policy_table()
    t.d.extra_policy = [1, 1, 1]
    t.d.hands = [["austerity", "infrastructure-week"], [], []]
    t.begin("policy")
    t.settle()
    assert list(t.st.prompts) == [0]
    t.do(0, "choose_policy", card="austerity")
    t.table("resolve_policies")
    assert t.st.prompts[0]["window"] == "policy-r1-2"
    t.do(0, "choose_policy", card="infrastructure-week")
    t.table("resolve_policies")
    assert t.d.board.policy[0] == "infrastructure-week"


def test_policy_needing_a_target_says_so():
    t = policy_table(n=3)
    t.d.hands[0] = ["buy-local-campaign", "trade-mission"]
    t.begin("policy")
    t.settle()
    with pytest.raises(IllegalMoveError, match="needs a Trade Partner"):
        t.do(0, "choose_policy", card="trade-mission")
    with pytest.raises(IllegalMoveError, match="not in your hand"):
        t.do(0, "choose_policy", card="money-printer")


def test_fast_pass_with_the_policy_locks_the_board_against_opponents_cards():
    t = policy_table(n=3, edition="tariff")
    t.d.hands = [["usa-tax-cuts"], ["china-currency-peg"], []]
    t.d.hands[2] = ["troll-farm"]
    t.begin("policy")
    t.settle()
    t.do(0, "choose_policy", card="usa-tax-cuts", fast_pass=True)
    t.do(1, "choose_policy", card="china-currency-peg")
    assert t.d.locked == [True, False, False] and t.d.fast_pass[0] is False
    t.table("resolve_policies")
    t.to_phase("trade", 1)
    t.d.hands[2] = ["troll-farm"]
    t.set_gdp(10, 10, 10)
    with pytest.raises(IllegalMoveError, match="cannot be targeted"):
        t.do(2, "play_tactic", card="troll-farm", target=0)
    assert GAME.legal_targets(t.st, 2, "opponent") == [1]


# -- Trade ---------------------------------------------------------------------------------------

def test_timer_starts_at_the_first_export_warns_at_30s_and_the_buzzer_ends_trade():
    t = trade_table(3)
    t.d.hands[0] = ["bulk-coal", "soybean-surplus"]
    t.tick(50)
    assert "trade" not in t.st.timers                     # no Export yet: no timer
    notes = t.do(0, "place_export", card="bulk-coal", partner="neutralia", slot=1)
    timer = t.st.timers["trade"]
    assert timer.duration == 180 and timer.warn_before == 30
    assert timer.deadline == pytest.approx(50 + 180)
    assert any(n["kind"] == "TimerStarted" for n in notes)
    t.tick(100)
    t.do(0, "place_export", card="soybean-surplus", partner="neutralia", slot=2)  # any number
    assert t.st.phase == "trade"
    notes = t.tick(80)                                    # 0:00
    assert any(n["kind"] == "Buzzer" for n in notes)
    assert t.st.phase != "trade"


def test_occupied_slot_refused_with_a_reason_and_contested_face_down_slot_allowed():
    t = trade_table(3)
    t.d.board.routes["neutralia"][1] = [2, "bulk-coal"]
    t.d.hands[0] = ["soybean-surplus", "kale-futures"]
    t.d.hands[1] = ["luxury-yachts"]
    with pytest.raises(IllegalMoveError, match="already holds .*route; choose an open slot"):
        t.do(0, "place_export", card="soybean-surplus", partner="neutralia", slot=1)
    t.do(0, "place_export", card="soybean-surplus", partner="neutralia", slot=2)
    with pytest.raises(IllegalMoveError, match="already have a card on slot 2"):
        t.do(0, "place_export", card="kale-futures", partner="neutralia", slot=2)
    t.do(1, "place_export", card="luxury-yachts", partner="neutralia", slot=2)   # contest
    assert [(p["seat"], p["slot"]) for p in t.d.trade.placements] == [(0, 2), (1, 2)]


def test_face_down_export_public_view_shows_only_who_and_where():
    t = trade_table(3)
    t.d.hands[0] = ["kale-futures"]
    t.do(0, "place_export", card="kale-futures", partner="petrostan", slot=2)
    pub = GAME.public_view(t.st)
    placed = [p for x in pub["partners"] for p in x["placed"]]
    assert placed == [{"seat": 0, "slot": 2, "state": "down", "card": None, "name": None}]
    assert "kale-futures" not in repr(pub)
    mine = GAME.seat_view(t.st, 0)
    assert mine["facedown"] == [{"partner": "petrostan", "slot": 2, "card": "kale-futures",
                                 "name": "Organic Kale Futures"}]
    assert "kale-futures" not in repr(GAME.seat_view(t.st, 1))


def test_trade_warz_budget_counts_face_down_exports_and_leader_slots_cap_them():
    t = trade_table(3)
    t.set_gdp(4, 10, 10)
    t.d.hands[0] = ["luxury-yachts", "bulk-coal", "soybean-surplus"]
    t.do(0, "place_export", card="luxury-yachts", partner="neutralia", slot=1)   # 3
    with pytest.raises(IllegalMoveError, match="promised to your other face-down"):
        t.do(0, "place_export", card="bulk-coal", partner="neutralia", slot=2)   # 3 + 2 > 4
    t.do(0, "place_export", card="soybean-surplus", partner="neutralia", slot=2)  # 3 + 1
    t.d.hands[2] = ["bulk-coal", "soybean-surplus", "kale-futures", "scrap-metal"]
    for k, c in enumerate(["bulk-coal", "soybean-surplus", "kale-futures"], start=1):
        t.do(2, "place_export", card=c, partner="petrostan" if k < 4 else "neutralia",
             slot=k)
    with pytest.raises(IllegalMoveError, match="Russia has 3 Export slots"):
        t.do(2, "place_export", card="scrap-metal", partner="bananastan", slot=1)


def test_tariff_warz_pays_on_placement():
    t = trade_table(3, edition="tariff")
    t.set_gdp(3, 10, 10)
    t.d.hands[0] = ["luxury-yachts", "bulk-coal"]
    t.do(0, "place_export", card="luxury-yachts", partner="neutralia", slot=1)
    assert t.d.gdp[0] == 0
    with pytest.raises(IllegalMoveError, match="costs 2 GDP at .*you have 0"):
        t.do(0, "place_export", card="bulk-coal", partner="neutralia", slot=2)


def test_tactics_any_time_before_trade_ends_and_refused_after():
    t = trade_table(3)
    t.d.hands[0] = ["emergency-stimulus", "leaked-memo", "bulk-coal"]
    t.do(0, "play_tactic", card="emergency-stimulus")
    assert t.d.gdp[0] == 12
    t.do(0, "place_export", card="bulk-coal", partner="neutralia", slot=1)
    for s in range(3):
        t.do(s, "done_trade")
    assert t.st.phase == "exports"                      # the flip: Trade is over
    with pytest.raises(IllegalMoveError, match="only until Trade ends"):
        t.do(0, "play_tactic", card="leaked-memo")


def test_tactic_in_the_policy_phase_is_allowed():
    t = policy_table(n=3)
    t.d.hands[1] = ["emergency-stimulus", "austerity"]
    before = t.d.gdp[1]
    t.do(1, "play_tactic", card="emergency-stimulus")
    assert t.d.gdp[1] == before + 2


def test_influence_bought_and_sold_between_players():
    t = trade_table(3)
    t.set_gdp(10, 10, 10)
    t.d.influence[0]["neutralia"] = 3
    t.do(0, "offer_influence", to=1, partner="neutralia", amount=2, price=5)
    offer = t.d.trade.offers[0]["id"]
    assert GAME.public_view(t.st)["offers"][0]["price"] == 5            # public
    with pytest.raises(IllegalMoveError, match="not made to you"):
        t.do(2, "answer_offer", offer=offer, accept=True)
    t.do(1, "answer_offer", offer=offer, accept=True)
    assert t.d.influence[0]["neutralia"] == 1 and t.d.influence[1]["neutralia"] == 2
    assert t.d.gdp[:2] == [15, 5]


def test_done_is_final_for_deals_too():
    t = trade_table(3)
    t.set_gdp(10, 10, 10)
    t.d.influence[0]["neutralia"] = 3
    t.do(1, "done_trade")
    with pytest.raises(IllegalMoveError, match="done trading"):
        t.do(1, "offer_influence", to=0, partner="neutralia", amount=1, price=2, side="buy")
    t.d.hands[1] = ["emergency-stimulus"]
    t.do(1, "play_tactic", card="emergency-stimulus")      # Tactics still, until Trade ends
    assert t.d.gdp[1] == 12


def test_fast_pass_during_trade_locks_the_board():
    t = trade_table(3, edition="tariff")
    t.do(1, "use_fast_pass")
    assert t.d.locked[1] and not t.d.fast_pass[1]
    with pytest.raises(IllegalMoveError, match="spent"):
        t.do(1, "use_fast_pass")


def test_activated_leader_ability_once_per_round():
    t = trade_table(3)
    t.d.hands[0] = ["bulk-coal", "leaked-memo"]
    t.do(0, "activate_ability", discard=["leaked-memo"], draw={"export": 1})
    assert "leaked-memo" not in t.d.hands[0] and len(t.d.hands[0]) == 2
    with pytest.raises(IllegalMoveError, match="once per round"):
        t.do(0, "activate_ability", discard=["bulk-coal"], draw={"export": 1})
    with pytest.raises(IllegalMoveError, match="works by itself"):
        t.do(1, "activate_ability")


# -- Disputes ------------------------------------------------------------------------------------

def place_all(t, plan):
    """``plan``: [(seat, card, partner, slot), ...]; everyone then says done."""
    for s, c, p, k in plan:
        t.d.hands[s].append(c)
        t.do(s, "place_export", card=c, partner=p, slot=k)
    for s in range(t.st.n):
        if not t.d.trade.done[s] and t.st.phase == "trade":
            t.do(s, "done_trade")
    if t.st.phase == "exports":
        t.table("resolve_exports")


def resolve_disputes(t, bids, choices):
    """Answer dispute prompts: ``bids[seat]`` for every bid, ``choices``: the order in which
    choosers pick ([partner, slot] each). Returns [(chooser, partner, slot, winner), ...]."""
    out, chooser = [], {}
    choices = list(choices)

    def seen(notes):
        for n in notes:
            if n["kind"] == "DisputeChosen":
                chooser[n["partner"], n["slot"]] = n["seat"]
            if n["kind"] == "DisputeResolved":
                out.append((chooser[n["partner"], n["slot"]], n["partner"], n["slot"],
                            n["winner"]))
    seen(t.st.notices)
    while t.st.phase == "disputes":
        p = t.st.prompts
        if not p:
            break
        seat = min(p, key=lambda s: -1 if s is None else s)
        if seat is None:
            t.table(*GAME.table_bot(GAME, GAME.observe(t.st, None), t.rng))
            continue
        mv = p[seat]["moves"][0]
        if mv == "choose_dispute":
            part, slot = choices.pop(0)
            t.do(seat, "choose_dispute", partner=part, slot=slot)
        elif mv == "bid":
            notes = t.do(seat, "bid", amount=bids.get(seat, 0))
            for n in notes:
                if n["kind"] == "DisputeResolved":
                    c = t.d.disputes.contests[n["contest"]]
                    out.append((c["chooser"], c["partner"], c["slot"], n["winner"]))
        else:                                   # an effect's question (draw, ...)
            t.bot_step()
    return out


def trips(choosers, order):
    """How many times the choice went round the table."""
    rank = [order.index(c) for c in choosers]
    return 1 + sum(1 for a, b in zip(rank, rank[1:]) if b <= a)


def test_dispute_order_with_three_contested_slots():
    t = trade_table(4)
    t.set_gdp(5, 8, 11, 14)
    place_all(t, [(0, "soybean-surplus", "neutralia", 1), (1, "soybean-surplus", "neutralia", 1),
                  (0, "scrap-metal", "neutralia", 2), (2, "bulk-coal", "neutralia", 2),
                  (1, "cat-video-rights", "petrostan", 1),
                  (3, "kale-futures", "petrostan", 1)])
    assert t.st.phase == "disputes" and len(t.d.disputes.contests) == 3
    assert t.d.disputes.order == [0, 1, 2, 3]
    assert t.st.prompts[0]["moves"] == ("choose_dispute",)     # the poorest chooses first
    got = resolve_disputes(t, {}, [["neutralia", 2], ["petrostan", 1]])
    # seat 0 picks neutralia 2; seat 1 picks petrostan 1 (of its two); seat 2 and 3 have none
    # left; back to seat 0, whose only one is neutralia 1
    assert [(c, p, k) for c, p, k, _ in got] == [(0, "neutralia", 2), (1, "petrostan", 1),
                                                (0, "neutralia", 1)]
    # the rulebook: "all fights clear in at most ceil(#contests / 2) turns" round the table
    assert trips([c for c, _, _, _ in got], [0, 1, 2, 3]) == 2
    assert t.st.phase != "disputes"


def test_dispute_order_with_four_contested_slots():
    t = trade_table(4)
    t.set_gdp(5, 8, 11, 14)
    place_all(t, [(0, "soybean-surplus", "neutralia", 1), (1, "soybean-surplus", "neutralia", 1),
                  (0, "scrap-metal", "neutralia", 2), (2, "bulk-coal", "neutralia", 2),
                  (1, "cat-video-rights", "petrostan", 1), (3, "kale-futures", "petrostan", 1),
                  (2, "artisanal-maple-water", "petrostan", 2),
                  (3, "discount-sneakers", "petrostan", 2)])
    assert len(t.d.disputes.contests) == 4
    got = resolve_disputes(t, {}, [["neutralia", 1], ["petrostan", 2]])
    assert [(c, p, k) for c, p, k, _ in got] == [
        (0, "neutralia", 1), (1, "petrostan", 1), (2, "petrostan", 2), (0, "neutralia", 2)]
    assert trips([c for c, _, _, _ in got], [0, 1, 2, 3]) == 2          # ceil(4 / 2)


def test_dispute_power_is_printed_influence_plus_accumulated_plus_bid():
    t = trade_table(3)
    t.set_gdp(10, 12, 20)
    t.d.influence[1]["neutralia"] = 2                   # Trade Warz: accumulated counts
    place_all(t, [(0, "luxury-yachts", "neutralia", 1), (1, "soybean-surplus", "neutralia", 1)])
    got = resolve_disputes(t, {0: 1, 1: 1}, [])
    c = t.d.disputes.contests[0]
    assert c["power"] == {"0": 2 + 0 + 1, "1": 1 + 2 + 1}          # 3 v 4
    assert got[0][3] == 1 and c["parts"]["1"] == {"printed": 1, "influence": 2, "effects": 0,
                                                  "bid": 1}
    # the winner pays the bid; the loser takes the card back and pays nothing
    assert t.d.gdp[0] == 10 and "luxury-yachts" in t.d.hands[0]
    assert t.d.board.routes["neutralia"][1] == [1, "soybean-surplus"]
    # bid 1, then the Export's cost 1, then its first Income (value 1 + Neutralia's bonus 3)
    assert t.d.gdp[1] == 12 - 1 - 1 + (1 + 3)


def test_tariff_dispute_power_ignores_accumulated_influence_and_refunds_the_loser():
    t = trade_table(3, edition="tariff")
    t.set_gdp(10, 12, 20)
    t.d.influence[1]["neutralia"] = 5                   # not counted in Tariff Warz
    place_all(t, [(0, "luxury-yachts", "neutralia", 1), (1, "soybean-surplus", "neutralia", 1)])
    assert t.d.gdp[:2] == [7, 11]                         # paid on placement
    resolve_disputes(t, {0: 0, 1: 1}, [])
    c = t.d.disputes.contests[0]
    assert c["power"] == {"0": 2, "1": 2} and c["winner"] == 0      # tie: the poorer wins
    assert c["tiebreak"] == "poorest"
    assert t.d.gdp[1] == 12                               # loser: cost refunded, bid unpaid


def test_bid_above_gdp_is_refused():
    t = trade_table(3)
    t.set_gdp(4, 6, 20)
    place_all(t, [(0, "soybean-surplus", "neutralia", 1), (1, "soybean-surplus", "neutralia", 1)])
    with pytest.raises(IllegalMoveError, match="You have 4 GDP; you cannot bid 5"):
        t.do(0, "bid", amount=5)
    t.do(0, "bid", amount=2)
    b = GAME.public_view(t.st)["disputes"]["bidding"]
    assert b["seats"] == [0, 1] and b["locked"] == [0]          # who has locked, not how much
    assert '"choice"' not in repr(b)


def test_tariff_unpaid_export_at_the_buzzer_is_discarded():
    t = trade_table(3, edition="tariff")
    t.set_gdp(2, 10, 10)
    t.d.hands[1] = ["customs-paperwork"]
    t.d.hands[0] = ["bulk-coal"]
    t.do(0, "place_export", card="bulk-coal", partner="neutralia", slot=1)   # pays 2 -> 0
    t.do(1, "play_tactic", card="customs-paperwork", target=0)               # now costs 3
    for s in range(3):
        t.do(s, "done_trade")
    assert t.d.trade.placements[0]["state"] == "discarded"
    assert "bulk-coal" in t.d.discards["export"] and 1 not in t.d.board.routes["neutralia"]


def test_trade_warz_unaffordable_export_after_disputes_returns_to_hand():
    t = trade_table(3)
    t.set_gdp(3, 3, 20)
    place_all(t, [(0, "luxury-yachts", "neutralia", 1), (1, "bulk-coal", "neutralia", 1)])
    resolve_disputes(t, {0: 1, 1: 0}, [])                  # 0 wins: 2+1 v 1; pays 1, has 2
    p = t.d.trade.placements[0]
    assert p["state"] == "unpaid" and "luxury-yachts" in t.d.hands[0]


# -- Income and the instant win ------------------------------------------------------------------

def test_income_is_route_value_plus_partner_bonus_plus_multipliers_and_influence_accrues():
    t = trade_table(3)
    t.set_gdp(10, 10, 10)
    d = t.d
    d.board.routes["bananastan"][1] = [0, "soybean-surplus"]      # 1 + 1, +1 Food here
    d.board.routes["neutralia"][1] = [0, "luxury-yachts"]          # 3 + 3
    d.board.policy[0] = "farm-subsidies"                          # Food routes +1
    for s in range(3):
        t.do(s, "done_trade")
    inc = GAME.public_view(t.st)["income"][0]
    assert inc["route_total"] == (1 + 1 + 1 + 1) + (3 + 3)
    food = next(r for r in inc["routes"] if r["card"] == "soybean-surplus")
    assert {m["source"] for m in food["mods"]} == {"The Banana Republic of Bananastan",
                                                    "Farm Subsidies"}
    assert d.gdp[0] == 10 + 10
    assert d.influence[0] == {"bananastan": 1, "neutralia": 2}
    assert d.gdp_curve[-1][0] == 20


def test_a_50_gdp_win_in_the_middle_of_income_trade_warz():
    t = trade_table(3)
    t.set_gdp(45, 47, 10)
    t.d.board.routes["neutralia"][1] = [0, "luxury-yachts"]        # +6 -> 51, first (poorer)
    t.d.board.routes["neutralia"][2] = [1, "bulk-coal"]            # +5 -> 52, never paid
    for s in range(3):
        t.do(s, "done_trade")
    o = t.st.outcome
    assert o.winners == [0] and "Economic Boom" in o.reason and "Income" in o.reason
    assert t.d.gdp == [51, 47, 10]


def test_tariff_simultaneous_50_highest_wins_and_a_tie_plays_on():
    t = trade_table(3, edition="tariff")
    t.set_gdp(45, 47, 10)
    t.d.board.routes["neutralia"][1] = [0, "luxury-yachts"]        # 51
    t.d.board.routes["neutralia"][2] = [1, "bulk-coal"]            # 52: highest
    for s in range(3):
        t.do(s, "done_trade")
    assert t.st.outcome.winners == [1] and t.d.gdp == [51, 52, 10]
    t2 = trade_table(3, edition="tariff")
    t2.set_gdp(46, 47, 10)
    t2.d.board.routes["neutralia"][1] = [0, "luxury-yachts"]       # 52
    t2.d.board.routes["neutralia"][2] = [1, "bulk-coal"]           # 52: tied, play continues
    for s in range(3):
        t2.do(s, "done_trade")
    assert t2.st.outcome is None and t2.d.boom_tie == [0, 1]


def test_tiebreak_chain_trade_warz():
    t = clean(Table(3, seed=6))
    st = t.st
    st.round = 5
    t.set_gdp(30, 30, 20)
    t.d.influence[0] = {"neutralia": 1, "petrostan": 2}
    t.d.influence[1] = {"neutralia": 4, "bananastan": 1}
    t.d.board.routes["lunar-colony"][1] = [1, "bulk-coal"]          # 3 partners v 2
    GAME.phases["cleanup"].on_end(st)      # the last round ends
    assert st.outcome.winners == [1]
    assert st.outcome.tiebreak == "most Trade Partners influenced"
    assert "highest GDP after round 5" in st.outcome.reason


def test_tiebreak_falls_through_to_routes_then_gdp_in_hand_then_shared():
    t = clean(Table(3, seed=6))
    st = t.st
    st.round = 5
    t.set_gdp(30, 30, 20)
    t.d.board.routes["neutralia"][1] = [0, "bulk-coal"]
    t.d.board.routes["neutralia"][2] = [1, "soybean-surplus"]
    t.d.board.routes["petrostan"][1] = [1, "scrap-metal"]
    t.d.influence[0] = {"neutralia": 1, "petrostan": 1}
    t.d.influence[1] = {"neutralia": 1, "petrostan": 1}
    t.d.hands[0], t.d.hands[1] = [], []
    GAME.phases["cleanup"].on_end(st)      # the last round ends
    assert st.outcome.winners == [1]
    assert st.outcome.tiebreak == ("most Trade Partners influenced, then most active routes")
    t2 = clean(Table(2, seed=6))
    t2.st.round = 5
    t2.set_gdp(30, 30)
    t2.d.hands = [["luxury-yachts"], ["luxury-yachts"]]
    GAME.phases["cleanup"].on_end(t2.st)      # the last round ends
    assert t2.st.outcome.winners == [0, 1] and t2.st.outcome.tiebreak.endswith("shared win")


def test_tariff_tiebreak_below_50_is_partners_influenced():
    t = clean(Table(2, seed=6, edition="tariff"))
    t.st.round = 5
    t.set_gdp(30, 30)
    t.d.board.routes["neutralia"][1] = [1, "bulk-coal"]
    GAME.phases["cleanup"].on_end(t.st)      # the last round ends
    assert t.st.outcome.winners == [1]
    assert t.st.outcome.tiebreak == "most Trade Partners influenced"


# -- Cleanup --------------------------------------------------------------------------------------

def test_cleanup_discards_the_event_tactics_and_to_seven_in_tariff():
    t = trade_table(3, edition="tariff")
    t.d.board.event = "grand-trade-expo"
    t.d.hands[0] = ["emergency-stimulus"]
    t.do(0, "play_tactic", card="emergency-stimulus")
    t.d.hands[1] = ["bulk-coal"] * 9
    for s in range(3):
        t.do(s, "done_trade")
    assert t.st.phase == "cleanup"
    p = t.st.prompts[1]
    assert p["moves"] == ("discard_cards",) and p["count"] == 2
    t.do(1, "discard_cards", cards=t.d.hands[1][:2])
    assert len(t.d.hands[1]) == 7
    assert "grand-trade-expo" in t.d.event_discard and t.d.board.in_play == []
    assert t.st.round == 2 and t.st.phase != "cleanup" and "trade" not in t.st.timers


def test_trade_warz_has_no_cleanup_discard():
    t = trade_table(3)
    t.d.hands[1] = ["bulk-coal"] * 9
    for s in range(3):
        t.do(s, "done_trade")
    assert t.st.round == 2 and t.d.hands[1].count("bulk-coal") == 9


def test_a_correction_that_reaches_50_wins_in_trade_warz():
    from .helpers import session
    s = session(3, seed=2, leaders="usa,china,russia")
    g = s.state.data.gdp[1]
    s.correct(1, "gdp", 50 - g, "coins miscounted")
    assert s.state.outcome.winners == [1] and "Economic Boom" in s.state.outcome.reason


# -- issue 22: what the table waits for, in words --------------------------------------------------
def test_waiting_in_disputes_says_for_what():
    """ "Waiting for <two players>" in Disputes never said what for: the public view's
    ``waiting_for`` says it (the choice of the next dispute, or a blind bid on which one), and
    the table's waiting line reads it."""
    from companion.core import views
    from ui import model
    t = trade_table(4)
    t.set_gdp(5, 8, 11, 14)
    place_all(t, [(0, "soybean-surplus", "neutralia", 1), (1, "soybean-surplus", "neutralia", 1),
                  (0, "scrap-metal", "neutralia", 2), (2, "bulk-coal", "neutralia", 2)])
    pub = views.public(GAME, t.st)
    assert pub["waiting"] == [0]
    assert pub["game_view"]["waiting_for"] == "to choose which of their disputes is settled next"
    assert model.waiting_text(pub) == ("Waiting for P0: to choose which of their disputes is "
                                       "settled next.")
    t.do(0, "choose_dispute", partner="neutralia", slot=2)
    pub = views.public(GAME, t.st)
    assert pub["waiting"] == [0, 2]
    assert model.waiting_text(pub) == ("Waiting for P0 and P2: a blind bid of GDP on the "
                                       "dispute at The Confederation of Neutralia slot 2: P0 "
                                       "vs P2.")
    t.do(0, "bid", amount=1)
    assert model.waiting_text(views.public(GAME, t.st)).startswith("Waiting for P2: a blind bid")


def test_the_policy_order_prompt_asks_first_then_second_then_last():
    """The order prompt kept asking "Which Policy resolves first" through every pick: each
    pick has its own question (``pick_labels``), which the pickers show for the next pick."""
    from companion.core import views
    from ui import model
    t = policy_table()
    t.set_gdp(12, 6, 9)
    t.d.hands = [["austerity"], ["snap-election"], ["trade-mission"]]
    t.begin("policy")
    t.settle()
    t.do(0, "choose_policy", card="austerity")
    t.do(1, "choose_policy", card="snap-election")
    t.do(2, "choose_policy", card="trade-mission", partner="neutralia")
    t.table("resolve_policies")
    spec = next(m for m in views.legal(GAME, t.st, 1)
                if m["move"] == "order_policies")["args"][0]
    assert spec["pick_labels"] == ["Which Policy resolves first?",
                                   "Which Policy resolves second?",
                                   "Which Policy resolves last?"]
    assert [model.spec_question(spec, spec_value) for spec_value in ([], [2], [2, 0])] == \
        spec["pick_labels"]
    assert "first" not in spec["label"].split("(")[0]
