"""A whole Market Trading night (four players, to the end: here the markets lock, the commonest
ending at four) from the lobby to the Victory screen, every move a tap: builds by name, forage
on the board picker, the steps' Done buttons. Along the way: a phone reloads mid-forage, a late
joiner names the free seat before their first turn, the table undoes a build and every phone
follows, a seat moves to a fresh phone, and the table restarts mid-turn (Market Trading has no
timer to interrupt)."""
import pytest

from . import minds

SEED = 35


def mt_keys(v, seat):
    p, gv = v.get("private") or {}, v.get("game_view") or {}
    out = {}
    if p.get("bowl") is not None:
        out["Bowl"] = str(p["bowl"])
    if isinstance(gv.get("earned"), list):
        out["Earned"] = str(gv["earned"][seat])
    return out


def prompted(night, move):
    st = night.hub.session.state
    return any(s is not None and move in p["moves"] for s, p in st.prompts.items())


@pytest.mark.slow
def test_market_trading_night(night):
    night.open_table(game="market-trading", players=4, seed=SEED)
    night.look("lobby")
    night.lobby_start(seed=SEED)
    night.mind = minds.market_trading
    night.look()

    # Ann's first turn, up to her forage: the phone reloads with a tile half chosen
    night.play(lambda: prompted(night, "forage"))
    assert night.next_actor() == 0
    night.reload_mid_choice(0)
    night.mark("reload")
    # the late joiner arrives before their first turn
    night.play(lambda: night.next_actor() == 3)
    night.late_joiner()
    night.mark("late joiner")

    # a build on the phone; the table undoes it and every phone follows
    night.play(lambda: any(r.get("move") == "build" for r in night.hub.session.records))
    builder = next(r["seat"] for r in reversed(night.hub.session.records)
                   if r.get("move") == "build")
    what = night.undo()
    assert night.hub.seats[builder].name in what, what
    assert prompted(night, "build")
    night.in_step(mt_keys)
    night.look("after-undo")
    for ph in night.phones.values():
        ph.shot("after-undo")
    night.mark("undo")

    # Cy's phone dies: the seat moves to a new phone
    night.move_seat(2)
    night.in_step(mt_keys)
    night.mark("seat moved")

    # the table restarts mid-turn: the phones reclaim their seats by themselves
    night.phone_turn(night.next_actor())
    night.restart()
    night.in_step(mt_keys)
    night.look("after-restart")
    night.mark("restart")

    # to the end
    night.play(lambda: night.hub.session.state.outcome is not None, limit=600)
    night.final_scores()
    night.mark("victory")
    print(f"\nmarket trading: {night.moves} phone moves, {night.table_taps} table taps, "
          f"times {night.marks}, spent "
          f"{ {k: round(v, 1) for k, v in night.spent.items()} }")
