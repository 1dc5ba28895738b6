"""Buzzer edge timing over a Trade timer: every edge against its deadline.

A 3:00 timer with a tick every second, the 0:30 warning chirp and the 0:00 buzzer, played by
hardware.devices.TableBuzzer on gpiozero MockFactory pins. Edge times are rebuilt from the pin
history (MockPin timestamps are deltas since the previous change) and matched one by one to the
planned deadlines (hardware.timing.edge_errors); gpiozero's assert_states_and_times is not
used (it tolerates 50 ms).

By default the timer is time-compressed (3:00 played in 20 s: ticks every 1/9 s, the same 364
edges) and played twice, so the bench finishes in under a minute: once in a process whose other
threads are idle (the hub process), once beside a simulated UI thread rendering 60 fps frames of
pure-Python work (a Kivy screen in the same process), which competes for the GIL. --full plays
the real 3:00; --scenario picks one.

    .venv/bin/python benches/bench_buzzer.py [--full] [--scenario hub|ui|both] [--switch-interval S]

Goal: p99 |error| <= 2 ms, and no drift (late edges do not grow over the timer).
"""
import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpiozero.pins.mock import MockFactory, MockPWMPin  # noqa: E402

from hardware.config import HardwareConfig  # noqa: E402
from hardware.devices import TableDevices  # noqa: E402
from hardware.timing import edge_errors, mark_and_clear, percentile  # noqa: E402


def ui_frames(stop, fps=60, work_s=0.004):
    """A stand-in for a UI loop: busy Python for work_s of every frame."""
    period = 1 / fps
    nxt = time.monotonic()
    while not stop.is_set():
        end = time.monotonic() + work_s
        x = 0
        while time.monotonic() < end:
            x += 1
        nxt += period
        time.sleep(max(0.0, nxt - time.monotonic()))


def run(length_s, tick_every, with_ui):
    factory = MockFactory(pin_class=MockPWMPin)
    stop = threading.Event()
    ui = threading.Thread(target=ui_frames, args=(stop,), daemon=True)
    with TableDevices(HardwareConfig(), factory) as table:
        pin = factory.pin(table.config.buzzer.pin)
        buzzer = table.buzzer
        if with_ui:
            ui.start()
        base = mark_and_clear(pin)
        start = time.monotonic() + 0.5
        deadline = start + length_s
        handles = buzzer.countdown(deadline, warning_before=length_s / 6, tick_every=tick_every)
        planned = sorted(e for _, _, edges in buzzer.history for e in edges)
        buzzer.wait_idle(length_s + 10)
        stop.set()
        if with_ui:
            ui.join()
        errors = edge_errors(pin.states, base, planned)
        buzzer.cancel(handles)
        realtime = buzzer.scheduler.realtime
    return planned, errors, realtime


def report(planned, errors, realtime):
    ms = [e * 1000 for e in errors]
    absms = [abs(x) for x in ms]
    n = len(ms)
    tenth = max(1, n // 10)
    first, last = statistics.mean(ms[:tenth]), statistics.mean(ms[-tenth:])
    times = [t for t, _ in planned][:n]
    slope = statistics.linear_regression(times, ms).slope if n > 2 else 0.0
    p50, p99 = percentile(absms, 50), percentile(absms, 99)
    print(f"  buzzer thread real-time priority: {'yes' if realtime else 'no (no permission)'}")
    print(f"  edges: {n}")
    print(f"  edge error |ms|: p50 {p50:.3f}  p99 {p99:.3f}  max {max(absms):.3f}  "
          f"(signed mean {statistics.mean(ms):+.3f}; early edges: {sum(x < 0 for x in ms)})")
    print(f"  drift: mean error first 10% {first:+.3f} ms, last 10% {last:+.3f} ms, "
          f"slope {slope * 60:+.4f} ms per minute of run")
    print(f"  goal p99 <= 2 ms: {'met' if p99 <= 2.0 else 'NOT met'} "
          f"(ratio p99/goal {p99 / 2.0:.2f})")



def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--full", action="store_true", help="play the real 3:00 timer")
    ap.add_argument("--scenario", choices=("hub", "ui", "both"), default="both",
                    help="hub: no other busy thread; ui: a 60 fps pure-Python UI thread")
    ap.add_argument("--switch-interval", type=float, default=None,
                    help="sys.setswitchinterval for the run (CPython default 0.005 s)")
    args = ap.parse_args(argv)
    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval)
    length = 180.0 if args.full else 20.0
    tick = 1.0 if args.full else 1.0 / 9
    variant = "full 3:00" if args.full else "time-compressed 3:00 -> 0:20 (x9, same edges)"
    scenarios = ("hub", "ui") if args.scenario == "both" else (args.scenario,)
    for scenario in scenarios:
        ui = scenario == "ui"
        label = ("beside a 60 fps UI thread (4 ms of Python per frame)" if ui else
                 "no other busy thread in the process")
        print(f"buzzer edges over a Trade timer: {variant}; {label}; "
              f"switch interval {sys.getswitchinterval() * 1000:g} ms")
        planned, errors, realtime = run(length, tick, ui)
        report(planned, errors, realtime)
    return 0


if __name__ == "__main__":
    sys.exit(main())
