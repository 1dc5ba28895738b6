"""Great Powers rules, checked against the rulebook text (shared/rules/great-powers.md)."""
import pytest

from companion.core.errors import IllegalMoveError, NotYourTurnError

from .helpers import GAME, begin, fresh, move, session, set_tokens

TRAITS = ["industry", "population", "nationalism", "navy", "army", "colony"]
# The rulebook's charts, written out independently of data/rules.toml:
CHART = {1: 1, 2: 2, 3: 4, 4: 0, 5: -1, 6: -1}
THIRD_LOSES = {"industry": "population", "population": "nationalism",
               "nationalism": "population", "army": "population", "navy": "industry",
               "colony": "navy"}


@pytest.mark.parametrize("trait", TRAITS)
@pytest.mark.parametrize("bidders", range(1, 7))
def test_bid_chart_cell_by_cell(trait, bidders):
    st = fresh(6)
    st.data.baton = 0
    st.data.bids = {s: [trait] for s in range(bidders)}
    begin(st, "results")
    for seat in range(6):
        tok = st.data.tokens[seat]
        if seat >= bidders:
            assert all(v == 5 for v in tok.values())
            continue
        nth = seat + 1
        assert tok[trait] == 5 + CHART[nth], (trait, nth)
        side = THIRD_LOSES[trait]
        expected_side = 5 - 1 if nth == 3 else 5
        if side != trait:
            assert tok[side] == expected_side, (trait, nth, side)
        others = set(TRAITS + ["vp"]) - {trait, side}
        assert all(tok[o] == 5 for o in others)


def test_bid_order_follows_the_baton_and_counts_are_cumulative_over_the_turn():
    st = fresh(4)
    st.data.baton = 2                   # seat 2 leads, then 3, 0, 1
    st.data.bids = {2: ["army", "navy"], 3: ["army", "industry"], 0: ["navy", "army"],
                    1: ["colony", "army"]}
    begin(st, "results")
    steps = [(r["seat"], r["trait"], r["nth"]) for r in st.data.results]
    assert steps == [(2, "army", 1), (3, "army", 2), (0, "navy", 1), (1, "colony", 1),
                     (2, "navy", 2), (3, "industry", 1), (0, "army", 3), (1, "army", 4)]
    assert st.data.tokens[0]["army"] == 9 and st.data.tokens[0]["population"] == 4
    assert st.data.tokens[1]["army"] == 5


def test_tokens_never_go_below_zero():
    st = fresh(6)
    st.data.baton = 0
    for s in range(6):
        set_tokens(st, s, industry=0, population=0)
    st.data.bids = {s: ["industry"] for s in range(6)}
    begin(st, "results")
    assert [st.data.tokens[s]["industry"] for s in range(6)] == [1, 2, 4, 0, 0, 0]
    assert st.data.tokens[2]["population"] == 0
    assert st.data.results[4]["change"] == 0 and st.data.results[2]["lost"]["count"] == 0


def test_cannot_bid_on_a_trait_where_you_alone_are_highest():
    s = session(3)
    st = s.state
    assert st.phase == "bid"
    # at the start everyone is tied at 5: a tie does not block (docs/great-powers.md)
    assert all(p["blocked"] == [] for p in st.prompts.values())


def test_sole_highest_blocks_and_the_error_says_why():
    st = fresh(3)
    st.phase = "deal"
    # rebuild a bid phase with seat 1 the sole Navy leader
    for w in list(st.windows):
        del st.windows[w]
    st.prompts.clear()
    set_tokens(st, 1, navy=9)
    st.round = 5
    begin(st, "bid")
    assert st.prompts[1]["blocked"] == ["navy"]
    assert "navy" not in st.prompts[1]["allowed"]
    with pytest.raises(IllegalMoveError, match="highest Navy level"):
        move(st, 1, "submit_bids", traits=["navy", "army", "colony"])
    move(st, 0, "submit_bids", traits=["navy", "army", "colony"])  # seat 0 may


def test_tied_highest_option_blocks_ties_too():
    st = fresh(3, bid_block="tied-highest")
    # everyone is tied at 5 in turn 1, so every trait is blocked and nobody bids
    assert st.data.bid_slots == [0, 0, 0]
    assert st.phase == "action"


def test_bid_errors():
    s = session(3)
    with pytest.raises(IllegalMoveError, match="exactly 3"):
        s.execute(0, "submit_bids", {"traits": ["navy"]})
    with pytest.raises(IllegalMoveError, match="same trait twice"):
        s.execute(0, "submit_bids", {"traits": ["navy", "navy", "army"]})
    with pytest.raises(IllegalMoveError, match="not a trait"):
        s.execute(0, "submit_bids", {"traits": ["navy", "gold", "army"]})
    with pytest.raises(IllegalMoveError, match="list of traits"):
        s.execute(0, "submit_bids", {"traits": "navy"})
    with pytest.raises(NotYourTurnError):
        s.execute(0, "take_action", {"card": "jazz"})


def test_extra_and_fewer_bid_cards_next_turn():
    st = fresh(3)
    st.data.bid_mod = [1, -1, 2]
    for w in list(st.windows):
        del st.windows[w]
    st.prompts.clear()
    begin(st, "bid")
    assert [st.prompts[s]["count"] for s in range(3)] == [4, 2, 5]
    assert st.data.bid_mod == [0, 0, 0]


def _to_action_phase(s):
    for seat in range(s.state.n):
        s.execute(seat, "submit_bids", {"traits": ["industry", "population", "nationalism"]})
    assert s.state.phase == "action"


def test_action_phase_in_baton_order_with_targets_and_payment():
    s = session(3, seed=4)
    _to_action_phase(s)
    st = s.state
    order = st.data.order
    assert order == [(st.data.baton + i) % 3 for i in range(3)] and len(st.data.face_up) == 4
    assert list(st.prompts) == [order[0]]           # only the baton holder acts first
    first = order[0]
    before = st.fingerprint()
    with pytest.raises(NotYourTurnError):
        s.execute(order[1], "pass_action")
    with pytest.raises(IllegalMoveError, match="not one of the cards"):
        s.execute(first, "take_action", {"card": "no-such-card"})
    assert s.state.fingerprint() == before
    # a hand-built Action phase with known cards, to test targets and costs
    st = fresh(3)
    st.data.face_up[:] = ["civil-war", "gilded-age", "jazz", "assassination"]
    st.data.baton = 2                               # seat 2 leads, then 0, then 1
    st.prompts.clear()
    begin(st, "action")
    order = st.data.order
    assert order == [2, 0, 1] and list(st.prompts) == [2]
    first = order[0]
    with pytest.raises(IllegalMoveError, match="target"):
        move(st, first, "take_action", card="civil-war")
    with pytest.raises(IllegalMoveError, match="another player"):
        move(st, first, "take_action", card="civil-war", target=first)
    with pytest.raises(IllegalMoveError, match="no target"):
        move(st, first, "take_action", card="jazz", target=order[1])
    st.data.tokens[first]["industry"] = 0
    with pytest.raises(IllegalMoveError, match="costs 1 Industry"):
        move(st, first, "take_action", card="gilded-age")
    army_before = st.data.tokens[order[1]]["army"]
    move(st, first, "take_action", card="civil-war", target=order[1])
    assert st.data.tokens[order[1]]["army"] == max(0, army_before - 2)
    assert list(st.prompts) == [order[1]]
    move(st, order[1], "take_action", card="gilded-age", resolve=False)
    move(st, order[2], "take_action", card="assassination", target=order[0])
    assert st.data.bid_mod[order[0]] == -1
    GAME._end_action(st)
    assert "jazz" in st.data.action_discard and st.data.face_up == []


def test_deal_reshuffles_the_discard_when_the_deck_runs_out():
    st = fresh(3)
    d = st.data
    d.action_discard.extend(d.action_deck[:-2])
    del d.action_deck[:-2]
    cards = GAME._draw_actions(st, 4)
    assert len(cards) == 4 and len(set(cards)) == 4
    assert any(n["kind"] == "ActionDeckReshuffled" for n in st.notices)


def _score_state(n=3):
    st = fresh(n)
    for w in list(st.windows):
        del st.windows[w]
    st.prompts.clear()
    st.phase = "score"
    for s in range(n):
        for t in TRAITS + ["vp"]:
            st.data.tokens[s][t] = 5
    return st


def test_score_phase_awards_in_order_with_side_effects():
    st = _score_state()
    set_tokens(st, 0, army=9)            # 7 VP
    set_tokens(st, 1, navy=9)            # 5 VP + may steal a Colony
    set_tokens(st, 2, industry=9)        # 5 VP + 1 Navy + 1 Army
    begin(st, "score")
    assert st.prompts[1]["moves"] == ("steal_colony", "decline_bonus")
    assert st.data.tokens[0]["vp"] == 12 and st.data.tokens[1]["vp"] == 10
    move(st, 1, "steal_colony", target=0)
    assert st.data.tokens[1]["colony"] == 6 and st.data.tokens[0]["colony"] == 4
    # seat 1 now has the most Colonies: draws 3 and may resolve 1
    assert st.data.tokens[2]["vp"] == 10 and st.data.tokens[2]["navy"] == 6
    assert st.prompts[1]["bonus"] == "draw_three" and len(st.prompts[1]["cards"]) == 3
    move(st, 1, "decline_bonus")
    assert st.data.tokens[1]["vp"] == 15 and not st.prompts and st.data.drawn == []


def test_population_and_nationalism_bonuses():
    st = _score_state()
    set_tokens(st, 0, population=8)
    set_tokens(st, 2, nationalism=8)
    begin(st, "score")
    assert st.data.bid_mod[0] == 1
    top = st.data.event_deck[-1]
    assert st.data.peeks == {2: top}
    private = [n for n in st.notices if n["kind"] == "NextEvent"]
    assert private and private[0]["to"] == 2 and private[0]["event"] == top


def test_score_ties_score_nobody_by_default_and_everyone_with_the_option():
    st = _score_state()
    begin(st, "score")
    assert all(st.data.tokens[s]["vp"] == 5 for s in range(3))
    st = fresh(3, ties="all")
    assert GAME.highest(st, ("army",)) == [0, 1, 2]


def _war_state(n, war, baton=0, **tokens_by_seat):
    st = fresh(n)
    for w in list(st.windows):
        del st.windows[w]
    st.prompts.clear()
    st.phase = "event"
    st.data.baton = baton
    st.data.event_deck.remove(war)
    st.data.event_deck.append(war)
    for s in range(n):
        for t in TRAITS + ["vp"]:
            st.data.tokens[s][t] = 5
    for seat, tok in tokens_by_seat.items():
        st.data.tokens[int(seat[1:])].update(tok)
    return st


def test_great_war_sides_alternate_from_the_leaders_foe():
    st = _war_state(5, "great-war", baton=1, s1={"army": 10}, s3={"navy": 10})
    begin(st, "event")
    assert st.prompts[1]["pick"] == "foe"
    with pytest.raises(IllegalMoveError):
        move(st, 1, "pick_side", player=1)
    move(st, 1, "pick_side", player=3)         # Leader 1 picks Foe 3
    assert st.prompts[3]["pick"] == "ally"     # the Foe picks first
    move(st, 3, "pick_side", player=0)
    assert 1 in st.prompts
    move(st, 1, "pick_side", player=2)         # Leader's ally; seat 4 is left: the Foe's
    war = st.data.war
    assert war["sides"] == [[1, 2], [3, 0, 4]]
    # strength: side A 10+5 + 5+5 = 25 army+navy; side B: 5+10 + 10 + 10 = 35 -> B wins
    assert war["result"] == 1
    assert st.data.tokens[3]["vp"] == 15 and st.data.tokens[3]["navy"] == 5   # 10 - 5
    assert st.data.tokens[3]["army"] == 3                                     # 5 - 2
    assert st.data.tokens[1]["army"] == 1 and st.data.tokens[1]["navy"] == 1  # losers keep 1
    assert st.data.tokens[1]["vp"] == 5


def test_war_in_east_europe_is_leader_against_the_right_hand_player():
    st = _war_state(4, "war-in-east-europe", baton=0, s3={"army": 9})
    begin(st, "event")
    assert st.data.war["sides"] == [[0], [3]] and st.data.war["result"] == 1
    assert st.data.tokens[3]["vp"] == 15
    assert st.data.tokens[0]["army"] == 1
    assert st.data.tokens[1] == {t: 5 for t in TRAITS + ["vp"]}


def test_war_in_west_europe_is_leader_against_the_left_hand_player_ties_by_industry():
    st = _war_state(4, "war-in-west-europe", baton=0, s0={"industry": 6})
    begin(st, "event")
    assert st.data.war["sides"] == [[0], [1]] and st.data.war["result"] == 0


def test_war_ties_go_to_nationalism_then_stalemate():
    st = _war_state(3, "war-in-west-europe", baton=0, s1={"nationalism": 6})
    begin(st, "event")
    assert st.data.war["result"] == 1
    st = _war_state(3, "war-in-west-europe", baton=0)
    begin(st, "event")
    assert st.data.war["result"] is None
    assert st.data.tokens[0]["army"] == 3 and st.data.tokens[0]["vp"] == 5


def test_award_events_and_final_tiebreak():
    st = _war_state(3, "arms-race", s2={"industry": 7})
    begin(st, "event")
    assert st.data.tokens[2]["vp"] == 15
    st = fresh(3)
    for s in range(3):
        st.data.tokens[s]["vp"] = 50
    st.data.tokens[1]["colony"] = 9
    GAME._finish(st)
    assert st.outcome.winners == [1] and st.outcome.tiebreak == "most trait tokens"
    st = fresh(3, final_tiebreak="shared")
    for s in range(3):
        st.data.tokens[s]["vp"] = 50
    GAME._finish(st)
    assert st.outcome.winners == [0, 1, 2] and st.outcome.tiebreak == "shared win"


def test_baton_passes_left_and_the_game_lasts_ten_turns():
    s = session(4, seed=9)
    from companion.core.play import play_out
    import random
    batons = []
    orig = GAME._end_turn

    play_out(s, [GAME.bots["greedy"]] * 4, random.Random(1))
    assert s.state.round == 10 and s.state.is_over()
    assert len(s.state.data.vp_curve) == 10
    phases = [p[0] for p in s.state.phase_log]
    assert phases[:7] == ["deal", "bid", "results", "action", "score", "event", "end"]
    assert phases.count("deal") == 10


def test_corrections_on_tokens():
    s = session(3)
    s.correct(2, "navy", 2, "card misread")
    assert s.state.data.tokens[2]["navy"] == 7
    with pytest.raises(IllegalMoveError, match="cannot take away"):
        s.correct(2, "army", -9, "oops")


def test_every_action_card_says_what_it_did_and_its_target_is_told():
    """Issue 22: after an Action the table said only "took" and the target's phone nothing.
    Each resolved card is a public ActionResolved notice in words (who did what to whom, with
    what was really lost), and its target gets a private ActionAgainstYou in the second person;
    a discarded card announces no effect."""
    s = session(3, seed=4)
    st = s.state
    st.data.face_up[:] = ["civil-war", "gilded-age", "assassination", "jazz"]
    st.data.baton = 2
    st.prompts.clear()
    begin(st, "action")
    st.data.tokens[0]["army"] = 1                     # Civil War can take only 1
    st.notices = []
    move(st, 2, "take_action", card="civil-war", target=0)
    move(st, 0, "take_action", card="gilded-age")
    move(st, 1, "take_action", card="assassination", target=2)
    said = [(n["kind"], n.get("to"), n["says"]) for n in st.notices if "says" in n]
    assert said == [
        ("ActionResolved", None, "P2 played Civil War on P0: P0 lost 1 Army."),
        ("ActionAgainstYou", 0, "P2 played Civil War on you: you lost 1 Army."),
        ("ActionResolved", None, "P0 played Gilded Age: P0 paid 1 Industry; P0 gained 5 VP."),
        ("ActionResolved", None,
         "P1 played Assassination on P2: P2 plays 1 fewer Bid card next turn."),
        ("ActionAgainstYou", 2,
         "P1 played Assassination on you: you play 1 fewer Bid card next turn.")]
    resolved = [n for n in st.notices if n["kind"] == "ActionResolved"]
    assert resolved[0]["changes"] == {"0": {"army": -1}} and resolved[0]["target"] == 0
    # the private notice reaches its target's view only
    from companion.core import views
    assert any(n["kind"] == "ActionAgainstYou" for n in views.seat(GAME, st, 2)["notices"])
    assert not any(n["kind"] == "ActionAgainstYou" for n in views.seat(GAME, st, 1)["notices"])
    assert not any(n["kind"] == "ActionAgainstYou" for n in views.public(GAME, st)["notices"])
    # a card taken to discard says nothing happened to anyone
    st2 = fresh(3)
    st2.data.face_up[:] = ["civil-war", "jazz", "gilded-age", "assassination"]
    st2.data.baton = 0
    st2.prompts.clear()
    begin(st2, "action")
    st2.notices = []
    move(st2, 0, "take_action", card="civil-war", resolve=False)
    assert not any("says" in n for n in st2.notices)


def test_a_turns_scoring_is_one_notice_in_words_after_its_last_row():
    """Issue 22: the scoring is an outcome every phone should see in words, the last turn's
    too: after the last row of the score track a public TurnScored says the whole turn, even
    when bonus questions came between the rows."""
    st = _score_state()
    set_tokens(st, 0, army=9)
    set_tokens(st, 1, navy=9)
    set_tokens(st, 2, industry=9)
    seen = []
    begin(st, "score")
    seen += st.notices
    st.notices = []
    move(st, 1, "steal_colony", target=0)
    seen += st.notices
    st.notices = []
    move(st, 1, "decline_bonus")
    seen += st.notices
    said = [n for n in seen if n["kind"] == "TurnScored"]
    assert len(said) == 1 and "to" not in said[0]
    assert said[0]["says"] == (
        f"Turn {st.round} scoring: Army: P0 +7 VP; Navy: P1 +5 VP; Industry: P2 +5 VP; "
        "Population: tied, nobody scores; Nationalism: tied, nobody scores; Colony: P1 +5 VP.")
