"""The club's broker: the live picture of every table in one place (issue 24).

A :class:`~companion.net.brokers.MosquittoBroker` (the same child process, supervision and
files as a table's) with the club's wall instead of a table's
(:func:`companion.net.topics.club_acl`): TCP for the boxes' bridges, WebSockets for the club
page. Its logins:

* one per joined table, named like the table (:meth:`ClubBroker.add_table`): it may write only
  that table's public topics and its link (its box's bridge logs in with it);
* ``_viewer`` (:attr:`ClubBroker.viewer`): the club page; reads the public topics of every table;
* ``_club`` (:attr:`ClubBroker.club`): the club's own tools; reads everything.

With a ``run_dir`` the logins are kept in ``logins.json`` there (0600; a table's login only as
its ``$7$`` hash), so a box's stored password and the page's login still work after the club
restarts.
"""
from __future__ import annotations

import json
import threading

from companion.net import credentials as cred
from companion.net.brokers import BrokerError, MosquittoBroker
from companion.net.topics import CLUB_USER, ID_PATTERN, VIEWER_USER, check_table_id, club_acl

LOGINS_FILE = "logins.json"


def check_club_username(username) -> str:
    """Logins on the club broker: ``_club``, ``_viewer`` or a table id (the club's wall
    depends on it: a table's login may write that table's topics)."""
    if username in (CLUB_USER, VIEWER_USER) or \
            (isinstance(username, str) and ID_PATTERN.fullmatch(username)):
        return username
    raise cred.CredentialError(f"{username!r} cannot be a club broker username: use "
                               f"{CLUB_USER!r}, {VIEWER_USER!r} or a table id.")


class ClubBroker(MosquittoBroker):
    """mosquitto for the club: listens on all addresses by default (boxes and phones come from
    the network), TCP and WebSockets, the club's wall, and its logins kept in ``run_dir``."""

    check_username = staticmethod(check_club_username)

    def __init__(self, host: str = "0.0.0.0", tcp_port: int = 0, ws_port: int | None = 0, *,
                 run_dir=None, binary: str | None = None, **options):
        super().__init__(host, tcp_port, ws_port, binary=binary, run_dir=run_dir,
                         acl_text=club_acl(), **options)
        self._logins_lock = threading.Lock()
        saved = self._load()
        self.club = cred.Credential(CLUB_USER, saved.get(CLUB_USER) or cred.new_password())
        self.viewer = cred.Credential(VIEWER_USER, saved.get(VIEWER_USER) or cred.new_password())
        self._table_hashes: dict[str, str] = dict(saved.get("tables", {}))
        for c in (self.club, self.viewer):
            self._hashes[c.username] = cred.mosquitto_hash(c.password)
        self._hashes.update(self._table_hashes)
        self._save()

    # the logins file
    def _load(self) -> dict:
        if self.run_dir is None:
            return {}
        try:
            data = json.loads((self.run_dir / LOGINS_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as e:
            raise BrokerError(f"The club's logins in {self.run_dir / LOGINS_FILE} cannot be "
                              f"read: {e}.") from None
        tables = data.get("tables", {})
        if not isinstance(tables, dict) or not all(
                isinstance(k, str) and ID_PATTERN.fullmatch(k) and isinstance(v, str) and
                v.startswith("$7$") for k, v in tables.items()):
            raise BrokerError(f"The club's logins in {self.run_dir / LOGINS_FILE} are not "
                              f"what the club writes.")
        return data

    def _save(self) -> None:
        if self.run_dir is None:
            return
        with self._logins_lock:
            self.run_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            cred.write_private_file(self.run_dir / LOGINS_FILE, json.dumps(
                {CLUB_USER: self.club.password, VIEWER_USER: self.viewer.password,
                 "tables": dict(sorted(self._table_hashes.items()))}, indent=1) + "\n")

    # tables
    def add_table(self, table: str) -> str:
        """Give ``table`` a login (a new password, replacing any older one of that table) and
        return the password; in force when this returns (mosquitto reloaded)."""
        check_table_id(table)
        password = cred.new_password()
        hashed = cred.mosquitto_hash(password)
        with self._lock:
            self._table_hashes[table] = hashed
            self._hashes[table] = hashed
            self._save()
            if self.alive():                    # else the next start writes it
                self._reload()
        return password

    def claim(self, table: str, previous: dict | None = None) -> tuple[str, str]:
        """A box asks to join as ``table``: ``(its name at the club, its password)``.

        A box that joined before proves it with ``previous`` (``{"table", "password"}`` from
        its last join) and keeps its name. Otherwise it gets ``table`` if no box has it, else
        the first free ``table-2``, ``table-3``...: every box's id is ``table`` until someone
        names it, and a second box must never take the first one's place at the club (its
        login, its live card, its record)."""
        check_table_id(table)
        name = self.proven(previous)
        if name is not None:
            return name, previous["password"]
        with self._lock:
            taken = set(self._table_hashes)
        name, n = table, 1
        while name in taken:
            n += 1
            suffix = f"-{n}"
            name = table[:32 - len(suffix)].rstrip("-") + suffix
        return name, self.add_table(name)

    def proven(self, previous: dict | None) -> str | None:
        """The table name ``previous`` (``{"table", "password"}`` from a box's last join)
        proves, or None."""
        if not isinstance(previous, dict):
            return None
        name, password = previous.get("table"), previous.get("password")
        with self._lock:
            hashed = self._table_hashes.get(name) if isinstance(name, str) else None
        if hashed and isinstance(password, str) and cred.mosquitto_verify(password, hashed):
            return name
        return None

    def remove_table(self, table: str) -> bool:
        """Forget ``table``'s login; its bridge is dropped at once and kept out."""
        with self._lock:
            known = self._table_hashes.pop(table, None) is not None
            self._save()
        return self.remove_user(table) or known

    def tables(self) -> list[str]:
        with self._lock:
            return sorted(self._table_hashes)
