"""The search bot in Great Powers (companion/core/search.py, great_powers/redeal.py): a re-dealt
state never contradicts the seat's view; a secret never reaches the bot; it plays whole games
legally; and a small step of the skill ladder holds."""
import random

import pytest

from companion.core import views
from companion.core.play import play_one, resolve_bots, wilson
from companion.core.search import clone
from companion.core.session import LeanSession
from companion.games.great_powers.bots import greedy_bot, random_bot, search_bot
from companion.games.great_powers.redeal import UNSEEN, copy_data, redeal

from ..search_checks import secret_never_reaches
from .helpers import GAME

PLAYERS = ["Ada", "Bo", "Cy", "Di"]


def midgame_states(count, seed=0):
    """``count`` (state, seat) pairs from games played part way by a mix of bots: a state
    with a seat prompted, often mid-bid with others locked in, some with peeks."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        n = rng.choice((3, 4, 5))
        s = LeanSession(GAME, PLAYERS[:n] + ["Ed"][:max(0, n - 4)], seed=rng.getrandbits(32))
        stop = rng.randrange(5, 160)
        bots = [rng.choice((greedy_bot, random_bot)) for _ in range(n)]
        for _ in range(stop):
            st = s.state
            if st.outcome is not None:
                break
            seat = min(st.prompts)
            move, args = bots[seat](GAME, GAME.observe(st, seat), rng)
            s.execute(seat, move, args)
        st = s.state
        if st.outcome is None:
            out.append((st, rng.choice(sorted(st.prompts))))
            out.append((st, rng.randrange(st.n)))        # a seat not asked anything sees too
    return out


def seat_view(state, seat):
    v = views.seat(GAME, state, seat)
    v.pop("legal")              # the same specs, built from the same view (and slow)
    return v


def test_a_redealt_state_never_contradicts_the_seats_view():
    rng = random.Random(1)
    peeks = locked = 0
    for state, seat in midgame_states(120):
        before = seat_view(state, seat)
        view = GAME.observe(state, seat)
        for _ in range(3):
            s = redeal(GAME, view, rng)
            assert seat_view(s, seat) == before
            d = s.data
            # every Action card in exactly one place, every Event too
            places = d.action_deck + d.action_discard + d.face_up + d.drawn
            assert sorted(places) == sorted(GAME.rules.actions)
            assert sorted(d.event_deck + d.event_discard) == sorted(GAME.rules.events)
            for p, e in d.peeks.items():            # whoever peeked saw the top of the deck
                assert e == d.event_deck[-1]
                peeks += 1
            for w in s.open_windows():
                for p, e in w.entries.items():
                    assert e.choice is not UNSEEN
                    if p != seat:
                        locked += 1
                        blocked = GAME.blocked(s, p)
                        assert len(e.choice) == d.bid_slots[p]
                        assert not set(e.choice) & set(blocked)
        assert seat_view(state, seat) == before     # the search never changes the table
    assert peeks and locked                         # the cases that matter were met


def disturb(state, seat, rng):
    """A copy of ``state`` that differs from it only in what ``seat`` cannot see: the unseen
    cards moved around, the others' locked bids changed, another random stream."""
    s = clone(state, copy_data)
    s.lean = state.lean
    d = s.data
    pool = d.action_deck + d.action_discard
    rng.shuffle(pool)
    k = len(d.action_deck)
    d.action_deck, d.action_discard = pool[:k], pool[k:]
    fixed_top = d.peeks.get(seat) if d.event_deck else None
    fixed_last = d.event if d.event_discard[-1:] == [d.event] and d.event else None
    movable = [e for e in d.event_deck + d.event_discard if e not in (fixed_top, fixed_last)]
    rng.shuffle(movable)
    it = iter(movable)
    k = len(d.event_deck)
    d.event_deck = [fixed_top if (i == k - 1 and fixed_top) else next(it) for i in range(k)]
    m = len(d.event_discard)
    d.event_discard = [fixed_last if (i == m - 1 and fixed_last) else next(it)
                       for i in range(m)]
    d.peeks = {p: d.event_deck[-1] for p in d.peeks}
    for w in s.open_windows():
        for p, e in list(w.entries.items()):
            if p != seat:
                allowed = [t for t in ("army", "navy", "industry", "population",
                                       "nationalism", "colony") if t not in GAME.blocked(s, p)]
                w.entries[p] = type(e)(rng.sample(allowed, len(e.choice)), "", "")
    s.rng = random.Random(rng.getrandbits(64))
    return s


def test_a_secret_never_reaches_the_bot():
    """Two true states that differ only in what the seat cannot see: the same blanked state
    (the only thing the re-deal starts from), the same re-deals and the same decision."""
    differed, decided = secret_never_reaches(GAME, midgame_states(50, seed=7)[::2], disturb, seat_view,
                                             search_bot(12, horizon=1), redeal)
    assert differed > decided // 2


@pytest.mark.parametrize("n", (3, 5))
def test_the_search_bot_plays_whole_games_legally(n):
    """Through the real session path (every command checked and logged), a search bot at
    every seat (a small budget), to the end."""
    names = PLAYERS[:n] + ["Ed"][:max(0, n - 4)]
    bot = search_bot(6, horizon=1)
    outcome, s = play_one(GAME, names, 40 + n, [bot] * n)
    assert outcome is not None and s.state.round == 10


def test_the_search_bots_are_registered():
    bots = resolve_bots(GAME, "search-100,greedy,random,search-400", 4)
    assert [b.__name__ for b in (bots[0], bots[3])] == ["search-100", "search-400"]
    assert bots[0].iterations == 100 and bots[3].iterations == 400


def test_greedy_beats_random_clearly():
    """The ladder's first rung in small: greedy in one seat (rotated) against three random
    bots wins well above its fair share of 1/4 (the Wilson interval's lower bound)."""
    wins, games = 0.0, 0
    for i in range(120):
        seat = i % 4
        bots = [random_bot] * 4
        bots[seat] = greedy_bot
        o, _ = play_one(GAME, PLAYERS, 500 + i // 4, bots, lean=True)
        wins += 1 / len(o.winners) if seat in o.winners else 0
        games += 1
    lo, _ = wilson(round(wins), games)
    assert lo > 0.25, (wins, games)


@pytest.mark.cpu
@pytest.mark.slow
def test_search_100_beats_greedy_clearly():
    """The ladder's second rung in small (about 30 s of CPU): search-100 in one seat (rotated)
    against three greedy bots, 16 fixed deals, wins above its fair share by the Wilson
    interval's lower bound."""
    bot = resolve_bots(GAME, "search-100", 1)[0]
    wins = 0.0
    for i in range(16):
        seat = i % 4
        bots = [greedy_bot] * 4
        bots[seat] = bot
        o, _ = play_one(GAME, PLAYERS, 900 + i, bots, lean=True)
        wins += 1 / len(o.winners) if seat in o.winners else 0
    lo, _ = wilson(round(wins), 16)
    assert lo > 0.25, wins
