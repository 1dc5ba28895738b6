"""A whole Great Powers night (one turn, the game's `turns` option) from the table's Home screen
to the Victory screen and back Home, every move a tap: the table chooses the game, the phones
join from the QR code on the table screen, the table starts with a free seat and a late joiner
names it; a phone reloads mid-bid; the table undoes an Action card and every phone follows; a
seat moves to a fresh phone by the one-seat QR; the table restarts mid-turn (Great Powers has
no timer); the final scores on every phone; New game goes back Home."""
import pytest

from . import minds


SEED = 5


def gp_keys(v, seat):
    tokens = v["private"]["tokens"]
    out = {"VP": str(tokens["vp"])}
    out.update({k.replace("_", " ").title(): str(n) for k, n in tokens.items() if k != "vp"})
    return out


@pytest.mark.slow
def test_great_powers_night(night):
    night.open_table(seed=SEED)
    assert night.app.screen_name == "home"
    night.look()
    # the table chooses the game on Home: Great Powers, 4 players, 1 turn
    night.tap("home:game:great-powers")
    night.tap("home:players:4")
    for _ in range(9):
        night.tap("home:option:turns:minus", pump=False)
    night.d.pump()
    assert "1" in night.d.texts()
    night.look("home-great-powers")
    night.tap("home:setup")
    assert night.app.screen_name == "lobby" and night.hub.game_name == "great-powers"
    assert night.hub.options["turns"] == 1 and len(night.hub.seats) == 4
    # three phones read the join QR off the table screen and give their names
    url = night.d.qr("lobby")
    assert url == night.hub.join_url
    ann, bo, cy = night.join(url, ["Ann", "Bo", "Cy"])
    ann.shot("lobby")
    night.d.pump()
    assert "3 of 4 phones joined" in night.d.texts()
    night.look("lobby-3-of-4")
    night.tap("lobby:start")                     # with seat 4 still free
    night.d.wait_for(lambda: night.hub.session is not None, timeout=20)
    assert night.hub.log.info(night.hub.session.id).meta["seed"] == SEED
    night.mark("started")
    night.mind = minds.great_powers
    assert night.hub.session.state.players[3] == "Seat 4"
    night.look()

    # the bids: Ann taps hers; Bo's phone reloads halfway through his; Cy bids
    night.phone_turn(0)
    night.reload_mid_choice(1)
    night.phone_turn(2)
    # the late joiner reads the join QR off the table's Menu, takes the free seat, names it
    [di] = night.join(night.menu_join_qr(), ["Di"])
    assert night.hub.seats[3].name == "Di" and night.hub.session.state.players[3] == "Di"
    for ph in (ann, bo, cy):
        ph.page.wait_for_function(
            "() => document.querySelector(\"#players li[data-seat='3'] .pname\")"
            ".textContent === 'Di'")
    night.d.pump()
    assert not any("Seat 4" in t for t in night.d.texts())
    night.phone_turn(3)
    night.mark("bids")

    # the reveal, on the table: every step, then Continue
    night.d.pump()
    assert night.app.screen_name == "gp_reveal"
    night.look()
    night.tap("gp:show-all")
    assert any("4 sealed bids match their commitments" in t for t in night.d.texts())
    night.look("gp_reveal-all")
    night.tap("gp:continue")
    assert night.app.screen_name == "gp_action"

    # the first Action card, by taps; the table undoes it and every phone follows
    def taken():
        return sum(1 for x in night.hub.session.state.data.taken.values() if x)

    night.play(lambda: taken() >= 1)
    first = next(s for s, x in night.hub.session.state.data.taken.items() if x)
    what = night.undo()
    assert night.hub.seats[first].name in what
    assert taken() == 0
    night.in_step(gp_keys)
    night.look("after-undo")
    for ph in night.phones.values():
        ph.shot("after-undo")
    night.mark("undo")

    # Cy's phone dies: the table moves the seat to a new phone
    night.play(lambda: taken() >= 1)
    night.move_seat(2)
    night.in_step(gp_keys)
    night.mark("seat moved")

    # the table restarts mid-turn: the phones reclaim their seats by themselves
    night.restart()
    night.in_step(gp_keys)
    # the restarted screen shows the turn as it is: the bid reveal was seen before
    assert night.app.screen_name == "gp_action", night.app.screen_name
    night.look("after-restart")
    night.mark("restart")

    # to the end of the game
    night.play(lambda: night.hub.session.state.outcome is not None)
    night.moments(["gp:recap:continue"])
    night.final_scores()
    night.mark("victory")

    # New game: the table goes Home and sets up another game; the same phones keep their
    # seats and names for it, without anyone typing anything
    night.tap("victory:new")
    assert night.app.screen_name == "home"
    night.tap("home:game:trade-warz")
    assert night.app.top_title == "Table Companion" and "Game over" not in night.d.texts()
    night.look("home-next-game")
    night.tap("home:setup")
    assert night.app.screen_name == "lobby" and night.hub.game_name == "trade-warz"
    for ph in night.phones.values():
        ph.page.wait_for_selector("[data-panel=lobby]")
    assert [s.name for s in night.hub.seats] == ["Ann", "Bo", "Cy", "Di"]
    night.look("lobby-next-game")
    night.phones[0].shot("next-game-lobby")
    night.mark("next game")
    print(f"\ngreat powers: {night.moves} phone moves, {night.table_taps} table taps, "
          f"times {night.marks}, spent "
          f"{ {k: round(v, 1) for k, v in night.spent.items()} }")
