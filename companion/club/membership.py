"""A box's side of the club: joining with one address, and the two links it then keeps
(the record shipped to PostgreSQL, the public topics bridged to the club broker).

The table never waits for any of it. Joining is one HTTP request on a thread of its own; the
reply is kept in the store with the table's room code (``hub.keep("club", ...)``), so after a
restart the box ships and bridges at once, even while the club is away. The shipper is a
thread reading the store; the bridge is mosquitto's own. Neither is in the command path.

>>> parse_address("club.local:8100/join/k3x9")
('http://club.local:8100/join/k3x9', 'club.local')
>>> parse_address("http://10.0.0.5:8100/join/k3x9")
('http://10.0.0.5:8100/join/k3x9', '10.0.0.5')
>>> parse_address("10.0.0.5")
Traceback (most recent call last):
...
companion.core.errors.ConfigError: '10.0.0.5' is not a club address: it looks like http://CLUB:PORT/join/CODE (the club page shows it).
"""
from __future__ import annotations

import ipaddress
import json
import logging
import secrets
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from companion.core.errors import CompanionError, ConfigError
from companion.service.hub import CLUB_JOINED

log = logging.getLogger(__name__)

JOIN_TIMEOUT = 5.0          # seconds a join request may take before it is said to have failed
#: A table that asks to join asks again this often while the organiser decides, for so long.
ASK_EVERY, ASK_FOR = 2.0, 3600.0
#: The hub alert kind of good news: the table joined (the screen shows it as such, the
#: reader's speaker does not blip an error for it); a failure is kind ``club``, same key.
JOINED = CLUB_JOINED


class ClubError(CompanionError):
    """The club could not be joined, in words the table can show (``status``: the club's
    HTTP answer, None when it did not answer)."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


def parse_address(address: str) -> tuple[str, str]:
    """``(the join URL, the club's host)`` from what was typed or scanned."""
    text = (address or "").strip()
    if text and "://" not in text:
        text = "http://" + text
    u = urllib.parse.urlsplit(text)
    parts = [p for p in u.path.split("/") if p]
    if u.scheme not in ("http", "https") or not u.hostname or len(parts) != 2 \
            or parts[0] != "join":
        raise ConfigError(f"{address!r} is not a club address: it looks like "
                          f"http://CLUB:PORT/join/CODE (the club page shows it).")
    return urllib.parse.urlunsplit((u.scheme, u.netloc, u.path, "", "")), u.hostname


def is_club_address(text) -> bool:
    """Whether a scanned code is a club's join address (the club page's QR), not a card.

    >>> is_club_address("http://10.0.0.5:8100/join/k3x9"), is_club_address("TW:1:export-7")
    (True, False)
    """
    try:
        parse_address(text if isinstance(text, str) and "://" in text else "")
        return True
    except ConfigError:
        return False


def _loopback(host) -> bool:
    if not host or host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _rehost(url: str, host: str) -> str:
    """The record's address as this box reaches it: a club that runs its own PostgreSQL gives
    its loopback; the box then uses the host it reached the club page on."""
    u = urllib.parse.urlsplit(url)
    if not _loopback(u.hostname) or _loopback(host):
        return url
    netloc = u.netloc.rsplit("@", 1)
    hostport = host + (f":{u.port}" if u.port else "")
    netloc = f"{netloc[0]}@{hostport}" if len(netloc) == 2 else hostport
    return urllib.parse.urlunsplit((u.scheme, netloc, u.path, u.query, u.fragment))


def join(address: str, table: str, *, previous: dict | None = None,
         timeout: float = JOIN_TIMEOUT, wait: float = ASK_FOR, on_asking=None,
         every: float = ASK_EVERY, stopping: threading.Event | None = None) -> dict:
    """Ask the club at ``address`` for this table's place in it (``previous``: the box's
    last membership of that club, so it keeps its name there). Returns what the box keeps:
    ``{"address", "club", "record", "broker": {"host", "port", "username", "password"},
    "joined"}``; ``broker.username`` is the table's name at the club (``table-2`` when another
    box is ``table`` there). Raises :class:`ClubError` with the reason in a sentence.

    A box that joined this club before comes back in at once with its last login. Any other
    asks the organiser: the club answers 202 until they decide, and the box asks again every
    ``every`` seconds with the same random token (``on_asking(sentence)`` is told once), for
    at most ``wait`` seconds."""
    url, host = parse_address(address)
    body = {"table": table, "request": secrets.token_urlsafe(24)}
    if previous and previous.get("address") == url:
        b = previous.get("broker") or {}
        body["previous"] = {"table": b.get("username"), "password": b.get("password")}
    deadline = time.monotonic() + wait
    told = False
    stopping = stopping or threading.Event()
    name = table
    while True:
        try:
            status, reply = _ask(url, host, table, body, timeout)
        except ClubError as e:
            if e.status == 503 or (told and e.status is None):
                # the club is busy (its record or broker could not add the table just now)
                # or away for a moment: ask again, until the deadline
                if time.monotonic() > deadline:
                    raise
                if stopping.wait(every):
                    raise ClubError("Joining the club was stopped.") from None
                continue
            raise                                   # refused, or away at the first ask
        if status != 202:
            break
        name = reply.get("table") or name
        if not told:
            told = True
            if on_asking is not None:
                on_asking(str(reply.get("message") or
                              "Asked the organiser to let this table in."))
        if time.monotonic() > deadline:
            raise ClubError(f"The organiser of the club at {host} has not let table {name} "
                            f"in yet; join again when they are ready.")
        if stopping.wait(every):
            raise ClubError("Joining the club was stopped.")
    return _kept(url, host, reply)


def _ask(url, host, table, body, timeout):
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read().decode())
    except urllib.error.HTTPError as e:
        try:
            why = json.loads(e.read().decode()).get("error") or e.reason
            why = why.get("message", e.reason) if isinstance(why, dict) else why
        except (ValueError, AttributeError, OSError):
            why = e.reason
        raise ClubError(f"The club at {host} refused table {table}: {why}",
                        e.code) from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        reason = getattr(reason, "strerror", None) or reason
        raise ClubError(f"The club at {host} did not answer ({reason}); the table plays on, "
                        f"try again when the club is up.") from None


def _kept(url, host, reply):
    try:
        broker = dict(reply["broker"])
        broker["port"] = int(broker["port"])
        broker["host"] = host if _loopback(broker.get("host")) else broker["host"]
        return {"address": url, "club": str(reply.get("club") or host),
                "record": _rehost(str(reply["record"]), host), "broker": broker,
                "joined": time.time()}
    except (KeyError, TypeError, ValueError):
        raise ClubError(f"The club at {host} answered something that is not a club's "
                        f"join reply.") from None


def bridge_to(m: dict, table: str):
    """The box broker's bridge for membership ``m`` of ``table``."""
    from companion.net.brokers import BridgeTo
    b = m["broker"]
    return BridgeTo(b["host"], b["port"], b["username"], b["password"], table,
                    remote=b["username"] if b["username"] != table else None)


class ClubLink:
    """The club links of one table: :meth:`start` re-attaches a club joined before,
    :meth:`join` joins one (on its own thread), :meth:`leave` stops shipping and bridging.

    ``server`` is the :class:`~companion.club.table.ClubTable` (its hub keeps the membership,
    its store is what is shipped, its broker bridges). ``status()`` is what the table's
    settings show."""

    def __init__(self, server):
        self.server = server
        self.shipper = None
        self.error = None               # the last join's failure, in words
        self.joining = None             # the address being joined
        self.asking = None              # while the organiser decides: the sentence saying so
        self._stopping = threading.Event()
        self._last_rejoin = -1e9
        self._lock = threading.Lock()
        self._unsubscribe = None

    @property
    def membership(self) -> dict | None:
        hub = self.server.hub
        return hub.kept("club") if hub is not None else None

    # -- life ---------------------------------------------------------------------------------
    #: Whether a scanned code is a club's join address (the reader asks the hub's club link,
    #: so the device layer needs no import of the club).
    is_address = staticmethod(is_club_address)

    def start(self):
        m = self.membership
        if m:
            self._attach(m)
        return self

    def stop(self):
        self._stopping.set()
        with self._lock:
            self._detach_shipper()

    def join(self, address: str, *, wait: bool = False):
        """Join the club at ``address``; the table goes on meanwhile. An address that is not a
        club's raises :class:`ConfigError` at once; the rest is said in :attr:`error`."""
        parse_address(address)
        self.joining, self.error = address, None
        t = threading.Thread(target=self._join, args=(address,), name="tc-club-join",
                             daemon=True)
        t.start()
        if wait:
            t.join()
            if self.error:
                raise ClubError(self.error)
        return t

    def _asking(self, sentence):
        self.asking = sentence
        log.warning("%s", sentence)
        if self.server.hub is not None:
            self.server.hub.alert(JOINED, sentence, key="club")

    def _join(self, address):
        try:
            m = join(address, self.server.table, previous=self.membership,
                     on_asking=self._asking, stopping=self._stopping)
            self.server.hub.keep("club", m)
            self._attach(m)
            name = m["broker"]["username"]
            named = "" if name == self.server.table else f" as {name}"
            self.server.hub.alert(JOINED, f"Joined the club {m['club']}{named}: this table's "
                                          f"games go to its record and its page.", key="club")
        except CompanionError as e:
            self.error = str(e)
            log.warning("joining the club failed: %s", e)
            if self.server.hub is not None:
                self.server.hub.alert("club", str(e), key="club")
        finally:
            self.joining = self.asking = None

    def _refused(self):
        """The club's record refused this table's login (a club migrated from schema 1, whose
        shared login no longer works, or a renewed one): ask again with the last membership,
        which proves this box and keeps its name. At most once a minute."""
        m = self.membership
        now = time.monotonic()
        if m is None or self.joining or now - self._last_rejoin < 60:
            return
        self._last_rejoin = now
        log.warning("the club's record refused this table's login; joining again")
        try:
            self.join(m["address"])
        except CompanionError:
            pass

    def leave(self):
        """Stop shipping and bridging and forget the club (what was shipped stays there)."""
        with self._lock:
            self._detach_shipper()
            self._set_bridge(None)
        self.server.hub.keep("club", None)

    # -- the two links --------------------------------------------------------------------------
    def _attach(self, m):
        with self._lock:
            self._detach_shipper()
            db = self.server.store_path
            if db is not None:
                from .shipper import Shipper
                self.shipper = Shipper(db, m["broker"]["username"], m["record"],
                                       on_refused=self._refused)   # starts
                self._unsubscribe = self.server.hub.subscribe(self._on_hub_event)
            else:
                log.info("this table keeps no store on disk: nothing to ship to the club")
            self._set_bridge(m)

    def _detach_shipper(self):
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.shipper is not None:
            self.shipper.stop()
            self.shipper = None

    def _set_bridge(self, m):
        broker, bridge = self.server.broker, getattr(self.server, "bridge", None)
        if bridge is not None:          # the club gets the state without the room code
            bridge.set_outside(m is not None)
        setter = getattr(broker, "set_bridge", None)
        if broker is None:
            return
        if setter is None:
            if m is not None:
                log.warning("the %s broker cannot bridge to the club (mosquitto can): the "
                            "club page will not show this table live; its record still goes",
                            getattr(broker, "mode", "external"))
            return
        wanted = None if m is None else bridge_to(m, self.server.table)
        if wanted != getattr(broker, "bridge", None) and bridge is not None and \
                hasattr(bridge, "planned_restart"):
            bridge.planned_restart()    # the restart that follows is no outage: say none
        setter(wanted)

    def _on_hub_event(self, event):
        sh = self.shipper
        if sh is not None and event.get("kind") == "changed":
            sh.notify()

    def status(self) -> dict:
        """What the settings show: the club, the record's progress, the last error."""
        m = self.membership
        out = {"club": m and m.get("club"), "address": m and m.get("address"),
               "name": m and m["broker"]["username"],
               "joining": self.joining, "asking": self.asking, "error": self.error}
        if self.shipper is not None:
            out["record"] = self.shipper.status()
        return out
