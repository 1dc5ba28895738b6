"""`companion run` as a whole (issues 7 and 15): cold start to the first frame, and the memory of
the whole table (the main process with hub, bridge, phone server and screen, plus its children:
the device process and, with the default `--broker auto`, mosquitto), with simulated hardware
and the offscreen SDL driver. Goal: <= 200 MB in all.

Each round starts a fresh `companion run` of THIS tree (`python -m companion.cli.main`, run from
the repository root), waits for its first frame, lets it settle, reads every process's
/proc/PID/smaps and sums the resident size (Rss) of its mappings by kind:

- software GL: Mesa's llvmpipe (dri/swrast_dri.so) and what it brings (libLLVM, libGL, EGL,
  glapi, z3, ...). A Pi's GPU driver (V3D) replaces all of it; on a Pi this line is what to
  compare.
- SDL + Kivy + Pillow native code (the wheels' .so files).
- Python and other libraries (libpython, lib-dynload, libc, libcrypto, sqlite, ...).
- malloc heap ([heap]): Python objects over 512 bytes, Kivy's and SDL's C allocations, Mesa's.
- anonymous maps: Python's small-object arenas, thread stacks, GL buffers, big mallocs.

One more round (unless --no-trace) runs under tracemalloc and prints what the Python heap holds
by package (Kivy widgets, our ui, games, net, import machinery = code objects and modules). It
is a separate round because tracing costs memory of its own.

`--broker embedded` (or mosquitto) measures that broker instead of the default auto.
A "before" of 2 rounds (--no-before: none) runs with Mesa's and Kivy's GL defaults (drawing
threads per core, multisampling), the switchable part of the memory work.
Flags: --quick (1 round), --rounds N, --settle S, --no-trace, --no-before, --broker B,
--frame-timeout S (120: how long a start may take to its first frame; the arm64 test box,
an emulated CPU, needs minutes).
"""
import argparse
import collections
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
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benches.figures import record     # noqa: E402

KINDS = ("software GL (llvmpipe, LLVM, GL/EGL)", "SDL + Kivy + Pillow native code",
         "Python and other libraries", "malloc heap ([heap])",
         "anonymous maps (Python arenas, stacks, GL buffers)")
_GL = ("libLLVM", "/dri/", "gallium", "libGL", "libEGL", "glapi", "libz3", "libdrm", "libgbm",
       "libwayland", "libX", "libxcb", "libxml2", "libicu", "libstdc++", "libedit", "libsensors",
       "libelf", "libxshmfence", "libexpat", "libffi", "libtinfo", "libbsd", "libmd")
_KIVY = ("Kivy.libs/", "/kivy/", "pillow.libs/", "/PIL/")

#: The traced round: tracemalloc from the first import, a snapshot after the settle time written
#: as JSON {package: bytes}, then the ordinary `companion run` main.
TRACE_BOOT = r"""
import collections, json, os, sys, threading, time, tracemalloc
tracemalloc.start(1)
sys.path.insert(0, os.getcwd())
def key(f):
    if "site-packages/" in f:
        return f.split("site-packages/")[1].split("/")[0].removesuffix(".py")
    if f.startswith("<frozen importlib"):
        return "import machinery (modules, code objects)"
    root = os.getcwd() + "/"
    if f.startswith(root):
        parts = f[len(root):].split("/")
        return ".".join(p.removesuffix(".py") for p in parts[:2 if parts[0] in ("companion", "ui") else 1])
    return "standard library"
def dump(path, after):
    frame = os.environ["COMPANION_FIRST_FRAME_FILE"]
    while not os.path.exists(frame):
        time.sleep(0.05)
    time.sleep(after)
    by = collections.Counter()
    for st in tracemalloc.take_snapshot().statistics("filename"):
        by[key(st.traceback[0].filename)] += st.size
    with open(path + ".tmp", "w") as f:
        json.dump(dict(by), f)
    os.replace(path + ".tmp", path)
threading.Thread(target=dump, args=(os.environ["BENCH_TRACE_FILE"],
                 float(os.environ["BENCH_SETTLE"])), daemon=True).start()
from companion.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


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


def _kind(path):
    if path == "[heap]":
        return KINDS[3]
    if not path.startswith("/"):
        return KINDS[4]
    if any(s in path for s in _GL):
        return KINDS[0]
    if any(s in path for s in _KIVY):
        return KINDS[1]
    return KINDS[2]


def smaps_split(pid):
    """{kind: MB} of the process's resident memory (Rss), and its total."""
    split = collections.Counter()
    path = None
    try:
        lines = pathlib.Path(f"/proc/{pid}/smaps").read_text().splitlines()
    except OSError:
        return split, 0.0
    for line in lines:
        head = line.split(None, 5)
        if not head:
            continue
        if "-" in head[0] and not head[0].endswith(":"):
            path = head[5].strip() if len(head) > 5 else ""
        elif head[0] == "Rss:":
            split[_kind(path)] += int(head[1]) / 1024
    return split, sum(split.values())


def _name(pid):
    try:
        cmd = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "gone"
    if "mosquitto" in cmd:
        return "mosquitto"
    if "_subprocess_main" in cmd:
        return "device process"
    return cmd[:60]


#: "Before" for the part of the memory work that is a switch: Mesa's default drawing threads
#: (one per core) and Kivy's default multisampling, both of which `companion run` turns off.
BEFORE_ENV = {"LP_NUM_THREADS": str(os.cpu_count() or 1), "KCFG_GRAPHICS_MULTISAMPLES": "2"}


def one_run(settle=4.0, broker="auto", trace=False, extra_env=None, frame_timeout=120.0):
    from companion.net.brokers import free_ports
    with tempfile.TemporaryDirectory() as d:
        frame = os.path.join(d, "frame.json")
        traced = os.path.join(d, "trace.json")
        env = dict(os.environ, COMPANION_DB=os.path.join(d, "s.db"),
                   KIVY_HOME=os.path.join(d, "kivy"), SDL_VIDEODRIVER="offscreen",
                   SDL_AUDIODRIVER="dummy", KIVY_NO_ARGS="1", KIVY_NO_CONSOLELOG="1",
                   COMPANION_FIRST_FRAME_FILE=frame, BENCH_TRACE_FILE=traced,
                   BENCH_SETTLE=str(settle), **(extra_env or {}))
        args = ["run", "--windowed", "--size", "800x480", "--hardware", "simulated",
                "--broker", broker]
        for flag, port in zip(("--http-port", "--mqtt-port", "--ws-port"), free_ports(3)):
            args += [flag, str(port)]
        head = [sys.executable, "-c", TRACE_BOOT] if trace else \
            [sys.executable, "-m", "companion.cli.main"]
        t0 = time.monotonic()
        p = subprocess.Popen(head + args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + frame_timeout
            while not os.path.exists(frame):
                if p.poll() is not None or time.monotonic() > deadline:
                    why = p.stderr.read() if p.poll() is not None else \
                        f"none within {frame_timeout:.0f} s (--frame-timeout)"
                    raise RuntimeError(f"companion run did not show a frame: {why}")
                time.sleep(0.01)
            time.sleep(0.05)
            first = json.load(open(frame))["monotonic"] - t0
            if trace:
                while not os.path.exists(traced) and time.monotonic() < deadline + 120:
                    time.sleep(0.1)
                result = {k: v / 2 ** 20 for k, v in json.load(open(traced)).items()}
            else:
                time.sleep(settle)
                main_split, main_total = smaps_split(p.pid)
                kids = {}
                for k in _children(p.pid):
                    kids[f"{_name(k)} ({k})"] = smaps_split(k)[1]
                result = first, main_split, main_total, kids
        finally:
            p.send_signal(signal.SIGINT)
            try:
                p.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.communicate()
        return result


def measure(rounds=3, settle=4.0, broker="auto", extra_env=None, frame_timeout=120.0):
    """The medians of ``rounds`` cold starts: a dict for the report."""
    firsts, totals, mains, splits, kids = [], [], [], [], collections.defaultdict(list)
    for _ in range(rounds):
        first, split, main_mb, children = one_run(settle, broker, extra_env=extra_env,
                                                  frame_timeout=frame_timeout)
        firsts.append(first)
        mains.append(main_mb)
        splits.append(split)
        for name, mb in children.items():
            kids[name.split(" (")[0]].append(mb)
        totals.append(main_mb + sum(children.values()))
    med = statistics.median
    return {"broker": broker, "rounds": rounds, "first_frame_s": med(firsts),
            "first_frame_max_s": max(firsts), "total_mb": med(totals), "totals": totals,
            "main_mb": med(mains), "main_split": {k: med([s[k] for s in splits]) for k in KINDS},
            "children_mb": {k: med(v) for k, v in kids.items()}}


def report(m, title=""):
    ok = "met" if m["total_mb"] <= 200 else "NOT met"
    print(f"companion run --broker {m['broker']}{title}, {m['rounds']} cold start(s), "
          f"simulated hardware, offscreen SDL, Home screen settled:")
    print(f"  start to first frame: median {m['first_frame_s']:.2f} s, "
          f"max {m['first_frame_max_s']:.2f} s")
    print(f"  whole table (Rss, main + children): median {m['total_mb']:.0f} MB "
          f"(rounds: {', '.join(f'{t:.0f}' for t in m['totals'])}; goal <= 200 MB: {ok})")
    print(f"    main process {m['main_mb']:6.1f} MB")
    for k in KINDS:
        print(f"      {m['main_split'][k]:6.1f} MB  {k}")
    for name, mb in sorted(m["children_mb"].items()):
        print(f"    {name:12} {mb:6.1f} MB")


def report_trace(by):
    total = sum(by.values())
    print(f"  Python heap of the main process (tracemalloc, one traced round): {total:.1f} MB")
    groups = collections.Counter()
    for k, v in by.items():
        groups[k if v >= 0.25 else "(others under 0.25 MB each)"] += v
    for k, v in groups.most_common():
        print(f"      {v:6.2f} MB  {k}")


def main(argv):
    ap = argparse.ArgumentParser(prog="bench_run")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--settle", type=float, default=4.0)
    ap.add_argument("--broker", default="auto")
    ap.add_argument("--no-trace", action="store_true")
    ap.add_argument("--no-before", action="store_true")
    ap.add_argument("--frame-timeout", type=float, default=120.0)
    a, _ = ap.parse_known_args(argv)
    rounds = a.rounds or (1 if a.quick else 3)
    after = measure(rounds, a.settle, a.broker, frame_timeout=a.frame_timeout)
    report(after)
    record(("memory",), after)
    if not a.no_before:
        before = measure(1 if a.quick else 2, a.settle, a.broker, BEFORE_ENV,
                         frame_timeout=a.frame_timeout)
        switches = ", ".join(f"{k}={v}" for k, v in BEFORE_ENV.items())
        report(before, f" with Mesa's and Kivy's GL defaults ({switches}: before)")
        record(("memory", "before"), before)
        print(f"  before / after: {before['total_mb'] / after['total_mb']:.2f}x "
              f"({before['total_mb']:.0f} -> {after['total_mb']:.0f} MB)")
    if not a.no_trace:
        report_trace(one_run(a.settle, a.broker, trace=True))


if __name__ == "__main__":
    main(sys.argv[1:])
