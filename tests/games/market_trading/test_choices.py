"""Every Market Trading move is a tap on what the views' ``legal`` offers (issue 10): whole games
played only from the specs at every player count and a spread of options, with zero refusals;
trades as the exchanges the market allows (never an illegal one, every one-kind trade worth
making); builds, improvements and tiles by name; nothing names the deck's hidden order."""
import copy
import itertools
import json
import random

import pytest

from companion.core import choices, views
from companion.core.errors import IllegalMoveError
from companion.core.play import tap
from companion.games.market_trading import choices as mtc

from ...conformance.driver import tapped
from .helpers import GAME, at_step, fresh, session

SPREAD = [{}, {"improve_limit": "once-per-turn"}, {"improve_limit": "unlimited"},
          {"forage_source": "hand"}, {"build_payment": "market"}, {"end": "equal-turns"},
          {"first_player": "random", "forage_source": "hand", "build_payment": "market"},
          {"pass_empty_steps": False}, {"pass_empty_steps": False, "forage_source": "hand"}]


def _spec(legal, move, name=None):
    m = next(x for x in legal if x["move"] == move)
    return m if name is None else next(s for s in m["args"] if s["name"] == name)


@pytest.mark.parametrize("n", range(2, 7))
def test_whole_games_by_taps_with_zero_refusals(n):
    for seed in range(14):
        opts = SPREAD[(seed + n) % len(SPREAD)]
        tapped(GAME, n, seed * 17 + n, opts, taps=seed)


def test_greedy_games_by_taps_trade_a_lot_with_zero_refusals():
    """Taps weighted towards trading (random taps end steps early): every trade offered in a
    long game is accepted."""
    trades = 0
    for seed in range(6):
        s = session(2, seed=seed)
        rng = random.Random(seed)
        while not s.state.is_over():
            st = s.state
            seat = next(iter(st.prompts))
            legal = views.legal(GAME, st, seat)
            trade = [m for m in legal if m["move"] == "trade"]
            args = choices.sample(trade[0]["args"], rng) if trade else None
            if args is not None and st.data.turn_trades < 4:
                s.execute(seat, "trade", args)
                trades += 1
            else:
                s.execute(seat, *tap(GAME, st, seat, rng))
    assert trades > 30


def test_issue12_the_several_copy_trade_is_offered_in_words():
    s = session(2, seed=2058)
    for move, args in (("build", {"improvement": "sawmill"}),
                       ("improve", {"improvement": "sawmill"}), ("end_step", {}),
                       ("forage", {"tile": 6})):
        s.execute(0, move, args)
    legal = views.legal(GAME, s.state, 1)
    m = _spec(legal, "trade")
    assert m["label"] == "Trade"
    take, give = m["args"]
    assert [(o["value"], o["label"]) for o in take["options"]] == [({"planks": 1}, "1 Planks")]
    assert [(o["value"], o["label"]) for o in give["options"]] == \
        [({"grain": 3, "stone": 1}, "3 Grain + 1 Stone")]
    assert give["options"][0]["when"] == {"take": [{"planks": 1}]}
    s.execute(1, "trade", {"take": {"planks": 1}, "give": {"grain": 3, "stone": 1}})


def _legal_trade(st, give, take):
    """Ask the rules themselves (then put back what a trade changes)."""
    d = st.data
    saved = (dict(d.hand), dict(d.market), d.turn_trades, d.stats["trades"], list(st.notices))
    try:
        GAME._trade(st, d.active, give, take)
    except IllegalMoveError:
        return False
    finally:
        d.hand, d.market, d.turn_trades, d.stats["trades"], st.notices = saved
    return True


def _bundles(counts):
    items = sorted(counts.items())
    for ns in itertools.product(*[range(n + 1) for _, n in items]):
        b = {k: c for (k, _), c in zip(items, ns) if c}
        if b:
            yield b


def test_trades_offered_are_exactly_the_smallest_legal_one_kind_trades():
    """Every (take, give) pair the specs allow is legal, and every legal trade that takes one
    kind of resource and gives no copy more than it must is offered."""
    rng = random.Random(7)
    names = list(GAME.rules.resources)
    cap, value = GAME.rules.market_cap, GAME.value
    offered_total = 0
    for _ in range(150):
        st = fresh(seed=1)
        hand = {k: rng.randint(1, 3) for k in rng.sample(names, rng.randint(1, 3))}
        market = {k: 0 for k in names}
        for k in rng.sample(names, rng.randint(1, 4)):
            market[k] = rng.randint(1, cap)
        at_step(st, "trade", hand=hand, market=market)
        d = st.data
        if 0 not in st.prompts:
            assert not GAME.can_trade(st)
            continue
        specs = mtc.trade(GAME, st, 0)
        offered = set()
        for t in choices.options_now(specs[0], {}):
            for g in choices.options_now(specs[1], {"take": t["value"]}):
                choices.check(specs, {"take": t["value"], "give": g["value"]})
                assert _legal_trade(st, g["value"], t["value"]), (hand, market, g, t)
                offered.add((json.dumps(t["value"], sort_keys=True),
                             json.dumps(g["value"], sort_keys=True)))
        offered_total += len(offered)
        want = set()
        for k, m in d.market.items():
            for n in range(1, m + 1):
                take = {k: n}
                for give in _bundles(d.hand):
                    worth = sum(value[r] * c for r, c in give.items())
                    smallest = worth - min(value[r] for r in give) < n * value[k]
                    if smallest and _legal_trade(st, give, take):
                        want.add((json.dumps(take, sort_keys=True),
                                  json.dumps(give, sort_keys=True)))
        assert offered == want, (hand, market)
        assert bool(offered) == GAME.can_trade(st)
    assert offered_total > 100


def test_build_offers_the_face_up_row_by_name_with_costs_and_says_what_is_missing():
    st = fresh(seed=1)
    st.data.face_up = ["sawmill", "sawmill", "bakery", "market-stall"]
    at_step(st, "build", hand={"stone": 1, "grain": 1, "wood": 1}, go_on=False)
    spec = _spec(views.legal(GAME, st, 0), "build", "improvement")
    opts = {o["value"]: o for o in spec["options"]}
    assert list(opts) == ["sawmill", "bakery", "market-stall"]            # one per card
    assert opts["sawmill"]["label"] == "Sawmill" and opts["sawmill"]["copies"] == 2
    assert opts["sawmill"]["detail"] == "costs 1 Grain + 1 Stone · 2 Wood → 1 Planks"
    assert "disabled" not in opts["sawmill"]
    assert opts["bakery"]["disabled"] == "You need 1 Stone more."
    assert opts["market-stall"]["disabled"] == "You need 1 Fish more."
    assert "On Build: 2 points" in opts["market-stall"]["detail"]


def test_improve_lists_your_converters_and_why_one_cannot_be_used():
    st = fresh(seed=1)
    st.data.built[0] = ["mill", "sawmill", "market-stall"]
    at_step(st, "trade", hand={"grain": 2, "salt": 1}, market={"wood": 1})
    spec = _spec(views.legal(GAME, st, 0), "improve", "improvement")
    opts = {o["value"]: o for o in spec["options"]}
    assert list(opts) == ["mill", "sawmill"]                  # Market Stall converts nothing
    assert opts["mill"]["detail"] == "2 Grain → 1 Flour" and "disabled" not in opts["mill"]
    assert opts["sawmill"]["disabled"] == "It needs 2 Wood in your hand."
    GAME.moves["improve"].fn(st, 0, improvement="mill")
    spec = _spec(views.legal(GAME, st, 0), "improve", "improvement")
    assert spec["options"][0]["disabled"] == "You have used your Mill this step."


def test_a_player_without_converters_is_not_offered_improve():
    st = fresh(seed=1)
    st.data.built[0] = ["market-stall"]
    at_step(st, "trade", hand={"grain": 2}, market={"wood": 1})
    assert [m["move"] for m in views.legal(GAME, st, 0)] == ["trade", "end_step"]


@pytest.mark.parametrize("source", ["supply", "hand"])
def test_forage_tiles_by_terrain_and_place(source):
    st = fresh(seed=1, forage_source=source)
    at_step(st, "forage", hand={"wood": 2, "grain": 1})
    spec = _spec(views.legal(GAME, st, 0), "forage", "tile")
    r = GAME.rules
    assert len(spec["options"]) == r.rows * r.cols
    o = spec["options"][r.cols + 2]
    assert o["value"] == r.cols + 2 and (o["row"], o["col"]) == (1, 2)
    assert o["label"] == f"{st.data.board[0][r.cols + 2].capitalize()}, row 2 column 3"
    for o in spec["options"]:
        res = st.data.yields[0][o["value"]]
        blocked = source == "hand" and res != "wood"
        assert bool(o.get("disabled")) == blocked, o


def test_phase_labels_carry_no_step_number():
    """The table's step list numbers the steps itself ("1 1. Harvest" was shown)."""
    assert [p.label for p in GAME.phases.values()] == [
        "Harvest", "Trade and improve", "Build", "Trade and improve again", "Forage",
        "Donation"]


def test_no_legal_list_depends_on_the_hidden_deck_order():
    for seed in range(6):
        s = session(3, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not s.state.is_over() and steps < 300:
            st = s.state
            assert s.public_view()["table_legal"] == []
            other = copy.deepcopy(st)
            random.Random(steps).shuffle(other.data.deck)
            for seat in st.seats():
                assert views.legal(GAME, st, seat) == views.legal(GAME, other, seat)
            seat = next(iter(st.prompts))
            s.execute(seat, *tap(GAME, st, seat, rng))
            steps += 1


def test_with_pass_empty_steps_off_every_step_waits_and_says_why():
    st = fresh(seed=1, pass_empty_steps=False, forage_source="hand")
    at_step(st, "trade", hand={}, market={})
    assert st.prompts[0]["moves"] == ("end_step",)
    st.data.face_up = ["bakery"]
    at_step(st, "build", hand={"wood": 1})
    [spec] = _spec(views.legal(GAME, st, 0), "build")["args"]
    assert spec["options"][0]["disabled"] == "You need 2 Stone more."
    assert st.prompts[0]["moves"] == ("build", "skip_build")
    at_step(st, "forage", hand={"wood": 1})
    spec = _spec(views.legal(GAME, st, 0), "forage", "tile")
    assert all(o.get("disabled") for o in spec["options"])
    assert st.prompts[0]["moves"] == ("forage", "skip_forage")
    on = fresh(seed=1, forage_source="hand")
    at_step(on, "forage", hand={"wood": 1})
    assert 0 not in on.prompts                         # passed without asking
