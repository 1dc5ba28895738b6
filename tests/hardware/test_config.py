"""The hardware config: defaults, overrides, and errors that name the file and the key."""
import pytest

from hardware.config import (DEFAULT_PHASE_COLOURS, ENV_VAR, HardwareConfig,
                             HardwareConfigError, default_path, load_config, parse_vid_pid)
from companion.core.errors import ConfigError


def write(tmp_path, text):
    p = tmp_path / "hardware.toml"
    p.write_text(text)
    return p


def test_defaults_match_the_wiring_doc():
    c = load_config(None)
    assert c == HardwareConfig()
    assert c.buzzer.pin == 18 and c.light.pins == (17, 27, 22)
    assert c.buttons.pins() == {"next": 5, "pause": 6, "undo": 13}
    assert c.reader.vid_pid == (0x2E8A, 0x0005) and c.reader.port == ""


def test_overrides(tmp_path):
    c = load_config(write(tmp_path, """
[buzzer]
pin = "GPIO12"
kind = "passive"
frequency = 3000
[light]
pins = [16, 20, 21]
common_anode = true
brightness = 0.4
[light.phases]
Trade = "#112233"
auction = [1, 2, 3]
[buttons]
undo = false
[reader]
port = "socket://127.0.0.1:7000"
vid_pid = "1a86:7523"
"""))
    assert (c.buzzer.pin, c.buzzer.kind, c.buzzer.frequency) == (12, "passive", 3000)
    assert c.light.pins == (16, 20, 21) and c.light.common_anode and c.light.brightness == 0.4
    assert c.light.phases["trade"] == (0x11, 0x22, 0x33) and c.light.phases["auction"] == (1, 2, 3)
    assert c.light.phases["draw"] == DEFAULT_PHASE_COLOURS["draw"]
    assert c.buttons.undo is None and "undo" not in c.buttons.pins()
    assert c.reader.vid_pid == (0x1A86, 0x7523) and c.reader.port.startswith("socket://")
    assert c.source.endswith("hardware.toml")


@pytest.mark.parametrize("text, message", [
    ("[buzzer]\npinn = 4\n", r"\[buzzer\] pinn: unknown key \(known: active_high, frequency"),
    ("[buzzer]\npin = 40\n", r"\[buzzer\] pin: 40 is not a BCM GPIO number 0-27"),
    ("[buzzer]\nkind = 'loud'\n", r"\[buzzer\] kind: 'loud' is not one of 'active', 'passive'"),
    ("[light]\npins = [1, 2]\n", r"\[light\] pins: \[1, 2\] is not three pins"),
    ("[light]\nbrightness = 2\n", r"\[light\] brightness: must be a number 0.0-1.0, not 2.0"),
    ("[light.phases]\ntrade = 'green'\n", r"\[light.phases\] trade: 'green' is not a colour"),
    ("[buttons]\nbounce_ms = true\n", r"\[buttons\] bounce_ms: must be a whole number of ms 0-1000, not True"),
    ("[reader]\nvid_pid = '2E8A'\n", r"\[reader\] vid_pid: '2E8A' is not VVVV:PPPP"),
    ("[screen]\nx = 1\n", r"\[screen\]: unknown section"),
    ("buzzer = 3\n", r"\[buzzer\]: must be a table"),
    ("[buttons]\nnext = 17\n", r"GPIO17 is given to both light.pins \(red\) and buttons.next"),
    ("[buttons]\nshutdown = 13\n", r"GPIO13 is given to both buttons.undo and buttons.shutdown"),
    ("[buttons]\nshutdown = 26\nshutdown_hold_s = 0.1\n",
     r"\[buttons\] shutdown_hold_s: must be a number of seconds 0.5-30, not 0.1"),
    ("[buzzer\n", r"is not valid TOML"),
])
def test_errors_name_the_file_and_key(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(HardwareConfigError, match=message) as e:
        load_config(path)
    assert str(e.value).startswith(str(path))
    assert isinstance(e.value, ConfigError)


def test_missing_file(tmp_path):
    with pytest.raises(HardwareConfigError, match="no such hardware config file"):
        load_config(tmp_path / "nope.toml")


def test_default_path_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "x.toml"))
    assert default_path() == tmp_path / "x.toml"


def test_parse_vid_pid():
    assert parse_vid_pid("2E8A:0005") == (0x2E8A, 5)
    assert parse_vid_pid("2E8A-0005") is None and parse_vid_pid("xyz:1") is None


def test_the_shutdown_button_is_not_fitted_unless_named(tmp_path):
    assert HardwareConfig().buttons.shutdown is None
    assert HardwareConfig().buttons.shutdown_hold_s == 3.0
    c = load_config(write(tmp_path, "[buttons]\nshutdown = 'GPIO26'\nshutdown_hold_s = 5\n"))
    assert (c.buttons.shutdown, c.buttons.shutdown_hold_s) == (26, 5.0)
    assert "shutdown" not in c.buttons.pins()           # held, not pressed: not a hub button
    assert c.buttons.all_pins() == {"next": 5, "pause": 6, "undo": 13, "shutdown": 26}
