"""Shared test set-up. Keeps every test away from $HOME and the user's session store."""
import os
import pathlib
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
