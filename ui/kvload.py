"""Where the table screen's layout files and assets are, and loading a .kv file once.

Below :mod:`ui.app`, so that a widget or a screen can load its own layout without importing the
app that imports it (the app, the Menu and the lobby were an import circle).
"""
import pathlib

from kivy.lang import Builder

HERE = pathlib.Path(__file__).resolve().parent
KV = HERE / "kv"
ASSETS = HERE / "assets"

_loaded = set()


def load_kv(path):
    """Load a .kv file into Kivy's Builder, once per process however often it is asked."""
    path = str(path)
    if path not in _loaded:
        Builder.load_file(path)
        _loaded.add(path)
