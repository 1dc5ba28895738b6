"""A stand-in for MicroPython's ``machine`` module so firmware/main.py can be built on a PC.

UART 0 has a fake PN532 behind it and UART 1 a fake GM65 (the wiring in docs/wiring.md).
"""
from firmware.fakes import FakeGM65Bus, FakePN532Bus

made = {"uart": {}, "pwm": {}}


class Pin:
    def __init__(self, n, *args, **kw):
        self.n = n


class UART:
    def __new__(cls, n, baudrate=9600, tx=None, rx=None, timeout=0):
        bus = FakePN532Bus() if n == 0 else FakeGM65Bus()
        bus.config = (n, baudrate, tx.n, rx.n)
        made["uart"][n] = bus
        return bus


class PWM:
    def __init__(self, pin):
        self.pin = pin.n
        self.duties = []
        self.hz = None
        made["pwm"][pin.n] = self

    def freq(self, hz):
        self.hz = hz

    def duty_u16(self, d):
        self.duties.append(d)


def unique_id():
    return b"\xE6\x61\x41\x03\xE7\x45\x2D\x2F"
