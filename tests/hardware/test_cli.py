"""``companion reader-sim`` and ``companion doctor`` as a person runs them (real processes,
a real pty), plus the simulator's typed-line handling with a small catalog."""
import queue
import subprocess
import sys
import threading

from companion.cli.main import main as companion_main
from hardware.events import CardScanned, ReaderConnected, ReaderFault
from hardware.reader import CardReader
from hardware.sim import SIM_FIRMWARE, ReaderSim
from tests.hardware.test_reader import Waiter

COMPANION = [sys.executable, "-m", "companion.cli.main"]
CATALOG = {"version": "7", "cards": {"export-014": "Soybean Surplus",
                                     "export-015": "Soy Sauce", "policy-003": "Tariff Shield"}}


class Sim:
    """``companion reader-sim`` in a subprocess; ``line()`` reads its output."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(COMPANION + ["reader-sim", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def line(self, timeout=20):
        return self.lines.get(timeout=timeout)

    def until(self, prefix, timeout=20):
        while True:
            text = self.line(timeout)
            if text.startswith(prefix):
                return text

    def type(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()


def test_reader_sim_command_scans_typed_codes(tmp_path):
    link = str(tmp_path / "reader")
    sim = Sim("--link", link)
    try:
        assert sim.until("reader-sim: listening on ") == f"reader-sim: listening on {link}"
        w = Waiter()
        with CardReader(link, w):
            assert w.next(ReaderConnected).firmware == SIM_FIRMWARE
            sim.type("tc1:trade-warz:export-014:2:2024.11:42E1")
            assert w.next(CardScanned).code == "tc1:trade-warz:export-014:2:2024.11:42E1"
            sim.type("garbage 300")
            assert sim.until("sent 300 random bytes")
            sim.type("tag 04AABBCCDDEEFF")
            e = w.next(CardScanned)
            assert e.uid == "04AABBCCDDEEFF" and e.code is None
            sim.type("qr after the noise")
            assert w.next(CardScanned).code == "after the noise"
            assert any(isinstance(x, ReaderFault) for x in w.seen)
        sim.type("Sputnik")
        assert "no card called 'Sputnik'" in sim.until("no card")
        sim.type("quit")
        assert sim.proc.wait(20) == 0
    finally:
        sim.proc.kill()
        sim.proc.wait()


def test_reader_sim_refuses_an_unknown_game():
    out = subprocess.run(COMPANION + ["reader-sim", "--game", "no-such-game"],
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 1
    assert out.stderr.startswith("companion: No game called 'no-such-game'")
    assert "Traceback" not in out.stderr


def test_sim_typed_lines_with_a_catalog(tmp_path):
    with ReaderSim(link=str(tmp_path / "r"), game="trade-warz", catalog=CATALOG) as sim:
        w = Waiter()
        with CardReader(sim.url, w):
            w.next(ReaderConnected)
            assert sim.handle_line("tariff shield").startswith("scanned QR card policy-003")
            assert w.next(CardScanned).code == sim.code_for("policy-003")
            assert "matches 2 cards" in sim.handle_line("soy")
            assert sim.handle_line("nfc Soybean").startswith("tapped NFC tag")
            e = w.next(CardScanned)
            assert e.source == "nfc" and e.code == sim.code_for("export-014")
            assert "export-015  Soy Sauce" in sim.handle_line("cards")
            assert "nfc <card name or id>" in sim.handle_line("help")


def test_doctor_with_mock_pins_and_a_simulated_reader(tmp_path, capsys):
    with ReaderSim(link=str(tmp_path / "r")) as sim:
        code = companion_main(["doctor", "--mock", "--reader", sim.url])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "[ok  ] buzzer" in out and "GPIO18 (active;" in out
    assert "[ok  ] button undo   GPIO13" in out
    assert "[ok  ] card reader" in out and f"firmware {SIM_FIRMWARE}" in out
    assert out.strip().endswith("all configured parts answer.")


def test_doctor_reports_what_does_not_answer(tmp_path, capsys):
    cfg = tmp_path / "hw.toml"
    cfg.write_text('[buzzer]\npin = false\n[reader]\nport = "%s"\n' % (tmp_path / "none"))
    code = companion_main(["doctor", "--mock", "--config", str(cfg), "--timeout", "0.3"])
    out = capsys.readouterr().out
    assert code == 1
    assert "[--  ] buzzer" in out and "not fitted" in out
    assert "[MISS] card reader" in out and "no hello within 0.3 s" in out


def test_doctor_names_a_bad_config(tmp_path, capsys):
    cfg = tmp_path / "hw.toml"
    cfg.write_text("[buttons]\nnext = 99\n")
    assert companion_main(["doctor", "--mock", "--config", str(cfg)]) == 1
    err = capsys.readouterr().err
    assert err.strip() == (f"companion: {cfg}: [buttons] next: 99 is not a BCM GPIO number "
                           "0-27 (or false for none).")


def test_hardware_never_imports_kivy():
    out = subprocess.run([sys.executable, "-c",
                          "import sys, hardware.devices, hardware.reader, hardware.sim, "
                          "hardware.doctor; print('kivy' in sys.modules)"],
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr
