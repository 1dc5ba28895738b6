"""The session's story (core/story.py): sentences for every screen's feed, derived from the
notices, the same after a reload from the log, and never a secret in a view that may not
hold it."""
import json

from companion.core import story
from companion.core.clock import FakeClock
from companion.core.log import MemoryLog
from companion.core.session import Session

from .toy import Toy


def start(log=None):
    return Session.start(Toy(), ["Ann", "Bo", "Cy"], log or MemoryLog(), seed=7,
                         clock=FakeClock())


def says(entries):
    return [e["says"] for e in entries]


def test_every_command_is_told_and_an_undo_adds_to_the_story():
    s = start()
    s.execute(0, "bid", {"n": 5})
    s.execute(1, "bid", {"n": 3})
    s.undo()
    s.execute(1, "bid", {"n": 4})
    s.pause_timer("bid")
    s.resume_timer("bid")
    s.execute(2, "bid", {"n": 1})
    s.correct(1, "points", 2, "card misread")
    s.undo()
    s.execute(0, "shout")
    assert says(s.story(shown=0)) == [
        "Toy began: Ann, Bo, Cy.", "Now: Bid, round 1.",
        "Ann locked in.", "Bo locked in.", "The table undid Bo’s lock-in.", "Bo locked in.",
        "The bid timer is paused at 1:00.", "The bid timer is running again: 1:00 left.",
        "Cy locked in.", "Revealed: Round 1.", "Now: Bid, round 2.",
        "Correction: Bo’s points +2, now 2 (card misread).", "The table undid a correction.",
        "Ann: Shout."]
    # each entry is shown from the rev of the command that made it
    assert [e["rev"] for e in s.story(shown=0)][-3:] == [s.version - 2, s.version - 1,
                                                        s.version]
    assert s.public_view()["story"] == s.story()


def test_a_lock_in_says_who_never_what():
    s = start()
    s.execute(0, "bid", {"n": 7})
    text = json.dumps(s.public_view()["story"]) + json.dumps(s.seat_view(1)["story"])
    assert "Ann locked in." in text and "7" not in text.replace('"rev": ', "")


def test_a_session_loaded_from_its_log_tells_the_same_story():
    log = MemoryLog()
    s = start(log)
    for seat, n in ((0, 5), (1, 3)):
        s.execute(seat, "bid", {"n": n})
    s.undo()
    s.execute(1, "bid", {"n": 3})
    s.execute(2, "bid", {"n": 9})
    s.execute(0, "whisper", {"words": "psst"})
    again = Session.load(log, s.id, games=lambda name: Toy())
    assert again.story(shown=0) == s.story(shown=0)
    again.tell("The table restarted.")
    assert again.public_view()["story"][-1] == {"rev": again.version,
                                                "says": "The table restarted."}


def test_an_entry_for_one_seat_stays_in_its_view():
    entries = [{"rev": 1, "says": "a"}, {"rev": 2, "says": "to Bo", "to": 1},
               {"rev": 2, "says": "b"}, {"rev": 3, "says": "to Cy", "to": 2}]
    assert says(story.visible(entries)) == ["a", "b"]
    assert says(story.visible(entries, 1)) == ["a", "to Bo", "b"]
    assert says(story.visible(entries, 2)) == ["a", "b", "to Cy"]
    # bounded: the newest public entries, and a seat's own from the oldest shown on
    assert says(story.visible(entries, None, shown=1)) == ["b"]
    assert says(story.visible(entries, 1, shown=1)) == ["b"]
    assert says(story.visible(entries, 2, shown=1)) == ["b", "to Cy"]
    many = [{"rev": i, "says": str(i)} for i in range(100)]
    assert says(story.visible(many)) == [str(i) for i in range(70, 100)]


def test_a_private_move_is_not_told_and_a_rewound_command_is_forgotten():
    s = start()
    before = s.story(shown=0)
    s.execute(0, "whisper", {"words": "psst"})
    assert s.story(shown=0) == before           # nobody else sees a whisper: nothing to tell
    mark = s.version
    s.execute(0, "bid", {"n": 5})
    assert says(s.story(shown=0))[-1] == "Ann locked in."
    s.rewind(mark)                              # a group whose save failed
    assert s.story(shown=0) == before


def test_a_seat_with_its_own_words_for_a_public_entry_sees_only_its_own():
    """Issue 34: the targeted player's feed said both "Bo took 2 Army from you" and "Bo took
    2 Army from Ann"; a public entry ``not_for`` a seat is left out of that seat's list."""
    entries = story.entries(None, type("S", (), {"players": ["Ann", "Bo"], "outcome": 1})(), [
        {"kind": "ActionResolved", "says": "Bo took 2 Army from Ann.", "not_for": 0},
        {"kind": "ActionAgainstYou", "to": 0, "says": "Bo took 2 Army from you."}], 5)
    assert says(story.visible(entries)) == ["Bo took 2 Army from Ann."]
    assert says(story.visible(entries, 0)) == ["Bo took 2 Army from you."]
    assert says(story.visible(entries, 1)) == ["Bo took 2 Army from Ann."]
