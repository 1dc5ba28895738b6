"""What a real `companion run` is made of (issue 15, memory): the main process draws with no
software-rasteriser threads of Mesa's (each cost memory for nothing on this screen), its
children are the mosquitto broker (the default where it is installed) and one device process,
a plain interpreter with no multiprocessing resource tracker beside it; Ctrl-C stops them all.
The figures themselves are in benches/bench_run.py."""
import glob
import os
import signal
import subprocess
import sys
import time

from companion.net.brokers import free_ports

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def children(pid):
    out = []
    for path in glob.glob(f"/proc/{pid}/task/*/children"):
        try:
            out += [int(x) for x in open(path).read().split()]
        except OSError:
            pass
    return out


def cmdline(pid):
    try:
        return open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_companion_run_has_no_rasteriser_threads_and_two_children(tmp_path):
    frame = tmp_path / "frame.json"
    env = dict(os.environ, COMPANION_DB=str(tmp_path / "s.db"), KIVY_HOME=str(tmp_path / "k"),
               SDL_VIDEODRIVER="offscreen", SDL_AUDIODRIVER="dummy", KIVY_NO_ARGS="1",
               KIVY_NO_CONSOLELOG="1", COMPANION_FIRST_FRAME_FILE=str(frame))
    env.pop("LP_NUM_THREADS", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli.main", "run", "--windowed", "--size", "800x480",
         "--hardware", "simulated",
         *[a for flag, port in zip(("--http-port", "--mqtt-port", "--ws-port"), free_ports(3))
           for a in (flag, str(port))]],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not frame.exists():
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "no first frame"
            time.sleep(0.1)
        threads = [open(p).read().strip() for p in glob.glob(f"/proc/{proc.pid}/task/*/comm")]
        assert threads and not [t for t in threads if t.startswith("llvmpipe")], threads
        kids = {k: cmdline(k) for k in children(proc.pid)}
        assert len(kids) == 2, kids
        assert sum("mosquitto" in c for c in kids.values()) == 1, kids
        device = [c for c in kids.values() if "_subprocess_main" in c]
        assert len(device) == 1 and "resource_tracker" not in " ".join(kids.values()), kids
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err                # Ctrl-C's exit status, after a clean stop
    assert all(not os.path.exists(f"/proc/{k}") or "zombie" in open(f"/proc/{k}/status").read()
               .lower() for k in kids), kids
