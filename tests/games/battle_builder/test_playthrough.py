"""What only Battle Builder promises about a finished game (the conformance suite plays every
game to the end, replays it and takes back commands: tests/conformance): every battle of the
arc is fought, no count goes below zero; the turn timer; corrections of its counters."""
import pytest

from companion.core.clock import FakeClock
from companion.core.session import fold
from tests.conformance.driver import play

from ..tables import play_until
from .helpers import GAME, session

SPREAD = [
    {"arc": "4+1"},
    {"arc": "6+2", "tokens": "B", "earning": "action", "monster_select": "auction"},
    {"arc": "4+1", "tokens": "C", "earning": "milestones", "dual_monsters": True,
     "targeting": "top-damage", "environments": True},
    {"arc": "6+2", "tokens": "D", "earning": "roles", "convert_when": "any-shop",
     "pvp_trigger": "vote", "pvp_rewards": "wager", "spectator_bets": True},
    {"arc": "4+1", "earning": "betting", "monster_abilities": "all", "targeting": "higher-hp",
     "diminishing": True, "upgrade_trees": True, "deck_thinning": True},
    {"arc": "6+2", "limited_shop": True, "scarce_shop": True, "pvp_pairing": "draft",
     "pvp_rewards": "choice", "opportunity": True, "victory": "categories"},
    {"arc": "4+1", "teams": "fixed", "best_of_three": True, "arenas": True, "revenge": True,
     "card_value_rewards": True, "victory": "objectives", "tiebreak": "sudden-death"},
    {"arc": "6+2", "targeting": "more-vp", "pvp_pairing": "rotation",
     "pvp_rewards": "deck-value", "victory": "championship", "reward_split": "divided"},
    {"arc": "4+1", "victory": "threshold", "tiebreak": "deck-value", "monster_pool": "hard"},
    {"arc": "9+3", "monster_pool": "easy", "tiebreak": "shared"},
]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_battle_of_the_arc_is_fought_and_no_count_goes_below_zero(n):
    for seed in range(50):
        opts = SPREAD[seed % len(SPREAD)]
        st = play(GAME, n, seed * 7 + n, opts).state
        battles, every = GAME.rules.arcs[st.config["arc"]]
        if opts.get("victory") != "threshold":
            assert len(st.data.track["battles"]) == battles * len(st.data.teams), opts
            assert st.data.pvp_done == battles // every
        for tok in st.data.tokens:
            assert all(v >= 0 for v in tok.values())
        assert all(v >= 0 for v in st.data.vp)


def test_turn_timer_passes_for_seats_that_did_not_lock_in():
    clock = FakeClock()
    s = session(2, 3, clock=clock, turn_seconds=45, monster_abilities="none")
    play_until(s, lambda st: st.phase == "battle", seed=1)
    bid = next(iter(s.state.data.battles))
    assert s.next_deadline() == pytest.approx(clock.now() + 45)
    s.execute(0, "play_turn", {"card": "jab", "stamina": 1})
    clock.advance(45)
    s.tick()
    b = s.state.data.battles[bid]
    assert b["turn"] == 2 and b["plays"]["1"] == [None, 0, None]
    assert s.state.windows[f"{bid}:1.1"].entries[1].defaulted
    assert fold(GAME, s.records).fingerprint() == s.state.fingerprint()


def test_corrections_of_counters_that_do_not_exist_are_refused():
    s = session(2, 1)
    from companion.core.errors import IllegalMoveError
    with pytest.raises(IllegalMoveError, match="no combat tokens"):
        s.correct(0, "combat", 1, "oops")
    with pytest.raises(IllegalMoveError, match="not in a battle"):
        s.correct(0, "health", 1, "oops")
    s.correct(0, "skill", 3, "found tokens")
    assert s.state.data.tokens[0]["skill"] == 3
