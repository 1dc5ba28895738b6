"""`companion run --reader DEVICE` and typing cards into the reader simulator (issue 22):
scanning at `companion run` needed a hand-written hardware TOML, and the simulator it started
could not be typed into. Now --reader names the reader (a port, a reader-sim pty or socket, or
the simulator) and the simulator reads card names typed on run's terminal."""
import os

import pytest

from companion.cli.commands import run as runcmd
from companion.cli.main import build_parser
from companion.core.errors import ConfigError
from companion.games import card_catalog
from hardware import hubglue
from hardware.hubglue import start_devices
from hardware.sim import ReaderSim

from ..hardware.test_hubglue import GP, HubEvents, make_hub, scanned_cards


def parse(*argv):
    return build_parser().parse_args(["run", *argv])


def test_run_has_a_reader_option_and_help_says_how_to_type_cards(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--reader DEVICE" in text and "type a card's name on this terminal" in text


@pytest.mark.parametrize("argv, want", [
    ((), {"reader": True, "reader_url": None, "simulate": None}),
    (("--reader", "/dev/ttyACM0"), {"reader": True, "reader_url": "/dev/ttyACM0"}),
    (("--reader", "socket://127.0.0.1:7000"),
     {"reader": True, "reader_url": "socket://127.0.0.1:7000"}),
    (("--reader", "sim", "--hardware", "real"),
     {"reader": True, "reader_url": hubglue.SIMULATOR, "simulate": False}),
    (("--reader", "none"), {"reader": False, "reader_url": None}),
])
def test_reader_option_becomes_the_device_settings(argv, want):
    got = runcmd.device_options(parse(*argv))
    assert {k: got[k] for k in want} == want
    assert got["console"] is True                     # typed lines reach the simulator ...
    assert runcmd.device_options(parse(*argv), appliance=True)["console"] is False  # not on the box


def test_a_reader_without_devices_is_refused_in_a_sentence():
    with pytest.raises(ConfigError, match="leave out --hardware none"):
        runcmd.device_options(parse("--hardware", "none", "--reader", "sim"))


def test_a_card_typed_on_the_terminal_is_scanned_by_the_simulator(tmp_path, capsys):
    conf = tmp_path / "hardware.toml"
    conf.write_text("")
    hub = make_hub()
    hub.configure(GP, players=3)
    hub.start(seed=1)
    seen = HubEvents(hub)
    card = scanned_cards(hub)
    r, w = os.pipe()
    typed = os.fdopen(w, "w", buffering=1)
    link, text = start_devices(hub, config_path=conf, simulate=True,
                               reader_url=hubglue.SIMULATOR, console=os.fdopen(r))
    try:
        assert link.simulator is not None and text.endswith(link.simulator.url)
        from ..waiting import wait_until
        assert wait_until(lambda: link.glue.reader is not None, timeout=15)
        typed.write("Gilded Age\n")
        assert card() == "gilded-age"
        assert seen.wait(lambda e: e["kind"] == "scan")["result"] == "read"
        assert wait_until(lambda: "reader-sim: scanned QR card gilded-age" in
                          capsys.readouterr().out, timeout=5)
    finally:
        typed.close()
        link.close()


def test_reader_names_a_reader_sim_socket_without_a_config_file(tmp_path):
    conf = tmp_path / "hardware.toml"
    conf.write_text("")
    hub = make_hub()
    hub.configure(GP, players=3)
    hub.start(seed=1)
    card = scanned_cards(hub)
    with ReaderSim(transport="tcp", game=GP, catalog=card_catalog(GP)) as sim:
        assert sim.url.startswith("socket://127.0.0.1:")
        link, text = start_devices(hub, config_path=conf, simulate=True, reader_url=sim.url)
        try:
            assert link.simulator is None and text.endswith(sim.url)
            from ..waiting import wait_until
            assert wait_until(lambda: link.glue.reader is not None, timeout=15)
            sim.handle_line("Gilded Age")
            assert card() == "gilded-age"
        finally:
            link.close()


def test_the_simulator_word_is_the_same_on_both_sides():
    assert runcmd.SIMULATOR == hubglue.SIMULATOR


def test_companion_run_reader_sim_scans_a_card_typed_on_its_terminal(tmp_path):
    """The whole `companion run` (Kivy offscreen, embedded broker, simulated devices): it says
    its terminal is read, and a card's name typed there is scanned by the table."""
    import signal
    import subprocess
    import sys
    import threading

    from companion.net.brokers import free_ports
    from ..waiting import wait_until

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    http, mqtt, ws = free_ports(3, "127.0.0.1")
    (tmp_path / "none.toml").write_text("")             # no parts named: the defaults
    env = dict(os.environ, KIVY_HOME=str(tmp_path / "kivy"), SDL_VIDEODRIVER="offscreen",
               SDL_AUDIODRIVER="dummy", KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1",
               TABLE_COMPANION_HARDWARE=str(tmp_path / "none.toml"))
    for k in ("WATCHDOG_PID", "WATCHDOG_USEC", "COMPANION_APPLIANCE"):
        env.pop(k, None)
    import socket
    env["NOTIFY_SOCKET"] = str(tmp_path / "notify.sock")     # READY=1: the table is drawn
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(env["NOTIFY_SOCKET"])
    listener.setblocking(False)
    notes = []
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli.main", "run", "--windowed", "--size", "800x480",
         "--hardware", "simulated", "--reader", "sim", "--broker", "embedded",
         "--db", str(tmp_path / "run.db"), "--game", "great-powers", "--players", "3",
         "--http-port", str(http), "--mqtt-port", str(mqtt), "--ws-port", str(ws)],
        cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, bufsize=1)
    out, err = [], []
    for stream, into in ((proc.stdout, out), (proc.stderr, err)):
        threading.Thread(target=lambda s=stream, i=into: i.extend(s), daemon=True).start()
    try:
        def said(lines, text):
            assert proc.poll() is None, f"companion run exited: {''.join(err)[-2000:]}"
            return any(text in x for x in lines)
        def ready():
            try:
                while True:
                    notes.extend(listener.recv(4096).decode().split("\n"))
            except BlockingIOError:
                pass
            return said(err, runcmd.TYPE_CARDS) and "READY=1" in notes
        wait_until(ready, timeout=240)
        proc.stdin.write("Gilded Age\n")
        proc.stdin.flush()
        wait_until(lambda: said(out, "reader-sim: scanned QR card gilded-age"), timeout=60)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
    finally:
        listener.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in "".join(err), "".join(err)[-3000:]
