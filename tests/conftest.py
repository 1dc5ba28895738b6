"""Shared test set-up. Keeps every test away from $HOME and the user's session store."""
import os
import pathlib
import signal
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

_tmp_home = tempfile.mkdtemp(prefix="tc-test-home-")
os.environ.setdefault("COMPANION_DB", os.path.join(_tmp_home, "sessions.db"))
os.environ.setdefault("KIVY_HOME", os.path.join(_tmp_home, "kivy"))
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("SDL_VIDEODRIVER", "offscreen")

# Started in the background by a shell without job control (`pytest ... &`), this process
# ignores SIGINT, and so would every `companion serve` it starts: the tests' Ctrl-C would do
# nothing and each such test hang. A handled SIGINT is reset to its default in a child.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_addoption(parser):
    parser.addoption("--box", action="store_true",
                     help="run tests/box: build an arm64 Debian system, install the table with "
                          "./table.sh install and boot it in QEMU (`./table.sh test-box`)")


def pytest_ignore_collect(collection_path, config):
    """tests/box boots a virtual machine for many minutes: only with --box (./table.sh test-box).
    """
    box = pathlib.Path(__file__).resolve().parent / "box"
    if not config.getoption("--box") and box in (collection_path, *collection_path.parents):
        return True
    return None
