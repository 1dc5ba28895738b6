"""``companion club``: the club side in one step (docs/club.md).

A club machine runs three things, all existing servers but the page: PostgreSQL (Debian's,
started in a folder of the club's own, :mod:`companion.club.pg`; or one given by address),
mosquitto (:class:`~companion.club.broker.ClubBroker`: the bridges come in on TCP, the page
reads over WebSockets) and the club page with its join address
(:class:`~companion.club.server.ClubServer`). Everything it must remember between runs (the
join code, the ports, the logins, the database) lives in one folder, so a restarted club
answers the boxes that joined it before at the same address with the same logins.

    with Club("/var/lib/table-companion/club", name="Thursday club").start() as club:
        print(club.join_url)            # http://192.168.1.5:8100/join/K3X9PQ2M
"""
from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from companion.core.errors import ConfigError
from companion.net import credentials as cred
from companion.net.brokers import WS_PATH

log = logging.getLogger(__name__)

DEFAULTS = {"page_port": 8100, "mqtt_port": 1884, "ws_port": 9002, "pg_port": 5433}
SETTINGS = "club.json"
#: The organiser's PostgreSQL login: owns the club database (reports, stats, admitting tables'
#: roles); each table gets a role of its own that may add only its own rows (issue 35).
ORGANISER_ROLE = "tc_club"
#: Schema 1 gave every box this login, the database's owner: a club started again hands the
#: database to the organiser and the old login may no longer log in.
FORMER_BOX_ROLE = "tc_box"
DATABASE = "club"
WILDCARDS = ("0.0.0.0", "::", "*", "")
#: PostgreSQL's connections: one per table's shipper while it runs, a few for the club's own
#: reports (its default of 100 turns the 98th table away; a convention has 40 tables)
MAX_CONNECTIONS = 300


class Club:
    """The club side: ``start()`` brings up what this machine runs for the club, ``stop()``
    stops it in reverse. ``record`` (a ``postgresql://`` URL, the organiser's login: it must
    own the club's tables and may create roles) uses an existing PostgreSQL instead of starting
    one; each box gets that address with a role of its own (a loopback host is replaced by the
    address each box reached the club page on). ``admit(table, address) -> bool`` lets tables in
    without the organiser (tests); else ``on_request(request)`` tells the organiser one asks."""

    def __init__(self, folder, *, name: str | None = None, record: str | None = None,
                 bind: str = "0.0.0.0", host: str | None = None,
                 page_port: int | None = None, mqtt_port: int | None = None,
                 ws_port: int | None = None, pg_port: int | None = None, admit=None,
                 on_request=None):
        self.folder = Path(folder)
        self.settings = self._load()
        given = {"page_port": page_port, "mqtt_port": mqtt_port, "ws_port": ws_port,
                 "pg_port": pg_port}
        for k, v in given.items():              # a port given now is remembered
            if v is not None:
                self.settings[k] = int(v)
            self.settings.setdefault(k, DEFAULTS[k])
        if name:
            self.settings["name"] = name
        self.settings.setdefault("name", "Our club")
        self.settings.setdefault("code", None)
        self.record_given = record
        self.bind, self.public_host = bind, host
        self.admit, self.on_request = admit, on_request
        self.pg = self.broker = self.server = None
        self.admin_url = None           # the organiser's reading address (reports, stats)
        self.roles_url = None           # the login that gives each table its role

    # -- what it remembers -----------------------------------------------------------------------
    def _load(self) -> dict:
        try:
            return json.loads((self.folder / SETTINGS).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as e:
            raise ConfigError(f"The club's settings in {self.folder / SETTINGS} cannot be "
                              f"read: {e}.") from None

    def _save(self):
        cred.write_private_file(self.folder / SETTINGS,
                                json.dumps(self.settings, indent=1, sort_keys=True) + "\n")

    # -- life --------------------------------------------------------------------------------------
    def start(self) -> "Club":
        from . import pg
        from .broker import ClubBroker
        from .record import Record, admit_table, remove_table
        from .server import ClubServer, cred_password
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if os.geteuid() == 0:               # PostgreSQL runs as postgres: it must reach its
            os.chmod(self.folder, 0o711)    # folder (nothing in it is readable by others)
        s = self.settings
        s.setdefault("organiser_password", cred_password())
        wildcard = self.bind in WILDCARDS
        try:
            if self.record_given:
                self.admin_url = self.roles_url = self.record_given
            else:
                self.pg = pg.Server(self.folder / "postgresql", s["pg_port"],
                                    "*" if wildcard else self.bind,
                                    max_connections=MAX_CONNECTIONS).start().watch()
                self.admin_url = self.pg.create_owned_database(
                    DATABASE, ORGANISER_ROLE, former=(FORMER_BOX_ROLE,))
                self.roles_url = self.pg.url(DATABASE)
            Record(self.admin_url).close()      # the schema and its fences, before any box
            # mosquitto 2.0's WebSockets listener binds every address whatever it is told: on
            # one address the page's WebSockets come through the club's web server (relay.py)
            self.broker = ClubBroker(self.bind, s["mqtt_port"],
                                     s["ws_port"] if wildcard else None,
                                     run_dir=self.folder / "mosquitto").start()
            if wildcard:
                ws_url, relay = f"ws://{{host}}:{self.broker.ws_port}{WS_PATH}", None
            else:
                ws_url, relay = f"ws://{{host}}:{{port}}{WS_PATH}", (self.bind,
                                                                     self.broker.tcp_port)
            broker, roles = self.broker, self.roles_url

            def remove(name):
                gone = broker.remove_table(name)
                try:
                    gone = remove_table(roles, name) or gone
                except Exception as e:
                    log.warning("taking table %s's record login away failed: %s", name, e)
                return gone

            self.server = ClubServer(
                s["name"], None, "", self.broker.tcp_port, ws_url,
                self.broker.viewer.password, self.broker.claim, host=self.bind,
                port=s["page_port"], code=s["code"], public_host=self.public_host,
                admit=self.admit, proven=self.broker.proven, known=self.broker.tables,
                remove_table=remove, admit_record=lambda name: admit_table(roles, name),
                on_request=self.on_request, organiser_password=s["organiser_password"],
                relay=relay).start()
            s["code"] = self.server.code            # the same join address next time
            self._save()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self):
        for part in ("server", "broker"):
            obj = getattr(self, part)
            if obj is not None:
                try:
                    obj.stop()
                except Exception:
                    log.warning("stopping the club's %s failed", part, exc_info=True)
                setattr(self, part, None)
        if self.pg is not None:
            try:
                self.pg.stop()
            except Exception:
                log.warning("stopping the club's PostgreSQL failed", exc_info=True)
            self.pg = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    # -- what it tells --------------------------------------------------------------------------------
    @property
    def join_url(self) -> str:
        return self.server.join_url()

    @property
    def page_url(self) -> str:
        return self.server.url

    @property
    def record_url(self) -> str:
        """The organiser's address of the record (reports and stats read it)."""
        return self.admin_url

    def describe(self) -> dict:
        """One line of JSON for scripts and tests (no password but the files that hold them)."""
        from .record import safe_url
        return {"v": 1, "name": self.settings["name"], "page": self.page_url,
                "join": self.join_url, "organiser": self.server.organiser_url,
                "record": safe_url(self.admin_url),
                "mqtt_port": self.broker.tcp_port, "ws_port": self.broker.ws_port,
                "logins": str(self.folder / "mosquitto" / "logins.json"),
                "settings": str(self.folder / SETTINGS), "folder": str(self.folder)}
