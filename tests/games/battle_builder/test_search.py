"""The search bot in Battle Builder (companion/core/search.py, battle_builder/redeal.py): a
re-dealt state never contradicts the seat's view; a secret never reaches the bot; it plays
whole games legally under many variants."""
import random

import pytest

from companion.core import views
from companion.core.play import play_one, resolve_bots
from companion.core.search import clone
from companion.core.session import LeanSession
from companion.games.battle_builder import redeal as rd
from companion.games.battle_builder.bots import greedy_bot, random_bot, search_bot
from companion.games.battle_builder.redeal import UNSEEN, copy_data, redeal

from ..search_checks import secret_never_reaches, signature
from .helpers import GAME

PLAYERS = ["Ada", "Bo", "Cy", "Di"]

#: Variants that add hidden things: dual draws, auctions, objectives, bets and roles, PvP votes,
#: wagers, spectator bets and revenge, environment and arena decks, a limited shop.
VARIANTS = (
    {},
    {"dual_monsters": True, "victory": "objectives", "environments": True},
    {"monster_select": "auction", "earning": "betting", "pvp_trigger": "vote",
     "pvp_rewards": "wager", "spectator_bets": True, "arenas": True},
    {"earning": "roles", "revenge": True, "limited_shop": True, "tokens": "D",
     "convert_when": "any-shop", "arc": "6+2"},
    {"victory": "objectives", "pvp_pairing": "draft", "best_of_three": True,
     "monster_abilities": "all", "arc": "4+1"},
)


def midgame_states(count, seed=0):
    """``count`` (state, seat) pairs from games played part way by a mix of bots under the
    variants above: a state with a seat prompted, often mid-way through a sealed choice with
    others locked in."""
    rng = random.Random(seed)
    out = []
    k = 0
    while len(out) < count:
        n = rng.choice((2, 3, 4))
        options = VARIANTS[k % len(VARIANTS)]
        k += 1
        s = LeanSession(GAME, PLAYERS[:n], options, seed=rng.getrandbits(32))
        stop = rng.randrange(1, 400)
        bots = [rng.choice((greedy_bot, random_bot)) for _ in range(n)]
        for _ in range(stop):
            st = s.state
            if st.outcome is not None or not st.prompts:
                break
            seat = rng.choice(sorted(st.prompts))
            move, args = bots[seat](GAME, GAME.observe(st, seat), rng)
            s.execute(seat, move, args)
        st = s.state
        if st.outcome is None and st.prompts:
            out.append((st, rng.choice(sorted(st.prompts))))
            out.append((st, rng.randrange(st.n)))        # a seat not asked anything sees too
    return out


def seat_view(state, seat):
    v = views.seat(GAME, state, seat)
    v.pop("legal")              # the same specs, built from the same view (and slow)
    return v


def _monsters(d):
    return sorted(d.monster_deck + d.monster_discard +
                  [m for v in d.dual_draws.values() for m in v])


def test_a_redealt_state_never_contradicts_the_seats_view():
    rng = random.Random(1)
    met = {"locked": 0, "dual": 0, "objective": 0, "battle": 0}
    for state, seat in midgame_states(150):
        before = seat_view(state, seat)
        view = GAME.observe(state, seat)
        for _ in range(3):
            s = redeal(GAME, view, rng)
            assert seat_view(s, seat) == before
            d, t = s.data, state.data
            assert None not in _monsters(d)
            for p in range(s.n):
                # the defence pile holds what was not played; every monster's deck too
                assert sorted(d.ddeck[p]) == sorted(t.ddeck[p])
            for b in d.battles.values():
                met["battle"] += 1
                for m, tm in zip(b["monsters"], t.battles[b["id"]]["monsters"]):
                    assert sorted(m["deck"]) == sorted(tm["deck"])
            assert sorted(d.env_deck) == sorted(t.env_deck)
            held = [o for o in d.objective.values()] + \
                [o for v in d.objective_offer.values() for o in v]
            assert None not in held and len(set(held)) == len(held)
            met["objective"] += bool(d.objective)
            for p, v in d.dual_draws.items():
                assert len(v) == len(t.dual_draws[p])
                met["dual"] += p != seat
            for w in s.open_windows():
                for p, e in w.entries.items():
                    assert e.choice is not UNSEEN
                    if p != seat:
                        met["locked"] += 1
                        if w.kind == "monster":
                            assert e.choice in (d.dual_draws[p] if d.dual_draws else
                                                d.offers[GAME.team_of(s, p)])
        assert seat_view(state, seat) == before     # the search never changes the table
    assert all(met.values()), met                   # the cases that matter were met


def disturb(state, seat, rng):
    """A copy of ``state`` that differs from it only in what ``seat`` cannot see: the unseen
    monsters moved between the deck, the discard and the others' dual draws; every defence pile
    and monster deck, the environment and arena decks reshuffled; the others' objectives swapped
    for ones the seat does not hold; the others' locked choices changed; another random
    stream."""
    s = clone(state, copy_data)
    s.lean = state.lean
    d = s.data
    others = [p for p in sorted(d.dual_draws) if p != seat]
    pool = d.monster_deck + d.monster_discard + [m for p in others for m in d.dual_draws[p]]
    rng.shuffle(pool)
    it = iter(pool)
    for p in others:
        d.dual_draws[p] = [next(it) for _ in d.dual_draws[p]]
    d.monster_deck = [next(it) for _ in d.monster_deck]
    d.monster_discard = [next(it) for _ in d.monster_discard]
    for v in d.ddeck:
        rng.shuffle(v)
    for b in d.battles.values():
        for m in b["monsters"]:
            rng.shuffle(m["deck"])
    rng.shuffle(d.env_deck)
    rng.shuffle(d.arena_deck)
    if d.objective or d.objective_offer:
        mine = set(d.objective_offer.get(seat, [])) | {d.objective.get(seat)}
        free = [o for o in GAME.rules.objectives if o not in mine]
        rng.shuffle(free)
        it = iter(free)
        for p in sorted(set(d.objective) | set(d.objective_offer)):
            if p != seat:
                d.objective_offer[p] = [next(it) for _ in d.objective_offer.get(p, [])]
                if p in d.objective:
                    d.objective[p] = next(it)
    for w in s.open_windows():
        for p in list(w.entries):
            if p != seat:
                e = w.entries[p]
                w.entries[p] = type(e)(rd._choice_of(GAME, s, p, w, rng, random_bot), "", "")
    s.rng = random.Random(rng.getrandbits(64))
    return s


def test_a_secret_never_reaches_the_bot():
    """Two true states that differ only in what the seat cannot see: the same blanked state
    (the only thing the re-deal starts from), the same re-deals and the same decision."""
    differed, decided = secret_never_reaches(GAME, midgame_states(60, seed=7)[::2], disturb, seat_view,
                                             search_bot(8), redeal)
    assert differed > decided // 2


def test_a_leaked_secret_would_be_caught(monkeypatch):
    """The test above has teeth: a blanking that let the monster deck through gives different
    blanked copies for some disturbed pair."""
    real = rd.blank

    def leaky(game, state, seat):
        s = real(game, state, seat)
        s.data.monster_deck = list(state.data.monster_deck)
        return s

    monkeypatch.setattr(rd, "blank", leaky)
    rng = random.Random(2)
    caught = 0
    for state, seat in midgame_states(30, seed=7)[::2]:
        other = disturb(state, seat, rng)
        a, b = GAME.observe(state, seat), GAME.observe(other, seat)
        caught += signature(a.known()) != signature(b.known())
    assert caught


@pytest.mark.parametrize("n,options", [(2, VARIANTS[1]), (3, VARIANTS[2]), (4, VARIANTS[3]),
                                       (4, VARIANTS[4])])
def test_the_search_bot_plays_whole_games_legally(n, options):
    """Through the real session path (every command checked and logged), a search bot at
    every seat (a small budget), to the end."""
    bot = search_bot(4)
    outcome, s = play_one(GAME, PLAYERS[:n], 40 + n, [bot] * n, options=dict(options))
    assert outcome is not None and outcome.winners


def test_the_search_bots_are_registered():
    bots = resolve_bots(GAME, "search-100,greedy,random,search-400", 4)
    assert [b.__name__ for b in (bots[0], bots[3])] == ["search-100", "search-400"]
    assert bots[0].iterations == 100 and bots[3].iterations == 400
