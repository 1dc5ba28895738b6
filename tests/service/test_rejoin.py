"""Coming back from the join QR (issue 22): the Menu's join QR says "a player whose phone
dropped out scans this to come back". A player whose phone is offline types their name and gets
their seat back; a seat whose phone is connected is still refused (only a handover moves it);
a new person may take a seat whose phone is offline, by choosing it. And a new game keeps the
phones that are here, not the ones that went away."""
import pytest

from companion.core.log import MemoryLog
from companion.service import hub as hubmod
from companion.service.hub import (Hub, NameTakenError, SeatMovedError, SeatTakenError,
                                   TableFullError)

from .test_table_control import games, seated


@pytest.fixture
def no_grace(monkeypatch):
    """The moments after a join, while a phone connects, are over."""
    monkeypatch.setattr(hubmod.seats, "CLAIM_GRACE", 0.0)


def phones(hub, *online):
    """Every phone connected, then the ones not in ``online`` drop out."""
    for s in hub.seats:
        hub.set_presence(s.no, True)
    for s in hub.seats:
        if s.no not in online:
            hub.set_presence(s.no, False)


def test_a_player_whose_phone_dropped_out_comes_back_by_name(no_grace):
    hub, tokens = seated()
    phones(hub, 1, 2)                             # Ann's phone went out of Wi-Fi
    seat, token = hub.join(" ann ", hub.room_code)
    assert seat == 0 and hub.reclaim(token) == 0
    assert hub.session.state.players == ["Ann", "Bo", "Cy"]      # her seat, her name
    with pytest.raises(SeatMovedError, match="moved to another phone"):
        hub.reclaim(tokens[0])                    # the old phone, if it wakes, is told


def test_a_seat_whose_phone_is_connected_is_still_refused(no_grace):
    hub, tokens = seated()
    phones(hub, 0, 1, 2)
    with pytest.raises(NameTakenError, match="tap your seat on the table screen"):
        hub.join("Bo", hub.room_code)
    with pytest.raises(SeatTakenError, match="Move to a new phone"):
        hub.join("Dee", hub.room_code, seat=1)
    assert hub.reclaim(tokens[1]) == 1


def test_a_phone_still_connecting_after_its_join_is_not_taken_by_name():
    hub, tokens = seated()                        # joined a moment ago, not connected yet
    with pytest.raises(NameTakenError):
        hub.join("Cy", hub.room_code)
    assert hub.reclaim(tokens[2]) == 2


def test_a_new_player_takes_a_seat_whose_phone_is_offline_by_choosing_it(no_grace):
    hub, tokens = seated()
    phones(hub, 0, 1)                             # Cy left the table
    with pytest.raises(TableFullError) as e:
        hub.join("Dee", hub.room_code)
    assert e.value.seats == [{"seat": 2, "name": "Cy"}]
    assert "Cy\u2019s phone is offline" in str(e.value)
    seat, token = hub.join("Dee", hub.room_code, seat=2)
    assert seat == 2 and hub.session.state.players == ["Ann", "Bo", "Dee"]
    assert hub.public_view()["players"][2] == "Dee"
    with pytest.raises(SeatMovedError):
        hub.reclaim(tokens[2])
    with pytest.raises(NameTakenError):           # a name another seat has
        hub.join("Bo", hub.room_code, seat=2)


def test_a_named_seat_without_a_phone_is_taken_by_its_name_not_the_first_free_one():
    hub = Hub(MemoryLog(), table="t1", games=games)
    hub.configure("toy", players=3, names=["Seat 1", "Seat 2", "Cy"])
    assert hub.join("cy", hub.room_code)[0] == 2
    assert [s.name for s in hub.seats] == ["Seat 1", "Seat 2", "Cy"]


def test_coming_back_withdraws_a_handover_code_for_that_seat(no_grace):
    hub, tokens = seated()
    phones(hub, 1, 2)
    code = hub.handover(0)["code"]
    hub.join("Ann", hub.room_code)
    with pytest.raises(hubmod.JoinError, match="not valid"):
        hub.claim_handover(code)


# -- the next game at the same table ---------------------------------------------------------------
def test_the_next_game_keeps_the_phones_here_and_not_the_ones_that_went_away(no_grace):
    hub = Hub(MemoryLog(), table="t1", games=games)
    hub.configure("toy", players=4)
    tokens = [hub.join(n, hub.room_code)[1] for n in ("Ann", "Bo", "Cy", "Dee")]
    hub.start(seed=5)
    phones(hub, 0, 2, 3)                          # Bo went home; his phone is offline
    hub.end_game()
    hub.configure("toy", players=4)               # the same four: Bo's seat, without a phone
    assert [(s.no, s.name, s.phone) for s in hub.seats] == [
        (0, "Ann", True), (1, "Bo", False), (2, "Cy", True), (3, "Dee", True)]
    assert hub.public_view()["hub"]["seats"][1]["phone"] is False     # not shown as present
    assert hub.reclaim(tokens[2]) == 2 and hub.reclaim(tokens[3]) == 3
    with pytest.raises(hubmod.JoinError, match="offline when the table set up a new game"):
        hub.reclaim(tokens[1])                    # Bo's phone wakes up and is told ...
    seat, token = hub.join("Bo", hub.room_code)   # ... and sits down again with Join
    assert seat == 1 and hub.reclaim(token) == 1


def test_a_new_game_right_after_a_restart_keeps_the_seats_whose_phones_are_reconnecting(
        tmp_path):
    from companion.core.log import SQLiteLog
    log = SQLiteLog(tmp_path / "t.db")
    hub = Hub(log, table="t1", games=games)
    hub.configure("toy", players=3)
    tokens = [hub.join(n, hub.room_code)[1] for n in ("Ann", "Bo")]
    again = Hub(SQLiteLog(tmp_path / "t.db"), table="t1", games=games)      # the restart
    again.configure("toy", players=3)             # serve --game: before any phone is back
    assert [s.name for s in again.seats][:2] == ["Ann", "Bo"]
    assert again.reclaim(tokens[0]) == 0 and again.reclaim(tokens[1]) == 1


def test_a_newcomer_takes_an_unnamed_seat_before_one_the_table_named():
    hub = Hub(MemoryLog(), table="t1", games=games)
    hub.configure("toy", players=3, names=["Tom", "Seat 2", "Seat 3"])    # Tom plays by touch
    assert hub.join("Dee", hub.room_code)[0] == 1
    assert [s.name for s in hub.seats] == ["Tom", "Dee", "Seat 3"]
