"""``companion cards write-tags``: a whole small deck written to NFC tags through the reader
simulator (the real firmware logic behind a real pty and the real driver), read back and
identified; a walk that stops goes on where it stopped; a tag holding another card's code is
refused unless --overwrite. The "person" places a tag when asked and lifts it when told."""
import queue
import subprocess
import sys
import threading
import time

import pytest

from companion import cardcodes, games
from companion.printing import print_set
from companion.printing.tags import Progress, TagWalkStopped, TagWriter
from hardware.events import CardScanned, ReaderConnected
from hardware.reader import CardReader
from hardware.sim import ReaderSim
from tests.hardware.test_reader import Waiter

COMPANION = [sys.executable, "-m", "companion.cli.main"]
GAME = "great-powers"


def uid(n):
    return "04%012X" % (0xA0000 + n)


class Person:
    """Reads what the walk says (a queue of lines) and places/lifts tags on the simulator."""

    def __init__(self, sim):
        self.sim = sim
        self.lines = queue.Queue()
        self.seen = []

    def say(self, text):
        self.lines.put(text)

    def until(self, words, timeout=30):
        end = time.monotonic() + timeout
        while True:
            text = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            self.seen.append(text)
            if words in text:
                return text

    def put_down(self, tag_uid, then):
        """Place the tag, wait for the walk to say ``then``, lift it."""
        self.sim.place(tag_uid)
        text = self.until(then)
        self.sim.lift()
        return text


@pytest.fixture
def sim(tmp_path):
    s = ReaderSim(link=str(tmp_path / "reader")).start()
    yield s
    s.close()


def walk(sim, ps, faces, progress, person, **kw):
    events = queue.Queue()
    reader = CardReader(sim.url, events.put, retry_interval=0.05)
    reader.start()
    e = events.get(timeout=20)
    assert isinstance(e, ReaderConnected) and "ndef-write" in e.capabilities
    writer = TagWriter(ps, faces, reader, events, progress, say=person.say, **kw)
    result = {}

    def run():
        try:
            result["written"] = writer.run()
        except Exception as exc:          # handed to the test thread
            result["error"] = exc
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, result, reader


def read_back(sim, uids):
    """Tap each tag on a fresh reader connection; the cards they identify as."""
    w = Waiter()
    table = games.card_catalog(GAME)
    out = []
    with CardReader(sim.url, w, retry_interval=0.05):
        w.next(ReaderConnected)
        for u in uids:
            sim.tap(u)
            e = w.next(CardScanned)
            assert e.uid == u
            card = cardcodes.identify(e.code, e.uid, GAME, table)
            out.append((card.card_id, card.copy))
    return out


def test_write_a_whole_deck_then_read_it_back(sim, tmp_path):
    ps = print_set(GAME)
    faces = ps.deck("events").faces                     # 12 Event cards
    progress = Progress(tmp_path / "p.json", ps.game, ps.edition, ps.version)
    person = Person(sim)
    t, result, reader = walk(sim, ps, faces, progress, person, timeout=30)
    try:
        person.until("12 to write")
        for i, f in enumerate(faces):
            prompt = person.until("Tap a blank tag for")
            assert f"[{i + 1}/12] Tap a blank tag for {f.name} copy 1 (Event deck)" in prompt
            done = person.put_down(uid(i), "Written and checked")
            assert f"{f.name} copy 1 on tag {uid(i)}" in done
        person.until("All 12 tags are written and checked (12 this time)")
        t.join(20)
    finally:
        reader.stop()
    assert result == {"written": 12}
    assert read_back(sim, [uid(i) for i in range(12)]) == [(f.card_id, 1) for f in faces]
    assert [sim.tag_text(uid(i)) for i in range(12)] == [f.code for f in faces]
    again = Progress(tmp_path / "p.json", ps.game, ps.edition, ps.version)
    assert again.written == {f.code: uid(i) for i, f in enumerate(faces)}


def test_a_stopped_walk_goes_on_where_it_stopped_and_refuses_a_used_tag(sim, tmp_path):
    ps = print_set(GAME)
    faces = ps.deck("events").faces[:5]
    path = tmp_path / "p.json"
    person = Person(sim)
    t, result, reader = walk(sim, ps, faces, Progress(path, ps.game, None, ps.version), person,
                             timeout=3)
    try:
        for i in range(2):
            person.until("Tap a blank tag for")
            person.put_down(uid(i), "Written and checked")
        t.join(30)                                     # nobody brings the third tag
    finally:
        reader.stop()
    assert isinstance(result["error"], TagWalkStopped)
    assert "2 of 5 tags are written" in str(result["error"])
    # run again: it starts at the third card; the first tag (already holding card 1) is refused
    person = Person(sim)
    progress = Progress(path, ps.game, None, ps.version)
    t, result, reader = walk(sim, ps, faces, progress, person, timeout=30)
    try:
        person.until("3 to write, 2 written before")
        prompt = person.until("Tap a blank tag for")
        assert f"[3/5] Tap a blank tag for {faces[2].name} copy 1" in prompt
        refused = person.put_down(uid(0), "Refused")
        assert (f"Refused: tag {uid(0)} already holds the code of {faces[0].name} copy 1. "
                f"Nothing was written.") in refused and "--overwrite" in refused
        assert sim.tag_text(uid(0)) == faces[0].code    # untouched
        for i in range(2, 5):
            if i > 2:
                person.until("Tap a blank tag for")
            person.put_down(uid(i), "Written and checked")
        person.until("All 5 tags are written and checked (3 this time)")
        t.join(20)
    finally:
        reader.stop()
    assert result == {"written": 3}
    assert read_back(sim, [uid(i) for i in (0, 1, 2, 3, 4)]) == [(f.card_id, 1) for f in faces]


def test_overwrite_rewrites_another_cards_tag_and_a_tag_already_right_counts(sim, tmp_path):
    ps = print_set(GAME)
    faces = ps.deck("events").faces[:2]
    sim.place(uid(50), text=faces[1].code)             # already holds card 2: counts as done
    sim.lift()
    sim.place(uid(51), text="https://example.com")     # other data
    sim.lift()
    person = Person(sim)
    t, result, reader = walk(sim, ps, faces, Progress(None, ps.game, None, ps.version), person,
                             overwrite=True, timeout=30)
    try:
        person.until("Tap a blank tag for")
        text = person.put_down(uid(51), "Written and checked")
        assert any("holds other data ('https://example.com'); overwriting it" in s
                   for s in person.seen)
        assert faces[0].name in text
        person.until("Tap a blank tag for")
        person.put_down(uid(50), f"already holds {faces[1].name} copy 1: counted as written")
        person.until("All 2 tags are written")
        t.join(20)
    finally:
        reader.stop()
    assert result == {"written": 1}
    assert sim.tag_text(uid(51)) == faces[0].code


def test_the_write_tags_command_against_the_simulator(sim, tmp_path):
    """The command as a person runs it, in its own process, on the simulator's pty."""
    progress = tmp_path / "arenas.json"
    proc = subprocess.Popen(COMPANION + ["cards", "write-tags", "battle-builder", "--deck",
                                         "arenas", "--reader", sim.url, "--progress",
                                         str(progress), "--timeout", "30"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    person = Person(sim)
    threading.Thread(target=lambda: [person.say(line.rstrip("\n")) for line in proc.stdout],
                     daemon=True).start()
    try:
        person.until("Card reader at")
        names = [f.name for f in print_set("battle-builder").deck("arenas").faces]
        for i, name in enumerate(names):
            assert name in person.until("Tap a blank tag for")
            person.put_down(uid(100 + i), "Written and checked")
        person.until("All 4 tags are written")
        assert proc.wait(30) == 0
    finally:
        proc.kill()
        proc.wait()
    assert "Traceback" not in proc.stderr.read()
    codes = [sim.tag_text(uid(100 + i)) for i in range(4)]
    table = games.card_catalog("battle-builder")
    assert [cardcodes.identify(c, None, "battle-builder", table).name for c in codes] == names


def test_the_command_says_when_no_reader_answers(tmp_path):
    out = subprocess.run(COMPANION + ["cards", "write-tags", "great-powers", "--reader",
                                      str(tmp_path / "no-reader"), "--progress",
                                      str(tmp_path / "p.json")],
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert f"No card reader at {tmp_path / 'no-reader'}: there is no such port" in out.stderr


def test_the_simulator_takes_place_and_lift_as_typed_lines(sim):
    said = sim.handle_line("place 04AABBCCDDEE01")
    assert said == "placed tag 04AABBCCDDEE01 on the reader (blank); 'lift' takes it away"
    assert sim.nfc_bus.tag is not None
    assert sim.handle_line("lift") == "lifted the tag" and sim.nfc_bus.tag is None
    sim.place("04AABBCCDDEE02", text="tc1:demo:a:1:1:D0B6")
    sim.lift()
    assert "it holds tc1:demo:a:1:1:D0B6" in sim.handle_line("place 04AABBCCDDEE02")
    assert "place [UID]" in sim.handle_line("help")
