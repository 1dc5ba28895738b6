"""Buzzer edge timing in the device process vs in the UI's process, beside a busy 60 fps loop.

The case that failed in-process (benches/bench_buzzer.py): a buzzer thread sharing its Python
process (its GIL) with a UI thread that runs 4 ms of pure Python every 16.7 ms frame. Here the
same countdown (10 ms ticks at seeded random 20-40 ms gaps, so edges fall at every phase of
the UI's frames, then a warning chirp and the 0:00 buzzer, on MockFactory pins) is
played, in one run:

  in-process, idle      TableDevices in this process, nothing else busy (the baseline)
  in-process, busy UI   TableDevices in this process, beside the 60 fps loop (the failing case)
  worker, busy UI       hardware.worker.DeviceLink: the devices in a spawned child; this process
                        runs the 60 fps loop
  worker+reader, busy UI  the same with the card reader driver in the child reading the
                        reader simulator (heartbeats), as on a real table
  worker, idle          the device process with this process idle

Each edge's error is its time on the pin minus its planned deadline (hardware.timing). Also:
the latency of a button press in the child reaching ``on_event`` in the busy parent, and of a
fire-and-forget ``play`` (parent call -> first edge in the child).

Every scenario runs ``--rounds`` times, interleaved, and its edges are pooled: a shared
machine's noise then shows as a bad round (printed) instead of a bad verdict.

    .venv/bin/python benches/bench_devices.py [--seconds S] [--rounds N] [--switch-interval S]

Goal: p99 |error| <= 2 ms with the busy UI.
"""
import argparse
import os
import random
import statistics
import sys
import threading
import time
from collections import namedtuple
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gpiozero.pins.mock import MockFactory, MockPWMPin  # noqa: E402

from hardware.config import HardwareConfig  # noqa: E402
from hardware.devices import TableDevices  # noqa: E402
from hardware.events import ButtonPressed  # noqa: E402
from hardware.sim import ReaderSim  # noqa: E402
from hardware.timing import edge_errors, mark_and_clear, percentile  # noqa: E402
from hardware.worker import DeviceLink  # noqa: E402

State = namedtuple("State", "timestamp state")


def ui_frames(stop, fps=60, work_s=0.004):
    """A stand-in for a UI loop: busy pure Python for work_s of every frame."""
    period = 1 / fps
    nxt = time.monotonic()
    while not stop.is_set():
        end = time.monotonic() + work_s
        x = 0
        while time.monotonic() < end:
            x += 1
        nxt += period
        time.sleep(max(0.0, nxt - time.monotonic()))


class BusyUI:
    def __init__(self, on):
        self.on = on
        self.stop = threading.Event()
        self.thread = threading.Thread(target=ui_frames, args=(self.stop,), daemon=True)

    def __enter__(self):
        if self.on:
            self.thread.start()
            time.sleep(0.2)
        return self

    def __exit__(self, *exc):
        self.stop.set()
        if self.on:
            self.thread.join()


def tick_times(start, end, seed):
    """Ticks at seeded random gaps of 20-40 ms: regular ticks would alias with the 60 fps frames
    (their phase against the busy part of a frame would be fixed for a whole run)."""
    rng = random.Random(seed)
    out, t = [], start
    while True:
        t += rng.uniform(0.020, 0.040)
        if t > end:
            return out
        out.append(t)


def in_process(length, busy, seed):
    factory = MockFactory(pin_class=MockPWMPin)
    with TableDevices(HardwareConfig(), factory) as table, BusyUI(busy):
        pin = factory.pin(table.config.buzzer.pin)
        b = table.buzzer
        base = mark_and_clear(pin)
        start = time.monotonic() + 0.5
        deadline = start + length
        for t in tick_times(start, deadline - length / 6 - 0.2, seed):
            b.play("tick", at=t)
        b.countdown(deadline, warning_before=length / 6)
        planned = sorted(e for _, _, edges in b.history for e in edges)
        b.wait_idle(length + 10)
        return edge_errors(pin.states, base, planned), b.scheduler.realtime


def worker(length, busy, seed, reader=False, extras=None):
    """The countdown in a DeviceLink child; ``reader``: its card reader driver reads a
    simulator (heartbeats) meanwhile, as on a real table. ``extras``: a dict to fill with
    the button and play() latencies."""
    cfg = HardwareConfig()
    presses = []
    got = threading.Event()

    def on_event(e):
        if isinstance(e, ButtonPressed):
            presses.append(time.monotonic() - e.at)
            got.set()

    sim = ReaderSim(transport="pty").start() if reader else None
    try:
        with DeviceLink(cfg, mock=True, reader=reader, reader_url=sim and sim.url,
                        on_event=on_event) as link, BusyUI(busy):
            pin = cfg.buzzer.pin
            if reader:
                end = time.monotonic() + 10
                while link.reader is None and time.monotonic() < end:
                    time.sleep(0.01)
            link.mark_pins([pin])
            since = len(link.plans())
            start = time.monotonic() + 0.5
            deadline = start + length
            for t in tick_times(start, deadline - length / 6 - 0.2, seed):
                link.play("tick", at=t)
            link.countdown(deadline, length / 6)
            planned = sorted(e for _, _, edges in link.plans(since) for e in edges)
            link.wait_idle(length + 10)
            errors = edge_errors(_states(link, pin), link.pin_edges(pin)[0], planned)
            realtime = link.status()["realtime"]
            if extras is not None:
                for i in range(60):             # a press in the child -> on_event here
                    got.clear()
                    link.press(("next", "pause", "undo")[i % 3])
                    got.wait(2)
                    time.sleep(0.011)
                lat = []
                for _ in range(40):             # play() called here -> first edge in the child
                    link.mark_pins([pin])
                    t0 = time.monotonic()
                    link.play("tick")
                    link.wait_idle(2)
                    lat.append(link.pin_edges(pin)[1][0][0] - t0)
                extras["presses"], extras["play"] = presses, lat
    finally:
        if sim is not None:
            sim.close()
    return errors, realtime


def _states(link, pin):
    base, edges, states = link.pin_edges(pin)
    out = [State(0.0, states[0])]
    t = base
    for at, st in edges:
        out.append(State(at - t, st))
        t = at
    return out


SCENARIOS = {
    "in-process, idle": lambda n, s, x: in_process(n, False, s),
    "in-process, busy UI": lambda n, s, x: in_process(n, True, s),
    "worker, busy UI": lambda n, s, x: worker(n, True, s, extras=x),
    "worker+reader, busy UI": lambda n, s, x: worker(n, True, s, reader=True),
    "worker, idle": lambda n, s, x: worker(n, False, s),
}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=4.0, help="countdown length (default 4)")
    ap.add_argument("--rounds", type=int, default=2,
                    help="rounds of every scenario, interleaved (default 2)")
    ap.add_argument("--switch-interval", type=float, default=None,
                    help="sys.setswitchinterval for this process (CPython default 0.005 s)")
    args = ap.parse_args(argv)
    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval)
    n = args.seconds
    print(f"buzzer countdown of {n:g} s (ticks at random 20-40 ms gaps, warning, 0:00 "
          f"buzzer) x {args.rounds} rounds per scenario, interleaved; busy UI = 60 fps with 4 ms "
          f"of pure Python per frame; switch interval {sys.getswitchinterval() * 1000:g} ms; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (a shared machine: "
          f"compare within one run)")
    pooled = {k: [] for k in SCENARIOS}
    per_round = {k: [] for k in SCENARIOS}
    realtime = {}
    extras = {}
    for r in range(args.rounds):
        for name, fn in SCENARIOS.items():
            errors, rt = fn(n, r, extras if r == 0 else None)
            ms = [abs(e) * 1000 for e in errors]
            pooled[name] += errors
            per_round[name].append(percentile(ms, 99))
            realtime[name] = rt
    p99 = {}
    for name, errors in pooled.items():
        ms = [abs(e) * 1000 for e in errors]
        p99[name] = percentile(ms, 99)
        rounds = " ".join(f"{x:.2f}" for x in per_round[name])
        print(f"  {name:23} edges {len(ms):5}  |error| p50 {percentile(ms, 50):6.3f} ms  "
              f"p99 {p99[name]:6.3f} ms  max {max(ms):6.3f} ms  early {sum(e < 0 for e in errors)}"
              f"  p99 per round [{rounds}]  real-time {'yes' if realtime[name] else 'no'}  "
              f"goal p99<=2ms {'met' if p99[name] <= 2 else 'NOT met'}")
    ratio = p99["in-process, busy UI"] / max(p99["worker, busy UI"], 1e-9)
    print(f"  p99 ratio in-process / worker, both beside the busy UI: {ratio:.1f}x")
    pr, pl = extras["presses"], extras["play"]
    print(f"  button pressed in the child -> on_event in the busy parent: p50 "
          f"{statistics.median(pr) * 1000:.3f} ms  p99 {percentile(pr, 99) * 1000:.3f} ms "
          f"(n={len(pr)})")
    print(f"  play() in the busy parent -> first edge in the child: p50 "
          f"{statistics.median(pl) * 1000:.3f} ms  p99 {percentile(pl, 99) * 1000:.3f} ms "
          f"(n={len(pl)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
