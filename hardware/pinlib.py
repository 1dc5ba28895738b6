"""Which pin library drives the GPIO, and why: :func:`open_pin_library`.

Runs in the device process (and ``companion doctor``); it imports gpiozero only inside its
functions, so the parent (UI) process may import this module for :func:`revision_override`.

The order, on real hardware:

1. **lgpio** (gpiozero's ``LGPIOFactory``), tried explicitly first: it talks to the kernel's
   ``/dev/gpiochip*`` character devices, has PWM on every pin (the RGB light needs it), and knows
   a Pi 5 (gpiochip4 where the kernel still numbers the RP1 chip so, else gpiochip0).
2. then gpiozero's own order after it: **RPi.GPIO**, **pigpio** (needs its daemon), and
   gpiozero's **native** pins (pure Python, no PWM, and no Pi 5).

``GPIOZERO_PIN_FACTORY`` set: that library alone (the person who set it chose). gpiozero's Pi
libraries find the board from ``/proc/device-tree`` or ``/proc/cpuinfo``; a board that has
neither (a QEMU stand-in) is named by ``GPIOZERO_PI_REVISION`` (a revision code in hex, such as
``c03114`` for a Pi 4 Model B): gpiozero 2.0 has no such variable, so this module applies it to
the factory it makes.

lgpio makes a notification pipe (``.lgd-nfy0``) when it is imported, in the current directory
unless ``LG_WD`` names another (and then changes the process's directory to that one): a
service started in ``/`` as a system user cannot write there and the import fails; a table
started in a checkout leaves the pipe in it. Unless ``LG_WD`` is set, it is pointed at a fresh
directory of the process's own (:func:`_lgpio_workdir`), and the current directory is restored
after the import.
"""
import atexit
import dataclasses
import glob
import importlib
import os
import shutil
import tempfile
import warnings

from hardware.errors import HardwareError

LGPIO_INSTALL = "pip install 'lgpio>=0.2.2.0'"
REVISION_ENV = "GPIOZERO_PI_REVISION"
FACTORY_ENV = "GPIOZERO_PIN_FACTORY"
LG_WD_ENV = "LG_WD"

#: name -> (module, class, what to call it in a sentence)
LIBRARIES = {
    "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory", "lgpio"),
    "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory", "RPi.GPIO"),
    "pigpio": ("gpiozero.pins.pigpio", "PiGPIOFactory", "pigpio"),
    "native": ("gpiozero.pins.native", "NativeFactory", "gpiozero's native pins"),
}
ORDER = ("lgpio", "rpigpio", "pigpio", "native")
_BY_CLASS = {cls: name for name, (_, cls, _) in LIBRARIES.items()} | {"MockFactory": "mock"}
_LABELS = {name: label for name, (_, _, label) in LIBRARIES.items()} | {
    "mock": "gpiozero's mock pins"}


class PinLibraryError(HardwareError, ValueError):
    """A setting that chooses the pin library is wrong (``GPIOZERO_PI_REVISION``)."""


@dataclasses.dataclass
class PinLibrary:
    """What :func:`open_pin_library` found. ``factory`` is None when no library could open the
    GPIO; then ``problem`` is the sentence for the screen."""
    factory: object = None
    name: str | None = None        # "lgpio", "rpigpio", "pigpio", "native", "mock"
    where: str = ""                # "lgpio on /dev/gpiochip0 (Raspberry Pi 4B rev 1.4)"
    why: str = ""                  # why this one
    skipped: list = dataclasses.field(default_factory=list)   # [(name, reason)] tried before
    problem: str | None = None

    def pwm_fix(self) -> str:
        """What to do about a part that needs PWM on this library: install lgpio, or, when
        lgpio is there but could not be used, why not (a clause for a sentence)."""
        lgpio = dict(self.skipped).get("lgpio")
        if lgpio and not lgpio.startswith("lgpio is not installed"):
            return f"lgpio has PWM but could not be used: {lgpio}"
        return f"install lgpio ({LGPIO_INSTALL})"

    def summary(self) -> dict:
        """Plain data for the parent (``link.status()["pin_library"]``) and the doctor."""
        return {"name": self.name, "factory": type(self.factory).__name__ if self.factory
                is not None else None, "where": self.where, "why": self.why,
                "skipped": [list(s) for s in self.skipped], "problem": self.problem}


def library_name(factory) -> str | None:
    """``"lgpio"``, ``"native"``, ``"mock"``... for a gpiozero pin factory (or a subclass)."""
    for cls in type(factory).__mro__:
        if cls.__name__ in _BY_CLASS:
            return _BY_CLASS[cls.__name__]
    return None


def library_label(factory) -> str:
    """The pin library of ``factory`` in words, for a sentence."""
    name = library_name(factory)
    return _LABELS.get(name, type(factory).__name__)


def revision_override(env=None) -> int | None:
    """The board revision named by ``GPIOZERO_PI_REVISION`` (None if unset). Raises
    :class:`PinLibraryError` for a value that is not a hex revision code."""
    env = os.environ if env is None else env
    text = (env.get(REVISION_ENV) or "").strip()
    if not text:
        return None
    digits = text.lower().removeprefix("0x")
    try:
        value = int(digits, 16)
    except ValueError:
        value = -1
    if value <= 0:
        raise PinLibraryError(f"{REVISION_ENV}={text!r} is not a Raspberry Pi revision code "
                              f"(hex, such as c03114 for a Pi 4 Model B).")
    return value


def _lgpio_workdir(env):
    """Give lgpio's notification pipe a directory of this process's own unless ``LG_WD`` is
    set: lgpio names the pipe by a handle number that starts at 0 in every process, so two
    processes in one directory (the table and ``companion doctor``) would read each other's
    button edges. Made in the service's runtime directory, else ``$XDG_RUNTIME_DIR``, else the
    temporary directory; removed when the process exits."""
    if env.get(LG_WD_ENV):
        return env[LG_WD_ENV]
    runtime = (env.get("RUNTIME_DIRECTORY") or "").split(":")[0]
    for base in (runtime, env.get("XDG_RUNTIME_DIR"), tempfile.gettempdir()):
        if base and os.path.isdir(base) and os.access(base, os.W_OK | os.X_OK):
            try:
                d = tempfile.mkdtemp(prefix="table-lgpio-", dir=base)
            except OSError:
                continue
            atexit.register(shutil.rmtree, d, True)
            env[LG_WD_ENV] = d
            return d
    return None


def _factory_class(name, revision, env):
    module, cls, _ = LIBRARIES[name]
    if name == "lgpio":
        _lgpio_workdir(env)
        try:
            cwd = os.getcwd()
        except OSError:
            cwd = None
        try:
            base = getattr(importlib.import_module(module), cls)
        finally:
            if cwd is not None and os.getcwd() != cwd:
                os.chdir(cwd)           # lgpio moved the whole process to LG_WD
    else:
        base = getattr(importlib.import_module(module), cls)
    if revision is None:
        return base
    return type(base.__name__, (base,), {"_get_revision": lambda self: revision,
                                         "__module__": __name__,
                                         "__doc__": f"{base.__name__} on a board named by "
                                                    f"{REVISION_ENV}."})


def chip_problem(chip, dev="/dev") -> str:
    """Why lgpio could not open ``/dev/gpiochip<chip>``, in words (with the fix)."""
    path = f"{dev}/gpiochip{chip}"
    if not os.path.exists(path):
        chips = sorted(glob.glob(f"{dev}/gpiochip*"))
        if not chips:
            return f"this machine has no GPIO chip (no {dev}/gpiochip*)"
        return f"{path} does not exist (this machine has {', '.join(chips)})"
    if not os.access(path, os.R_OK | os.W_OK):
        import grp
        import pwd
        st = os.stat(path)
        try:
            group = grp.getgrgid(st.st_gid).gr_name
        except KeyError:
            group = str(st.st_gid)
        try:
            user = pwd.getpwuid(os.geteuid()).pw_name
        except KeyError:
            user = str(os.geteuid())
        if group != "root":
            return (f"the user {user} may not open {path}: add it to the group {group} "
                    f"(sudo usermod -aG {group} {user}) and restart the table")
        return (f"the user {user} may not open {path} (it belongs to root, mode "
                f"{st.st_mode & 0o777:o}): give the group gpio read and write on it with a udev "
                f"rule and add {user} to that group, or run the table as root")
    return f"lgpio could not open {path}"


def why_not(name, exc, factory_cls=None) -> str:
    """Why library ``name`` could not be used, from what it raised: a clause with the fix."""
    from gpiozero.exc import PinUnknownPi
    text = str(exc)
    if isinstance(exc, ImportError):
        if name == "lgpio" and getattr(exc, "name", None) in ("lgpio", None):
            return f"lgpio is not installed ({LGPIO_INSTALL})"
        if name == "lgpio":
            return f"lgpio could not be loaded ({text})"
        return f"{_LABELS[name]} is not installed"
    if isinstance(exc, PinLibraryError):
        return text.rstrip(".")
    if isinstance(exc, PinUnknownPi):
        return ("this machine is not a Raspberry Pi that gpiozero knows (no board revision in "
                f"/proc/device-tree or /proc/cpuinfo); on a stand-in board, set {REVISION_ENV} "
                "(such as c03114)")
    if isinstance(exc, FileNotFoundError) and ".lgd-nfy" in text:
        return (f"lgpio could not make its notification pipe in {os.environ.get(LG_WD_ENV)} "
                f"(set {LG_WD_ENV} to a directory the table's user may write)")
    if name == "lgpio" and "gpiochip" in text:
        chip = getattr(exc, "chip", None)
        return chip_problem(chip if chip is not None else 0)
    if name == "pigpio" and ("connect" in text.lower() or isinstance(exc, OSError)):
        return "pigpio is installed but its daemon (pigpiod) is not running"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _lgpio_chip_guess(revision):
    """The chip gpiozero's LGPIOFactory opens (4 on a Pi 5 whose kernel still has gpiochip4)."""
    if revision is not None and (revision & 0xff0) >> 4 == 0x17 and \
            os.path.exists("/dev/gpiochip4"):
        return 4
    return 0


def _where(name, factory):
    board = ""
    try:
        board = factory.board_info.description
    except Exception:       # a factory that cannot tell (pigpio's daemon gone, ...)
        pass
    if name == "lgpio":
        place = f"lgpio on /dev/gpiochip{getattr(factory, 'chip', 0)}"
    else:
        place = _LABELS.get(name, type(factory).__name__)
    rev = (os.environ.get(REVISION_ENV) or "").strip()
    if board and rev:
        board += f", named by {REVISION_ENV}={rev}"
    return f"{place} ({board})" if board else place


def open_pin_library(order=None, env=None) -> PinLibrary:
    """Open the first pin library that works (see the module docstring). Never raises for a
    library that cannot be used: the answer says why each was passed over, and ``problem`` is
    a sentence when none could be opened."""
    env = os.environ if env is None else env
    chosen = (env.get(FACTORY_ENV) or "").strip()
    if order is None:
        order = ORDER
        if chosen:
            if chosen.lower() not in LIBRARIES:
                return _gpiozero_choice(chosen)
            order = (chosen.lower(),)
    skipped = []
    try:
        revision = revision_override(env)
    except PinLibraryError as e:
        return PinLibrary(problem=no_gpio_sentence(str(e).rstrip(".")),
                          skipped=[("all", str(e))])
    for name in order:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cls = _factory_class(name, revision, env)
                factory = cls()
        except Exception as e:
            if name == "lgpio" and "gpiochip" in str(e):
                e.chip = _lgpio_chip_guess(revision)
            skipped.append((name, why_not(name, e)))
            continue
        if chosen:
            why = f"chosen by {FACTORY_ENV}={chosen}"
        elif name == "lgpio":
            why = "tried first: PWM on every pin, and it knows a Pi 4 and a Pi 5"
        else:
            why = "the first that worked after lgpio" + (
                "; it has no PWM, so the light shows plain colours" if name == "native" else "")
        return PinLibrary(factory=factory, name=name, where=_where(name, factory), why=why,
                          skipped=skipped)
    first = skipped[0][1] if skipped else "no pin library to try"
    if len(skipped) > 1:
        first += ", and no other pin library could open the GPIO"
    return PinLibrary(skipped=skipped, problem=no_gpio_sentence(first))


def no_gpio_sentence(reason) -> str:
    """The screen's sentence when no pin library could open the GPIO."""
    return f"No buzzer, light or buttons: {reason}. The rest of the table works."


def _gpiozero_choice(chosen):
    """``GPIOZERO_PIN_FACTORY`` names a library outside :data:`LIBRARIES` (``mock``, a
    plugin): loaded from gpiozero's entry points, as gpiozero itself would."""
    from importlib.metadata import entry_points
    found = [ep for ep in entry_points(group="gpiozero_pin_factories")
             if ep.name in (chosen, chosen.lower())]
    if not found:
        reason = (f"{FACTORY_ENV}={chosen} names no pin library gpiozero has (lgpio, rpigpio, "
                  f"pigpio, native, mock)")
        return PinLibrary(skipped=[(chosen, reason)], problem=no_gpio_sentence(reason))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            factory = found[0].load()()
    except Exception as e:
        reason = f"{FACTORY_ENV}={chosen} could not be opened ({type(e).__name__}: {e})"
        return PinLibrary(skipped=[(chosen, reason)], problem=no_gpio_sentence(reason))
    name = library_name(factory) or chosen
    return PinLibrary(factory=factory, name=name, where=_LABELS.get(name, chosen),
                      why=f"chosen by {FACTORY_ENV}={chosen}")
