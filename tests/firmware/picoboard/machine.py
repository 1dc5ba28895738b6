"""``machine`` for the unix-port Pico stand-in (tests/firmware/unixpico.py).

Only what firmware/main.py and mpremote's ``reset`` use. The UARTs have nothing wired to them
(the PN532 never answers, the GM65 never scans): the reader degrades as on a board without its
parts and still says hello. ``reset()`` ends the process with RESET_EXIT, which the stand-in
turns into a replug and a boot. Nothing here imports the firmware: the board's own copy is the
one that runs.
"""
import sys

RESET_EXIT = 86


class Pin:
    def __init__(self, n, *args, **kw):
        self.n = n


class UART:
    """A UART with nothing on the other end."""

    def __init__(self, n, baudrate=9600, tx=None, rx=None, timeout=0):
        self.n = n

    def any(self):
        return 0

    def read(self, n=-1):
        return None

    def write(self, data):
        return len(data)


class PWM:
    def __init__(self, pin):
        self.pin = pin

    def freq(self, hz):
        pass

    def duty_u16(self, d):
        pass


def unique_id():
    return b"\x50\x49\x43\x4f\x55\x4e\x49\x58"


def reset():
    sys.exit(RESET_EXIT)
