"""A whole Battle Builder night (the short arc `4+1`: four monster battles and a PvP, easy
monsters, a 2:00 turn timer) from the lobby to the Victory screen, every move a tap: sealed
monster votes, attacks (card and stamina on a stepper, sealed), a card bought in each shop.
Along the way: a phone reloads mid-vote, a late joiner names the free seat, the table restarts
while a turn timer runs (it comes back paused with its time; the table taps Resume), the table
undoes a purchase and every phone follows, a seat moves to a fresh phone."""
import time

import pytest

from . import minds

SEED = 8


CAPS = {"pvp": "PvP", "gdp": "GDP", "vp": "VP", "hp": "HP"}      # as pretty in ui/web/js/util.js


def pretty(k):
    return " ".join(CAPS.get(w.lower(), w[:1].upper() + w[1:])
                    for w in k.replace("-", " ").replace("_", " ").split())


def bb_keys(v, seat):
    gv = v.get("game_view") or {}
    out = {}
    if gv.get("vp"):
        out["VP"] = str(gv["vp"][seat])
    fight = next((b["fighters"][str(seat)] for b in gv.get("battles_now") or ()
                  if str(seat) in (b.get("fighters") or {})), None)
    if fight:
        out["HP"] = f"{fight['hp']} / {fight['max_hp']}"
        out["Stamina"] = str(fight["stamina"])
    for k, n in ((v.get("private") or {}).get("tokens") or {}).items():
        out[pretty(k) + " tokens"] = str(n)        # "Skill tokens", as the sentences say
    return out


def running_turn_timer(night):
    st = night.hub.session.state
    return st.phase == "battle" and any(
        t.deadline is not None for n, t in st.timers.items() if n.startswith("turn"))


@pytest.mark.slow
def test_battle_builder_night(night):
    night.open_table(game="battle-builder", players=4, seed=SEED,
                     options={"arc": "4+1", "monster_pool": "easy", "turn_seconds": 120})
    night.look("lobby")
    night.lobby_start(seed=SEED)
    night.mind = minds.battle_builder
    night.look()

    # the sealed monster votes: Ann, then Bo's phone reloads mid-vote, Cy, the late joiner
    night.phone_turn(0)
    night.reload_mid_choice(1)
    night.phone_turn(2)
    night.late_joiner()
    night.phone_turn(3)
    night.mark("votes")

    # the first battle: a turn timer runs; one player locks in, and the table restarts
    night.play(lambda: running_turn_timer(night))
    night.look()
    seat = min(s for s in night.hub.session.state.prompts if s is not None)
    night.phone_turn(seat)
    assert running_turn_timer(night)
    assert night.agree("a turn timer running, one seat locked in") == len(night.phones)
    left, read = night.time_left(), time.monotonic()
    night.restart()
    timers = night.hub.session.state.timers
    assert timers and all(t.is_paused() for t in timers.values())
    for n, t in timers.items():         # the time they had at the stop; the outage not counted
        assert left[n] - (night.stopped_at - read) <= t.remaining <= left[n], \
            (n, left, night.stopped_at - read, t.remaining)
    msg = next(a["message"] for a in night.hub.alerts if a["key"] == "restart")
    assert "turn:" not in msg and "turn timer" in msg and "Resume" in msg, msg
    night.look("battle-after-restart")
    assert night.app.timer_mode == "paused"
    status = night.app.root.ids.top.ids.status      # the bar's status on one line
    assert status.text in (night.app.top_status, night.app.top_status_short)
    night.in_step(bb_keys)
    assert night.agree("the paused turn timer after the restart") == len(night.phones)
    night.tap("timer-chip")                     # the paused timer, on its own screen
    night.look("timer-after-restart")
    assert "Resume" in night.d.texts()
    night.tap("timer:pause")
    night.d.wait_for(lambda: all(not t.is_paused()
                                 for t in night.hub.session.state.timers.values()), timeout=20)
    # every phone's clock follows the table's again, and its feed says the timer runs again
    assert night.agree("the turn timer resumed", feed="The turn timer is running again") \
        == len(night.phones)
    night.tap("tab:now")
    night.mark("restart")

    # the shop: a card bought on the phone; the table undoes it; every phone follows
    night.play(lambda: any(r.get("move") == "buy" for r in night.hub.session.records))
    buyer = next(r["seat"] for r in reversed(night.hub.session.records)
                 if r.get("move") == "buy")
    spent = sum(night.hub.seat_view(buyer)["private"]["tokens"].values())
    what = night.undo()
    assert night.hub.seats[buyer].name in what, what
    assert sum(night.hub.seat_view(buyer)["private"]["tokens"].values()) > spent
    night.in_step(bb_keys)
    night.look("after-undo")
    for ph in night.phones.values():
        ph.shot("after-undo")
    night.phones[buyer].memo.clear()           # the player buys again
    night.mark("undo")

    # the second battle: Cy's phone dies; the seat moves to a new phone
    night.play(lambda: night.hub.session.state.phase == "battle")
    night.move_seat(2)
    night.in_step(bb_keys)
    night.mark("seat moved")

    # to the end: the battles, the PvP, the final scores
    night.play(lambda: night.hub.session.state.outcome is not None, limit=600)
    night.final_scores()
    night.mark("victory")
    print(f"\nbattle builder: {night.moves} phone moves, {night.table_taps} table taps, "
          f"times {night.marks}, spent "
          f"{ {k: round(v, 1) for k, v in night.spent.items()} }")
