#!/usr/bin/env python3
"""A stand-in for the official Raspberry Pi 7" touch display's touch controller, over uinput.

Standalone: the system's python3 with Debian's python3-evdev, no project imports, run as root
(or with write access to /dev/uinput) in the guest.

    touch_inject.py create-only --seconds N     make the device and keep it N seconds; taps
                                                 sent meanwhile by `tap` go through it
    touch_inject.py tap X Y [--hold 0.1]        one tap at panel pixel X, Y (0-799, 0-479)

The device resembles the kernel's edt-ft5x06 driver on that display: named "ft5x06-uinput",
800x480, INPUT_PROP_DIRECT (udev: ID_INPUT_TOUCHSCREEN=1), multitouch protocol B (ABS_MT_SLOT,
ABS_MT_TRACKING_ID, ABS_MT_POSITION_X/Y) with the single-touch pointer emulation
(BTN_TOUCH, ABS_X/ABS_Y) that the driver's input_mt_sync_frame() adds.

A program that looks for touchscreens when it starts (the table does) finds only a device that
exists by then. So: start `create-only` first, then (re)start the table, then send `tap`s:
while a `create-only` is running, `tap` hands its tap to it through a FIFO (--control).
Without one, `tap` makes a device of its own, waits --settle seconds for readers to open it,
taps, and removes it.
"""
import argparse
import errno
import os
import select
import sys
import time

try:
    from evdev import AbsInfo, UInput, ecodes as e
except ImportError:                      # pragma: no cover - the guest has python3-evdev
    sys.exit("touch_inject.py needs python3-evdev (apt install python3-evdev)")

NAME = "ft5x06-uinput"
WIDTH, HEIGHT = 800, 480
SLOTS = 10                               # the FT5406 reports up to 10 contacts
CONTROL = "/run/touch_inject.fifo"


def capabilities():
    def axis(maximum):
        return AbsInfo(value=0, min=0, max=maximum, fuzz=0, flat=0, resolution=0)
    return {
        e.EV_KEY: [e.BTN_TOUCH],
        e.EV_ABS: [
            (e.ABS_X, axis(WIDTH - 1)),
            (e.ABS_Y, axis(HEIGHT - 1)),
            (e.ABS_MT_SLOT, axis(SLOTS - 1)),
            (e.ABS_MT_POSITION_X, axis(WIDTH - 1)),
            (e.ABS_MT_POSITION_Y, axis(HEIGHT - 1)),
            (e.ABS_MT_TRACKING_ID, axis(65535)),
        ],
    }


def create():
    ui = UInput(capabilities(), name=NAME, bustype=e.BUS_I2C, vendor=0, product=0,
                version=1, phys="ft5x06-uinput/input0", input_props=[e.INPUT_PROP_DIRECT])
    where = ui.device.path if ui.device is not None else "(event node not found)"
    print(f"touch_inject: {NAME} at {where}", flush=True)
    return ui


class Finger:
    """Taps through one device, each contact with a new tracking id, as the driver does."""

    def __init__(self, ui):
        self.ui = ui
        self.tracking_id = int(time.monotonic() * 1000) % 30000

    def tap(self, x, y, hold):
        ui = self.ui
        self.tracking_id = (self.tracking_id + 1) % 65536
        ui.write(e.EV_ABS, e.ABS_MT_SLOT, 0)
        ui.write(e.EV_ABS, e.ABS_MT_TRACKING_ID, self.tracking_id)
        ui.write(e.EV_ABS, e.ABS_MT_POSITION_X, x)
        ui.write(e.EV_ABS, e.ABS_MT_POSITION_Y, y)
        ui.write(e.EV_KEY, e.BTN_TOUCH, 1)
        ui.write(e.EV_ABS, e.ABS_X, x)
        ui.write(e.EV_ABS, e.ABS_Y, y)
        ui.syn()
        time.sleep(hold)
        ui.write(e.EV_ABS, e.ABS_MT_SLOT, 0)
        ui.write(e.EV_ABS, e.ABS_MT_TRACKING_ID, -1)
        ui.write(e.EV_KEY, e.BTN_TOUCH, 0)
        ui.syn()
        print(f"touch_inject: tapped {x},{y} (held {hold:g} s, tracking id "
              f"{self.tracking_id})", flush=True)


def position(text, size, what):
    try:
        v = int(text)
    except ValueError:
        v = -1
    if not 0 <= v < size:
        raise argparse.ArgumentTypeError(f"{what} must be a pixel 0-{size - 1}, not {text!r}")
    return v


def hold_time(text):
    v = float(text)
    if not 0.0 <= v <= 10.0:
        raise argparse.ArgumentTypeError("--hold must be 0-10 seconds")
    return v


def create_only(seconds, control):
    ui = create()
    finger = Finger(ui)
    try:
        os.unlink(control)
    except FileNotFoundError:
        pass
    os.mkfifo(control, 0o600)
    # Read and write: the FIFO never reaches end-of-file between one `tap` and the next.
    fd = os.open(control, os.O_RDWR | os.O_NONBLOCK)
    print(f"touch_inject: taps on {control} for {seconds:g} s", flush=True)
    end = time.monotonic() + seconds
    pending = b""
    try:
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            pending += os.read(fd, 4096)
            *lines, pending = pending.split(b"\n")
            for line in lines:
                try:
                    word, x, y, hold = line.decode().split()
                    assert word == "tap"
                    finger.tap(int(x), int(y), float(hold))
                except (ValueError, AssertionError):
                    print(f"touch_inject: ignored {line!r}", file=sys.stderr, flush=True)
    finally:
        os.close(fd)
        try:
            os.unlink(control)
        except FileNotFoundError:
            pass
        ui.close()
        print("touch_inject: device removed", flush=True)


def tap(x, y, hold, control, settle):
    try:
        fd = os.open(control, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as err:
        if err.errno not in (errno.ENOENT, errno.ENXIO):    # no FIFO / nobody reading it
            raise
    else:
        with os.fdopen(fd, "wb") as f:
            f.write(f"tap {x} {y} {hold}\n".encode())
        print(f"touch_inject: tap {x},{y} handed to the running device ({control})",
              flush=True)
        time.sleep(hold + 0.05)          # returns when the finger is up again
        return
    ui = create()
    try:
        time.sleep(settle)
        Finger(ui).tap(x, y, hold)
        time.sleep(0.2)                  # let readers take the release before the device goes
    finally:
        ui.close()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("create-only", help="make the device and keep it for --seconds")
    c.add_argument("--seconds", type=float, required=True)
    c.add_argument("--control", default=CONTROL, help=f"the FIFO for taps (default {CONTROL})")
    t = sub.add_parser("tap", help="one tap at panel pixel X, Y")
    t.add_argument("x", type=lambda s: position(s, WIDTH, "X"))
    t.add_argument("y", type=lambda s: position(s, HEIGHT, "Y"))
    t.add_argument("--hold", type=hold_time, default=0.1, help="seconds down (default 0.1)")
    t.add_argument("--control", default=CONTROL)
    t.add_argument("--settle", type=float, default=1.0,
                   help="without a running create-only: seconds between making the device "
                        "and the tap (default 1.0)")
    args = ap.parse_args(argv)
    if args.command == "create-only":
        create_only(args.seconds, args.control)
    else:
        tap(args.x, args.y, args.hold, args.control, args.settle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
