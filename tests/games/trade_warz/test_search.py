"""The search bot in Trade Warz and Tariff Warz (companion/core/search.py,
trade_warz/redeal.py): a re-dealt state never contradicts the seat's view; a secret never
reaches the bot; it plays whole games legally in both editions."""
import random
from collections import Counter

import pytest

from companion.core import views
from companion.core.play import play_one, resolve_bots, run_out_the_clock, wilson
from companion.core.sealed import Entry
from companion.core.search import clone
from companion.core.session import LeanSession
from companion.games.trade_warz.bots import greedy_bot, random_bot, search_bot
from companion.games.trade_warz.redeal import UNSEEN, _facedown, _rooms, copy_data, redeal

from ..search_checks import secret_never_reaches, signature
from .helpers import GAME

PLAYERS = ["Ada", "Bo", "Cy", "Di", "Ed"]
#: The editions and variants the states are drawn from (the Diplomatic variant has swaps).
SETUPS = ({"edition": "trade"}, {"edition": "tariff"}, {"edition": "trade", "chill": True},
          {"edition": "trade", "diplomatic": True})


def midgame_states(count, seed=0):
    """``count`` (state, seat) pairs from games played part way by a mix of bots, in both
    editions: a state with a seat prompted (often mid-Trade with face-down Exports, mid-Policy
    or mid-bid with others locked in), and another seat of the same state."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        n = rng.choice((3, 4, 5))
        options = dict(rng.choice(SETUPS))
        s = LeanSession(GAME, PLAYERS[:n], options=options, seed=rng.getrandbits(32))
        stop = rng.randrange(3, 250)
        bots = [rng.choice((greedy_bot, random_bot)) for _ in range(n)]
        for _ in range(stop):
            st = s.state
            if st.outcome is not None:
                break
            if not st.prompts:
                run_out_the_clock(s)
                continue
            seat = None if None in st.prompts else min(st.prompts)
            bot = GAME.table_bot if seat is None else bots[seat]
            move, args = bot(GAME, GAME.observe(st, seat), rng)
            s.execute(seat, move, args)
        st = s.state
        asked = sorted(p for p in st.prompts if p is not None)
        if st.outcome is None and asked:
            out.append((st, rng.choice(asked)))
            out.append((st, rng.randrange(st.n)))       # a seat not asked anything sees too
    return out


def seat_view(state, seat):
    v = views.seat(GAME, state, seat)
    v.pop("legal")              # the same specs, built from the same view (and slow)
    v.pop("notices")            # a copy keeps no notices
    return v


def test_a_redealt_state_never_contradicts_the_seats_view():
    rng = random.Random(1)
    hidden = facedown = sealed = 0
    for state, seat in midgame_states(120):
        before = seat_view(state, seat)
        box = Counter(c for c in _cards(state))
        view = GAME.observe(state, seat)
        for _ in range(3):
            s = redeal(GAME, view, rng)
            assert seat_view(s, seat) == before
            d = s.data
            assert Counter(_cards(s)) == box            # every card once, none made up
            if not all(d.board.leaders):
                continue
            decks, piles, _, exports = _rooms(GAME, s)
            for k in d.decks:                           # each zone holds what it may
                assert set(d.decks[k] + d.discards[k]) <= decks[k]
            for p in range(s.n):
                assert set(d.piles[p]) <= piles[p]
                if p != seat:
                    hidden += len(d.hands[p])
            for w, p in _facedown(s, seat):
                assert w.entries[p].choice["card"] in exports
                facedown += 1
            for w in s.open_windows():
                for p, e in w.entries.items():
                    assert e.choice is not UNSEEN
                    sealed += p != seat and w.kind != "export"
        assert seat_view(state, seat) == before     # the search never changes the table
    assert hidden and facedown and sealed           # the cases that matter were met


def _cards(state):
    """Every card in a hand, pile, deck, discard, face-down Export or out of the game."""
    d = state.data
    out = [c for h in d.hands for c in h] + [c for p in d.piles for c in p] + list(d.out)
    for k in d.decks:
        out += d.decks[k] + d.discards[k]
    for w in state.windows.values():
        if w.kind == "export" and not w.revealed_flag:
            out += [e.choice["card"] for e in w.entries.values() if e.choice]
    return out


def disturb(state, seat, rng):
    """A copy of ``state`` that differs from it only in what ``seat`` cannot see: the cards of
    the others' hands, the decks, discards and piles, the face-down Exports and the cards out
    of the game traded among themselves (each zone still holding what it may), the Event deck
    shuffled, the others' sealed choices changed, another random stream."""
    s = clone(state, copy_data)
    s.lean = state.lean
    d = s.data
    if all(d.board.leaders):
        decks, piles, shared, exports = _rooms(GAME, s)
        zones = [d.hands[p] for p in range(s.n) if p != seat] + list(d.piles) + \
            [d.decks[k] for k in d.decks] + [d.discards[k] for k in d.discards] + [d.out]
        rooms = [None] * (s.n - 1) + [piles[p] for p in range(s.n)] + \
            [decks[k] for k in d.decks] + [decks[k] for k in d.discards] + [None]
        down = []
        for w, p in _facedown(s, seat):         # (the entries are the state's: new ones)
            e = w.entries[p]
            if e.choice:
                w.entries[p] = Entry(dict(e.choice), e.salt, e.commitment, e.defaulted)
                down.append(w.entries[p])
        for _ in range(400):                        # random trades between two zones
            i, j = rng.randrange(len(zones) + len(down)), rng.randrange(len(zones))
            if i >= len(zones):
                e = down[i - len(zones)]
                b = zones[j]
                if not b:
                    continue
                y = rng.randrange(len(b))
                x = e.choice["card"]
                if b[y] in exports and (rooms[j] is None or x in rooms[j]) and \
                        (j != len(zones) - 1 or x not in shared):
                    e.choice = {"card": b[y]}
                    b[y] = x
                continue
            a, b = zones[i], zones[j]
            if not a or not b:
                continue
            x, y = rng.randrange(len(a)), rng.randrange(len(b))
            ok_a = (rooms[i] is None or b[y] in rooms[i]) and \
                (i != len(zones) - 1 or b[y] not in shared)
            ok_b = (rooms[j] is None or a[x] in rooms[j]) and \
                (j != len(zones) - 1 or a[x] not in shared)
            if ok_a and ok_b:
                a[x], b[y] = b[y], a[x]
        for z in zones:
            rng.shuffle(z)
    rng.shuffle(d.events)
    for w in s.open_windows():
        if w.kind == "export":
            continue
        for p, e in list(w.entries.items()):
            if p != seat:
                if w.kind == "bid":
                    choice = rng.randint(0, d.gdp[p])
                elif w.kind == "policy":
                    choice = {"card": None, "fast_pass": False, "target": None,
                              "partner": None, "draw": None}
                else:
                    choice = {"leader": rng.choice(GAME.ix(s).leaders), "ranking": []}
                w.entries[p] = Entry(choice, e.salt, e.commitment, e.defaulted)
    s.rng = random.Random(rng.getrandbits(64))
    return s


def test_a_secret_never_reaches_the_bot():
    """Two true states that differ only in what the seat cannot see: the same blanked state
    (the only thing the re-deal starts from), the same re-deals and the same decision."""
    differed, decided = secret_never_reaches(GAME, midgame_states(40, seed=7)[::2], disturb, seat_view,
                                             search_bot(8, horizon=0), redeal)
    assert differed > decided // 2


def test_the_check_would_catch_a_leak(monkeypatch):
    """The test above fails if a secret leaks: a blanking that keeps the decks' order gives
    different blanked states for two states the seat cannot tell apart."""
    from companion.games.trade_warz import redeal as mod
    real = mod.blank

    def leaky(game, state, seat):
        s = real(game, state, seat)
        s.data.decks = {k: list(v) for k, v in state.data.decks.items()}
        return s
    monkeypatch.setattr(mod, "blank", leaky)
    rng = random.Random(3)
    caught = 0
    for state, seat in midgame_states(20, seed=11)[::2]:
        if not any(state.data.decks.values()):
            continue
        other = disturb(state, seat, rng)
        a, b = GAME.observe(state, seat), GAME.observe(other, seat)
        caught += signature(a.known()) != signature(b.known())
    assert caught


@pytest.mark.parametrize("n,options", [(3, {"edition": "trade"}), (4, {"edition": "tariff"}),
                                       (4, {"edition": "trade", "chill": True})])
def test_the_search_bot_plays_whole_games_legally(n, options):
    """Through the real session path (every command checked and logged), a search bot at
    every seat (a small budget), to the end."""
    bot = search_bot(4, horizon=0)
    outcome, s = play_one(GAME, PLAYERS[:n], 40 + n, [bot] * n, options=options)
    assert outcome is not None and outcome.winners


def test_the_search_bots_are_registered():
    bots = resolve_bots(GAME, "search-100,greedy,random,search-400", 4)
    assert [b.__name__ for b in (bots[0], bots[3])] == ["search-100", "search-400"]
    assert bots[0].iterations == 100 and bots[3].iterations == 400



@pytest.mark.cpu
@pytest.mark.slow
def test_search_100_beats_greedy_clearly():
    """The ladder's second rung in small (about two minutes of CPU): search-100 in one seat
    (rotated) against three greedy bots, 24 games on 6 fixed deals (each deal from every
    seat), wins above its fair share by the Wilson interval's lower bound (11 wins of 24
    hold). Trade Warz only: Tariff Warz's rung holds too, but by less (43 of 120 fresh deals,
    35.8% [27.8, 44.7]): a test that says so would play about 120 games. (16 games are too
    few to say it: on deals 900-903 search-100 won 6 of 16, lower bound 18%; over 38 games on
    deals 2000-2009 it won 21, 55% [40, 70]; docs/lab.md.)"""
    bot = resolve_bots(GAME, "search-100", 1)[0]
    wins = 0.0
    for i in range(24):
        seat = i % 4
        bots = [greedy_bot] * 4
        bots[seat] = bot
        o, _ = play_one(GAME, PLAYERS[:4], 2000 + i // 4, bots, lean=True)
        wins += 1 / len(o.winners) if seat in o.winners else 0
    lo, _ = wilson(round(wins), 24)
    assert lo > 0.25, wins
