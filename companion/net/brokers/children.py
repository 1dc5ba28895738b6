"""mosquitto children that die with the table: each child is forked by one long-lived thread with
``PR_SET_PDEATHSIG`` (Linux), noted by port in a pid folder, stopped at exit, and an orphan left
by a killed table is reaped at the next start on its port.
"""
from __future__ import annotations

import atexit
import concurrent.futures
import logging
import os
from pathlib import Path
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref

from .. import credentials as cred

log = logging.getLogger(__name__)

PROBE_USER = "_probe"     # internal: not a valid seat id, so it can never be a seat

_LIVE_CHILDREN: weakref.WeakSet = weakref.WeakSet()     # the MosquittoBrokers running


def _pid_dir() -> Path:
    """Where each running mosquitto child of this user is noted, by TCP port (see
    :func:`_reap_orphan`)."""
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    return Path(base) / f"tc-mosquitto-pids-{os.getuid()}"


def _note_child(port: int, pid: int, run_dir: Path) -> None:
    d = _pid_dir()
    d.mkdir(mode=0o700, exist_ok=True)
    cred.write_private_file(d / f"{port}.pid", f"{pid}\n{run_dir}\n")


def _forget_child(port: int, pid: int) -> None:
    f = _pid_dir() / f"{port}.pid"
    try:
        if f.read_text().split("\n")[0] == str(pid):
            f.unlink()
    except (OSError, IndexError):
        pass


def _reap_orphan(port: int, wait: float = 5.0) -> bool:
    """Stop the mosquitto a killed hub left running on ``port``.

    A hub killed outright (SIGKILL, the OOM killer, a crash) cannot stop its mosquitto child,
    which runs in a session of its own: it keeps the ports and the old logins, and the next
    start's probe login is refused by it. Each child is noted by port with its pid and run
    directory; at the next start on that port, a process that is still that mosquitto (its
    command line names the noted run directory) is sent SIGTERM (SIGKILL after ``wait``) and
    its run directory removed. True if one was stopped."""
    f = _pid_dir() / f"{port}.pid"
    try:
        pid_text, run_dir = f.read_text().split("\n")[:2]
        pid = int(pid_text)
    except (OSError, ValueError):
        return False
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        cmd = ""
    stopped = False
    if run_dir and "mosquitto" in cmd and run_dir in cmd:
        log.warning("stopping mosquitto pid %s left on port %s by a hub that did not stop it",
                    pid, port)
        for sig, until in ((signal.SIGTERM, wait), (signal.SIGKILL, wait)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + until
            while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            if not Path(f"/proc/{pid}").exists():
                break
        stopped = True
        if Path(run_dir).name.startswith("tc-mosquitto-"):
            shutil.rmtree(run_dir, ignore_errors=True)
    try:
        f.unlink()
    except OSError:
        pass
    return stopped


@atexit.register
def _stop_children_at_exit():
    """A hub that exits without calling stop() must not leave mosquitto holding its ports."""
    for b in list(_LIVE_CHILDREN):
        try:
            b.stop()
        except Exception:
            pass


#: Ask the kernel to SIGTERM each mosquitto child when the table dies, however it dies (Linux
#: only; elsewhere :func:`_reap_orphan` at the next start is the only defence).
DIE_WITH_PARENT = sys.platform.startswith("linux")
_PR_SET_PDEATHSIG = 1
_libc = None


def _prctl():
    """libc's prctl, loaded in the parent (nothing is loaded between fork and exec)."""
    global _libc
    if _libc is None:
        import ctypes
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc.prctl


def _die_with(parent_pid: int, prctl):
    """A ``preexec_fn``: in the child, after fork and before exec, ask for SIGTERM when the
    parent dies; if it died already (between the fork and here), go at once."""
    def preexec():
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent_pid:
            os._exit(1)
    return preexec


class _Spawner:
    """Every mosquitto child is forked by this one long-lived thread. The kernel sends the
    parent-death signal when the *thread* that forked the child ends, not the process: a child
    forked by the thread that called ``start()`` (a short-lived worker, say) or by a
    supervisor that gives up would be stopped with that thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self._jobs: "queue.SimpleQueue" = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def popen(self, args, **kw) -> subprocess.Popen:
        if not DIE_WITH_PARENT:
            return subprocess.Popen(args, **kw)
        kw["preexec_fn"] = _die_with(os.getpid(), _prctl())
        with self._lock:                    # (a forked copy of this process has no thread)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, daemon=True,
                                                name="tc-child-spawner")
                self._thread.start()
        job = concurrent.futures.Future()
        self._jobs.put((job, args, kw))
        return job.result()

    def _serve(self):
        while True:
            job, args, kw = self._jobs.get()
            try:
                job.set_result(subprocess.Popen(args, **kw))
            except BaseException as e:      # the caller raises it
                job.set_exception(e)


_SPAWNER = _Spawner()
