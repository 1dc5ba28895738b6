"""The device process: a real spawned child running TableDevices on gpiozero MockFactory pins
(and the card reader driver against the reader simulator on a pty), driven from the parent
through DeviceLink. Pin histories come from the child itself (``pin_edges``).

Edge *accuracy* is the bench's business (benches/bench_devices.py); here an edge must never be
early and must match its planned deadline; the generous lateness bound only catches a wrong
clock (seconds off), not a slow machine.
"""
import os
import queue
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from companion.cardcodes import format_code
from hardware.config import HardwareConfig
from hardware.cues import UPKEEP_CUES
from hardware.events import ButtonPressed, CardScanned, CommandAnswered, ReaderConnected
from hardware.reader import ReaderNotConnected
from hardware.sim import ReaderSim
from hardware.timing import edge_errors
from hardware.worker import (DeviceLink, DeviceWorkerError, WorkerLost, WorkerStarted,
                             is_raspberry_pi)
from ..waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
BUZZER = HardwareConfig().buzzer.pin
LATE_BOUND = 0.1      # a wrong clock conversion is seconds off; the bench measures the rest


class Events:
    """A listener that keeps every event and lets a test wait for one."""

    def __init__(self):
        self.q = queue.Queue()
        self.seen = []

    def __call__(self, event):
        self.q.put(event)

    def wait(self, cls, timeout=10.0, where=lambda e: True):
        end = time.monotonic() + timeout
        while True:
            for e in self.seen:
                if isinstance(e, cls) and where(e):
                    self.seen.remove(e)
                    return e
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {cls.__name__} within {timeout} s; saw {self.seen}")
            try:
                self.seen.append(self.q.get(timeout=left))
            except queue.Empty:
                pass


def buzzer_plan(link, since):
    """Every edge the buzzer was asked to play since plan index ``since``."""
    return sorted(e for _, _, edges in link.plans(since) for e in edges)


def check_edges(link, planned):
    base, edges, states = link.pin_edges(BUZZER)
    from gpiozero.pins.mock import PinState
    rebuilt = [PinState(0.0, states[0])]
    t = base
    for at, st in edges:
        rebuilt.append(PinState(at - t, st))
        t = at
    errors = edge_errors(rebuilt, base, planned)
    assert all(e > -0.0005 for e in errors), f"an edge came early: {errors}"
    assert all(e < LATE_BOUND for e in errors), f"an edge is far off its deadline: {errors}"
    return errors


@pytest.fixture
def events():
    return Events()


@pytest.fixture
def link(events):
    with DeviceLink(HardwareConfig(), mock=True, reader=False, on_event=events) as lk:
        events.wait(WorkerStarted)
        yield lk


# --- the process ---------------------------------------------------------------------------------

def test_devices_run_in_a_separate_process_without_kivy(link):
    st = link.status()
    assert st["pid"] == link.pid != os.getpid()
    assert st["mock"] and st["pin_factory"] == "MockFactory"
    assert st["kivy"] is False
    parts = dict((p, s) for p, _, s in link.describe_parts())
    assert parts["buzzer"] == "ok" and parts["light"] == "ok"
    assert parts["button next"] == "released"


def test_kivy_in_the_parent_stays_out_of_the_child():
    code = textwrap.dedent("""
        import kivy, sys
        from hardware.worker import DeviceLink
        with DeviceLink(mock=True, reader=False) as link:
            st = link.status()
        print("kivy" in sys.modules, st["kivy"], st["pid"] != __import__("os").getpid())
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "False", "True"]


def test_close_is_idempotent_and_final(events):
    lk = DeviceLink(mock=True, reader=False, on_event=events).start()
    pid = lk.pid
    lk.close()
    lk.close()
    assert not lk.alive
    wait_until(lambda: not _pid_alive(pid))
    assert lk.play("error") is False              # dropped, never raises
    with pytest.raises(DeviceWorkerError, match="not running"):
        lk.status()
    with pytest.raises(DeviceWorkerError, match="closed"):
        lk.start()


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still answers kill(0); it is gone as far as the devices go
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def test_a_dead_child_is_reported_and_restarted_by_hand(link, events):
    old = link.pid
    os.kill(old, signal.SIGKILL)
    lost = events.wait(WorkerLost)
    assert lost.pid == old and lost.exitcode == -signal.SIGKILL
    assert "signal 9" in lost.reason and lost.restarting is False
    assert link.play("error") is False
    with pytest.raises(DeviceWorkerError):
        link.status()
    link.restart()
    started = events.wait(WorkerStarted)
    assert started.pid == link.pid != old and started.restarts == 1
    assert link.status()["pid"] == link.pid


def test_ctrl_c_is_for_the_parent_and_sigterm_stops_the_child_cleanly(link, events):
    pid = link.pid
    os.kill(pid, signal.SIGINT)                   # Ctrl-C reaches the whole process group
    link.countdown(time.monotonic() + 5, 0)       # a buzzer about to sound
    assert link.status()["pid"] == pid            # still there
    os.kill(pid, signal.SIGTERM)
    lost = events.wait(WorkerLost)
    assert lost.exitcode == 128 + signal.SIGTERM  # through the clean exit, not the default kill


def test_auto_restart_brings_the_devices_back(events):
    with DeviceLink(mock=True, reader=False, on_event=events, auto_restart=True,
                    max_restarts=1) as lk:
        events.wait(WorkerStarted)
        first = lk.pid
        os.kill(first, signal.SIGKILL)
        assert events.wait(WorkerLost).restarting is True
        again = events.wait(WorkerStarted)
        assert again.restarts == 1 and again.pid != first
        assert lk.status()["pid"] == again.pid
        os.kill(again.pid, signal.SIGKILL)        # the limit: one restart per minute
        assert events.wait(WorkerLost).restarting is False


def test_the_child_stops_when_its_parent_dies(tmp_path):
    code = textwrap.dedent("""
        import os, sys
        from hardware.worker import DeviceLink
        if __name__ == "__main__":
            link = DeviceLink(mock=True, reader=False).start()
            print(link.pid, flush=True)
            os._exit(0)                  # no close(): the parent just vanishes
    """)
    script = tmp_path / "parent.py"
    script.write_text(code)
    out = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.returncode == 0, out.stderr
    child = int(out.stdout.strip())
    wait_until(lambda: not _pid_alive(child), timeout=10)


def test_real_gpio_off_a_pi_starts_without_gpio_parts_and_says_why():
    with DeviceLink(mock=False, reader=False) as lk:
        st = lk.status()
        assert st["mock"] is False
        if is_raspberry_pi():
            return
        assert st["pin_factory"] is None and st["pin_library"]["skipped"]
        assert lk.problems == [st["pin_library"]["problem"]]
        assert lk.problems[0].startswith("No buzzer, light or buttons: ")
        assert lk.description() == f"No card reader. {lk.problems[0]}"
        assert {s for _, _, s in lk.describe_parts()} == {"missing"}


def test_is_raspberry_pi_reads_the_device_tree(tmp_path):
    pi, pc = tmp_path / "pi", tmp_path / "pc"
    pi.write_bytes(b"Raspberry Pi 4 Model B Rev 1.4\x00")
    pc.write_bytes(b"QEMU Virtual Machine\x00")
    assert is_raspberry_pi((str(pi),), env={}) is True
    assert is_raspberry_pi((str(pc), str(pi)), env={}) is False   # the first model file wins
    assert is_raspberry_pi((str(tmp_path / "none"), str(pi)), env={}) is True
    assert is_raspberry_pi((str(tmp_path / "none"),), env={}) is False


def test_a_board_named_by_its_revision_code_is_a_pi(tmp_path):
    pc = tmp_path / "pc"
    pc.write_bytes(b"linux,dummy-virt\x00")                      # the QEMU stand-in
    assert is_raspberry_pi((str(pc),), env={"GPIOZERO_PI_REVISION": "c03114"}) is True
    assert is_raspberry_pi((str(pc),), env={"GPIOZERO_PI_REVISION": " "}) is False


# --- buzzer --------------------------------------------------------------------------------------

def test_play_in_the_child_switches_its_pin_at_the_planned_times(link):
    link.mark_pins([BUZZER])
    since = len(link.plans())
    at = time.monotonic() + 0.2
    link.play("ok", at=at)
    link.play("error", at=at + 0.3)
    assert link.wait_idle(5)
    planned = buzzer_plan(link, since)
    assert planned[0] == (at, True)
    check_edges(link, planned)
    with pytest.raises(ValueError, match="no buzzer pattern called 'fanfare'"):
        link.play("fanfare")


def test_countdown_plays_warning_and_buzzer_at_the_deadline(link):
    link.mark_pins([BUZZER])
    since = len(link.plans())
    deadline = time.monotonic() + 0.8
    link.countdown(deadline, 0.4, name="trade")
    plans = link.plans(since)
    assert [(p, round(a - deadline, 9)) for p, a, _ in plans] == [("warning", -0.4),
                                                                  ("timeout", 0.0)]
    assert link.status()["countdowns"] == {"trade": deadline}
    assert link.wait_idle(5)
    _, edges, states = link.pin_edges(BUZZER)
    assert states == [False, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    check_edges(link, buzzer_plan(link, since))


def test_cancel_countdown_drops_pending_cues_and_a_moved_deadline_replaces_them(link):
    link.mark_pins([BUZZER])
    first = time.monotonic() + 0.4
    link.countdown(first, 0.2, name="a")
    link.countdown(first + 0.1, 0.0, name="b")
    link.cancel_countdown("a")
    assert set(link.status()["countdowns"]) == {"b"}
    link.cancel_countdown()
    st = link.status()
    assert st["countdowns"] == {} and st["pending_edges"] == 0
    since = len(link.plans())
    moved = time.monotonic() + 0.3
    link.countdown(moved + 5, 0.0, name="c")
    link.countdown(moved, 0.0, name="c")            # same name, not run out: replaced
    assert link.wait_idle(5)                        # (also waits out an edge being slept on)
    check_edges(link, sorted(link.plans(since)[-1][2]))
    assert link.pin_edges(BUZZER)[2] == [False, 1.0, 0.0]


# --- light and buttons ---------------------------------------------------------------------------

def test_light_shows_phases_and_upkeep_cues(link):
    cfg = HardwareConfig().light
    link.show_phase("trade")
    st = link.status()
    assert st["light"] == ("phase", "trade")
    r, g, b = cfg.pins
    edges = {p: link.pin_edges(p)[2][-1] for p in (r, g, b)}
    want = cfg.phases["trade"]
    assert [round(edges[p] * 255) for p in (r, g, b)] == list(want)
    link.show_upkeep("k")
    assert link.status()["light"] == ("upkeep", "K")
    link.show_colour((1, 2, 3))
    assert link.status()["light"] == ("colour", (1, 2, 3))
    with pytest.raises(ValueError, match="C, M, Y or K"):
        link.show_upkeep("Z")
    assert set(UPKEEP_CUES) == {"C", "M", "Y", "K"}


def test_a_button_pressed_in_the_child_reaches_the_parent(link, events):
    link.press("undo")
    e = events.wait(ButtonPressed)
    assert e.name == "undo" and abs(e.at - time.monotonic()) < 5
    with pytest.raises(ValueError, match="no button"):
        link.press("eject")


# --- the card reader in the child ----------------------------------------------------------------

def test_reader_in_the_child_reads_the_simulator_and_takes_commands(events, tmp_path):
    with ReaderSim(transport="pty", link=str(tmp_path / "reader")) as sim, \
            DeviceLink(mock=True, reader_url=sim.url, on_event=events) as lk:
        hello = events.wait(ReaderConnected)
        assert hello.port == sim.url and hello.firmware.endswith("-sim")
        code = format_code("great-powers", "gilded-age", 1, "gp-2026.11")
        sim.show_qr(code)
        scan = events.wait(CardScanned)
        assert scan.code == code and scan.source == "qr"
        seq = lk.reader_command("beep", ms=50, n=2)
        ack = events.wait(CommandAnswered, where=lambda e: e.command_seq == seq)
        assert ack.ok
        with pytest.raises(ValueError, match="no reader command 'dance'"):
            lk.reader_command("dance")
        st = lk.status()
        assert st["reader"]["connected"] and st["reader"]["scans"] == 1


def test_reader_commands_without_a_reader_say_so(link):
    with pytest.raises(ReaderNotConnected, match="without a card reader"):
        link.reader_command("who")


def test_the_childs_problems_reach_the_description(monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")       # gpiozero's MockPin: no PWM
    with DeviceLink(mock=False, reader=False) as lk:
        st = lk.status()
        assert st["pin_library"]["name"] == "mock" and st["missing"] == []
        light = ("The light on GPIO 17/27/22 shows 8 plain colours only, not every shade: "
                 "this pin library (gpiozero's mock pins) has no PWM; install lgpio (pip "
                 "install 'lgpio>=0.2.2.0').")
        assert lk.problems == [light] == st["problems"]
        assert lk.description() == (f"Buzzer on GPIO 18, no card reader; pin library: "
                                    f"{st['pin_library']['where']}. {light}")
        assert dict((p, s) for p, _, s in lk.describe_parts())["light"] == "on/off colours"
        lk.show_phase("trade")                               # the plain light takes commands
        assert lk.status()["light"] == ("phase", "trade")
