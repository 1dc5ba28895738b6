"""What only Trade Warz keeps private: hands and piles show to their owner only, the decks as
counts. (Every sealed choice, the seed and private notices are checked for every game by the
conformance suite: tests/conformance/test_registry.py.)"""
import json


from .helpers import drive, session



def test_hands_and_piles_are_private():
    s = session(4, seed=8, leaders="usa,china,russia,eu")
    drive(s, lambda st: st.phase == "trade")
    st = s.state
    pub = s.public_view()["game_view"]
    assert pub["hand_counts"] == [len(h) for h in st.data.hands]
    for seat in range(4):
        mine = s.seat_view(seat)
        assert [c["id"] for c in mine["private"]["hand"]] == st.data.hands[seat]
        other = s.seat_view((seat + 1) % 4)
        for cid in set(st.data.hands[seat]) - set(st.data.hands[(seat + 1) % 4]):
            assert f'"{cid}"' not in json.dumps(other["private"])
    assert set(pub["decks"]) == {"export", "tactic", "policy"}
    assert all(isinstance(v, int) for v in pub["decks"].values())       # counts, not cards
