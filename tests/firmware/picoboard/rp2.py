"""``rp2`` for the unix-port Pico stand-in: BOOTSEL is "pressed" while the file named by
$UNIXPICO_BOOTSEL exists (tests/firmware/unixpico.py creates it)."""
import os


def bootsel_button():
    path = os.getenv("UNIXPICO_BOOTSEL")
    if not path:
        return 0
    try:
        os.stat(path)
    except OSError:
        return 0
    return 1
