"""What ``companion doctor`` checks: the config, the GPIO parts, the card reader.

:func:`diagnose` returns a list of :class:`Check` rows (part, where, status, detail) and never
raises for a missing or broken part: a table without GPIO or without a reader is reported, not
crashed. ``ok`` is False for a part that is configured but does not answer.
"""
import dataclasses

from hardware.config import HardwareConfig


@dataclasses.dataclass(frozen=True)
class Check:
    part: str
    where: str
    status: str      # "ok", "missing", "off" (not fitted), "error"
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status in ("ok", "off")


def mock_factory():
    """gpiozero's own mock pins (PWM-capable), for checking a config on any machine."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin
    return MockFactory(pin_class=MockPWMPin)


def gpio_checks(config: HardwareConfig, pin_factory=None):
    """Build the devices on ``pin_factory`` (default: the pin library the device process would
    pick, :func:`hardware.pinlib.open_pin_library`): a row for the library (which one and why,
    or why none), a row for each library passed over, and a row per part, with the sentence of
    a part that is left out or works in a lesser way."""
    from hardware.devices import TableDevices
    from hardware.pinlib import library_label, open_pin_library
    if pin_factory is None:
        library = open_pin_library()
        skipped = [Check(f"not {name}", "-", "off", why) for name, why in library.skipped]
        if library.factory is None:
            return [Check("GPIO", "-", "missing", library.problem)] + skipped
        head = Check("GPIO", library.where, "ok", library.why)
        pin_factory, pwm_fix = library.factory, library.pwm_fix()
    else:
        head, skipped = Check("GPIO", library_label(pin_factory), "ok", "pin library"), []
        pwm_fix = None
    rows = [head] + skipped
    with TableDevices(config, pin_factory, pwm_fix=pwm_fix) as devices:
        said = {p.part: p.sentence for p in devices.problems}
        for part, where, state in devices.describe():
            if state == "missing":
                rows.append(Check(part, where, "error", said.get(part, "")))
            elif state == "-":
                rows.append(Check(part, where, "off", ""))
            else:
                rows.append(Check(part, where, "ok", said.get(part, "") or
                                  (state if state != "ok" else "")))
    return rows


def reader_checks(config: HardwareConfig, url=None, timeout=2.0, comports=None):
    from hardware.reader import find_reader_port, probe
    url = url or config.reader.port or None
    where = url or f"USB {config.reader.vid_pid_text()}"
    if url is None:
        found = find_reader_port(config.reader.vid_pid, comports)
        if found is None:
            return [Check("card reader", where, "missing",
                          "no serial port with that USB id; is the Pico plugged in?")]
        url = found
        where = f"{found} (USB {config.reader.vid_pid_text()})"
    hello = probe(url, config.reader.vid_pid, timeout=timeout, comports=comports)
    if hello is None:
        return [Check("card reader", where, "missing",
                      f"no hello within {timeout:g} s (wrong port, or not our firmware)")]
    return [Check("card reader", where, "ok",
                  f"firmware {hello.firmware}; {', '.join(hello.capabilities)}"
                  + (f"; id {hello.reader_id}" if hello.reader_id else ""))]


def diagnose(config: HardwareConfig, pin_factory=None, reader_url=None, reader_timeout=2.0,
             comports=None):
    rows = [Check("config", config.source, "ok", "")]
    rows += gpio_checks(config, pin_factory)
    rows += reader_checks(config, reader_url, reader_timeout, comports)
    return rows
