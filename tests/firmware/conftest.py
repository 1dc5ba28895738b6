"""Put the fake board (``machine``, ``micropython``) on sys.path for firmware/main.py."""
import pathlib
import sys

FAKEBOARD = str(pathlib.Path(__file__).resolve().parent / "fakeboard")
if FAKEBOARD not in sys.path:
    sys.path.append(FAKEBOARD)
