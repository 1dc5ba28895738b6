"""What only Battle Builder keeps private: dual monster draws show to their owner only; the
defence deck's order is in no view. (Every sealed choice, the seed and private notices are
checked for every game by the conformance suite: tests/conformance/test_registry.py.)"""
import json

from ..tables import play_until
from .helpers import session


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
    s = play_until(session(2, seed=9), lambda st: st.phase == "battle", seed=2)
    s.state.data.ddeck[0] = ["shield", "guard", "parry", "guard", "shield", "parry"]
    for view in (s.public_view(), s.seat_view(0), s.seat_view(1)):
        text = json.dumps(view)
        assert "shield\", \"guard\", \"parry\", \"guard" not in text
        assert "ddeck" not in text
