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
    monkeypatch.setattr(hubmod, "CLAIM_GRACE", 0.0)


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
