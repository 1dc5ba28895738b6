"""The interface the hub needs from a broker (:class:`Broker`: start, stop, logins, URLs, ready-
when-the-probe-login-is-answered), the probe login itself (a raw MQTT 3.1.1 CONNECT, no client
library), and the settings every mode shares.
"""
from __future__ import annotations

import logging
import secrets
import socket
import struct

from .. import credentials as cred
from ..protocol import MAX_PAYLOAD_BYTES
from .errors import PortTaken
from .ports import connect_host, port_taken, _url_host

log = logging.getLogger(__name__)


MOSQUITTO_BINARIES = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")
WS_PATH = "/mqtt"
#: Embedded broker: seconds of silence allowed beyond a client's keepalive before it is dropped
#: (mosquitto allows half the keepalive). paho pings up to 1 s late, hence 2.
KEEPALIVE_GRACE = 2


def _mqtt_string(s: str) -> bytes:
    b = s.encode()
    return struct.pack("!H", len(b)) + b


def probe_login(host: str, port: int, username: str | None, password: str | None,
                timeout: float = 1.0) -> int:
    """Send one MQTT 3.1.1 CONNECT and return the CONNACK code (0 = accepted, 4 = bad username
    or password, 5 = not authorised). Raises OSError if nothing answers. Standard library
    only, so it can check a broker without paho."""
    flags = 0x02                               # clean session
    payload = _mqtt_string(f"probe-{secrets.token_hex(6)}")
    if username is not None:
        flags |= 0x80
        payload += _mqtt_string(username)
        if password is not None:
            flags |= 0x40
            payload += _mqtt_string(password)
    body = _mqtt_string("MQTT") + bytes([4, flags, 0, 10]) + payload
    length, remaining = b"", len(body)
    while True:
        byte, remaining = remaining % 128, remaining // 128
        length += bytes([byte | (0x80 if remaining else 0)])
        if not remaining:
            break
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.settimeout(timeout)
        s.sendall(b"\x10" + length + body)
        reply = b""
        while len(reply) < 4:
            chunk = s.recv(4 - len(reply))
            if not chunk:
                raise ConnectionResetError("the broker closed the connection before CONNACK")
            reply += chunk
        if reply[0] != 0x20:
            raise ConnectionError(f"unexpected reply to CONNECT: {reply!r}")
        if reply[3] == 0:
            try:
                s.sendall(b"\xe0\x00")         # DISCONNECT, so no Last Will fires
            except OSError:
                pass
        return reply[3]


class Broker:
    """What the hub needs from a broker. Subclasses fill in the mode-specific parts."""

    mode = "abstract"
    manages_users = True      # False: logins are the operator's job (external broker)

    def __init__(self, host: str = "127.0.0.1", tcp_port: int = 0, ws_port: int | None = 0,
                 users=None, max_payload: int = MAX_PAYLOAD_BYTES):
        self.host = host
        self.tcp_port = tcp_port
        self.ws_port = ws_port            # None: no WebSockets listener
        self.max_payload = int(max_payload)
        self._initial_users = cred.as_pairs(users)
        self._running = False

    # addresses
    @property
    def url(self) -> str:
        """``mqtt://host:port`` for a client on this machine (the hub)."""
        return f"mqtt://{_url_host(connect_host(self.host))}:{self.tcp_port}"

    @property
    def ws_url(self) -> str | None:
        """``ws://host:port/mqtt`` on this machine; phones need the box's LAN address instead:
        use :meth:`ws_url_for`."""
        return None if self.ws_port is None else self.ws_url_for(connect_host(self.host))

    def ws_url_for(self, host: str) -> str | None:
        return None if self.ws_port is None else f"ws://{_url_host(host)}:{self.ws_port}{WS_PATH}"

    @property
    def running(self) -> bool:
        return self._running

    def alive(self) -> bool:
        """Can clients reach it right now? (False while a supervised child is restarting.)"""
        return self._running

    def on_change(self, fn) -> None:
        """``fn(up: bool, message: str)`` when a supervised broker dies and when it is back."""
        self._watchers = getattr(self, "_watchers", [])
        self._watchers.append(fn)

    def _tell(self, up, message):
        for fn in list(getattr(self, "_watchers", [])):
            try:
                fn(up, message)
            except Exception:
                log.exception("a broker watcher failed")

    # ports
    def _wanted(self):
        """(address, port, kind) of each port (not left to the OS) this broker listens on."""
        out = [(self.host, self.tcp_port, "mqtt")] if self.tcp_port else []
        if self.ws_port:
            out.append((self.host, self.ws_port, "ws"))
        return out

    def _taken(self, mine=()) -> PortTaken | None:
        """Does another socket than ``mine`` (inodes) listen where ours would (or do)?"""
        for host, port, kind in self._wanted():
            taken = port_taken(host, port, kind, mine)
            if taken is not None:
                return taken
        return None

    # life
    def start(self) -> "Broker":
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def __repr__(self):
        state = "running" if self._running else "stopped"
        return f"<{type(self).__name__} {self.url} ws={self.ws_port} {state}>"

    # logins
    def add_user(self, username: str, password: str) -> None:
        raise NotImplementedError

    def remove_user(self, username: str) -> bool:
        raise NotImplementedError

    def add_credential(self, credential: cred.Credential) -> None:
        self.add_user(credential.username, credential.password)

    def users(self) -> list[str]:
        raise NotImplementedError
