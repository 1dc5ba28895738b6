"""Raspberry Pi Pico entry point: the only firmware file that touches ``machine``.

Copied to the Pico as ``/main.py`` next to the ``/firmware`` package (see docs/firmware.md).
It builds the buses from the pins below, hands them to the drivers and runs
:class:`firmware.app.ReaderApp` until BOOTSEL is pressed (see :func:`main` for Ctrl-C). Pins (docs/wiring.md):

* UART0 GP0 (TX) / GP1 (RX): PN532 in HSU mode, 115200 baud
* UART1 GP4 (TX) / GP5 (RX): GM65 QR module, 9600 baud
* GP15: buzzer (through a transistor), PWM
* GP16 / GP17 / GP18: RGB LED red / green / blue (common cathode), PWM
"""
import sys

import machine
import micropython
import select

from firmware import app, gm65, pn532
from firmware.compat import RealClock, ticks_add, ticks_diff, ticks_ms, to_hex

NFC_UART, NFC_TX, NFC_RX, NFC_BAUD = 0, 0, 1, 115200
QR_UART, QR_TX, QR_RX, QR_BAUD = 1, 4, 5, 9600
BUZZER_PIN, BUZZER_HZ = 15, 2700
LED_PINS = (16, 17, 18)
GRACE_MS = 3000


class UsbCdc:
    """The USB serial line (MicroPython's stdin/stdout), read without blocking."""

    def __init__(self):
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)
        self.inp = getattr(sys.stdin, "buffer", sys.stdin)
        self.out = getattr(sys.stdout, "buffer", sys.stdout)

    def read(self):
        data = b""
        while self.poller.poll(0) and len(data) < 256:
            ch = self.inp.read(1)
            if not ch:
                break
            data += ch if isinstance(ch, bytes) else ch.encode()
        return data or None

    def write(self, data):
        self.out.write(data)


class Beeper:
    """Non-blocking beeps on a PWM pin: ``beep`` queues, ``step`` (called every loop) switches."""

    def __init__(self, pin, freq=BUZZER_HZ):
        self.pwm = machine.PWM(machine.Pin(pin))
        self.pwm.freq(freq)
        self.pwm.duty_u16(0)
        self.edges = []        # (ticks due, duty)

    def beep(self, ms, n=1):
        t = ticks_ms()
        self.edges = []
        for i in range(n):
            self.edges.append((ticks_add(t, i * 2 * ms), 32768))
            self.edges.append((ticks_add(t, i * 2 * ms + ms), 0))

    def step(self):
        now = ticks_ms()
        while self.edges and ticks_diff(now, self.edges[0][0]) >= 0:
            self.pwm.duty_u16(self.edges.pop(0)[1])


class RgbLed:
    def __init__(self, pins):
        self.pwms = []
        for p in pins:
            pwm = machine.PWM(machine.Pin(p))
            pwm.freq(1000)
            pwm.duty_u16(0)
            self.pwms.append(pwm)

    def set(self, r, g, b):
        for pwm, v in zip(self.pwms, (r, g, b)):
            pwm.duty_u16(v * 257)


def build(usb=None):
    """Buses, drivers and the app, from the pin constants above (``usb``: the host stream,
    default the USB CDC line)."""
    nfc_uart = machine.UART(NFC_UART, baudrate=NFC_BAUD, tx=machine.Pin(NFC_TX),
                            rx=machine.Pin(NFC_RX), timeout=0)
    qr_uart = machine.UART(QR_UART, baudrate=QR_BAUD, tx=machine.Pin(QR_TX),
                           rx=machine.Pin(QR_RX), timeout=0)
    clock = RealClock()
    return app.ReaderApp(
        usb or UsbCdc(), nfc=pn532.PN532(nfc_uart, clock=clock), qr=gm65.GM65(qr_uart),
        beeper=Beeper(BUZZER_PIN), led=RgbLed(LED_PINS), clock=clock,
        reader_id=to_hex(machine.unique_id()))


def bootsel_pressed():
    try:
        import rp2
        return bool(rp2.bootsel_button())
    except (ImportError, AttributeError):
        return False


def main(grace_ms=GRACE_MS, stop=bootsel_pressed, usb=None, idle_ms=2):
    """Run the reader. For ``grace_ms`` after boot Ctrl-C still interrupts (so ``mpremote``
    can take over right after a reset); then a 0x03 byte on the line is data, not Ctrl-C.
    Pressing BOOTSEL while it runs stops it and gives the REPL back."""
    app = build(usb)
    app.start()
    t0 = ticks_ms()
    guarded = False
    n = 0
    while True:
        app.step()
        n += 1
        if not guarded and ticks_diff(ticks_ms(), t0) >= grace_ms:
            micropython.kbd_intr(-1)
            guarded = True
        if n % 50 == 0 and stop():
            micropython.kbd_intr(3)
            return app
        if idle_ms:
            app.clock.sleep_ms(idle_ms)


if __name__ == "__main__":
    main()
