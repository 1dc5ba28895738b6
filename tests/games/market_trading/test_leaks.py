"""Market Trading has no sealed choices: everything on the table is public. What stays hidden
is the order of the improvements deck (and the seed that tells it): no view may contain it."""
import json
import random


from .helpers import GAME, session


def test_the_deck_order_is_in_no_view_or_history():
    s = session(3, 8)
    rng = random.Random(1)
    for _ in range(40):
        d = s.state.data
        order = json.dumps(d.deck[-4:])[1:-1]
        views = [s.public_view(), *(s.seat_view(x) for x in range(3)), s.history(None)]
        for v in views:
            text = json.dumps(v)
            assert order not in text
        assert s.public_view()["game_view"]["deck"] == len(d.deck)
        seat = min(s.state.prompts)
        s.execute(seat, *GAME.bots["greedy"](GAME, GAME.observe(s.state, seat), rng))

