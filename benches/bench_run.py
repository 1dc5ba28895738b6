"""`companion run` as a whole (issue 7): cold start to the first frame, and the memory of the
whole table (the main process with hub, broker, phone server and screen, plus the device
process), with simulated hardware and the offscreen SDL driver. Goal: <= 200 MB in all.

Each round starts a fresh `companion run` process, waits for its first frame, lets it settle
for a few seconds, reads VmRSS of the process tree from /proc, then stops it with SIGINT.
"""
import json
import os
import pathlib
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _children(pid):
    out = []
    for task in pathlib.Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids = (task / "children").read_text().split()
        except OSError:
            continue
        for k in kids:
            out.append(int(k))
            out.extend(_children(int(k)))
    return out


def _rss_mb(pid):
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def one_run(settle=4.0):
    from companion.net.brokers import free_port
    with tempfile.TemporaryDirectory() as d:
        frame = os.path.join(d, "frame.json")
        env = dict(os.environ, COMPANION_DB=os.path.join(d, "s.db"),
                   KIVY_HOME=os.path.join(d, "kivy"), SDL_VIDEODRIVER="offscreen",
                   SDL_AUDIODRIVER="dummy", KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1",
                   COMPANION_FIRST_FRAME_FILE=frame)
        exe = str(pathlib.Path(sys.executable).with_name("companion"))
        t0 = time.monotonic()
        p = subprocess.Popen([exe, "run", "--windowed", "--size", "800x480",
                              "--hardware", "simulated",
                              "--http-port", str(free_port()), "--mqtt-port", str(free_port()),
                              "--ws-port", str(free_port())],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while not os.path.exists(frame):
                if p.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("companion run did not show a frame")
                time.sleep(0.01)
            time.sleep(0.05)
            first = json.load(open(frame))["monotonic"] - t0
            time.sleep(settle)
            main = _rss_mb(p.pid)
            kids = {k: _rss_mb(k) for k in _children(p.pid)}
        finally:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        return first, main, sum(kids.values()), len(kids)


def main(argv):
    rounds = 2 if "--quick" in argv else 5
    firsts, totals, mains, kidss = [], [], [], []
    for _ in range(rounds):
        first, main_mb, kids_mb, nkids = one_run()
        firsts.append(first)
        mains.append(main_mb)
        kidss.append(kids_mb)
        totals.append(main_mb + kids_mb)
    print(f"companion run, {rounds} cold starts (simulated hardware, offscreen SDL):")
    print(f"  start to first frame: median {statistics.median(firsts):.2f} s, "
          f"max {max(firsts):.2f} s")
    print(f"  memory: main process median {statistics.median(mains):.0f} MB, device process "
          f"(and reader simulator) {statistics.median(kidss):.0f} MB, whole table "
          f"{statistics.median(totals):.0f} MB (goal <= 200 MB: "
          f"{'met' if statistics.median(totals) <= 200 else 'NOT met'})")


if __name__ == "__main__":
    main(sys.argv[1:])
