"""Market Trading rules: boards, the six steps, trades, improvements, building, foraging,
donations with the first-copy bonus and flooding, and the end."""
import collections

import pytest

from companion.core.errors import IllegalMoveError
from companion.games.market_trading.data import TERRAINS

from .helpers import GAME, at_step, do, fresh, play_to_end, step


def test_boards_are_seeded_random_grids_printable_as_text():
    a, b, c = fresh(seed=5), fresh(seed=5), fresh(seed=6)
    assert a.data.board == b.data.board and a.data.piles == b.data.piles
    assert a.data.board != c.data.board
    r = GAME.rules
    for board in a.data.board:
        assert len(board) == r.rows * r.cols and set(board) <= set(TERRAINS)
    untouched = a.data.piles[1]                       # seat 1 has not harvested yet
    assert sorted(n for n in untouched if n) == [r.start_pile_size] * r.start_piles
    text = GAME.board_text(a, 1).splitlines()
    assert len(text) == r.rows + 2
    for row in range(r.rows):
        letters = [cell[0] for cell in text[row + 1].split()[1:]]
        assert letters == [r.letters[t] for t in a.data.board[1][row * r.cols:(row + 1) *
                                                                  r.cols]]
    assert "F = field (grain)" in text[-1]


def test_terrain_follows_the_data_weights():
    counts = collections.Counter()
    for seed in range(60):
        for board in fresh(seed=seed).data.board:
            counts.update(board)
    r = GAME.rules
    total = sum(counts.values())
    for t, w in zip(r.terrains, r.weights):
        assert abs(counts[t] / total - w / sum(r.weights)) < 0.03, t


def test_harvest_takes_one_from_each_pile():
    st = fresh(seed=3)
    d, r = st.data, GAME.rules
    assert d.active == 0 and st.round == 1
    piled = [t for t, n in enumerate(d.piles[0]) if n]
    assert len(piled) == r.start_piles
    assert all(d.piles[0][t] == r.start_pile_size - 1 for t in piled)
    assert d.last["harvest"] == dict(collections.Counter(d.yields[0][t] for t in piled))


def test_the_turn_is_six_steps_in_order():
    st = fresh(seed=2)
    play = [p[0] for p in st.phase_log]
    assert play[:2] == ["harvest", "trade"]
    while st.data.turns < 2:
        step(st)
    names = [p[0] for p in st.phase_log]
    first_turn = names[:names.index("harvest", 1)]
    assert first_turn == ["harvest", "trade", "build", "trade_again", "forage", "donate"]


def test_donation_first_copy_bonus_as_in_the_rulebook():
    st = fresh(seed=1)
    st.data.market["grain"] = 0
    at_step(st, "donate", hand={"grain": 2})
    assert st.data.bowl[0] == 30 - 3 and st.data.market["grain"] == 2
    st = fresh(seed=1)
    at_step(st, "donate", hand={"fish": 3, "flour": 1})
    assert st.data.bowl[0] == 30 - (2 + 1 + 1) - 6


def test_a_flooded_market_takes_nothing_and_the_bank_pays_nothing():
    st = fresh(seed=1)
    at_step(st, "donate", hand={"grain": 2}, market={"grain": 4})
    assert st.data.bowl[0] == 30 and st.data.bank["grain"] == 2
    st = fresh(seed=1)
    at_step(st, "donate", hand={"grain": 2}, market={"grain": 3})
    assert st.data.bowl[0] == 29 and st.data.market["grain"] == 4
    assert st.data.bank["grain"] == 1


def test_trades_with_the_market():
    st = fresh(seed=1)
    at_step(st, "trade", hand={"wood": 2, "planks": 1}, market={"grain": 2, "flour": 1})
    assert st.prompts[0]["moves"] == ("trade", "end_step")       # no improvement to use
    do(st, 0, "trade", give={"wood": 1}, take={"grain": 1})
    d = st.data
    assert d.hand == {"wood": 1, "planks": 1, "grain": 1}
    assert d.market["wood"] == 1 and d.market["grain"] == 1
    with pytest.raises(IllegalMoveError, match="worth no more than what you give"):
        do(st, 0, "trade", give={"wood": 1}, take={"flour": 1})
    do(st, 0, "trade", give={"planks": 1}, take={"grain": 1, "wood": 1})    # 2 <= 4
    assert d.hand == {"wood": 2, "grain": 2} and d.market["planks"] == 1


@pytest.mark.parametrize("give,take,market,match", [
    ({"wood": 1}, {"grain": 1}, {"wood": 4, "grain": 1}, "Wood market is flooded"),
    ({"wood": 2}, {"flour": 1}, {"wood": 3, "flour": 1}, "room for 1 more"),
    ({"wood": 1}, {"grain": 2}, {"grain": 1}, "market has 1 Grain, not 2"),
    ({"stone": 1}, {"grain": 1}, {"grain": 1}, "have 0 Stone to give"),
    ({"wood": 1}, {"wood": 1}, {"wood": 1}, "give and take Wood"),
    ({"gold": 1}, {"grain": 1}, {"grain": 1}, "'gold' is not a resource"),
    ({"wood": 0}, {"grain": 1}, {"grain": 1}, "positive whole number"),
    ({}, {"grain": 1}, {"grain": 1}, "table of resources"),
    ({"wood": 1}, [], {"grain": 1}, "table of resources"),
])
def test_illegal_trades(give, take, market, match):
    st = fresh(seed=1)
    at_step(st, "trade", hand={"wood": 2, "salt": 1}, market=market)
    before = st.fingerprint()
    with pytest.raises(IllegalMoveError, match=match):
        do(st, 0, "trade", give=give, take=take)
    assert st.fingerprint() == before


@pytest.mark.parametrize("limit,again_same_step,again_next_step", [
    ("once-per-step", False, True), ("once-per-turn", False, False),
    ("unlimited", True, True)])
def test_improvement_use_limits(limit, again_same_step, again_next_step):
    st = fresh(seed=1, improve_limit=limit)
    st.data.built[0] = ["mill"]
    at_step(st, "trade", hand={"grain": 6})
    do(st, 0, "improve", improvement="mill")
    assert st.data.hand == {"grain": 4, "flour": 1}
    if again_same_step:
        do(st, 0, "improve", improvement="mill")
    else:
        with pytest.raises(IllegalMoveError, match="used your Mill already"):
            do(st, 0, "improve", improvement="mill")
    do(st, 0, "end_step")
    st.prompts.clear()
    at_step(st, "trade_again", market={"salt": 1})
    if again_next_step:
        do(st, 0, "improve", improvement="mill")
    else:
        with pytest.raises(IllegalMoveError, match="this turn"):
            do(st, 0, "improve", improvement="mill")


def test_improve_refusals():
    st = fresh(seed=1)
    st.data.built[0] = ["mill", "market-stall"]
    at_step(st, "trade", hand={"grain": 1, "wood": 1}, market={"salt": 1})
    with pytest.raises(IllegalMoveError, match="needs 2 Grain in your hand"):
        do(st, 0, "improve", improvement="mill")
    with pytest.raises(IllegalMoveError, match="converts nothing"):
        do(st, 0, "improve", improvement="market-stall")
    with pytest.raises(IllegalMoveError, match="no improvement 'bakery'"):
        do(st, 0, "improve", improvement="bakery")


def test_build_pays_the_bank_refills_the_row_and_triggers_on_build_of_the_others():
    st = fresh(seed=1)
    d = st.data
    d.built[0] = ["market-stall"]
    d.face_up[3] = "sawmill"
    at = d.face_up.index("sawmill")
    top = d.deck[-1]
    at_step(st, "build", hand={"stone": 1, "grain": 1, "fish": 1})
    assert st.prompts[0]["moves"] == ("build", "skip_build")
    with pytest.raises(IllegalMoveError, match="not face up"):
        do(st, 0, "build", improvement="carpenter" if "carpenter" not in d.face_up else "x")
    do(st, 0, "build", improvement="sawmill")
    assert d.built[0] == ["market-stall", "sawmill"] and d.face_up[at] == top
    assert d.bank["stone"] == 1 and d.bank["grain"] == 1 and d.hand == {"fish": 1}
    assert d.bowl[0] == 30 - 2                          # the Market Stall's On Build
    # building a Market Stall does not trigger itself
    st = fresh(seed=1)
    st.data.face_up[0] = "market-stall"
    at_step(st, "build", hand={"grain": 1, "fish": 1})
    do(st, 0, "build", improvement="market-stall")
    assert st.data.bowl[0] == 30


def test_build_step_is_passed_when_nothing_is_affordable_and_costs_can_go_to_the_market():
    st = fresh(seed=1)
    at_step(st, "build", hand={})
    assert 0 not in st.prompts
    st = fresh(seed=1, build_payment="market")
    st.data.face_up[0] = "sawmill"
    at_step(st, "build", hand={"stone": 1, "grain": 1}, market={"stone": 4, "grain": 0})
    do(st, 0, "build", improvement="sawmill")
    assert st.data.market["grain"] == 1 and st.data.bank["stone"] == 1


def test_with_cannot_afford_message():
    st = fresh(seed=1)
    st.data.face_up[0] = "bakery"
    st.data.face_up[1] = "sawmill"
    at_step(st, "build", hand={"stone": 1, "grain": 1})
    with pytest.raises(IllegalMoveError, match="Bakery costs 2 Stone \\+ 1 Wood|Bakery costs"):
        do(st, 0, "build", improvement="bakery")


def test_forage_places_two_and_on_forage_acts():
    st = fresh(seed=1)
    d = st.data
    field = d.board[0].index("field")
    d.built[0] = ["granary", "lumber-camp"]
    at_step(st, "forage", hand={})
    before = d.piles[0][field]
    do(st, 0, "forage", tile=[field // GAME.rules.cols, field % GAME.rules.cols])
    assert d.piles[0][field] == before + 2 + 1          # + the Granary's extra grain
    st = fresh(seed=1)
    at_step(st, "forage", hand={})
    with pytest.raises(IllegalMoveError, match="no tile \\[9, 0\\]"):
        do(st, 0, "forage", tile=[9, 0])
    with pytest.raises(IllegalMoveError, match="Choose a tile 0-23"):
        do(st, 0, "forage", tile=24)


def test_forage_from_hand_needs_the_resources():
    st = fresh(seed=1, forage_source="hand")
    d = st.data
    water = d.board[0].index("water") if "water" in d.board[0] else None
    field = d.board[0].index("field")
    at_step(st, "forage", hand={"grain": 3})
    if water is not None:
        with pytest.raises(IllegalMoveError, match="2 Fish from your hand; you have 0"):
            do(st, 0, "forage", tile=water)
    before = d.piles[0][field]
    do(st, 0, "forage", tile=field)
    assert d.piles[0][field] == before + 2
    assert d.last["seat"] == 1 and d.bowl[0] == 30 - 2     # 1 grain left was donated
    st = fresh(seed=1, forage_source="hand")
    at_step(st, "forage", hand={"grain": 1, "wood": 1})
    assert 0 not in st.prompts                          # no pair to place: passed


def test_the_first_empty_bowl_wins_at_once():
    st = fresh(seed=1)
    st.data.bowl[0] = 3
    at_step(st, "donate", hand={"grain": 2})
    assert st.outcome.winners == [0] and st.outcome.scores == {0: 30, 1: 0}


def test_equal_turns_lets_the_round_finish():
    st = fresh(seed=1, end="equal-turns")
    st.data.bowl[0] = 1
    st.data.market["salt"] = 0
    at_step(st, "donate", hand={"salt": 1}, go_on=True)
    assert st.outcome is None and st.data.emptied == [0]
    st.data.bowl[1] = 1
    st.data.earned[1] = 40
    while not st.is_over():
        from .helpers import step
        step(st)
    assert st.outcome.winners == [1] and "beyond the bowl" in st.outcome.tiebreak


def test_a_market_that_stays_stuck_ends_the_game():
    st = fresh(seed=1)
    d = st.data
    for k in d.market:
        d.market[k] = GAME.rules.market_cap
    d.earned[:] = [5, 2]
    play_to_end(st)
    assert "no points in 2 rounds" in st.outcome.reason and st.outcome.winners == [0]
    assert d.stalled


def test_game_ends_and_scores_are_tokens_taken():
    st = fresh(seed=4)
    play_to_end(st)
    o = st.outcome
    assert o.scores == {s: 30 - st.data.bowl[s] for s in range(2)}
    if not st.data.stalled:
        assert st.data.bowl[o.winners[0]] == 0


# -- issue 12: a trade step with only several-copy trades legal is not passed ---------------------

def test_issue12_repro_the_second_player_is_asked_to_trade_before_foraging():
    from .helpers import session
    s = session(2, seed=2058)
    s.execute(0, "build", {"improvement": "sawmill"})
    s.execute(0, "improve", {"improvement": "sawmill"})
    s.execute(0, "end_step", {})
    s.execute(0, "forage", {"tile": 6})
    d = s.state.data
    assert d.active == 1 and d.hand == {"grain": 3, "stone": 1}
    assert {k: v for k, v in d.market.items() if v} == {"planks": 1}
    assert s.state.phase == "trade" and s.state.prompts[1]["moves"] == ("trade", "end_step")
    s.execute(1, "trade", {"give": {"grain": 3, "stone": 1}, "take": {"planks": 1}})
    assert d.hand == {"planks": 1}


def _some_trade_is_legal(game, state):
    """Brute force over every give and take bundle (small hands and markets only)."""
    import copy
    import itertools
    d = state.data
    hand = sorted(d.hand.items())
    market = sorted((k, n) for k, n in d.market.items() if n)
    for gn in itertools.product(*[range(n + 1) for _, n in hand]):
        give = {k: c for (k, _), c in zip(hand, gn) if c}
        if not give:
            continue
        for tn in itertools.product(*[range(n + 1) for _, n in market]):
            take = {k: c for (k, _), c in zip(market, tn) if c}
            if not take:
                continue
            try:
                game._trade(copy.deepcopy(state), 0, give, take)
            except IllegalMoveError:
                continue
            return True
    return False


def test_a_trade_step_is_offered_exactly_when_some_trade_or_improvement_is_possible():
    import random
    rng = random.Random(12)
    names = list(GAME.rules.resources)
    cap = GAME.rules.market_cap
    for _ in range(300):
        st = fresh(seed=1)
        hand = {}
        for k in rng.sample(names, rng.randint(1, 3)):
            hand[k] = rng.randint(1, 3)
        market = {k: 0 for k in names}
        for k in rng.sample(names, rng.randint(0, 3)):
            market[k] = rng.randint(1, cap)
        st.data.hand, st.data.market = dict(hand), market
        st.data.built[0] = []
        assert GAME.can_trade_or_improve(st) == _some_trade_is_legal(GAME, st), (hand, market)


# -- issue 22: what the others did, and the round before the end, said in words -----------------

def test_the_round_before_a_stall_ends_the_game_is_announced():
    """The game ended with no warning the round before ("no points in 2 rounds"): when one more
    round without a point would end it, that round begins with a LastRoundWarning."""
    from .helpers import step
    st = fresh(seed=1)
    d = st.data
    for k in d.market:
        d.market[k] = GAME.rules.market_cap
    d.earned[:] = [5, 2]
    said = []
    while not st.is_over():
        step(st)
        said += [(st.round, n["says"]) for n in st.notices if n["kind"] == "LastRoundWarning"]
    assert "no points in 2 rounds" in st.outcome.reason
    assert said == [(st.round, f"No points in 1 round: if nobody scores in round {st.round}, "
                               f"the game ends after it (most points wins).")]


def test_trades_builds_and_points_are_public_notices_in_words():
    st = fresh(seed=1)
    at_step(st, "trade", hand={"wood": 2, "planks": 1}, market={"grain": 2, "flour": 1})
    do(st, 0, "trade", give={"wood": 1}, take={"grain": 1})
    assert [n["says"] for n in st.notices if n["kind"] == "Traded"] == [
        "P0 traded 1 Wood to the market for 1 Grain."]
    st = fresh(seed=1)
    d = st.data
    d.built[0] = ["market-stall"]
    d.face_up[3] = "sawmill"
    at_step(st, "build", hand={"stone": 1, "grain": 1, "fish": 1})
    do(st, 0, "build", improvement="sawmill")
    said = [n["says"] for n in st.notices if "says" in n]
    assert said[:2] == ["P0 built Sawmill for 1 Stone and 1 Grain.",
                        "Market Stall acted for P0: +2 points."]
    st = fresh(seed=1)
    st.data.market["salt"] = 0
    at_step(st, "donate", hand={"salt": 1})
    donated = [n for n in st.notices if n["kind"] == "Donated"]
    assert donated and donated[0]["says"].startswith("P0 donated 1 Salt to the market: ")
    assert all("to" not in n for n in st.notices)               # public: every screen
