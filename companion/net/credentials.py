"""Logins for the broker: one per seat, one for the hub, random passwords (stdlib only).

* Embedded broker: passwords never touch the disk. :class:`PasswordTable` keeps, per user, an
  HMAC of the password under a per-process random key, and the broker's auth plugin checks
  against it in constant time.
* Mosquitto: :func:`mosquitto_hash` writes the same ``$7$`` PBKDF2-SHA512 lines as
  ``mosquitto_passwd`` (checked against it and against mosquitto 2.0.11 in tests), and
  :func:`write_password_file` puts them in a 0600 file inside a 0700 run directory.

>>> hub = hub_credential()
>>> hub.username, len(hub.password) >= 24
('hub', True)
>>> hub
Credential(username='hub', password=<hidden>)
>>> line = mosquitto_hash("s3cret", salt=bytes(12))
>>> line.startswith("$7$101$AAAAAAAAAAAAAAAA$"), mosquitto_verify("s3cret", line)
(True, True)
"""
from __future__ import annotations

import base64
import dataclasses
import hashlib
import hmac
import os
import secrets
import tempfile
import threading
from pathlib import Path

from companion.core.args import is_whole
from companion.core.errors import CompanionError

from .topics import HUB_USER, check_seat_id, is_seat_id

PASSWORD_BYTES = 18          # 144 bits, 24 url-safe characters
TOKEN_BYTES = 24             # reclaim tokens kept by the browser
MOSQUITTO_ITERATIONS = 101   # mosquitto_passwd's default for $7$
MOSQUITTO_SALT_BYTES = 12


class CredentialError(CompanionError, ValueError):
    """A username or password the broker layer cannot accept."""


@dataclasses.dataclass(frozen=True)
class Credential:
    """One broker login. The password is left out of ``repr`` so logs never show it."""
    username: str
    password: str = dataclasses.field(repr=False)

    def __repr__(self):
        return f"Credential(username={self.username!r}, password=<hidden>)"


def new_password() -> str:
    return secrets.token_urlsafe(PASSWORD_BYTES)


def new_token() -> str:
    """A reclaim token: the browser keeps it to get its seat back after a reload."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def new_seat_id(number: int) -> str:
    """A seat id (= MQTT username) for the seat shown to people as ``number`` (1, 2, ...).

    The random suffix keeps ids unique on a broker that several tables share, and unguessable.

    >>> sid = new_seat_id(3)
    >>> sid.startswith("s3-") and len(sid) == 9
    True
    """
    if not is_whole(number) or not 0 <= number <= 9999:
        raise CredentialError(f"A seat number must be a whole number from 0 to 9999, "
                              f"not {number!r}.")
    return f"s{number}-{secrets.token_hex(3)}"


def hub_credential(password: str | None = None) -> Credential:
    return Credential(HUB_USER, password or new_password())


def seat_credential(seat_id: str, password: str | None = None) -> Credential:
    return Credential(check_seat_id(seat_id), password or new_password())


def check_username(username) -> str:
    """Broker usernames are the hub's name or a seat id (the topic wall depends on it)."""
    if username == HUB_USER or is_seat_id(username):
        return username
    raise CredentialError(f"{username!r} cannot be a broker username: use 'hub' or a seat id "
                          f"(1 to 32 characters from a-z, 0-9 and '-').")


def check_password(password) -> str:
    if not isinstance(password, str) or not password:
        raise CredentialError("A broker password must be a non-empty string.")
    if len(password.encode()) > 256 or any(c in password for c in "\0\n\r:"):
        raise CredentialError("A broker password must be at most 256 bytes, with no line "
                              "breaks, ':' or NUL.")
    return password


def as_pairs(users) -> list[tuple[str, str]]:
    """Accept a mapping name -> password, or an iterable of :class:`Credential` / pairs."""
    if users is None:
        return []
    if isinstance(users, dict):
        return list(users.items())
    out = []
    for u in users:
        out.append((u.username, u.password) if isinstance(u, Credential) else tuple(u))
    return out


class PasswordTable:
    """Logins kept in memory only, as HMAC-SHA256 digests under a random per-table key.

    Thread-safe: the hub adds and removes seats from its thread while the broker's event loop
    checks logins on another.
    """

    def __init__(self, users=None):
        self._key = secrets.token_bytes(32)
        self._digests: dict[str, bytes] = {}
        self._lock = threading.Lock()
        for name, password in as_pairs(users):
            self.add(name, password)

    def _digest(self, password: str) -> bytes:
        return hmac.new(self._key, password.encode(), hashlib.sha256).digest()

    def add(self, username: str, password: str) -> None:
        check_username(username)
        check_password(password)
        with self._lock:
            self._digests[username] = self._digest(password)

    def remove(self, username: str) -> bool:
        with self._lock:
            return self._digests.pop(username, None) is not None

    def check(self, username, password) -> bool:
        if not isinstance(username, str) or not isinstance(password, str):
            return False
        with self._lock:
            expected = self._digests.get(username)
        given = self._digest(password)
        # compare even for unknown users so timing does not tell which names exist
        return hmac.compare_digest(given, expected if expected is not None else bytes(32)) \
            and expected is not None

    def __contains__(self, username) -> bool:
        with self._lock:
            return username in self._digests

    def names(self) -> list[str]:
        with self._lock:
            return sorted(self._digests)


# -- mosquitto password files -------------------------------------------------------------------

def mosquitto_hash(password: str, *, salt: bytes | None = None,
                   iterations: int = MOSQUITTO_ITERATIONS) -> str:
    """The ``$7$`` (PBKDF2-SHA512) hash that ``mosquitto_passwd`` writes for ``password``."""
    salt = secrets.token_bytes(MOSQUITTO_SALT_BYTES) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations, 64)
    return (f"$7${iterations}${base64.b64encode(salt).decode()}"
            f"${base64.b64encode(digest).decode()}")


def mosquitto_verify(password: str, hashed: str) -> bool:
    try:
        _, kind, iterations, salt, digest = hashed.split("$")
        if kind != "7":
            return False
        salt_b = base64.b64decode(salt, validate=True)
        want = base64.b64decode(digest, validate=True)
        got = hashlib.pbkdf2_hmac("sha512", password.encode(), salt_b, int(iterations), len(want))
    except ValueError:
        return False
    return hmac.compare_digest(got, want)


def private_dir(prefix: str = "tc-broker-") -> Path:
    """A fresh directory only this user can enter (0700), under the system temp dir."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    os.chmod(path, 0o700)
    return path


def write_private_file(path, text: str) -> Path:
    """Write ``text`` to ``path`` atomically, readable by this user alone (0600)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def write_password_file(path, hashes: dict[str, str]) -> Path:
    """Write a mosquitto password file from username -> ``$7$`` hash, mode 0600."""
    lines = []
    for name, hashed in sorted(hashes.items()):
        if not name or any(c in name for c in ":\n\r\0"):
            raise CredentialError(f"{name!r} cannot be written to a password file.")
        lines.append(f"{name}:{hashed}\n")
    return write_private_file(path, "".join(lines))
