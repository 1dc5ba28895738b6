"""Random playthroughs to the end for hundreds of seeds at 2-6 players, both editions and every
variant; replay equality; no card is ever lost or duplicated; undo and corrections replay."""
import collections
import random

import pytest

from companion.core.play import play_out
from companion.core.session import fold

from .helpers import GAME, session

SPREAD = {
    "trade": [{}, {"chill": True}, {"quick_start": True}, {"diplomatic": True},
              {"chill": True, "quick_start": True, "diplomatic": True},
              {"policy_order": "poorest_first", "influence_gain": "one",
               "upkeep_confirm": "every"},
              {"leader_pick": "random", "check_reveals": False,
               "export_slot_limit": False, "pass_first_player": False}],
    "tariff": [{}, {"fast_pass": False}, {"policy_order": "poorest_first",
                                          "upkeep_confirm": "every"},
               {"leader_pick": "random", "check_reveals": False}, {"rounds": 3}],
}


def card_census(state):
    """Every card id wherever it is (face-down Exports are read from their sealed windows)."""
    d = state.data
    c = collections.Counter()
    for h in d.hands:
        c.update(h)
    for p in d.piles:
        c.update(p)
    c.update(d.out)
    for k in d.decks:
        c.update(d.decks[k])
        c.update(d.discards[k])
    c.update(t["card"] for t in d.board.in_play)
    c.update(p for p in d.board.policy if p)
    for slots in d.board.routes.values():
        c.update(cid for _, cid in slots.values())
    for p in d.trade.placements:
        if p["state"] == "down":
            c[state.windows[p["window"]].entries[p["seat"]].choice["card"]] += 1
        elif p["state"] in ("up", "won"):
            c[p["card"]] += 1
    return c


def starting_cards(state):
    d = state.data
    db = GAME.db
    c = collections.Counter()
    for kind in d.decks:
        c.update(db.deck(d.edition, kind, leaders=d.board.leaders))
    for lid in d.board.leaders:
        c.update(db.leader_deck(d.edition, lid))
    return c


@pytest.mark.parametrize("edition", ["trade", "tariff"])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_random_playthroughs_end_replay_and_keep_every_card(edition, n):
    spread = SPREAD[edition]
    ends = collections.Counter()
    for seed in range(30):
        opts = dict(spread[seed % len(spread)], edition=edition)
        s = session(n, seed=seed * 97 + n, **opts)
        bots = [GAME.bots["random" if (seed + i) % 3 else "greedy"] for i in range(n)]
        outcome = play_out(s, bots, random.Random(seed))
        st = s.state
        assert outcome.winners and all(0 <= w < n for w in outcome.winners)
        assert all(g >= 0 for g in st.data.gdp)
        assert outcome.scores == dict(enumerate(st.data.gdp))
        assert st.round <= st.data.rounds + GAME.rules.edition(edition).extra_rounds
        assert len(st.data.gdp_curve) == st.round == len(st.data.disputes_per_round)
        if "Economic Boom" in outcome.reason:
            assert max(st.data.gdp) >= 50
            ends["boom"] += 1
        else:
            assert st.round >= st.data.rounds
            ends["close"] += 1
        census = card_census(st)
        assert census == starting_cards(st), f"seed {seed}: cards lost or duplicated"
        assert fold(GAME, s.records).fingerprint() == st.fingerprint(), f"seed {seed}"
    assert sum(ends.values()) == 30


def test_many_greedy_games_in_both_editions_finish():
    for seed in range(150):
        ed = ("trade", "tariff")[seed % 2]
        n = 2 + seed % 5
        s = session(n, seed=10_000 + seed, edition=ed)
        play_out(s, [GAME.bots["greedy"]] * n, random.Random(seed))
        assert s.state.is_over()


def test_replay_with_undos_and_corrections_in_the_middle():
    rng = random.Random(5)
    s = session(4, seed=77)
    steps = 0
    while not s.state.is_over():
        st = s.state
        if not st.prompts:
            s.clock.set(st.next_deadline())
            s.tick()
            continue
        seat = min(st.prompts, key=lambda x: -1 if x is None else x)
        if seat is None:
            mv = GAME.table_bot(GAME, st, None, rng)
        else:
            mv = GAME.bots["random"](GAME, st, seat, rng)
        s.execute(seat, *mv)
        steps += 1
        if steps % 9 == 0:
            try:
                s.undo()
            except Exception:
                pass
        if steps % 13 == 0:
            s.correct(rng.randrange(4), "gdp", 1, "a coin the app missed")
        assert fold(GAME, s.records).fingerprint() == s.state.fingerprint()
    assert steps > 40
