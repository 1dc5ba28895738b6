"""The few things that differ between MicroPython and CPython, in one place.

``ticks_ms``/``ticks_diff``/``ticks_add``/``sleep_ms`` are MicroPython's names; on CPython they are built on
``time.monotonic``. ``hexlify``/``unhexlify`` give upper-case hex text both ways.
"""
import binascii
import time

try:
    from micropython import const  # noqa: F401
except ImportError:  # CPython
    def const(x):
        return x

if hasattr(time, "ticks_ms"):
    ticks_ms = time.ticks_ms
    ticks_diff = time.ticks_diff
    ticks_add = time.ticks_add
    sleep_ms = time.sleep_ms
else:
    def ticks_ms():
        return int(time.monotonic() * 1000)

    def ticks_diff(later, earlier):
        return later - earlier

    def ticks_add(ticks, delta):
        return ticks + delta

    def sleep_ms(ms):
        time.sleep(ms / 1000)


def to_hex(data):
    """bytes -> upper-case hex text."""
    return binascii.hexlify(bytes(data)).decode().upper()


def from_hex(text):
    """hex text -> bytes; ValueError for odd length or a non-hex digit."""
    if not isinstance(text, str):
        raise ValueError("hex must be text")
    if len(text) % 2:
        raise ValueError("hex has an odd number of digits")
    for c in text:
        if c not in "0123456789abcdefABCDEF":
            raise ValueError("not a hex digit: %r" % c)
    return binascii.unhexlify(text)


class SimClock:
    """A millisecond clock that moves only when told (tests, the simulator's fake buses)."""

    def __init__(self, start=0):
        self.t = start

    def ticks_ms(self):
        return self.t

    def ticks_diff(self, later, earlier):
        return later - earlier

    def sleep_ms(self, ms):
        self.t += ms

    def advance(self, ms):
        self.t += ms


class RealClock:
    """The board's (or PC's) millisecond clock, behind the same three methods as SimClock."""

    def ticks_ms(self):
        return ticks_ms()

    def ticks_diff(self, later, earlier):
        return ticks_diff(later, earlier)

    def sleep_ms(self, ms):
        sleep_ms(ms)
