"""The table in charge (issue 10): end, abandon, go Home and resume, seats carried to the next
game, renames (recorded and replayed, never undone), late joiners who give their name, a seat
moved to a new phone with a one-seat code, and every scan acknowledged."""
import time

import pytest

from companion.core.clock import FakeClock, SessionClock
from companion.core.errors import ConfigError, IllegalMoveError
from companion.core.log import MemoryLog, SQLiteLog
from companion.core.session import Session, fold
from companion.games import get
from companion.service.hub import (BadNameError, Hub, JoinError, NameTakenError,
                                   SeatMovedError, clean_name)

from ..core.toy import Toy


def games(name):
    return Toy() if name == "toy" else get(name)


def seated(log=None, players=3, names=("Ann", "Bo", "Cy")):
    hub = Hub(log or MemoryLog(), table="t1", games=games)
    hub.configure("toy", players=players)
    tokens = [hub.join(n, hub.room_code)[1] for n in names]
    hub.start(seed=5)
    return hub, tokens


def test_end_game_scores_as_they_stand_and_the_log_says_finished():
    hub, _ = seated()
    for s in range(3):
        hub.submit(s, "bid", {"n": [1, 7, 3][s]})
    hub.end_game()
    o = hub.session.state.outcome
    assert o.winners == [1] and "ended the game early" in o.reason
    info = hub.log.info(hub.session.id)
    assert info.status == "finished" and info.summary["winners"] == [1]
    # a finished game: the table may set up the next one at once, seats kept
    hub.configure("toy", players=3)
    assert [x.name for x in hub.seats] == ["Ann", "Bo", "Cy"] and hub.session is None


def test_abandon_records_it_goes_home_and_keeps_the_phones():
    hub, tokens = seated()
    s = hub.session
    hub.abandon()
    assert hub.session is None and hub.game_name is None
    assert hub.public_view()["phase"] == "lobby"
    assert hub.log.info(s.id).status == "abandoned"
    assert hub.log.read(s.id)[-1]["type"] == "SessionAbandoned"
    assert hub.resumable() == []                 # abandoned games are not offered again
    with pytest.raises(IllegalMoveError, match="abandoned"):
        s.execute(0, "bid", {"n": 1})
    assert hub.reclaim(tokens[2]) == 2           # the phone is still at the table
    hub.configure("great-powers", players=4)
    assert [x.name for x in hub.seats][:3] == ["Ann", "Bo", "Cy"]
    assert hub.reclaim(tokens[0]) == 0


def test_home_then_another_game_then_resume_the_first(tmp_path):
    log = SQLiteLog(tmp_path / "t.db")
    hub, tokens = seated(log)
    first = hub.session.id
    hub.submit(0, "bid", {"n": 4})
    fp = hub.session.state.fingerprint()
    with pytest.raises(ConfigError, match="go Home"):
        hub.configure("great-powers", players=3)
    hub.suspend()
    assert hub.session is None
    hub.configure("great-powers", players=3)
    hub.start(seed=2)
    second = hub.session.id
    with pytest.raises(ConfigError, match="go Home"):
        hub.resume(first)
    hub.suspend()
    listed = hub.resumable()
    assert [x["id"] for x in listed] == [second, first]        # the last played first
    toy = listed[1]
    assert toy["title"] == "Toy" and toy["players"] == ["Ann", "Bo", "Cy"]
    assert toy["round"] == 1 and toy["phase_label"] == "Bid"
    hub.resume(first)
    s = hub.session
    assert fold(s.game, s.records[:-1]).fingerprint() == fp   # as left, then...
    t = s.state.timers["bid"]                     # ...its running timer comes back paused
    assert t.is_paused() and 59 < t.remaining <= 60
    assert any("paused at 1:00" in a["message"] for a in hub.alerts)
    assert hub.reclaim(tokens[1]) == 1
    hub.submit(1, "bid", {"n": 3})              # the first game is played again, so...
    hub.suspend()
    listed = hub.resumable()
    assert [x["id"] for x in listed] == [first, second]        # ...it is the last played
    assert listed[0]["updated"] > listed[0]["started"]
    assert listed[0]["updated"] > listed[1]["updated"]


def test_after_a_crash_the_table_resumes_the_game_it_was_playing_not_the_newest(tmp_path):
    """Game A is begun, the table goes Home and begins B, then goes back to A and plays on;
    the power goes. The restarted table must come back to A (the last played), not to B
    (the last begun)."""
    path = tmp_path / "t.db"
    hub, _ = seated(SQLiteLog(path))
    a = hub.session.id
    hub.suspend()
    hub.configure("great-powers", players=3)
    hub.start(seed=2)
    b = hub.session.id
    hub.suspend()
    hub.resume(a)
    hub.submit(0, "bid", {"n": 4})
    played = list(hub.session.records)
    hub.log.close()                                 # the power goes: no suspend, no stop
    again = Hub(SQLiteLog(path), table="t1", games=games)
    assert again.resume().id == a != b
    assert again.session.records[:len(played)] == played     # the bid made just before it


def test_rename_before_and_during_the_game_is_replayed_and_never_undone():
    hub = Hub(MemoryLog(), table="t1", games=games)
    hub.configure("toy", players=2)
    hub.join("Ann", hub.room_code)
    hub.rename(0, "  Annie   B ")
    assert hub.seats[0].name == "Annie B"
    hub.start(seed=1)
    hub.submit(0, "bid", {"n": 2})
    hub.rename(1, "Bob")
    s = hub.session
    assert s.state.players == ["Annie B", "Bob"]
    assert fold(s.game, s.records).fingerprint() == s.state.fingerprint()
    hub.undo()                                   # takes back the bid, not the name
    assert s.state.players == ["Annie B", "Bob"] and s.state.prompts.get(0)
    with pytest.raises(NameTakenError):
        hub.rename(0, "bob")
    with pytest.raises(BadNameError):
        hub.rename(0, "Eve\u202e")


def test_a_late_joiner_names_their_seat_everywhere():
    hub = Hub(MemoryLog(), table="t1", games=games)
    hub.configure("toy", players=3)
    hub.join("Ann", hub.room_code)
    hub.start(seed=1)
    assert hub.session.state.players[2] == "Seat 3"
    seat, _ = hub.join("Dan", hub.room_code)
    assert seat == 1 and hub.session.state.players[1] == "Dan"
    assert hub.public_view()["players"][1] == "Dan"
    assert hub.seats[1].name == "Dan"


def test_a_dead_phone_gets_a_clear_way_back_and_a_handover_moves_the_seat():
    hub, tokens = seated()
    with pytest.raises(NameTakenError, match="tap your seat on the table screen"):
        hub.join("ann", hub.room_code)
    h = hub.handover(0)
    assert h["seat"] == 0 and len(h["code"]) == 8
    assert h["code"] not in str(hub.public_view()) and h["code"] not in str(hub.seat_view(0))
    seat, new_token = hub.claim_handover(h["code"].lower())
    assert seat == 0 and hub.reclaim(new_token) == 0
    with pytest.raises(SeatMovedError, match="moved to another phone"):
        hub.reclaim(tokens[0])
    with pytest.raises(JoinError, match="not valid"):
        hub.claim_handover(h["code"])            # single use
    h2 = hub.handover(1)
    hub.cancel_handover(1)
    with pytest.raises(JoinError):
        hub.claim_handover(h2["code"])


@pytest.mark.parametrize("bad", ["", "   ", "x" * 25, "a\x00b", "Eve\u202eliA", "\ud800", 7])
def test_names_are_cleaned_or_refused_with_a_sentence(bad):
    with pytest.raises(BadNameError) as e:
        clean_name(bad)
    assert str(e.value).endswith(".")


def test_names_are_normalised():
    assert clean_name(" Zo\u0065\u0301  Li ") == "Zo\u00e9 Li"


def test_every_scan_is_acknowledged_with_its_result():
    hub = Hub(MemoryLog(), table="t1", games=games)
    events = []
    hub.subscribe(events.append)
    hub.scan("anything")
    assert hub.last_scan["result"] == "refused" and "No game" in hub.last_scan["message"]
    hub.configure("trade-warz", players=3)
    for n in ("Ann", "Bo", "Cy"):
        hub.join(n, hub.room_code)
    hub.start(seed=1)
    hub.scan("freedom-corn")                     # no check expected during the Leader pick
    scans = [e for e in events if e["kind"] == "scan"]
    assert scans[-1]["result"] == "read"
    # a card nobody asked about may be in a hand: acknowledged, never named in public
    assert "freedom" not in str(hub.public_view()).lower()
    assert hub.public_view()["hub"]["scan"]["name"] == "A card"


def test_end_game_needs_standings():
    hub = Hub(MemoryLog(), table="t1", games=games)
    hub.configure("toy", players=2)
    hub.start(seed=1)
    hub.session.game.standings = lambda state: None
    with pytest.raises(IllegalMoveError, match="abandon it instead"):
        hub.end_game()
    assert hub.session.state.outcome is None


def test_session_replays_an_ended_game(tmp_path):
    log = SQLiteLog(tmp_path / "e.db")
    hub, _ = seated(log)
    hub.submit(0, "bid", {"n": 3})
    hub.end_game()
    again = Session.load(log, hub.session.id, games=games)
    assert again.state.fingerprint() == hub.session.state.fingerprint()


def test_a_warning_given_before_a_restart_is_not_given_again_after_resuming(tmp_path):
    base = FakeClock(100.0)
    log = SQLiteLog(tmp_path / "w.db")
    hub = Hub(log, table="t1", games=games, clock=SessionClock(base))
    hub.configure("toy", players=2)
    hub.start(seed=1)                           # a 60 s bid timer, warned at 0:30
    events = []
    hub.subscribe(events.append)
    hub.start_timers()
    base.advance(31)
    with hub._lock:
        hub._wake.notify_all()
    end = time.monotonic() + 5
    while not any(e["kind"] == "timer_warning" for e in events):
        assert time.monotonic() < end, "no warning"
        time.sleep(0.01)
    hub.stop()
    assert hub.session.state.timers["bid"].warned
    again = Hub(SQLiteLog(tmp_path / "w.db"), table="t1", games=games)   # the real clock
    again.resume()
    t = again.session.state.timers["bid"]
    assert t.is_paused() and t.warned and 28 <= t.remaining <= 29.5
    seen = []
    again.subscribe(seen.append)
    again.toggle_pause()                        # the table taps Resume: 28 s left, inside the
    again.start_timers()                        # warning window, which was already given
    time.sleep(1.5)
    again.stop()
    assert not any(e["kind"] == "timer_warning" for e in seen)
    assert [r["type"] for r in again.session.records].count("TimerWarned") == 1


@pytest.mark.parametrize("name,players", [("great-powers", 3), ("battle-builder", 2),
                                          ("market-trading", 2), ("trade-warz", 3)])
def test_every_game_can_be_ended_early_with_the_scores_as_they_stand(name, players):
    import random

    from companion.core.play import tap
    hub = Hub(MemoryLog(), table="t1", games=games)
    hub.configure(name, players=players)
    hub.start(seed=3)
    rng = random.Random(3)
    for _ in range(25):                          # some play first
        st = hub.session.state
        seat = min(st.prompts, key=lambda x: -1 if x is None else x)
        hub.submit(seat, *tap(hub.session.game, st, seat, rng))
    expected = hub.session.game.standings(hub.session.state)
    hub.end_game()
    o = hub.session.state.outcome
    assert o.scores == expected and "ended the game early" in o.reason
    assert o.winners == [s for s in expected if expected[s] == max(expected.values())]


def test_a_refused_scan_never_names_the_card_in_public():
    """A card scanned out of turn may be in someone's hand: the screens say the scan was
    refused and why, without its name."""
    import random

    from companion.core.play import tap
    hub = Hub(MemoryLog(), table="t1", games=games)
    hub.configure("trade-warz", players=3, options={"edition": "trade"})
    hub.start(seed=3)
    rng = random.Random(3)
    while hub.session.state.phase != "trade":
        st = hub.session.state
        seat = min(st.prompts, key=lambda x: -1 if x is None else x)
        move, args = tap(hub.session.game, st, seat, rng)
        hub.submit(seat, move, args) if seat is not None else hub.table_move(move, args)
    st = hub.session.state
    card = next(c for c in st.data.hands[0] if c in hub.session.game.ix(st).exports)
    name = hub._card_name(card)
    hub.scan(card)                              # nobody aimed: the table cannot place it
    pub = hub.public_view()
    assert pub["hub"]["scan"]["result"] == "refused"
    assert name not in str(pub) and card not in str(pub)
    assert any("first choose its Trade Partner" in a["message"] for a in pub["hub"]["alerts"])


def test_a_second_start_while_a_game_runs_is_refused_and_two_at_once_make_one_game():
    import threading
    hub, _ = seated()
    first = hub.session
    with pytest.raises(ConfigError, match="already running"):
        hub.start(seed=6)
    assert hub.session is first and len(hub.log.sessions()) == 1
    hub.end_game()
    hub.configure("toy", players=3)
    barrier, results = threading.Barrier(4), []

    def start():
        barrier.wait()
        try:
            results.append(hub.start(seed=7))
        except ConfigError as e:
            results.append(e)
    threads = [threading.Thread(target=start) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    started = [r for r in results if not isinstance(r, ConfigError)]
    assert len(started) == 1 and len(hub.log.sessions()) == 2      # one new game, not four
    assert hub.session is started[0]
