"""Table screen speed: a touch to the updated screen, a phone's move to the updated screen,
the first frame, and the app's memory.

    .venv/bin/python benches/bench_ui.py [--rounds 200] [--quick]

Runs the real app (Kivy, SDL; offscreen unless a display is set) on a real hub: Great Powers,
4 players, in the Action phase. One sample = a tap on "<player> passes" (the screen's own
command: worker thread, rules, log append, hub event, redraw) until the frame showing the next
player's turn has been drawn; the hub then undoes it (not timed). Logs: in memory and SQLite
(WAL, synchronous=FULL, in a temp dir). Frames are paced at Kivy's default 60 fps, as on the
table. First frame and RSS are measured in fresh processes. Goal: touch-to-screen p95 <= 50 ms.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
GOAL_MS = 50.0


def _env():
    tmp = tempfile.mkdtemp(prefix="bench-ui-")
    os.environ.setdefault("KIVY_HOME", os.path.join(tmp, "kivy"))
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")
    return tmp


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p / 100
    f = int(k)
    c = min(f + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)


def line(name, xs, goal=None):
    med, p95, p99 = statistics.median(xs), pct(xs, 95), pct(xs, 99)
    tail = f"   p95/goal {p95 / goal:.2f}" if goal else ""
    print(f"{name:42} n={len(xs):4}  median {med:7.2f} ms  p95 {p95:7.2f} ms  "
          f"p99 {p99:7.2f} ms  max {max(xs):7.2f} ms{tail}")


# -- in-process: touch and phone latency ------------------------------------------------------
def latency(rounds, log_kind, tmp):
    from kivy.base import EventLoop
    from kivy.core.window import Window
    from kivy.tests.common import UnitTestTouch

    from companion.core.log import MemoryLog, SQLiteLog
    from companion.service.hub import Hub
    from ui.app import TableApp

    log = MemoryLog() if log_kind == "memory" else \
        SQLiteLog(os.path.join(tmp, f"bench-{time.time_ns()}.db"))
    hub = Hub(log, table="bench")
    hub.configure("great-powers", players=4, names=["Ann", "Bo", "Cy", "Di"])
    hub.start(seed=5)
    for seat in range(4):
        hub.submit(seat, "submit_bids", {"traits": [["navy", "army", "colony"],
                                                    ["army", "colony", "industry"],
                                                    ["colony", "navy", "population"],
                                                    ["industry", "army", "navy"]][seat]})
    app = TableApp(hub, sound=False, reveal_step=None)
    root = app.build()
    Window.add_widget(root)
    for _ in range(5):
        EventLoop.idle()
    app.ack(("reveal", hub.public_view()["session"], 1))
    for _ in range(3):
        EventLoop.idle()
    screen = app.screen("gp_action")

    def settle():
        for _ in range(200):
            EventLoop.idle()
            if not app.bridge.busy() and not app.bridge.events:
                break
        EventLoop.idle()

    def pass_button():
        return screen.ids.pass_btn

    touch_ms, phone_ms, refresh_ms = [], [], []
    players = hub.public_view()["players"]
    for i in range(rounds):
        settle()
        seat = hub.public_view()["waiting"][0]
        btn = pass_button()
        expect = f"{players[seat]} passes"
        assert btn.text == expect, (btn.text, expect)
        x, y = btn.to_window(*btn.center)
        frames0 = app.frames
        t0 = time.perf_counter()
        touch = UnitTestTouch(x, y)
        touch.touch_down()
        touch.touch_up()
        while True:
            EventLoop.idle()                       # input, clock (the redraw), then the draw
            if app.frames > frames0 and btn.text != expect:
                break
            if time.perf_counter() - t0 > 5:
                raise RuntimeError("the screen never updated")
        touch_ms.append((time.perf_counter() - t0) * 1000)
        settle()
        hub.undo()
        settle()
        # a phone's move from another thread (the MQTT bridge's path)
        seat = hub.public_view()["waiting"][0]
        frames0 = app.frames
        t0 = time.perf_counter()
        th = threading.Thread(target=hub.submit, args=(seat, "pass_action"))
        th.start()
        while True:
            EventLoop.idle()
            if app.frames > frames0 and btn.text != f"{players[seat]} passes":
                break
            if time.perf_counter() - t0 > 5:
                raise RuntimeError("the screen never updated")
        phone_ms.append((time.perf_counter() - t0) * 1000)
        th.join()
        settle()
        hub.undo()
        settle()
        t0 = time.perf_counter()
        app.refresh()
        refresh_ms.append((time.perf_counter() - t0) * 1000)
    Window.remove_widget(root)
    app.close()
    app.dispatch("on_stop")
    hub.log.close()
    return touch_ms, phone_ms, refresh_ms


# -- fresh processes: first frame and memory ----------------------------------------------------
CHILD = r"""
import os, sys, time, json
t_start = time.perf_counter()
sys.path.insert(0, {root!r})
from ui.app import configure_window
configure_window(False, (800, 480))
from kivy.base import EventLoop
from kivy.core.window import Window
from companion.core.log import SQLiteLog
from companion.service.hub import Hub
from ui.app import TableApp
t_imported = time.perf_counter()
hub = Hub(SQLiteLog({db!r}), table="bench")
app = TableApp(hub, sound=False)
root = app.build()
Window.add_widget(root)
EventLoop.idle()
t_first = time.perf_counter()
for name in ("gp_powers", "gp_action", "round", "scores", "timer"):
    app.go(name)
    for _ in range(3):
        EventLoop.idle()
rss = hwm = 0
for l in open("/proc/self/status"):
    if l.startswith("VmRSS:"):
        rss = int(l.split()[1]) / 1024
    if l.startswith("VmHWM:"):
        hwm = int(l.split()[1]) / 1024
print(json.dumps({{"import_ms": (t_imported - t_start) * 1000,
                  "first_frame_ms": (t_first - t_start) * 1000,
                  "build_to_frame_ms": (t_first - t_imported) * 1000,
                  "screen": app.screen_name, "rss_mb": rss, "hwm_mb": hwm}}))
app.close()
"""


def fresh(runs, tmp):
    from companion.core.log import SQLiteLog
    from companion.service.hub import Hub
    db = os.path.join(tmp, "fresh.db")
    hub = Hub(SQLiteLog(db), table="bench")
    hub.configure("great-powers", players=4, names=["Ann", "Bo", "Cy", "Di"])
    hub.start(seed=5)
    hub.submit(0, "submit_bids", {"traits": ["navy", "army", "colony"]})
    hub.log.close()
    code = CHILD.format(root=ROOT, db=db)
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=dict(os.environ), timeout=120)
        wall = (time.perf_counter() - t0) * 1000
        if p.returncode != 0:
            raise RuntimeError(p.stderr[-2000:])
        rec = json.loads(p.stdout.strip().splitlines()[-1])
        rec["process_ms"] = wall
        out.append(rec)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--fresh", type=int, default=5, help="fresh processes for first frame")
    ap.add_argument("--quick", action="store_true", help="40 rounds, 2 fresh processes")
    a = ap.parse_args(argv)
    if a.quick:
        a.rounds, a.fresh = 40, 2
    tmp = _env()
    from ui.app import configure_window
    configure_window(False, (800, 480))
    print(f"Table screen, Great Powers x4, 800x480, {os.environ.get('SDL_VIDEODRIVER', 'x11')}"
          f" video, {os.cpu_count()} cores")
    for kind in ("memory", "sqlite"):
        touch, phone, refresh = latency(a.rounds, kind, tmp)
        line(f"touch -> updated screen ({kind} log)", touch, GOAL_MS)
        line(f"phone move -> updated screen ({kind} log)", phone, GOAL_MS)
        line(f"refresh of the action screen ({kind} log)", refresh)
    recs = fresh(a.fresh, tmp)
    for key, name in (("first_frame_ms", "first frame (from interpreter start)"),
                      ("build_to_frame_ms", "first frame (after imports)"),
                      ("process_ms", "process start to exit")):
        line(name, [r[key] for r in recs])
    rss = [r["rss_mb"] for r in recs]
    hwm = [r["hwm_mb"] for r in recs]
    print(f"{'RSS after five screens':42} median {statistics.median(rss):7.1f} MB  "
          f"peak (VmHWM) {max(hwm):7.1f} MB  (resumed on screen: {recs[0]['screen']})")


if __name__ == "__main__":
    main()
