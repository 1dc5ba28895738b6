import threading

import pytest

from companion.core.errors import ConfigError, IllegalMoveError, SealedChoiceError
from companion.core.log import MemoryLog, SQLiteLog
from companion.games import get
from companion.service.hub import Hub, JoinError

from ..core.toy import Toy


def games(name):
    return Toy() if name == "toy" else get(name)


def test_lobby_join_reclaim_and_start():
    hub = Hub(MemoryLog(), table="t1", games=games)
    events = []
    hub.subscribe(events.append)
    with pytest.raises(JoinError, match="not chosen a game"):
        hub.join("Ann", hub.room_code)
    hub.configure("great-powers", players=3)
    with pytest.raises(JoinError, match="room code"):
        hub.join("Ann", "ZZZZ")
    with pytest.raises(JoinError, match="name"):
        hub.join("  ", hub.room_code)
    seat, token = hub.join("Ann", hub.room_code.lower())
    assert seat == 0 and hub.reclaim(token) == 0
    with pytest.raises(JoinError):
        hub.reclaim("forged")
    hub.join("Bo", hub.room_code)
    hub.join("Cy", hub.room_code)
    with pytest.raises(JoinError, match="taken"):
        hub.join("Di", hub.room_code)
    assert hub.public_view()["phase"] == "lobby"
    s = hub.start(seed=3)
    assert s.state.players == ["Ann", "Bo", "Cy"]
    assert hub.public_view()["phase"] == "bid"
    assert token not in str(hub.public_view()) and token not in str(hub.seat_view(0))
    assert any(e["kind"] == "changed" for e in events)


def test_commands_errors_and_resume_from_the_log(tmp_path):
    log = SQLiteLog(tmp_path / "s.db")
    hub = Hub(log, table="t1", games=games)
    hub.configure("great-powers", players=3)
    _, token = hub.join("Ann", hub.room_code)
    hub.start(seed=1)
    hub.submit(0, "submit_bids", {"traits": ["navy", "army", "colony"]})
    with pytest.raises(SealedChoiceError, match="already locked in"):
        hub.submit(0, "submit_bids", {"traits": ["navy", "army", "colony"]})
    with pytest.raises(IllegalMoveError):
        hub.next()                                  # nothing for the table to confirm
    fp = hub.session.state.fingerprint()
    log.close()
    again = Hub(SQLiteLog(tmp_path / "s.db"), table="t1", games=games)
    assert again.resume() is not None
    assert again.session.state.fingerprint() == fp
    assert again.reclaim(token) == 0                # the phone keeps its seat across a restart
    assert again.seats[0].name == "Ann"


def test_presence_alerts_and_buttons():
    hub = Hub(MemoryLog(), games=games)
    hub.configure("toy", players=2)
    hub.join("Ann", hub.room_code)
    hub.start(seed=1)
    hub.set_presence(0, True)
    hub.set_presence(0, False)
    assert hub.public_view()["hub"]["alerts"][0]["kind"] == "phone_disconnected"
    hub.set_presence(0, True)
    assert hub.public_view()["hub"]["alerts"] == []
    hub.press("undo")                               # nothing to undo: an alert, no exception
    assert "nothing to undo" in hub.public_view()["hub"]["alerts"][-1]["message"]
    hub.press("pause")
    assert hub.public_view()["timers"]["bid"]["paused"]
    hub.press("pause")
    assert not hub.public_view()["timers"]["bid"]["paused"]


def test_unknown_scan_is_an_alert_and_changes_nothing():
    hub = Hub(MemoryLog(), games=games)
    hub.configure("great-powers", players=3)
    hub.start(seed=1)
    v = hub.session.version

    def resolve(code):
        raise IllegalMoveError(f"Unknown card {code!r}.")
    assert hub.scan("tc1/xx", resolve) is None
    assert hub.session.version == v
    assert "Unknown card" in hub.public_view()["hub"]["alerts"][-1]["message"]


def test_timer_thread_warns_and_expires_on_time():
    from companion.core.clock import SessionClock
    hub = Hub(MemoryLog(), games=games, clock=SessionClock())
    got = {}
    done = threading.Event()

    def on(e):
        if e["kind"] == "timer_warning":
            got["warn"] = True
        if e["kind"] == "changed" and any(n["kind"] == "TimerExpired" for n in e["notices"]):
            got["expired"] = True
            done.set()
    hub.subscribe(on)
    hub.configure("toy", players=2)
    s = hub.start(seed=1)
    # shorten the running timer to keep the test quick (a correction of the rules is not
    # needed: the Toy's timer length is its own business)
    t = s.state.timers["bid"]
    t.deadline = s.clock.now() + 0.3
    t.warn_before = 0.2
    hub.start_timers()
    try:
        assert done.wait(5)
    finally:
        hub.stop()
    assert got == {"warn": True, "expired": True}
    assert s.state.round == 2


def test_configure_refuses_bad_counts():
    hub = Hub(MemoryLog(), games=games)
    with pytest.raises(ConfigError):
        hub.configure("great-powers", players=9)


def test_a_fresh_game_restarted_before_any_move_does_not_start_its_feed_with_a_restart(tmp_path):
    """Issue 34: a game nobody has played a move in yet has nothing to resume; its story
    starts with the game. One with moves says the restart."""
    log = SQLiteLog(tmp_path / "s.db")
    hub = Hub(log, table="t1", games=games)
    hub.configure("great-powers", players=3)
    hub.start(seed=1)
    log.close()
    again = Hub(SQLiteLog(tmp_path / "s.db"), table="t1", games=games)
    again.resume()
    said = [e["says"] for e in again.public_view()["story"]]
    assert said[0].startswith("Great Powers began") and "The table restarted." not in said
    again.submit(0, "submit_bids", {"traits": ["navy", "army", "colony"]})
    again.log.close()
    third = Hub(SQLiteLog(tmp_path / "s.db"), table="t1", games=games)
    third.resume()
    assert third.public_view()["story"][-1]["says"] == "The table restarted."
