"""Every Great Powers move is a tap on what the views' ``legal`` offers (issue 10): whole games
played only from the specs, every player count and a spread of options, with zero refusals;
the specs themselves (ordered bids, blocked traits, targets only where a card needs one,
unpayable cards); and no seat's ``legal`` names anything private of another seat."""
import json
import random

import pytest

from companion.core import choices, views
from companion.core.play import tap

from ...conformance.driver import tapped
from ..tables import play_until
from .helpers import GAME, session, set_tokens

OPTION_SPREAD = [{}, {"ties": "all"}, {"require_payment": False},
                 {"final_tiebreak": "shared", "turns": 4}, {"bid_block": "tied-highest"},
                 {"turns": 5, "ties": "all", "require_payment": False}]


def _spec(legal, move, name=None):
    m = next(x for x in legal if x["move"] == move)
    if name is None:
        return m
    return [s for s in m["args"] if s["name"] == name]


@pytest.mark.parametrize("n", range(3, 9))
def test_whole_games_by_taps_with_zero_refusals(n):
    for seed in range(12):
        opts = OPTION_SPREAD[(seed + n) % len(OPTION_SPREAD)]
        s = tapped(GAME, n, seed * 13 + n, opts, taps=seed)
        assert s.state.round == opts.get("turns", 10)


def test_bids_are_an_order_of_exactly_count_traits_and_blocked_ones_say_why():
    s = session(4, seed=2)
    st = s.state
    assert st.phase == "bid"
    seat = 0
    set_tokens(st, seat, army=9)
    st.prompts[seat]["blocked"] = GAME.blocked(st, seat)
    st.prompts[seat]["allowed"] = [t for t in ("industry", "population", "nationalism",
                                               "navy", "army", "colony")
                                   if t not in st.prompts[seat]["blocked"]]
    [spec] = _spec(views.legal(GAME, st, seat), "submit_bids", "traits")
    assert spec["kind"] == "order" and spec["min"] == spec["max"] == 3
    army = next(o for o in spec["options"] if o["value"] == "army")
    assert army["label"] == "Army" and "highest Army level (9)" in army["disabled"]
    assert [o["label"] for o in spec["options"] if not o.get("disabled")] == \
        ["Industry", "Population", "Nationalism", "Navy", "Colony"]
    rng = random.Random(0)
    for _ in range(50):
        args = choices.sample([spec], rng)
        assert len(args["traits"]) == 3 and "army" not in args["traits"]


def _to_action(seed, n=4, **opts):
    return play_until(session(n, seed=seed, **opts), lambda st: st.phase == "action",
                      seed=seed)


def test_take_action_asks_for_a_target_by_name_only_for_cards_that_need_one():
    s = _to_action(3)
    st = s.state
    seat = min(st.prompts)
    st.data.face_up = ["land-purchase", "art-nouveau", "gilded-age"]
    st.prompts[seat]["cards"] = list(st.data.face_up)
    legal = views.legal(GAME, st, seat)
    [card] = _spec(legal, "take_action", "card")
    assert [o["label"] for o in card["options"]] == ["Land Purchase", "Art Nouveau",
                                                     "Gilded Age"]
    assert card["options"][0]["detail"] == "Steal 1 Colony from target Player"
    targets = _spec(legal, "take_action", "target")
    assert len(targets) == 1 and targets[0]["when"] == {"card": ["land-purchase"],
                                                       "resolve": [True]}
    assert [o["value"] for o in targets[0]["options"]] == [x for x in range(4) if x != seat]
    assert targets[0]["options"][0]["label"] == st.players[targets[0]["options"][0]["value"]]
    specs = _spec(legal, "take_action")["args"]
    assert [a["name"] for a in choices.active(specs, {"card": "art-nouveau",
                                                      "resolve": True})] == ["card", "resolve"]
    assert [a["name"] for a in choices.active(specs, {"card": "land-purchase",
                                                      "resolve": False})] == ["card", "resolve"]
    other = next(x for x in range(4) if x != seat)
    choices.check(specs, {"card": "land-purchase", "resolve": True, "target": other})
    with pytest.raises(Exception, match="not one of the choices"):
        choices.check(specs, {"card": "land-purchase", "resolve": True, "target": seat})
    s.execute(seat, "take_action", {"card": "land-purchase", "resolve": True, "target": other})


def test_a_card_you_cannot_pay_may_only_be_discarded():
    s = _to_action(5)
    st = s.state
    seat = min(st.prompts)
    st.data.face_up = ["gilded-age", "art-nouveau"]
    st.prompts[seat]["cards"] = list(st.data.face_up)
    set_tokens(st, seat, industry=0)
    specs = _spec(views.legal(GAME, st, seat), "take_action")["args"]
    gilded = [o for o in choices.options_now(specs[1], {"card": "gilded-age"})]
    assert [(o["value"], bool(o.get("disabled"))) for o in gilded] == [(True, True),
                                                                       (False, False)]
    assert "costs 1 Industry; you have 0 Industry" in gilded[0]["disabled"]
    rng = random.Random(1)
    for _ in range(40):
        args = choices.sample(specs, rng)
        if args["card"] == "gilded-age":
            assert args["resolve"] is False
    # without the payment rule it may be resolved
    st.config["require_payment"] = False
    specs = _spec(views.legal(GAME, st, seat), "take_action")["args"]
    assert not any(o.get("disabled") for o in choices.options_now(specs[1],
                                                                  {"card": "gilded-age"}))


def _to_bonus(bonus, tries=200):
    for seed in range(tries):
        s = session(4, seed=seed)
        rng = random.Random(seed)
        while not s.state.is_over():
            st = s.state
            for seat, p in st.prompts.items():
                if p.get("bonus") == bonus:
                    return s, seat
            seat = min(st.prompts)
            s.execute(seat, *GAME.bots["random"](GAME, GAME.observe(st, seat), rng))
    raise AssertionError(f"no {bonus} bonus in {tries} games")


def test_steal_colony_and_the_drawn_cards_by_name():
    s, seat = _to_bonus("steal_colony")
    st = s.state
    [spec] = _spec(views.legal(GAME, st, seat), "steal_colony", "target")
    assert [o["value"] for o in spec["options"]] == st.prompts[seat]["targets"]
    assert all(o["detail"].endswith("Colonies") for o in spec["options"])
    assert _spec(views.legal(GAME, st, seat), "decline_bonus")["label"] == "Decline the bonus"
    s, seat = _to_bonus("draw_three")
    st = s.state
    legal = views.legal(GAME, st, seat)
    [card] = _spec(legal, "resolve_drawn", "card")
    assert [o["value"] for o in card["options"]] == st.prompts[seat]["cards"]
    for o in card["options"]:
        assert o["label"] == GAME.rules.actions[o["value"]].name
    needy = [cid for cid in st.prompts[seat]["cards"] if GAME.rules.actions[cid].needs_target]
    assert [t["when"] for t in _spec(legal, "resolve_drawn", "target")] == \
        [{"card": [cid]} for cid in needy]


def test_war_sides_are_picked_by_name():
    for seed in range(300):
        s = session(5, seed=seed)
        rng = random.Random(seed)
        while not s.state.is_over():
            st = s.state
            seat = min(st.prompts)
            if "pick_side" in st.prompts[seat]["moves"]:
                p = st.prompts[seat]
                [spec] = _spec(views.legal(GAME, st, seat), "pick_side", "player")
                assert spec["label"] == ("Your foe in the war" if p["pick"] == "foe" else
                                         "Your ally in the war")
                assert [o["value"] for o in spec["options"]] == p["candidates"]
                assert [o["label"] for o in spec["options"]] == \
                    [st.players[x] for x in p["candidates"]]
                assert "Army" in spec["options"][0]["detail"]
                return
            s.execute(seat, *GAME.bots["greedy"](GAME, GAME.observe(st, seat), rng))
    raise AssertionError("no Great War in 300 games")


def test_no_legal_list_names_what_another_seat_may_not_see():
    """A peeked Event is the peeker's alone; the table has no moves here (``table_legal`` is
    empty); a sealed bid changes no other seat's legal list (non-interference)."""
    checked = 0
    for seed in range(10):
        s = session(4 + seed % 3, seed=seed)
        rng = random.Random(seed)
        while not s.state.is_over():
            st = s.state
            pub = s.public_view()
            assert pub["table_legal"] == []
            for peeker, eid in st.data.peeks.items():
                ev = GAME.rules.events[eid]
                for seat in st.seats():
                    if seat in st.data.peeks:
                        continue
                    text = json.dumps(views.legal(GAME, st, seat))
                    assert eid not in text and ev.name not in text
                    checked += 1
            seat = rng.choice(sorted(st.prompts))
            s.execute(seat, *tap(GAME, st, seat, rng))
    assert checked


def test_a_sealed_bid_does_not_change_any_other_seat_legal_list():
    for seed in range(8):
        a, b = session(5, seed=seed), session(5, seed=seed)
        owner = 0
        p = a.state.prompts[owner]
        x = p["allowed"][:p["count"]]
        y = list(reversed(p["allowed"]))[:p["count"]]
        a.execute(owner, "submit_bids", {"traits": x})
        b.execute(owner, "submit_bids", {"traits": y})
        for seat in range(1, 5):
            assert views.legal(GAME, a.state, seat) == views.legal(GAME, b.state, seat)
