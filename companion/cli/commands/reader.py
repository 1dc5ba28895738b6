"""``companion reader flash``: put this checkout's card-reader firmware on the Pico.

Copies the files the Pico runs (``main.py`` and the ``firmware`` modules it imports, found by
reading the imports, never the PC-side fakes) onto a Raspberry Pi Pico that already runs
MicroPython, with mpremote; checks every copy by its SHA-256 on the board, resets the board
and waits for the reader's hello with this firmware's version. The port is ``--port``, else
the first USB serial port with 2E8A:0005 (MicroPython on a Pico). A reader already running
our firmware ignores Ctrl-C after its first seconds: flash then asks for a press of BOOTSEL
or a replug, and waits for it. ``--dry-run`` shows the files and commands and touches nothing.
"""
import argparse
import ast
import hashlib
import importlib.util
import logging
import os
import pathlib
import subprocess
import sys
import time

from companion.core.errors import CompanionError

PICO_MICROPYTHON = (0x2E8A, 0x0005)
# A Pico with its BOOTSEL button held at power-on: a USB drive, no serial port.
BOOTSEL_IDS = {(0x2E8A, 0x0003): ("Pico (RP2040)", "RPI-RP2"),
               (0x2E8A, 0x000F): ("Pico 2 (RP2350)", "RP2350")}
SYSFS_USB = "/sys/bus/usb/devices"
SERVICE = "table-companion"
MPREMOTE = "mpremote"             # the module run as ``python -m mpremote``
# The MicroPython release the firmware is meant for (docs/firmware.md names the UF2).
MICROPYTHON_RELEASE = "1.28.0"
UF2_NAME = "RPI_PICO-20260406-v1.28.0.uf2"
BOARD_INFO_TAG = "TC-BOARD"
SUM_TAG = "TC-SUM"
COPY_TIMEOUT = 300                # s, the whole mpremote copy (a few seconds on a Pico)
RESET_TIMEOUT = 60
HELLO_TIMEOUT = 20.0              # s from the reset to the new firmware's hello


class FlashError(CompanionError):
    """The reader could not be flashed; the message says why and what to do."""


# -- what goes on the board ------------------------------------------------------------------

def firmware_dir() -> pathlib.Path:
    import firmware
    return pathlib.Path(firmware.__file__).resolve().parent


def _imported_modules(path: pathlib.Path, package: str):
    """Dotted names ``path`` imports that start with ``package`` (anywhere in the file: inside
    functions and ``try`` blocks too, since the board may take any branch)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    inside = path.parent.name == package and path.name != "main.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                if not inside or node.level > 1:
                    continue
                base = package + ("." + base if base else "")
            yield base
            for alias in node.names:
                yield base + "." + alias.name


def board_files(src=None):
    """``[(local path, path on the board)]``: ``main.py`` (to ``main.py``) and the closure of
    the package modules it imports (to ``firmware/<name>.py``); ``main.py`` comes last, so a
    copy cut short never boots a new ``main.py`` on old modules."""
    src = pathlib.Path(src) if src else firmware_dir()
    package = src.name
    main = src / "main.py"
    if not main.exists():
        raise FlashError(f"{main} is missing: this checkout has no reader firmware to copy.")
    seen, todo = set(), [main]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for name in _imported_modules(path, package):
            parts = name.split(".")
            if parts[0] != package:
                continue
            todo.append(src / "__init__.py")     # a submodule's import runs the package first
            if len(parts) > 1 and (src / (parts[1] + ".py")).exists():
                todo.append(src / (parts[1] + ".py"))
    modules = sorted(p for p in seen if p != main)
    return [(p, f"{package}/{p.name}") for p in modules] + [(main, "main.py")]


def firmware_version(src=None) -> str:
    """FW_VERSION as written in the ``version.py`` that will be copied."""
    src = pathlib.Path(src) if src else firmware_dir()
    tree = ast.parse((src / "version.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and getattr(node.targets[0], "id", None) == "FW_VERSION"):
            return ast.literal_eval(node.value)
    raise FlashError(f"{src / 'version.py'} sets no FW_VERSION.")


def sha256_file(path) -> str:
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


# -- where the board is ----------------------------------------------------------------------

def usb_ids(sysfs=SYSFS_USB):
    """``[(vid, pid)]`` of the USB devices plugged in, from sysfs (``idVendor``/``idProduct``)."""
    out = []
    try:
        entries = sorted(os.listdir(sysfs))
    except OSError:
        return out
    for name in entries:
        d = os.path.join(sysfs, name)
        try:
            with open(os.path.join(d, "idVendor")) as f:
                vid = int(f.read().strip(), 16)
            with open(os.path.join(d, "idProduct")) as f:
                pid = int(f.read().strip(), 16)
        except (OSError, ValueError):
            continue
        out.append((vid, pid))
    return out


def bootsel_board(sysfs=SYSFS_USB):
    """``(board, drive label)`` of a Pico waiting in BOOTSEL mode, or None."""
    for ids in usb_ids(sysfs):
        if ids in BOOTSEL_IDS:
            return BOOTSEL_IDS[ids]
    return None


def _bootsel_error(found):
    board, drive = found
    first = (f"copy {UF2_NAME} (docs/firmware.md says where from) onto the {drive} drive"
             if drive == "RPI-RP2" else
             f"copy MicroPython's RPI_PICO2 build of release {MICROPYTHON_RELEASE} onto the "
             f"{drive} drive")
    return FlashError(f"The {board} is in BOOTSEL mode (its {drive} USB drive is showing), so it "
                      f"has no MicroPython to copy files to: {first}, wait for the drive to "
                      "close and the board to restart, then run this again.")


def find_port(port=None, sysfs=SYSFS_USB, comports=None):
    """The serial port to flash: ``port`` if it exists, else the first 2E8A:0005 port."""
    if port:
        if "://" in port or os.path.exists(port):
            return port
        found = bootsel_board(sysfs)
        if found:
            raise _bootsel_error(found)
        raise FlashError(f"There is no serial port {port}: check the reader's USB cable, or "
                         "leave out --port to find the Pico by its USB id 2E8A:0005.")
    from hardware.reader import find_reader_port
    dev = find_reader_port(PICO_MICROPYTHON, comports)
    if dev:
        return dev
    found = bootsel_board(sysfs)
    if found:
        raise _bootsel_error(found)
    raise FlashError("No reader found: no USB serial port with 2E8A:0005 (MicroPython on a "
                     "Pico); plug the reader in (a Pico with MicroPython on it), or name its "
                     "port with --port.")


# -- who else has the port -------------------------------------------------------------------

def _cmdline(pid, proc):
    try:
        with open(os.path.join(proc, str(pid), "cmdline"), "rb") as f:
            raw = f.read()
    except OSError:
        return ""
    return " ".join(a.decode(errors="replace") for a in raw.split(b"\0") if a)


def _is_table(cmd):
    words = cmd.split()
    return any(os.path.basename(w) in ("companion", "table-companion") for w in words) and \
        any(w in ("run", "serve") for w in words)


def port_users(port, proc="/proc", me=None):
    """``[(pid, command line, sure)]`` of the other processes that have ``port`` open.

    Read from ``/proc/*/fd``. A process whose descriptors cannot be read (another user's, when
    not root) counts, as not ``sure``, when its command line is the table's (``companion run``
    or ``serve``): the table keeps its reader open while it runs."""
    me = os.getpid() if me is None else me
    target = os.path.realpath(port)
    try:
        want = os.stat(target).st_rdev
    except OSError:
        want = None
    out = []
    try:
        pids = sorted(int(p) for p in os.listdir(proc) if p.isdigit())
    except OSError:
        return out
    for pid in pids:
        if pid == me:
            continue
        fd_dir = os.path.join(proc, str(pid), "fd")
        try:
            fds = os.listdir(fd_dir)
        except PermissionError:
            cmd = _cmdline(pid, proc)
            if _is_table(cmd):
                out.append((pid, cmd, False))
            continue
        except OSError:          # gone meanwhile
            continue
        for fd in fds:
            try:
                link = os.readlink(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if not link.startswith("/dev/"):
                continue
            hit = link == target
            if not hit and want is not None:
                try:
                    hit = os.stat(link).st_rdev == want
                except OSError:
                    hit = False
            if hit:
                out.append((pid, _cmdline(pid, proc), True))
                break
    return out


def check_port_free(port, proc="/proc"):
    users = port_users(port, proc)
    if not users:
        return
    pid, cmd, _sure = users[0]
    if any(_is_table(c) for _, c, _ in users):
        raise FlashError(f"The table is using the reader on {port} (process {pid}); stop it "
                         f"(sudo systemctl stop {SERVICE}) and run this again.")
    name = os.path.basename(cmd.split()[0]) if cmd else "another program"
    raise FlashError(f"{name} (process {pid}) has the reader's port {port} open; close it and "
                     "run this again.")


# -- getting the board's prompt ---------------------------------------------------------------

class _Line:
    """The port opened for a moment, speaking the reader protocol or the REPL."""

    def __init__(self, port):
        import serial
        try:
            self.ser = serial.serial_for_url(port, baudrate=115200, timeout=0.05,
                                             write_timeout=1.0)
        except (serial.SerialException, OSError, ValueError) as e:
            hint = ("; run this as a user in the dialout group, or with sudo"
                    if "ermission denied" in str(e) else "")
            raise FlashError(f"The reader's port {port} cannot be opened ({e}){hint}.") from None
        from firmware import protocol
        self.protocol = protocol
        self.decoder = protocol.Decoder()
        self.text = b""
        self.frames = []

    def write(self, data):
        self.ser.write(data)

    def read(self):
        """Bytes waiting (a few ms' worth); OSError/SerialException when the port went away."""
        data = self.ser.read(4096)
        if data:
            self.text = (self.text + data)[-4096:]
            for item in self.decoder.feed(data):
                # (a friendly REPL echoes our own ``who``: that is not the firmware talking)
                if isinstance(item, self.protocol.Frame) and item.kind != self.protocol.WHO:
                    self.frames.append(item)
        return data

    def prompt(self):
        return b">>> " in self.text or b"KeyboardInterrupt" in self.text \
            or b"raw REPL; CTRL-B to exit" in self.text

    def close(self):
        try:
            self.ser.close()
        except Exception:
            pass


def _serial_errors():
    import serial
    return (serial.SerialException, OSError)


def listen(port, seconds=1.5):
    """Ask whoever is on ``port`` for a hello, then try Ctrl-C.

    Returns ``(state, fw)``: ``"prompt"`` (a REPL answered: go ahead), ``"firmware"`` (our
    firmware answers frames and ignores Ctrl-C) or ``"silent"`` (nothing we know answered).
    ``fw`` is the firmware version its hello gave, if any."""
    from firmware import protocol
    line = _Line(port)
    try:
        line.write(protocol.encode(protocol.WHO, 0, {}))
        end = time.monotonic() + seconds
        while time.monotonic() < end and not line.frames:
            line.read()
        fw = next((f.body.get("fw") for f in line.frames if f.kind == protocol.HELLO), None)
        if _interrupt(line, 1.0):
            return "prompt", fw
        return ("firmware" if line.frames else "silent"), fw
    finally:
        line.close()


def _interrupt(line, seconds):
    """Send Ctrl-C every 50 ms for up to ``seconds`` until the REPL shows its prompt."""
    line.text = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        line.write(b"\r\x03")
        line.read()
        if line.prompt():
            return True
    return False


def _port_back(port, fixed, wait_until, sysfs):
    """Wait for the port to come back after an unplug; its path, or None at the deadline."""
    while time.monotonic() < wait_until:
        try:
            return find_port(port if fixed else None, sysfs)
        except FlashError:
            time.sleep(0.05)
    return None


def take_over(port, fixed, say, wait=60.0, sysfs=SYSFS_USB):
    """Get the board's REPL from our running firmware: the port to copy to.

    Our firmware turns Ctrl-C into data once it has run GRACE_MS (firmware/main.py), so that
    noise on the line cannot stop a reader. Two ways back: BOOTSEL pressed briefly (main.py
    stops and gives the REPL back), or a replug (we Ctrl-C it at once, inside the grace)."""
    state, fw = listen(port)
    if state != "firmware":
        return port
    say(f"The reader is running firmware {fw or '(version unknown)'}, which ignores Ctrl-C "
        "once it has run 3 s: press its BOOTSEL button briefly, or unplug it and plug it back "
        f"in (waiting {wait:g} s).")
    deadline = time.monotonic() + wait
    errors = _serial_errors()
    while time.monotonic() < deadline:
        try:
            line = _Line(port)
        except FlashError:                        # gone this moment: unplugged
            line = None
        try:
            if line is None:
                raise OSError("unplugged")
            last_frame = time.monotonic()
            seen = 0
            while time.monotonic() < deadline:
                line.read()
                if line.prompt():
                    return port                   # BOOTSEL: main.py gave the REPL back
                if len(line.frames) != seen:
                    seen, last_frame = len(line.frames), time.monotonic()
                elif time.monotonic() - last_frame > 2.5:
                    if _interrupt(line, 1.0):      # quiet: main.py has stopped
                        return port
                    last_frame = time.monotonic()
        except errors:
            pass                                  # unplugged
        finally:
            if line is not None:
                line.close()
        back = _port_back(port, fixed, deadline, sysfs)
        if back is None:
            break
        port = back
        line = None
        try:
            line = _Line(port)
            if _interrupt(line, 3.0):
                return port
        except (FlashError,) + errors:
            pass
        finally:
            if line is not None:
                line.close()
        say("The reader was not caught in its first 3 s; unplug it and plug it back in again, "
            "or press BOOTSEL briefly.")
    raise FlashError(f"The reader kept running its firmware for {wait:g} s: press its BOOTSEL "
                     "button briefly (or unplug it and plug it back in) while this waits, "
                     "then it is flashed.")


# -- mpremote --------------------------------------------------------------------------------

def mpremote_missing():
    """A sentence if mpremote cannot be run from this Python, else None."""
    try:
        found = importlib.util.find_spec(MPREMOTE)
    except (ImportError, ValueError):
        found = None
    if found is None:
        return (f"mpremote (MicroPython's own tool) is not installed for {sys.executable}: "
                f"install it with `{sys.executable} -m pip install mpremote` and run this again.")
    return None


BOARD_INFO = (
    "import sys\n"
    "v = sys.implementation.version\n"
    "print('%s %d.%d.%d%s|%s' % ('" + BOARD_INFO_TAG + "', v[0], v[1], v[2], "
    "('-' + v[3]) if len(v) > 3 and v[3] else '', getattr(sys.implementation, '_machine', '')))\n")
MKDIR = ("import os\n"
         "try:\n"
         " os.mkdir('firmware')\n"
         "except OSError:\n"
         " pass\n")


def sums_code(remote_paths):
    """Board-side code printing ``TC-SUM <path> <sha256 hex or ->`` for each file."""
    return ("import hashlib, binascii\n"
            "for p in %r:\n"
            " try:\n"
            "  f = open(p, 'rb')\n"
            " except OSError:\n"
            "  print('%s', p, '-')\n"
            "  continue\n"
            " h = hashlib.sha256()\n"
            " while True:\n"
            "  b = f.read(512)\n"
            "  if not b:\n"
            "   break\n"
            "  h.update(b)\n"
            " f.close()\n"
            " print('%s', p, binascii.hexlify(h.digest()).decode())\n"
            % (tuple(remote_paths), SUM_TAG, SUM_TAG))


def mpremote_base(port):
    return [sys.executable, "-m", MPREMOTE, "connect", port]


def copy_command(port, files):
    """One mpremote run: what the board runs, ``firmware/``, the modules, ``main.py`` last,
    then the SHA-256 of every copied file as the board reads it back. Remote paths are
    relative: the board's working directory is ``/`` after mpremote's soft reset."""
    modules = [str(local) for local, remote in files if remote != "main.py"]
    main = [str(local) for local, remote in files if remote == "main.py"]
    cmd = mpremote_base(port) + ["exec", BOARD_INFO, "+", "exec", MKDIR]
    if modules:
        cmd += ["+", "cp"] + modules + [":firmware/"]
    cmd += ["+", "cp"] + main + [":main.py"]
    cmd += ["+", "exec", sums_code([remote for _, remote in files])]
    return cmd


def reset_command(port):
    return mpremote_base(port) + ["reset"]


def _last_line(text):
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def _run(cmd, timeout, what):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise FlashError(f"{what} took over {timeout} s and was stopped; unplug the reader, "
                         "plug it back in and run this again.") from None


def parse_copy_output(stdout):
    """``(board text or None, {remote path: sha256 or '-'})`` from the copy run's output."""
    board, sums = None, {}
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith(BOARD_INFO_TAG + " "):
            board = line[len(BOARD_INFO_TAG) + 1:]
        elif line.startswith(SUM_TAG + " "):
            parts = line.split()
            if len(parts) == 3:
                sums[parts[1]] = parts[2]
    return board, sums


def copy_files(port, files, say):
    """Copy with mpremote and check every file's SHA-256 on the board; the board's text."""
    proc = _run(copy_command(port, files), COPY_TIMEOUT, "Copying the firmware")
    board, sums = parse_copy_output(proc.stdout)
    if proc.returncode != 0:
        why = _last_line(proc.stderr) or _last_line(proc.stdout) or f"exit {proc.returncode}"
        if "raw repl" in why.lower():
            raise FlashError(f"Copying the firmware failed: the board on {port} did not give "
                             f"mpremote its prompt ({why}); unplug it, plug it back in and run "
                             "this again.")
        raise FlashError(f"Copying the firmware to {port} failed: {why}.")
    bad = [remote for local, remote in files if sums.get(remote) != sha256_file(local)]
    if bad:
        raise FlashError(f"Copying the firmware failed: {', '.join(bad)} on the board does not "
                         "match this checkout's copy; run this again.")
    return board


def reset_board(port):
    proc = _run(reset_command(port), RESET_TIMEOUT, "Resetting the reader")
    if proc.returncode != 0:
        why = _last_line(proc.stderr) or f"exit {proc.returncode}"
        raise FlashError(f"The firmware was copied but resetting the reader failed ({why}); "
                         "unplug it and plug it back in.")


def await_hello(port, fixed, expected, timeout=HELLO_TIMEOUT):
    """The reader's hello after the reset (the port may come back under another name when it
    was found by USB id); FlashError unless it gives ``expected``."""
    from hardware.reader import probe
    # The old port vanishing at the reset and the board's missing parts are expected here.
    log = logging.getLogger("hardware.reader")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        hello = probe(port if fixed else None, PICO_MICROPYTHON, timeout=timeout)
    finally:
        log.setLevel(level)
    if hello is None:
        raise FlashError(f"The firmware was copied, but the reader did not say hello within "
                         f"{timeout:g} s of its reset; unplug it, plug it back in and check with "
                         "`companion doctor`.")
    if hello.firmware != expected:
        raise FlashError(f"The reader answers with firmware {hello.firmware}, not {expected}: "
                         "the copy did not take; run this again.")
    return hello


# -- the command ------------------------------------------------------------------------------

def register(subparsers):
    p = subparsers.add_parser("reader", help="the card reader: flash our firmware onto it",
                              description="The card reader (a Raspberry Pi Pico).")
    sub = p.add_subparsers(dest="reader_command", metavar="ACTION")
    f = sub.add_parser("flash", help="copy this firmware onto the Pico, reset it, check it",
                       description=__doc__.split("\n\n")[1])
    f.add_argument("--port", metavar="PORT",
                   help="the reader's serial port (default: the first with USB id 2E8A:0005)")
    f.add_argument("--dry-run", action="store_true",
                   help="show the files and the mpremote commands; change nothing")
    f.add_argument("--wait", type=float, default=60.0, metavar="SECONDS",
                   help="how long to wait for BOOTSEL or a replug when the reader is running "
                        "its firmware (default 60)")
    # Where USB devices are listed (a fake listing in tests).
    f.add_argument("--usb-sysfs", default=SYSFS_USB, help=argparse.SUPPRESS)
    f.set_defaults(func=run_flash)

    def usage(args):
        p.print_help()
        return 2
    p.set_defaults(func=usage)


def dry_run(args, files, version):
    say = print
    src = files[-1][0].parent
    say(f"reader flash (dry run): firmware {version}, {len(files)} files from {src}")
    for local, remote in files:
        say(f"  {local.name:<12} -> :{remote:<22} {local.stat().st_size:>6} bytes  "
            f"sha256 {sha256_file(local)[:16]}")
    try:
        port = find_port(args.port, args.usb_sysfs)
        where = port if args.port else f"{port} (USB 2E8A:0005)"
    except FlashError as e:
        port, where = args.port or "PORT", f"none now ({e})"
    say(f"port: {where}")
    missing = mpremote_missing()
    if missing:
        say(f"note: {missing}")
    say("would run:")
    import shlex
    for cmd in (copy_command(port, files), reset_command(port)):
        shown = [a if "\n" not in a else "<" + a.split("\n", 1)[0] + " ...>" for a in cmd]
        say("  " + shlex.join(shown))
    say(f"then wait for the reader's hello and check it says firmware {version}.")
    return 0


def run_flash(args, say=None) -> int:
    files = board_files()
    version = firmware_version(files[-1][0].parent)
    if args.dry_run:
        return dry_run(args, files, version)
    if say is None:
        def say(text):
            print(text, flush=True)

    missing = mpremote_missing()
    if missing:
        raise FlashError(missing)
    fixed = bool(args.port)
    port = find_port(args.port, args.usb_sysfs)
    check_port_free(port)
    port = take_over(port, fixed, say, args.wait, args.usb_sysfs)
    say(f"Copying firmware {version} ({len(files)} files) to {port} ...")
    board = copy_files(port, files, say)
    if board:
        release, _, machine = board.partition("|")
        say(f"The board runs MicroPython {release}" + (f" ({machine})." if machine else "."))
        if release != MICROPYTHON_RELEASE:
            say(f"note: the firmware is meant for MicroPython {MICROPYTHON_RELEASE} "
                f"({UF2_NAME}, docs/firmware.md); it may still work on {release}.")
    say("Copied and checked; resetting the reader ...")
    reset_board(port)
    hello = await_hello(port, fixed, version)
    say(f"The reader on {hello.port} answers with firmware {hello.firmware}: done.")
    return 0
