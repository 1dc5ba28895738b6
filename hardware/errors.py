"""The hardware's errors, in the companion's one tree (``CompanionError``). Each also subclasses
the built-in it replaces, as gpiozero does (``UnknownPatternError`` is still a ``KeyError``), so
code that caught the built-in keeps working. Every message is a sentence."""
from companion.core.errors import CompanionError, ConfigError


class HardwareError(CompanionError):
    """Base of every error the table's devices raise on purpose."""


class UnknownPatternError(HardwareError, KeyError, ValueError):
    """No buzzer pattern by that name (the devices raised a ``KeyError`` for it and the device
    link a ``ValueError``: it is both, so code written against either keeps working)."""

    def __init__(self, name, patterns=()):
        super().__init__(name)
        self.name, self.patterns = name, tuple(patterns)

    def __str__(self):
        known = f" (patterns: {', '.join(self.patterns)})" if self.patterns else ""
        return f"no buzzer pattern called {self.name!r}{known}"


class UnknownCueError(HardwareError, ValueError):
    """An upkeep cue other than C, M, Y or K."""


class UnknownButtonError(HardwareError, ValueError):
    """No button by that name."""


class UnknownCommandError(HardwareError, ValueError):
    """The device process or the card reader has no such command."""


class DeviceClosedError(HardwareError, RuntimeError):
    """The device was closed; it takes no more commands."""


class NotSimulatedError(HardwareError, ValueError):
    """Asked of real hardware what only simulated pins can tell (their history)."""


class PinFactoryError(HardwareError, ValueError):
    """Devices built without a gpiozero pin factory."""


class HardwareConfigError(HardwareError, ConfigError):
    """A hardware config file has a mistake. The message names the file and the key."""
