"""What ``companion doctor`` checks: the config, the GPIO parts, the card reader.

:func:`diagnose` returns a list of :class:`Check` rows (part, where, status, detail) and never
raises for a missing or broken part: a table without GPIO or without a reader is reported, not
crashed. ``ok`` is False for a part that is configured but does not answer.
"""
import dataclasses
import warnings

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
    """Build the devices on ``pin_factory`` (default: gpiozero's own choice for this machine)."""
    from gpiozero import Device
    from gpiozero.exc import BadPinFactory, GPIOZeroError

    from hardware.devices import TableDevices
    factory = pin_factory
    if factory is None:
        try:
            with warnings.catch_warnings():   # gpiozero warns about each library it skips
                warnings.simplefilter("ignore")
                factory = Device._default_pin_factory()
        except (BadPinFactory, GPIOZeroError, ImportError, OSError, RuntimeError) as e:
            return [Check("GPIO", "-", "missing",
                          f"no GPIO on this machine ({e}); use --mock to check the config")]
    try:
        devices = TableDevices(config, factory)
    except Exception as e:  # a pin in use, a PWM-less pin, ...
        return [Check("GPIO", type(factory).__name__, "error", str(e))]
    rows = [Check("GPIO", type(factory).__name__, "ok", "pin factory")]
    with devices:
        for part, where, state in devices.describe():
            rows.append(Check(part, where, "ok" if state != "-" else "off",
                              state if state not in ("ok", "-") else ""))
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
