"""What every game's search-bot tests check the same way (tests/games/*/test_search.py): a
blanked state's signature, and that a secret never reaches the bot."""
import random

from companion.core.search import UNSEEN
from companion.core.state import _plain


def _marked(v):
    """``v`` with every :data:`UNSEEN` written as '?' (comparable, and equal to itself)."""
    if v is UNSEEN:
        return "?"
    if isinstance(v, (list, tuple)):
        return [_marked(x) for x in v]
    if isinstance(v, dict):
        return {k: _marked(x) for k, x in v.items()}
    return v


def signature(state):
    """Everything in a (blanked) state, what is unseen written as '?'."""
    wins = [[w.id, w.revealed_flag, sorted((p, _marked(e.choice)) for p, e in w.entries.items())]
            for w in state.windows.values()]
    return (_marked(_plain(state.data)), state.phase, state.round, state.prompts, wins,
            state.flow.lanes, state.flow.asks, state.rng.getstate(), state.seed,
            getattr(state, "unseen", None))


def secret_never_reaches(game, states, disturb, seat_view, bot, redeal):
    """For each (state, seat): a state the seat cannot tell from it (``disturb(state, seat,
    rng)``) gives the same blanked copy, the same re-deals and the same decision. Returns
    (pairs whose hidden data differed, pairs checked)."""
    rng = random.Random(2)
    differed = decided = 0
    for state, seat in states:
        other = disturb(state, seat, rng)
        assert seat_view(other, seat) == seat_view(state, seat)
        differed += _plain(other.data) != _plain(state.data)
        a, b = game.observe(state, seat), game.observe(other, seat)
        assert signature(a.known()) == signature(b.known())
        assert signature(redeal(game, a, random.Random(5))) == \
            signature(redeal(game, b, random.Random(5)))
        assert bot(game, a, random.Random(9)) == bot(game, b, random.Random(9))
        decided += 1
    return differed, decided
