import json

import pytest

from companion.core.clock import FakeClock, SessionClock
from companion.core.errors import (ConfigError, IllegalMoveError, NotYourTurnError,
                                   SealedChoiceError, UndoError, UnknownMoveError)
from companion.core.log import MemoryLog, SQLiteLog
from companion.core.session import Session, fold

from .toy import Toy


def start(log=None, clock=None, **opts):
    game = Toy()
    clock = clock or FakeClock()
    s = Session.start(game, ["Ann", "Bo", "Cy"], log or MemoryLog(), options=opts, seed=7,
                      clock=clock)
    return s, clock


def test_sealed_round_reveals_together_with_verifiable_commitments():
    s, _ = start()
    r = s.execute(0, "bid", {"n": 5})
    locked = [n for n in r.notices if n["kind"] == "ChoiceLocked"]
    assert locked and set(locked[0]) == {"kind", "window", "seat", "commitment", "rev"}
    assert locked[0]["rev"] == r.version + 1 == s.public_view()["rev"]    # the lock-in's rev
    assert 5 not in locked[0].values()                  # the lock-in tells no one the bid
    assert '"n": 5' not in json.dumps(s.public_view()) + json.dumps(s.seat_view(1))
    assert s.public_view()["game_view"]["last"] is None
    s.execute(1, "bid", {"n": 7})
    r = s.execute(2, "bid", {"n": 7})
    rev = [n for n in r.notices if n["kind"] == "ChoicesRevealed"][0]
    from companion.core.sealed import verify
    for seat, e in rev["choices"].items():
        assert verify("r1", int(seat), e["choice"], e["salt"], e["commitment"])
    assert s.state.data["points"] == [0, 1, 1]
    assert s.state.round == 2


def test_illegal_moves_raise_readable_errors_and_change_nothing():
    s, _ = start()
    s.execute(0, "bid", {"n": 5})
    before = s.state.fingerprint()
    version = s.version
    for seat, move, args, err in [
        (0, "bid", {"n": 4}, SealedChoiceError),        # twice
        (1, "bid", {"n": 99}, IllegalMoveError),         # out of range
        (1, "bid", {"m": 1}, IllegalMoveError),          # wrong argument
        (1, "fly", {}, UnknownMoveError),
        (7, "bid", {"n": 1}, NotYourTurnError),
        (None, "bid", {"n": 1}, NotYourTurnError),
        (1, "bid", ["not", "a", "dict"], IllegalMoveError),
    ]:
        with pytest.raises(err) as e:
            s.execute(seat, move, args)
        assert str(e.value) and "Traceback" not in str(e.value)
        assert s.state.fingerprint() == before
        assert s.version == version


def test_timer_deadline_closes_the_window_and_pause_keeps_remaining():
    s, clock = start()
    assert s.next_deadline() == 60
    clock.advance(20)
    s.pause_timer("bid")
    clock.advance(1000)
    assert s.tick() == []
    assert s.public_view()["timers"]["bid"]["paused"]
    s.resume_timer("bid")
    assert s.next_deadline() == pytest.approx(1020 + 40)
    s.execute(0, "bid", {"n": 3})
    clock.advance(40)
    results = s.tick()
    assert len(results) == 1
    assert s.state.data["last"] == {"0": 3, "1": 0, "2": 0}
    assert s.state.round == 2
    assert fold(s.game, s.records).fingerprint() == s.state.fingerprint()


def test_table_closes_a_window_with_defaults():
    s, _ = start()
    s.execute(1, "bid", {"n": 2})
    s.close_window("r1")
    assert s.state.data["last"] == {"0": 0, "1": 2, "2": 0}
    with pytest.raises(IllegalMoveError):
        s.close_window("r1")


def test_undo_is_an_event_and_cannot_cross_a_reveal():
    s, _ = start()
    s.execute(0, "bid", {"n": 5})
    s.execute(0, "shout")
    s.undo()
    assert s.state.data["shouts"] == 0
    s.undo()                                   # takes back seat 0's sealed bid
    assert not s.state.windows["r1"].has_locked(0)
    assert [r["type"] for r in s.records][-2:] == ["Undone", "Undone"]
    s.execute(0, "bid", {"n": 1})
    s.execute(1, "bid", {"n": 2})
    s.execute(2, "bid", {"n": 3})              # reveals
    with pytest.raises(UndoError, match="revealed"):
        s.undo()
    assert len(s.records) == 8                  # nothing deleted, nothing added by the refusal


def test_nothing_to_undo():
    s, _ = start()
    with pytest.raises(UndoError, match="nothing to undo"):
        s.undo()


def test_corrections_are_recorded_with_a_reason_and_undoable():
    s, _ = start()
    s.correct(1, "points", 2, "card misread")
    assert s.state.data["points"][1] == 2
    assert s.records[-1]["type"] == "Corrected" and s.records[-1]["reason"] == "card misread"
    with pytest.raises(IllegalMoveError, match="reason"):
        s.correct(1, "points", 1, "  ")
    with pytest.raises(IllegalMoveError, match="cannot take away 5"):
        s.correct(1, "points", -5, "oops")
    with pytest.raises(IllegalMoveError, match="no counter"):
        s.correct(1, "gold", 1, "oops")
    s.undo()
    assert s.state.data["points"][1] == 0


def test_history_never_shows_an_unrevealed_or_undone_choice_to_others():
    s, _ = start()
    s.execute(0, "bid", {"n": 5})
    s.undo()
    s.execute(0, "bid", {"n": 6})
    s.execute(1, "bid", {"n": 2})
    for viewer in (None, 1, 2):
        text = json.dumps(s.history(viewer))
        assert '"n": 5' not in text and '"n": 6' not in text
        assert all("salt" not in r for r in s.history(viewer) if r.get("seat") == 0)
    assert '"n": 6' in json.dumps(s.history(0))
    s.execute(2, "bid", {"n": 1})              # reveal
    text = json.dumps(s.history(None))
    assert '"n": 6' in text                    # revealed
    assert '"n": 5' not in text                # undone: never revealed


def test_replay_of_a_sqlite_session_after_reopen(tmp_path):
    path = tmp_path / "s.db"
    s, clock = start(SQLiteLog(path))
    s.execute(0, "bid", {"n": 5})
    s.correct(2, "points", 1, "forgot last game's point")
    clock.advance(12.5)
    s.execute(1, "bid", {"n": 1})
    fp = s.state.fingerprint()
    s.log.close()
    again = Session.load(SQLiteLog(path), s.id, games=lambda name: Toy())
    assert again.state.fingerprint() == fp
    assert again.clock.now() >= 12.5            # session time continues, not wall time


def test_session_clock_resumes_remaining_time_after_restart(tmp_path):
    path = tmp_path / "s.db"
    base = FakeClock(5000)
    s, _ = start(SQLiteLog(path), clock=SessionClock(base, 0))
    base.advance(45)
    s.execute(0, "shout")                       # something logged at t=45
    s.log.close()
    base2 = FakeClock(10)                       # a reboot: the monotonic clock starts over
    again = Session.load(SQLiteLog(path), s.id, games=lambda n: Toy(),
                         clock=None)
    left = again.state.timers["bid"].left(again.clock.now())
    assert 14 <= left <= 15.5


def test_bad_options_and_player_counts():
    with pytest.raises(ConfigError, match="no option"):
        Session.start(Toy(), ["a", "b"], MemoryLog(), options={"speed": 3})
    with pytest.raises(ConfigError, match="must be a int"):
        Session.start(Toy(), ["a", "b"], MemoryLog(), options={"rounds": "x"})
    with pytest.raises(ConfigError, match="2-4 players"):
        Session.start(Toy(), ["a"], MemoryLog())


def test_game_end_is_stored_with_summary():
    log = MemoryLog()
    s, _ = start(log, rounds=1)
    for seat in range(3):
        s.execute(seat, "bid", {"n": seat})
    assert s.state.is_over()
    assert log.info(s.id).status == "finished"
    assert log.info(s.id).summary["winners"] == [2]
    with pytest.raises(IllegalMoveError, match="over"):
        s.execute(0, "shout")


def test_private_move_arguments_stay_out_of_other_histories():
    s, _ = start()
    s.execute(1, "whisper", {"words": "I hold the Navy card"})
    assert "Navy card" in json.dumps(s.history(1))
    for viewer in (None, 0, 2):
        assert "Navy card" not in json.dumps(s.history(viewer))


def test_a_held_window_stays_sealed_when_complete_until_closed():
    s, _ = start()
    s.execute(2, "hide", {"card": "ace"})
    w = s.state.windows["hidden-2-0"]
    assert w.is_complete() and not w.is_revealed()
    assert '"ace"' not in json.dumps(s.public_view()) and '"ace"' in json.dumps(s.seat_view(2))
    s.close_window("hidden-2-0")
    assert s.state.data["shown"] == ["ace"]


def test_views_of_one_moment_equal_the_single_views():
    s, _ = start()
    s.execute(0, "bid", {"n": 5})
    pub, per_seat = s.views()
    assert pub == s.public_view()
    for seat in range(3):
        assert per_seat[seat] == s.seat_view(seat)
    assert "choice" not in per_seat[1]["windows"][0]["locked"]["0"]
    assert per_seat[0]["windows"][0]["locked"]["0"]["choice"] == 5
