"""Leak tests for every sealed choice of Battle Builder.

Non-interference: two sessions identical except one seat's still-sealed choice must give
identical public views, identical views for every other seat and identical histories for every
other viewer (commitment strings masked, since they differ by design). No unrevealed salt
appears in any view but its owner's. Private draws (dual monsters, secret objectives) appear
only in their owner's view.
"""
import copy
import json
import random

import pytest

from companion.core.log import MemoryLog
from companion.core.session import Session, fold

from .helpers import GAME, mask, session


def _views(sess, skip):
    out = {"public": mask(sess.public_view()), "hpublic": mask(sess.history(None))}
    for seat in range(sess.state.n):
        if seat != skip:
            out[seat] = mask(sess.seat_view(seat))
            out[f"h{seat}"] = mask(sess.history(seat))
    return out


def _rebuild(like, records):
    return Session(GAME, MemoryLog(), like.id, records, fold(GAME, records), like.clock,
                   like.entropy, like.wall)


def _open(s, move, seed, extra=None):
    """Play greedy until at least two seats are asked for ``move`` (a sealed move)."""
    rng = random.Random(seed)
    for _ in range(20000):
        st = s.state
        waiting = [x for x, p in st.prompts.items() if move in p["moves"]]
        if len(waiting) >= 2 and (extra is None or extra(st, waiting)):
            return sorted(waiting)
        assert not st.is_over(), f"no {move} window with two seats"
        seat = min(st.prompts)
        s.execute(seat, *GAME.bots["greedy"](GAME, st, seat, rng))
    raise AssertionError("not reached")


def _two_choices(st, move, seat):
    p = st.prompts[seat]
    d = st.data
    if move == "choose_monster":
        a, b = p["options"][0], p["options"][1]
        return {"monster": a}, {"monster": b}
    if move == "bid_auction":
        return {"tokens": 0}, {"tokens": p["most"]}
    if move == "prepare":
        if "roles" in p:
            return {"role": "striker"}, {"role": "tank"}
        return {}, {"bet": "no_fall", "stake": 1}
    if move == "play_turn":
        cards = GAME.rules.cards
        ok = [c for c in p["cards"] if cards[c].min_stamina == 0]
        a = {"card": ok[0], "stamina": 0}
        b = {"card": ok[-1], "stamina": min(3, p["stamina"])}
        if "targets" in p:
            a["target"], b["target"] = p["targets"][0], p["targets"][-1]
        assert a != b
        return a, b
    if move == "vote_pvp":
        return {"pvp": True}, {"pvp": False}
    if move == "prepare_pvp":
        lo, hi = p["wager"]
        return {"wager": lo}, {"wager": hi}
    raise AssertionError(move)


CASES = [
    ("monster vote", "choose_monster", 2, {}, None),
    ("dual monster pick", "choose_monster", 2, {"dual_monsters": True}, None),
    ("auction bid", "bid_auction", 2, {"monster_select": "auction"},
     lambda st, w: all(st.prompts[x]["most"] > 0 for x in w)),
    ("role", "prepare", 3, {"earning": "roles"}, None),
    ("bet", "prepare", 2, {"earning": "betting"},
     lambda st, w: all(st.prompts[x]["most"] > 0 for x in w)),
    ("monster battle turn", "play_turn", 2, {}, lambda st, w: st.phase == "battle"),
    ("dual battle turn", "play_turn", 2, {"dual_monsters": True},
     lambda st, w: st.phase == "battle"),
    ("PvP battle turn", "play_turn", 4, {}, lambda st, w: st.phase == "pvp"),
    ("PvP vote", "vote_pvp", 3, {"pvp_trigger": "vote"}, None),
    ("PvP wager", "prepare_pvp", 2, {"pvp_rewards": "wager"},
     lambda st, w: all(st.prompts[x]["wager"][1] > st.prompts[x]["wager"][0] for x in w)),
]


@pytest.mark.parametrize("name,move,n,options,extra", CASES, ids=[c[0] for c in CASES])
def test_a_sealed_choice_does_not_interfere_with_any_other_view(name, move, n, options,
                                                                 extra):
    for seed in range(3):
        s = session(n, seed=seed + 11, **options)
        waiting = _open(s, move, seed, extra)
        owner = waiting[0]
        a, b = _two_choices(s.state, move, owner)
        s.execute(owner, move, a)
        wid = s.records[-1]["window"]
        w = s.state.windows[wid]
        others = [x for x in waiting[1:] if x not in w.seats or len(w.waiting_on()) > 1]
        if others:                                   # a second seat locks in too
            other = others[0]
            s.execute(other, *GAME.bots["greedy"](GAME, s.state, other, random.Random(1)))
        assert not s.state.windows[wid].is_revealed()
        alt_records = copy.deepcopy(s.records)
        for r in alt_records:
            if r.get("seat") == owner and r.get("window") == wid:
                r["args"] = b
        alt = _rebuild(s, alt_records)
        assert alt.state.windows[wid].entries[owner].choice != \
            s.state.windows[wid].entries[owner].choice
        mine, theirs = _views(s, owner), _views(alt, owner)
        for key in mine:
            assert mine[key] == theirs[key], f"{name}, seed {seed}: view {key} depends on " \
                                             f"seat {owner}'s sealed choice"
        assert json.dumps(s.state.windows[wid].entries[owner].choice) in json.dumps(
            s.seat_view(owner))
        for w in s.state.open_windows():
            for seat, e in w.entries.items():
                for key, text in _views(s, seat).items():
                    assert e.salt not in text, (name, key, seat)


def test_dual_monster_draws_are_private_to_their_owner():
    s = session(2, seed=5, dual_monsters=True)
    st = s.state
    for seat in (0, 1):
        mine = st.data.dual_draws[seat]
        assert s.seat_view(seat)["private"]["dual_draw"] == mine
        assert s.seat_view(seat)["prompt"]["options"] == mine
    public = s.public_view()
    assert "dual_draw" not in json.dumps(public["game_view"])
    other_view = json.dumps(s.seat_view(1)["private"]) + json.dumps(s.seat_view(1)["prompt"])
    assert json.dumps(st.data.dual_draws[0]) not in other_view
    assert all("to" not in n or n["to"] == 1 for n in s.seat_view(1)["notices"])


def test_the_defence_deck_order_is_in_no_view():
    s = session(2, seed=9)
    rng = random.Random(2)
    while s.state.phase != "battle":
        seat = min(s.state.prompts)
        s.execute(seat, *GAME.bots["greedy"](GAME, s.state, seat, rng))
    s.state.data.ddeck[0] = ["shield", "guard", "parry", "guard", "shield", "parry"]
    for view in (s.public_view(), s.seat_view(0), s.seat_view(1)):
        text = json.dumps(view)
        assert "shield\", \"guard\", \"parry\", \"guard" not in text
        assert "ddeck" not in text
