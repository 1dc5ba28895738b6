"""The box's own Wi-Fi: a stable name per box, a random password made once and kept, and the
QR text phones' cameras join with (``WIFI:T:WPA;S:<name>;P:<password>;;``).

Pure: the state directory is passed in; nothing here touches a radio.
"""
from __future__ import annotations

import hashlib
import json
import os
import secrets
from pathlib import Path

#: Letters and digits nobody misreads on a screen (no 0/O, 1/I/L).
ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
PASSWORD_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
SETTINGS = "wifi.json"


def box_ssid(machine_id: str) -> str:
    """``Table-`` and four characters, the same for this box at every boot (from its machine
    id), different for the box at the next table.

    >>> box_ssid("3f1c0d4a9b8e7f6a5b4c3d2e1f0a9b8c")
    'Table-8ZBQ'
    >>> box_ssid("3f1c0d4a9b8e7f6a5b4c3d2e1f0a9b8c") == box_ssid("3f1c0d4a9b8e7f6a5b4c3d2e1f0a9b8c\\n")
    True
    """
    digest = hashlib.sha256(machine_id.strip().encode()).digest()
    n = int.from_bytes(digest[:8], "big")
    chars = []
    for _ in range(4):
        n, i = divmod(n, len(ALPHABET))
        chars.append(ALPHABET[i])
    return "Table-" + "".join(chars)


def new_password() -> str:
    """Twelve characters in three groups (``kx7p-m2qa-9tfe``): about 62 bits, easy to type on
    a phone that cannot scan, long enough for WPA2 (8 to 63)."""
    raw = "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(12))
    return "-".join(raw[i:i + 4] for i in range(0, 12, 4))


def _escape(text: str) -> str:
    return "".join("\\" + c if c in '\\;,:"' else c for c in text)


def wifi_qr(ssid: str, password: str | None) -> str:
    """The Wi-Fi QR text Android's and iOS's cameras join from (the ZXing format).

    >>> wifi_qr("Table-K4NB", "kx7p-m2qa-9tfe")
    'WIFI:T:WPA;S:Table-K4NB;P:kx7p-m2qa-9tfe;;'
    >>> wifi_qr('Café; "Guest"', None)
    'WIFI:T:nopass;S:Café\\\\; \\\\"Guest\\\\";;'
    """
    if password:
        return f"WIFI:T:WPA;S:{_escape(ssid)};P:{_escape(password)};;"
    return f"WIFI:T:nopass;S:{_escape(ssid)};;"


def machine_id(path: str = "/etc/machine-id") -> str:
    try:
        return Path(path).read_text().strip() or "table-companion"
    except OSError:
        return "table-companion"


class OwnWifi:
    """The own Wi-Fi's settings, kept in ``<state>/wifi.json`` (written atomically; only the
    table's user may read it): ``ssid``, ``password``, ``country`` (None until chosen) and
    ``share`` (whether phones on the box's Wi-Fi may reach the network behind the box: off
    unless the organiser turns it on)."""

    def __init__(self, state_dir, mid: str | None = None):
        self.path = Path(state_dir) / SETTINGS
        self._mid = mid
        data = self._read()
        self.ssid = data.get("ssid") or box_ssid(mid if mid is not None else machine_id())
        self.password = data.get("password") or new_password()
        self.country = data.get("country")
        self.share = bool(data.get("share", False))
        if data != self.as_dict():
            self.save()

    def _read(self) -> dict:
        try:
            data = json.loads(self.path.read_text())
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def as_dict(self) -> dict:
        return {"ssid": self.ssid, "password": self.password, "country": self.country,
                "share": self.share}

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(self.as_dict(), f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def renew_password(self) -> str:
        self.password = new_password()
        self.save()
        return self.password

    @property
    def qr(self) -> str:
        return wifi_qr(self.ssid, self.password)


if __name__ == "__main__":          # install.sh: make the settings once, at install
    import sys
    print(OwnWifi(sys.argv[1]).ssid)
