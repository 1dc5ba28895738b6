"""What only Great Powers keeps private: a peeked Event shows to the peeker only. (Every sealed
choice, the seed and private notices are checked for every game by the conformance suite:
tests/conformance/test_registry.py.)"""
import json
import random


from .helpers import GAME, session



def test_peeked_event_is_private_to_the_peeker():
    st_session = session(4, seed=3)
    rng = random.Random(3)
    bots = [GAME.bots["greedy"]] * 4
    seen = 0
    while not st_session.state.is_over():
        st = st_session.state
        for seat, eid in st.data.peeks.items():
            name = GAME.rules.events[eid].name
            assert st_session.seat_view(seat)["private"]["next_event"]["id"] == eid
            for other in range(4):
                if other != seat and other not in st.data.peeks:
                    assert eid not in json.dumps(st_session.seat_view(other)), name
            assert eid not in json.dumps(st_session.public_view()["game_view"])
            seen += 1
        seat = min(st.prompts)
        st_session.execute(seat, *bots[seat](GAME, GAME.observe(st, seat), rng))
    assert seen > 0

