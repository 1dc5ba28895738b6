"""Fair seats: over whole bot games, no seat sits out more PvPs than another by more than one,
with every pairing rule, trigger and arc, for 3 and 4 players; with 3 players everyone fights
everyone once in every three PvPs; the player sitting out is told so, and the draft's pairing
is announced."""
import itertools

import pytest

from companion.core import views

from .helpers import GAME, drive, fresh, play_to_end, session
from .. import tables

MODES = ("standing", "rotation", "draft")


def sat_out(state):
    """Seat -> PvPs sat out, counted from the PvPs actually fought (the playtest track), not
    from the game's own tally."""
    fought = {}
    for p in state.data.track["pvp"]:
        fought.setdefault(p["pvp"], set()).update(p["seats"])
    return [sum(1 for seats in fought.values() if s not in seats) for s in state.seats()], \
        fought


@pytest.mark.parametrize("n", [3, 4])
@pytest.mark.parametrize("mode", MODES)
def test_no_seat_sits_out_more_pvps_than_another_by_more_than_one(n, mode):
    games = 0
    for seed, bot, trigger, arc in itertools.product(range(12), ("greedy", "random"),
                                                     ("fixed", "vote"), ("9+3", "6+2", "4+1")):
        st = fresh(n, seed, pvp_pairing=mode, pvp_trigger=trigger, arc=arc)
        play_to_end(st, bot=bot, seed=seed)
        out, fought = sat_out(st)
        assert len(fought) == st.data.pvp_done >= 1, (seed, bot, trigger, arc)
        assert max(out) - min(out) <= 1, (seed, bot, trigger, arc, out)
        if n == 3:
            assert all(len(f) == 2 for f in fought.values())
            pairs = [frozenset(f) for _, f in sorted(fought.items())]
            # everyone fights everyone once in every three PvPs
            for k in range(0, len(pairs), 3):
                assert len(set(pairs[k:k + 3])) == len(pairs[k:k + 3]), (seed, pairs)
        else:
            assert out == [0] * 4
        games += 1
    assert games == 144           # every arc: the long, the short and the '4 rounds' one


def test_standing_sends_the_lowest_of_those_who_have_not_sat_out():
    """Standing with 3 players: first and second fight, among the seats whose turn it is to
    sit out the lowest in VP sits out; so the last player is not left out every time."""
    st = fresh(3, 4, pvp_pairing="standing")
    seen = []
    for k in range(1, 4):
        drive(st, lambda s, k=k: s.phase == "pvp_prep" or (s.phase == "pvp" and
                                                            s.data.pvp_no == k))
        d = st.data
        seen.append(d.byes[0])
        earlier = seen[:-1]
        may = [s for s in range(3) if s not in earlier]
        low = min(d.vp[s] for s in may)
        assert d.vp[d.byes[0]] == low and d.byes[0] in may
        drive(st, lambda s, k=k: s.data.pvp_done == k or s.is_over())
    assert sorted(seen) == [0, 1, 2]


def test_the_player_sitting_out_is_told_so_and_bets_on_the_one_match():
    s = session(3, 2, spectator_bets=True, pvp_pairing="rotation")
    tables.play_until(s, lambda st: st.phase == "pvp_prep")
    bye = s.state.data.byes[0]
    a, b = s.state.data.pairings[0]
    names = s.state.players
    mine = [e["says"] for e in s.story(bye) if e.get("to") == bye]
    assert any(x.startswith("You sit this PvP out: ") for x in mine), mine
    public = [e["says"] for e in s.story()]
    k = s.state.data.pvp_no
    assert f"PvP {k}: {names[a]} fights {names[b]}; {names[bye]} sits this one out." in public
    assert not any("You sit this PvP out" in e["says"] for e in s.story(a))
    move = next(x for x in views.legal(GAME, s.state, bye) if x["move"] == "prepare_pvp")
    bet = next(x for x in move["args"] if x["name"] == "bet_on")
    assert bet["label"] == f"Bet on the match, {names[a]} v {names[b]}?"
    # the two fighting have no other match to bet on: they are asked nothing about bets
    for seat in (a, b):
        assert "bet_on" not in (s.state.prompts.get(seat) or {})
    view = GAME.public_view(s.state)
    assert view["waiting_for"].endswith(f"{names[bye]} sits this PvP out")


def test_a_drafted_pairing_is_announced_with_whom():
    s = session(4, 5, pvp_pairing="draft")
    tables.play_until(s, lambda st: st.phase == "pvp_setup" and st.prompts)
    picker = min(s.state.prompts)
    names = s.state.players
    assert any(e["says"].startswith(f"{names[picker]} has the fewest VP and chooses an "
                                     f"opponent for PvP 1: ") for e in s.story())
    foe = s.state.prompts[picker]["candidates"][0]
    s.execute(picker, "choose_opponent", {"opponent": foe})
    rest = [x for x in range(4) if x not in (picker, foe)]
    assert any(e["says"] == f"PvP 1: {names[picker]} chose to fight {names[foe]}; "
                            f"{names[rest[0]]} fights {names[rest[1]]}." for e in s.story())
