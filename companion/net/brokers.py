"""The MQTT broker the phones and the hub meet on: one interface, three modes, and ``auto``.

* ``auto`` (the default of ``companion serve`` and ``companion run``): mosquitto when it is
  installed, else the embedded broker (:func:`auto_mode`; benches/bench_broker.py and
  bench_hub.py measure why).
* :class:`EmbeddedBroker` (nothing to install): amqtt 0.12.1 on its own asyncio loop in a
  thread, TCP + WebSockets listeners, logins checked in memory by our auth plugin, the topic
  wall by our topic plugin (both call :func:`companion.net.topics.may`); amqtt's private parts
  it patches live in :mod:`companion.net.amqtt_glue`, behind a version check.
* :class:`MosquittoBroker`: a ``mosquitto -c`` child process with a generated config, password
  file (``$7$`` hashes) and ACL file (``pattern`` rules rendered from the same wall),
  supervised (restarted on the same ports if it dies), and dying with the table (Linux:
  ``PR_SET_PDEATHSIG``, the child forked by one long-lived thread; :func:`_reap_orphan` at the
  next start is the second line of defence).
  With a :class:`BridgeTo`, the child also bridges the table's public topics out to a club's
  broker (mosquitto's own bridge, one way; never a view, cmd or reply).
* :class:`ExternalBroker`: a broker somebody else runs (``mqtt://host:port``). No child, and its
  logins and ACL are the operator's job: :meth:`add_user` raises :class:`BrokerError`.

One broker per port: before the embedded broker or mosquitto starts, each port it needs is
checked against the sockets listening on it (``/proc/net/tcp{,6}``; a wildcard bind counts the
loopback addresses, where Debian's own ``mosquitto.service`` listens). A taken port is a
:class:`PortTaken` sentence naming the port and its holder's command and pid (found by the
socket's inode in ``/proc/*/fd``; another user's process hides its open files, so then from what
every user may read: the socket's owner uid in ``/proc/net/tcp`` and each process's ``status``,
``comm``, ``cmdline`` and ``cgroup``, see :func:`owner_holder`). Ready means the probe login was
answered *and* every listener on our ports is ours (the child's sockets, in
``/proc/<pid>/fd``); a supervisor whose port was taken says so once and stops restarting.

Every mode is a context manager with ``start()``/``stop()``, ``host``, ``tcp_port``, ``ws_port``,
``url`` (for the hub), ``ws_url`` (for the phones) and ``add_user``/``remove_user``.
Oversized payloads (over :data:`MAX_PAYLOAD_BYTES`) are dropped by both brokers we run.
"""
from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import dataclasses
import logging
import os
import queue
import re
import secrets
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

from companion.core.errors import CompanionError

from . import amqtt_glue
from . import credentials as cred
from .client import ConnectError, parse_url
from .protocol import MAX_PAYLOAD_BYTES
from .topics import bridge_topics, check_table_id, club_link, mosquitto_acl, public_patterns

log = logging.getLogger(__name__)

MOSQUITTO_BINARIES = ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto")
WS_PATH = "/mqtt"
#: Embedded broker: seconds of silence allowed beyond a client's keepalive before it is dropped
#: (mosquitto allows half the keepalive). paho pings up to 1 s late, hence 2.
KEEPALIVE_GRACE = 2


class BrokerError(CompanionError):
    """The broker could not start, stop, or do what was asked. The message says why."""


class PortTaken(BrokerError):
    """Another program listens on a port the table's broker needs (``kind``: ``"mqtt"`` or
    ``"ws"``). ``holder`` is ``(pid, command name)``, or None when it cannot be named.
    ``owner`` (``"user mosquitto"``, or ``"uid 4242"`` where the system has no name for it) is
    set when the holder was found through the socket's owner rather than its open files (another
    user's process, see :func:`owner_holder`): the holder's user, or, with no holder, the user
    whose program it is. ``others``: more ``((pid, name), owner, hint)`` that may be the holder
    just as well (two brokers of the socket's owner: it cannot tell which)."""

    def __init__(self, port: int, kind: str = "mqtt", holder: tuple | None = None,
                 hint: str = "", owner: str | None = None, others=()):
        self.port, self.kind, self.holder, self.owner = port, kind, holder, owner
        self.others = list(others)
        if holder is not None:
            named = [(holder, owner, hint)] + self.others
            names = [f"{name} ({', '.join(x for x in (f'pid {pid}', who, why) if x)})"
                     for (pid, name), who, why in named[:3]]
            if len(named) > 3:
                names.append(f"{len(named) - 3} more like them")
            who = "by " + (names[0] if len(names) == 1 else
                           ", ".join(names[:-1]) + " or " + names[-1])
            brokers = all(_broker_like(name) for (_, name), _, _ in named)
            that = "that broker" if brokers else "that program"
        elif owner is not None:
            who = f"by a program of {owner}"
            that = "that program"
        else:
            who = "by a program this user cannot see"
            that = "that program"
        need = "needs it" if kind == "mqtt" else "needs it for the phones (MQTT over WebSockets)"
        flag = "--mqtt-port" if kind == "mqtt" else "--ws-port"
        super().__init__(f"Port {port} is already taken {who}; the table's broker {need}. "
                         f"Stop {that} or start the table with {flag}.")


#: Words in a command name that make it an MQTT broker (mosquitto, amqtt, EMQX, NanoMQ, ...).
BROKER_WORDS = ("mosquitto", "mqtt", "emqx", "nanomq", "vernemq", "hivemq")


def _broker_like(*names) -> bool:
    return any(w in (n or "").lower() for n in names for w in BROKER_WORDS)


# -- who listens on a port (Linux: /proc/net/tcp{,6} and /proc/<pid>/fd) --------------------------

_ANY_ADDRESS = ("", "0.0.0.0", "::")


def _proc_address(text: str) -> str:
    """An address as /proc/net/tcp{,6} writes it (hex, each 32-bit word in host order)."""
    raw = bytes.fromhex(text)
    if sys.byteorder == "little":
        raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
    if len(raw) == 4:
        return socket.inet_ntop(socket.AF_INET, raw)
    addr = socket.inet_ntop(socket.AF_INET6, raw)
    return addr[7:] if addr.startswith("::ffff:") and "." in addr else addr


def listeners(port: int) -> list[tuple[str, int]] | None:
    """``(address, socket inode)`` of every TCP socket listening on ``port`` in this network
    namespace; None where /proc/net/tcp cannot be read (not Linux)."""
    found = _listening(port)
    return None if found is None else [(addr, inode) for addr, inode, _ in found]


def _listening(port: int) -> list[tuple[str, int, int]] | None:
    """``(address, socket inode, owner uid)`` of every TCP socket listening on ``port``; None
    where /proc/net/tcp cannot be read."""
    found, readable = [], False
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name, encoding="ascii") as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        readable = True
        for line in lines:
            fields = line.split()
            if len(fields) < 10 or fields[3] != "0A":          # 0A: LISTEN
                continue
            addr, _, hex_port = fields[1].rpartition(":")
            if int(hex_port, 16) == port:          # fields[7]: the uid that made the socket
                found.append((_proc_address(addr), int(fields[9]), int(fields[7])))
    return found if readable else None


def _clashes(ours: str, theirs: str) -> bool:
    """Does a listener on ``theirs`` take clients (or the port) from ours on ``ours``? A
    wildcard of ours counts every address, the loopbacks included (Debian's mosquitto.service
    holds 127.0.0.1 and ::1: local clients would meet it, not us)."""
    if ours in _ANY_ADDRESS or theirs == "::":
        return True
    if theirs == "0.0.0.0":
        return ":" not in ours
    return theirs == ours


def _socket_inodes(pid: int) -> set[int]:
    """The socket inodes among ``pid``'s open files (empty if it is gone or not ours to see)."""
    out = set()
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return out
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            out.add(int(target[8:-1]))
    return out


def socket_holder(inodes) -> tuple[int, str] | None:
    """``(pid, command name)`` of the process (lowest pid) holding one of these socket inodes;
    None when no process this user may look into holds it."""
    wanted = set(inodes)
    try:
        pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    except OSError:
        return None
    for pid in pids:
        if _socket_inodes(pid) & wanted:
            return pid, _command_name(pid)
    return None


def _command_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() or "?"
    except OSError:
        return "?"


def _user(uid: int) -> str:
    """``"user mosquitto"``, or ``"uid 4242"`` when the system has no name for it."""
    import pwd
    try:
        return f"user {pwd.getpwuid(uid).pw_name}"
    except (KeyError, OverflowError):
        return f"uid {uid}"


def _hidden_processes():
    """``(pid, uids, comm, argv)`` of every process (lowest pid first) whose open files this
    user may not look into, from what any user may read (/proc/<pid>/status, comm, cmdline);
    kernel threads (no command line) and zombies are left out."""
    try:
        pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    except OSError:
        return
    for pid in pids:
        try:
            os.listdir(f"/proc/{pid}/fd")
            continue                        # its sockets were searched by socket_holder
        except FileNotFoundError:
            continue                        # gone, or a zombie
        except OSError:
            pass
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            status = Path(f"/proc/{pid}/status").read_text(errors="replace")
        except OSError:
            continue
        argv = [a.decode(errors="replace") for a in argv if a]
        uids = next((line.split()[1:] for line in status.splitlines()
                     if line.startswith("Uid:")), None)
        if not argv or not uids:
            continue
        yield pid, [int(u) for u in uids], _command_name(pid), argv      # real uid first


def owner_holder(uids) -> tuple[list, str | None]:
    """Who holds a listening socket that :func:`socket_holder` could not find (another user's
    process hides its open files), from the socket's owner ``uids`` (/proc/net/tcp) and what
    every user may read of every process. Only processes whose open files are hidden from us
    are candidates (the others were searched). In order of preference:

    1. the brokers (by command name: :data:`BROKER_WORDS`) of the socket's owner; when the
       owner is root, the brokers of any user (a broker may bind its ports as root and then
       become another user: the socket stays root's);
    2. the owner's only process.

    Returns ``([((pid, command name), "user <the process's user>"), ...], None)``, lowest pid
    first; or ``([], "user <the owner>")`` when the owner has processes but none stands out; or
    ``([], None)`` when no process we can see could be it (another PID namespace)."""
    uids = set(uids)
    procs = list(_hidden_processes())
    owners = [p for p in procs if uids.intersection(p[1])]

    def broker(p):              # its name, or the script's a Python runs (amqtt)
        _, _, comm, argv = p
        names = [comm, os.path.basename(argv[0])]
        if names[1].startswith("python") and len(argv) > 1:
            names.append(os.path.basename(argv[1]))
        return _broker_like(*names)

    def named(p):
        pid, puids, comm, _ = p
        return (pid, comm), _user(puids[0])

    found = [named(p) for p in (procs if 0 in uids else owners) if broker(p)]
    if found:
        return found, None
    if len(owners) == 1:
        return [named(owners[0])], None
    return [], (_user(min(uids)) if owners else None)


def _holder_hint(pid: int, name: str) -> str:
    """Where a broker holding our port probably comes from, and how to stop it."""
    if "mosquitto" not in name:
        return ""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
            errors="replace")
    except OSError:
        cmd = ""
    try:
        cgroup = Path(f"/proc/{pid}/cgroup").read_text()
    except OSError:
        cgroup = ""
    if "mosquitto.service" in cgroup or "/etc/mosquitto/" in cmd:
        return ("probably Debian's mosquitto.service: "
                "sudo systemctl disable --now mosquitto")
    if "tc-mosquitto-" in cmd:
        return "the broker of another table on this box"
    return ""


def port_taken(host: str, port: int, kind: str = "mqtt", mine=()) -> PortTaken | None:
    """The error to raise if some socket other than ``mine`` (socket inodes) listens on
    ``port`` where a listener of ours on ``host`` would clash with it; else None (also where
    /proc cannot tell)."""
    found = _listening(port)
    if not found:
        return None
    foreign = {(inode, uid) for addr, inode, uid in found
               if _clashes(host, addr) and inode not in mine}
    if not foreign:
        return None
    holder = socket_holder({inode for inode, _ in foreign})
    if holder is not None:
        return PortTaken(port, kind, holder, _holder_hint(*holder))
    # another user's: named from the socket's owner, with each one's hint
    found, owner = owner_holder({uid for _, uid in foreign})
    found = [(h, who, _holder_hint(*h)) for h, who in found]
    debian = [x for x in found if "mosquitto.service" in x[2]]
    if len(debian) == 1:                    # the usual one on a Pi: that is the one
        found = debian
    if not found:
        return PortTaken(port, kind, None, owner=owner)
    (holder, who, hint), others = found[0], found[1:]
    return PortTaken(port, kind, holder, hint, who, others)


# -- helpers ------------------------------------------------------------------------------------

def free_port(host: str = "") -> int:
    """A TCP port that is free right now on ``host`` (the OS picks it)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def free_ports(n: int, host: str = "") -> list[int]:
    """``n`` different TCP ports free right now on ``host``: the sockets are held open until
    all are picked (``free_port`` called ``n`` times may give the same port twice)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    held = []
    try:
        for _ in range(n):
            s = socket.socket(family, socket.SOCK_STREAM)
            held.append(s)
            s.bind((host, 0))
        return [s.getsockname()[1] for s in held]
    finally:
        for s in held:
            s.close()


def connect_host(bind_host: str) -> str:
    """Where a local client should connect to reach a listener bound to ``bind_host``."""
    if bind_host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if bind_host == "::":
        return "::1"
    return bind_host


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


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


# -- the interface -------------------------------------------------------------------------------

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


# -- embedded: amqtt -----------------------------------------------------------------------------

_CONNECTION_LOSS = re.compile(r"no close frame|connection (?:reset|closed|lost)|broken pipe|"
                              r"ConnectionClosed|IncompleteRead|Cannot write to closing|"
                              r"messages not broadcasted",
                              re.IGNORECASE)


class _RoutineDisconnects(logging.Filter):
    """amqtt reports a phone that drops its connection (asleep, out of Wi-Fi, the page
    reloaded, the table stopping) as warnings and tracebacks. They are routine at a table:
    keep them at debug level, so the console shows only what an operator must act on."""

    def filter(self, record):
        exc = record.exc_info[1] if record.exc_info else None
        text = record.getMessage()
        if isinstance(exc, (ConnectionError, asyncio.IncompleteReadError)) or \
                (exc is not None and _CONNECTION_LOSS.search(type(exc).__name__ + str(exc))) \
                or (record.levelno < logging.ERROR and _CONNECTION_LOSS.search(text)):
            if log.isEnabledFor(logging.DEBUG):
                log.debug("broker: %s (%s)", text, exc)
            return False
        return True


_QUIETED = []


def _loop_exception(loop, context):
    """The embedded broker's loop: a publish to a phone that just vanished is routine."""
    exc = context.get("exception")
    if isinstance(exc, (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError)) \
            or (exc is not None and _CONNECTION_LOSS.search(type(exc).__name__ + str(exc))):
        log.debug("broker: %s (%r)", context.get("message"), exc)
        return
    loop.default_exception_handler(context)


def _quiet_amqtt():
    if _QUIETED:
        return
    f = _RoutineDisconnects()
    for name in ("amqtt.broker", "amqtt.mqtt.protocol.handler", "amqtt.adapters",
                 "amqtt.mqtt.protocol.broker_handler", "websockets.server",
                 "websockets.asyncio.server"):
        logging.getLogger(name).addFilter(f)
    _QUIETED.append(f)


class EmbeddedBroker(Broker):
    """amqtt in this process. Passwords live in memory only (:class:`PasswordTable`).

    MQTT 3.1.1 only: an MQTT 5 client never gets a CONNACK from amqtt.
    """

    mode = "embedded"

    def __init__(self, host: str = "127.0.0.1", tcp_port: int = 0, ws_port: int | None = 0,
                 users=None, max_payload: int = MAX_PAYLOAD_BYTES, start_timeout: float = 10.0):
        super().__init__(host, tcp_port, ws_port, users, max_payload)
        self._table = cred.PasswordTable(self._initial_users)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._broker = None
        self._start_timeout = start_timeout

    def _bind(self, port: int) -> str:
        return f"{_url_host(self.host)}:{port}"

    async def _astart(self):
        auth_cls, wall_cls, broker_cls = amqtt_glue.classes()
        listeners = {"default": {"type": "tcp", "bind": self._bind(self.tcp_port)}}
        if self.ws_port is not None:
            listeners["ws"] = {"type": "ws", "bind": self._bind(self.ws_port)}
        glue = amqtt_glue.__name__
        config = {"listeners": listeners, "timeout_disconnect_delay": KEEPALIVE_GRACE,
                  "plugins": {f"{glue}.SeatAuthPlugin": {}, f"{glue}.WallPlugin": {}}}
        broker = broker_cls(config, loop=asyncio.get_running_loop())
        broker.max_payload = self.max_payload
        plugins = broker.plugins_manager.plugins
        auths = [p for p in plugins if isinstance(p, auth_cls)]
        if len(auths) != 1 or not any(isinstance(p, wall_cls) for p in plugins):
            raise BrokerError("The embedded broker did not load its auth and topic plugins.")
        auths[0].table = self._table
        await broker.start()
        self._broker = broker
        self.tcp_port = amqtt_glue.bound_port(broker, "default")
        if self.ws_port is not None:
            self.ws_port = amqtt_glue.bound_port(broker, "ws")

    def start(self) -> "EmbeddedBroker":
        if self._running:
            return self
        try:
            self.amqtt_version = amqtt_glue.check()
        except amqtt_glue.AmqttMismatch as e:
            raise BrokerError(str(e)) from None
        taken = self._taken()                   # someone else's broker on our port: say who
        if taken is not None:
            raise taken
        _quiet_amqtt()
        self._loop = asyncio.new_event_loop()
        self._loop.set_exception_handler(_loop_exception)
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="tc-embedded-broker")
        self._thread.start()
        fut = asyncio.run_coroutine_threadsafe(self._astart(), self._loop)
        try:
            fut.result(self._start_timeout)
        except BrokerError:
            self._stop_loop()
            raise
        except Exception as e:           # amqtt wraps bind errors in its own BrokerError
            self._stop_loop()
            taken = self._taken()           # taken between the check and the bind
            if taken is not None:
                raise taken from None
            cause = e.__cause__ or e
            raise BrokerError(f"The embedded broker could not listen on {self.host} "
                              f"(TCP {self.tcp_port}, WebSockets {self.ws_port}): {cause}.") from None
        # ours alone: no other socket (a loopback one taken meanwhile) shares our ports
        taken = self._taken(mine=_socket_inodes(os.getpid()))
        if taken is not None:
            self._stop_loop()
            raise taken
        self._running = True
        return self

    @staticmethod
    def _abort(handler) -> None:
        amqtt_glue.abort(handler)

    async def _ashutdown(self):
        broker = self._broker
        if broker is not None:
            for _session, handler in amqtt_glue.sessions(broker):
                if handler is not None:
                    self._abort(handler)
            await asyncio.sleep(0)
            try:
                await asyncio.wait_for(broker.shutdown(), 5)
            except asyncio.TimeoutError:
                log.warning("the embedded broker took over 5 s to shut down; cancelling it")
        current = asyncio.current_task()
        rest = [t for t in asyncio.all_tasks() if t is not current]
        for t in rest:
            t.cancel()
        await asyncio.gather(*rest, return_exceptions=True)

    def _stop_loop(self):
        if self._loop is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._ashutdown(), self._loop).result(10)
        except Exception as e:              # still stop the loop; report once
            log.warning("embedded broker shutdown: %r", e)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
        self._loop = self._thread = self._broker = None

    def stop(self) -> None:
        if not self._running:
            return
        self._running = False
        self._stop_loop()

    # logins
    def add_user(self, username: str, password: str) -> None:
        self._table.add(username, password)

    def remove_user(self, username: str) -> bool:
        """Forget the login and drop its live connections (their Last Will fires)."""
        removed = self._table.remove(username)
        if self._running:
            asyncio.run_coroutine_threadsafe(self._kick(username), self._loop).result(5)
        return removed

    async def _kick(self, username: str):
        for session, handler in amqtt_glue.sessions(self._broker):
            if session.username == username and handler is not None:
                self._abort(handler)

    def users(self) -> list[str]:
        return self._table.names()


# -- mosquitto ------------------------------------------------------------------------------------

PROBE_USER = "_probe"     # internal: not a valid seat id, so it can never be a seat

_LIVE_CHILDREN: "weakref.WeakSet[MosquittoBroker]" = weakref.WeakSet()


def _pid_dir() -> Path:
    """Where each running mosquitto child of this user is noted, by TCP port (see
    :func:`_reap_orphan`)."""
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    return Path(base) / f"tc-mosquitto-pids-{os.getuid()}"


def _note_child(port: int, pid: int, run_dir: Path) -> None:
    d = _pid_dir()
    d.mkdir(mode=0o700, exist_ok=True)
    cred.write_private_file(d / f"{port}.pid", f"{pid}\n{run_dir}\n")


def _forget_child(port: int, pid: int) -> None:
    f = _pid_dir() / f"{port}.pid"
    try:
        if f.read_text().split("\n")[0] == str(pid):
            f.unlink()
    except (OSError, IndexError):
        pass


def _reap_orphan(port: int, wait: float = 5.0) -> bool:
    """Stop the mosquitto a killed hub left running on ``port``.

    A hub killed outright (SIGKILL, the OOM killer, a crash) cannot stop its mosquitto child,
    which runs in a session of its own: it keeps the ports and the old logins, and the next
    start's probe login is refused by it. Each child is noted by port with its pid and run
    directory; at the next start on that port, a process that is still that mosquitto (its
    command line names the noted run directory) is sent SIGTERM (SIGKILL after ``wait``) and
    its run directory removed. True if one was stopped."""
    f = _pid_dir() / f"{port}.pid"
    try:
        pid_text, run_dir = f.read_text().split("\n")[:2]
        pid = int(pid_text)
    except (OSError, ValueError):
        return False
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        cmd = ""
    stopped = False
    if run_dir and "mosquitto" in cmd and run_dir in cmd:
        log.warning("stopping mosquitto pid %s left on port %s by a hub that did not stop it",
                    pid, port)
        for sig, until in ((signal.SIGTERM, wait), (signal.SIGKILL, wait)):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + until
            while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            if not Path(f"/proc/{pid}").exists():
                break
        stopped = True
        if Path(run_dir).name.startswith("tc-mosquitto-"):
            shutil.rmtree(run_dir, ignore_errors=True)
    try:
        f.unlink()
    except OSError:
        pass
    return stopped


@atexit.register
def _stop_children_at_exit():
    """A hub that exits without calling stop() must not leave mosquitto holding its ports."""
    for b in list(_LIVE_CHILDREN):
        try:
            b.stop()
        except Exception:
            pass


# -- children that die with the table -------------------------------------------------------------

#: Ask the kernel to SIGTERM each mosquitto child when the table dies, however it dies (Linux
#: only; elsewhere :func:`_reap_orphan` at the next start is the only defence).
DIE_WITH_PARENT = sys.platform.startswith("linux")
_PR_SET_PDEATHSIG = 1
_libc = None


def _prctl():
    """libc's prctl, loaded in the parent (nothing is loaded between fork and exec)."""
    global _libc
    if _libc is None:
        import ctypes
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc.prctl


def _die_with(parent_pid: int, prctl):
    """A ``preexec_fn``: in the child, after fork and before exec, ask for SIGTERM when the
    parent dies; if it died already (between the fork and here), go at once."""
    def preexec():
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent_pid:
            os._exit(1)
    return preexec


class _Spawner:
    """Every mosquitto child is forked by this one long-lived thread. The kernel sends the
    parent-death signal when the *thread* that forked the child ends, not the process: a child
    forked by the thread that called ``start()`` (a short-lived worker, say) or by a
    supervisor that gives up would be stopped with that thread."""

    def __init__(self):
        self._lock = threading.Lock()
        self._jobs: "queue.SimpleQueue" = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def popen(self, args, **kw) -> subprocess.Popen:
        if not DIE_WITH_PARENT:
            return subprocess.Popen(args, **kw)
        kw["preexec_fn"] = _die_with(os.getpid(), _prctl())
        with self._lock:                    # (a forked copy of this process has no thread)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, daemon=True,
                                                name="tc-child-spawner")
                self._thread.start()
        job = concurrent.futures.Future()
        self._jobs.put((job, args, kw))
        return job.result()

    def _serve(self):
        while True:
            job, args, kw = self._jobs.get()
            try:
                job.set_result(subprocess.Popen(args, **kw))
            except BaseException as e:      # the caller raises it
                job.set_exception(e)


_SPAWNER = _Spawner()


def find_mosquitto(binary: str | None = None) -> str:
    if binary:
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            raise BrokerError(f"{binary} is not an executable mosquitto.")
        return binary
    for path in (shutil.which("mosquitto"), *MOSQUITTO_BINARIES):
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise BrokerError("mosquitto is not installed (Debian: apt-get install mosquitto); "
                      "or use the embedded broker.")


class MosquittoBroker(Broker):
    """mosquitto as a child process, with files in a private run directory (0700):
    ``mosquitto.conf``, ``passwd`` (0600, ``$7$`` hashes only), ``acl``, ``mosquitto.log`` and
    ``data/`` (persistence). A temporary run dir is deleted at :meth:`stop`; one you pass in is
    kept, so retained messages survive a restart.

    Logins are changed at runtime by rewriting ``passwd`` and sending SIGHUP; :meth:`add_user`
    returns once mosquitto has really reloaded (checked with an internal probe login whose
    password changes at every reload). The probe login (``_probe``) has only public read
    rights, like any authenticated user.

    Note: mosquitto 2.0.11 binds the WebSockets listener on every interface whatever ``host``
    says (upstream issue #3045).
    """

    mode = "mosquitto"
    #: What a login may be called here (the table's wall depends on it); the club overrides it.
    check_username = staticmethod(cred.check_username)

    def __init__(self, host: str = "127.0.0.1", tcp_port: int = 0, ws_port: int | None = 0,
                 users=None, max_payload: int = MAX_PAYLOAD_BYTES, *, binary: str | None = None,
                 run_dir=None, persistence: bool = True, max_queued_messages: int = 100_000,
                 start_timeout: float = 10.0, bridge: "BridgeTo | None" = None,
                 acl_text: str | None = None):
        super().__init__(host, tcp_port, ws_port, users, max_payload)
        self.binary = binary
        self.bridge = bridge                # set before start, or later with set_bridge()
        self.acl_text = acl_text            # None: the table's wall (mosquitto_acl())
        self.run_dir = Path(run_dir) if run_dir is not None else None
        self._own_run_dir = run_dir is None
        self.persistence = persistence
        self.max_queued_messages = int(max_queued_messages)
        self.start_timeout = start_timeout
        self._hashes: dict[str, str] = {}
        for name, password in self._initial_users:
            self._hashes[self.check_username(name)] = cred.mosquitto_hash(
                cred.check_password(password))
        self._probe_password = ""
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self._want_tcp, self._want_ws = tcp_port, ws_port
        self._supervisor: threading.Thread | None = None
        self._down = False                  # the child died and is being restarted
        self.restart_delay = 0.5            # s between noticing a death and restarting
        self.restarts = 0
        self.gave_up: PortTaken | None = None   # the supervisor stopped: a port was taken

    # files
    @property
    def config_path(self) -> Path:
        return self.run_dir / "mosquitto.conf"

    @property
    def log_path(self) -> Path:
        return self.run_dir / "mosquitto.log"

    def config_text(self) -> str:
        run = self.run_dir
        lines = [
            "# Generated by companion.net.brokers.MosquittoBroker; rewritten at every start.",
            "per_listener_settings false",
            "allow_anonymous false",
            f"password_file {run / 'passwd'}",
            f"acl_file {run / 'acl'}",
            "set_tcp_nodelay true",
            f"max_queued_messages {self.max_queued_messages}",
            # payloads over the limit are dropped (QoS flow completed, nothing delivered);
            # packets far over it (topic + headers > 4 KiB) close the connection.
            f"message_size_limit {self.max_payload}",
            f"max_packet_size {self.max_payload + 4096}",
            f"persistence {'true' if self.persistence else 'false'}",
            f"persistence_location {run / 'data'}/",
            "autosave_interval 30",
            "log_dest stderr",
            "log_type error", "log_type warning", "log_type notice", "log_type information",
            "connection_messages true",
            "log_timestamp true",
        ]
        if os.geteuid() == 0:
            # as root mosquitto drops to user 'mosquitto', which cannot read our 0600 files
            lines.append("user root")
        lines += ["", f"listener {self.tcp_port} {self.host}", "protocol mqtt"]
        if self.ws_port is not None:
            lines += ["", f"listener {self.ws_port} {self.host}", "protocol websockets"]
        if self.bridge is not None:
            lines += ["", "# The table's public topics, out to its club (BridgeTo).",
                      *self.bridge.config_lines()]
        return "\n".join(lines) + "\n"

    def _write_passwd(self):
        self._probe_password = cred.new_password()
        hashes = dict(self._hashes)
        hashes[PROBE_USER] = cred.mosquitto_hash(self._probe_password)
        cred.write_password_file(self.run_dir / "passwd", hashes)

    def _write_files(self):
        (self.run_dir / "data").mkdir(mode=0o700, exist_ok=True)
        self._write_passwd()
        cred.write_private_file(self.run_dir / "acl", self.acl_text or mosquitto_acl())
        cred.write_private_file(self.config_path, self.config_text())

    def _log_tail(self, lines: int = 8) -> str:
        try:
            text = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(text[-lines:]) or "(empty log)"

    # life
    def start(self) -> "MosquittoBroker":
        if self._running:
            return self
        if self._want_tcp and self._want_tcp == self._want_ws:
            raise BrokerError(f"mosquitto cannot listen for MQTT and WebSockets on the same "
                              f"port ({self._want_tcp}): give two different ports.")
        binary = find_mosquitto(self.binary)
        if self.run_dir is None:
            self.run_dir = cred.private_dir("tc-mosquitto-")
        else:
            self.run_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        auto = self._want_tcp == 0 or self._want_ws == 0
        if self._want_tcp:
            _reap_orphan(self._want_tcp)
        self.tcp_port, self.ws_port = self._want_tcp, self._want_ws
        taken = self._taken()               # someone else's broker on our port: say who
        if taken is not None:
            self._cleanup_dir()
            raise taken
        err = "no free pair of ports was found"
        for attempt in range(5 if auto else 1):
            self.tcp_port = self._want_tcp or free_port()
            if self._want_ws is not None:
                self.ws_port = self._want_ws or free_port()
                if self.ws_port == self.tcp_port:
                    continue
            self._write_files()
            self._spawn(binary)
            err = self._wait_ready()
            if isinstance(err, PortTaken):
                self._kill_child()
                if auto and err.port not in (self._want_tcp, self._want_ws):
                    continue                # a port picked for us was taken meanwhile
                self._cleanup_dir()
                raise err
            if err is None:
                self._running = True
                _LIVE_CHILDREN.add(self)
                _note_child(self.tcp_port, self._proc.pid, self.run_dir)
                self._want_tcp, self._want_ws = self.tcp_port, self.ws_port   # keep them
                self._supervisor = threading.Thread(target=self._supervise, daemon=True,
                                                    name="tc-mosquitto-watch")
                self._supervisor.start()
                return self
            self._kill_child()
            if not (auto and "in use" in err.lower()):
                break
        self._cleanup_dir()
        raise BrokerError(f"mosquitto did not start: {err}")

    def _spawn(self, binary):
        """Start the child (forked by the long-lived spawner thread, set to die with us)."""
        with open(self.log_path, "ab") as logf:
            self._proc = _SPAWNER.popen([binary, "-c", str(self.config_path)],
                                        stdin=subprocess.DEVNULL, stdout=logf,
                                        stderr=subprocess.STDOUT, start_new_session=True)

    def _wanted(self):
        """(address, port, kind) of each port the child listens on: the WebSockets listener of
        mosquitto 2.0 binds every address whatever the config says (upstream #3045)."""
        out = [(self.host, self.tcp_port, "mqtt")] if self.tcp_port else []
        if self.ws_port:
            out.append(("::", self.ws_port, "ws"))
        return out

    def _wait_ready(self) -> "str | PortTaken | None":
        """None once the child answers its probe login *and* every listener on our ports is
        the child's; a :class:`PortTaken` when another program holds one of them (the probe
        may have been answered by that program); else what went wrong, in words."""
        deadline = time.monotonic() + self.start_timeout
        host = connect_host(self.host)
        proc = self._proc
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                return self._exit_reason(proc)
            try:
                rc = probe_login(host, self.tcp_port, PROBE_USER, self._probe_password)
            except OSError:
                time.sleep(0.01)
                continue
            # whoever answered: are the listeners on our ports the child's, and is it alive?
            taken = self._taken(mine=_socket_inodes(proc.pid))
            if taken is not None:
                return taken
            if proc.poll() is not None:
                return self._exit_reason(proc)
            if rc == 0:
                return None
            return f"it refused its own probe login (CONNACK {rc}): {self._log_tail()}"
        return f"no answer on port {self.tcp_port} within {self.start_timeout:g} s: " \
               f"{self._log_tail()}"

    def _exit_reason(self, proc) -> "str | PortTaken":
        tail = self._log_tail()
        if "address already in use" in tail.lower():
            taken = self._taken()
            if taken is not None:
                return taken
            ports = re.findall(r"listen socket on port (\d+)", tail)
            port = int(ports[-1]) if ports else self.tcp_port
            return PortTaken(port, "ws" if port == self.ws_port else "mqtt")
        return f"it exited with code {proc.returncode}: {tail}"

    def alive(self) -> bool:
        return self._running and not self._down and self._proc is not None and \
            self._proc.poll() is None

    def _supervise(self, every: float = 0.5):
        """Notice a dead mosquitto within a second, say so, and start it again on the same
        ports with the same logins (phones and the hub reconnect by themselves). If another
        program took one of its ports meanwhile, say so once and stop trying: restarting
        cannot win that port back (:attr:`gave_up` holds the sentence)."""
        while self._running:
            time.sleep(every)
            proc = self._proc
            if not self._running or proc is None or proc.poll() is None:
                continue
            if proc is not self._proc:          # replaced on purpose (set_bridge)
                continue
            self._down = True
            code = proc.returncode
            log.warning("mosquitto (pid %s) exited with code %s; restarting it", proc.pid, code)
            self._tell(False, "The message broker stopped; restarting it. Phones reconnect "
                              "by themselves.")
            delay = self.restart_delay
            while self._running:
                time.sleep(delay)
                if self._respawn():
                    self.restarts += 1
                    self._down = False
                    self._tell(True, "The message broker is back.")
                    break
                if self.gave_up is not None:
                    log.error("%s", self.gave_up)
                    self._tell(False, str(self.gave_up))
                    return
                delay = min(delay * 2, 5.0)

    def _respawn(self) -> bool:
        binary = find_mosquitto(self.binary)
        with self._lock:
            if not self._running:
                return False
            if self._proc is not None and self._proc.poll() is None:
                return True                     # set_bridge() started a new one meanwhile
            taken = self._taken()
            if taken is not None:
                self._kill_child()              # (the dead one: forget it)
                self.gave_up = taken
                return False
            self._write_files()
            self._spawn(binary)
            err = self._wait_ready()
            if err is not None:
                self._kill_child()
                if isinstance(err, PortTaken):
                    self.gave_up = err
                else:
                    log.warning("mosquitto did not come back yet: %s", err)
                return False
            _note_child(self.tcp_port, self._proc.pid, self.run_dir)
            return True

    def _kill_child(self):
        proc, self._proc = self._proc, None
        if proc is None:
            return
        _forget_child(self.tcp_port, proc.pid)
        if proc.poll() is not None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)

    def _cleanup_dir(self):
        if self._own_run_dir and self.run_dir is not None:
            shutil.rmtree(self.run_dir, ignore_errors=True)
            self.run_dir = None

    def stop(self) -> None:
        """SIGTERM, wait (mosquitto saves its persistence file on the way out)."""
        if not self._running:
            return
        self._running = False
        _LIVE_CHILDREN.discard(self)
        with self._lock:                    # not while the supervisor is starting a new one
            self._kill_child()
        if self._supervisor is not None and self._supervisor is not threading.current_thread():
            self._supervisor.join(2)
        self._cleanup_dir()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def set_bridge(self, bridge: "BridgeTo | None") -> None:
        """Link the table to a club (a box that joins while it runs), replace the link, or
        drop it (None). mosquitto reads bridges only when it starts, so a running child is
        restarted on the same ports with the same logins and its persistence file: phones and
        the hub reconnect by themselves, as after a crash, and retained messages are kept."""
        with self._lock:
            if bridge == self.bridge:
                return                          # (a box resuming with the club it had)
            self.bridge = bridge
            if not self._running:
                return                          # the next start writes it
            binary = find_mosquitto(self.binary)
            self._kill_child()
            self._write_files()
            self._spawn(binary)
            err = self._wait_ready()
            if err is None:
                _note_child(self.tcp_port, self._proc.pid, self.run_dir)
                return
            if self._proc.poll() is None:       # hung: the supervisor restarts a dead one
                self._proc.kill()
                self._proc.wait(5)
        raise BrokerError(f"mosquitto did not restart with the new club bridge: {err}")

    # logins
    def _reload(self, timeout: float = 5.0):
        """Rewrite passwd, SIGHUP, and wait until mosquitto accepts the new probe password:
        then the whole new file is in force."""
        self._write_passwd()
        self._proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + timeout
        host = connect_host(self.host)
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise BrokerError(f"mosquitto exited during a reload: {self._log_tail()}")
            try:
                if probe_login(host, self.tcp_port, PROBE_USER, self._probe_password) == 0:
                    return
            except OSError:
                pass
            time.sleep(0.002)
        raise BrokerError(f"mosquitto did not reload its password file within {timeout:g} s.")

    def add_user(self, username: str, password: str) -> None:
        self.check_username(username)
        hashed = cred.mosquitto_hash(cred.check_password(password))
        with self._lock:
            self._hashes[username] = hashed
            if self.alive():                # else the restart writes it
                self._reload()

    def remove_user(self, username: str) -> bool:
        """Forget the login. mosquitto re-checks live connections at a reload and drops the
        ones whose login is gone (their Last Will fires)."""
        with self._lock:
            removed = self._hashes.pop(username, None) is not None
            if removed and self.alive():
                self._reload()
            return removed

    def users(self) -> list[str]:
        with self._lock:
            return sorted(self._hashes)


# -- external ---------------------------------------------------------------------------------

class ExternalBroker(Broker):
    """A broker run by somebody else. We start nothing; :meth:`start` only checks that the TCP
    port answers. Its logins and ACL are the operator's: give every seat a login there and
    install the wall from :func:`companion.net.topics.mosquitto_acl` (or equivalent)."""

    mode = "external"
    manages_users = False

    def __init__(self, url: str, ws_url: str | None = None, check_timeout: float = 3.0):
        try:
            ep = parse_url(url)
            ws = parse_url(ws_url) if ws_url else None
        except ConnectError as e:
            raise BrokerError(str(e)) from None
        if ep.scheme != "mqtt":
            raise BrokerError(f"The hub's broker URL must be mqtt://host:port, not {url!r}.")
        if ws is not None and ws.scheme != "ws":
            raise BrokerError(f"The phones' broker URL must be ws://host:port/path, "
                              f"not {ws_url!r}.")
        super().__init__(ep.host, ep.port, ws.port if ws else None)
        self._ws = ws
        self.check_timeout = check_timeout

    @property
    def url(self) -> str:
        return f"mqtt://{_url_host(self.host)}:{self.tcp_port}"

    @property
    def ws_url(self) -> str | None:
        return self._ws.url if self._ws else None

    def ws_url_for(self, host: str) -> str | None:
        return self.ws_url        # the operator's URL is already what phones use

    def start(self) -> "ExternalBroker":
        try:
            socket.create_connection((self.host, self.tcp_port), self.check_timeout).close()
        except OSError as e:
            raise BrokerError(f"Nothing answers at {self.url}: {e.strerror or e}.") from None
        self._running = True
        return self

    def stop(self) -> None:
        self._running = False

    def _refuse(self):
        raise BrokerError(f"The external broker at {self.url} manages its own logins; add or "
                          f"remove seat logins there (see docs/protocol.md, 'External broker').")

    def add_user(self, username: str, password: str) -> None:
        self._refuse()

    def remove_user(self, username: str) -> bool:
        self._refuse()

    def users(self) -> list[str]:
        return []


# -- the bridge to a club ---------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class BridgeTo:
    """Where a box's mosquitto sends its table's public topics: the club broker at
    ``host:port`` (TCP), logged in as ``username`` (the table id) with ``password``. One way
    out, public topics only (:func:`companion.net.topics.public_patterns`)."""
    host: str
    port: int
    username: str
    password: str = dataclasses.field(repr=False)
    table: str
    #: the table's name at the club, when the club gave it another (``table-2``)
    remote: str | None = None

    def __post_init__(self):
        check_table_id(self.table)
        if self.remote is not None:
            check_table_id(self.remote)
        cred.check_username(self.username)
        cred.check_password(self.password)
        if not isinstance(self.host, str) or not self.host or any(c.isspace() or c in "[]#:"
                                                                   for c in self.host):
            # (mosquitto's "address host:port" line cannot hold an IPv6 literal: use a name)
            raise BrokerError(f"{self.host!r} is not a club broker host name or IPv4 address.")
        if not isinstance(self.port, int) or not 0 < self.port < 65536:
            raise BrokerError(f"{self.port!r} is not a club broker port.")
        if any(c.isspace() for c in self.password):
            # mosquitto's config reader would cut it at the first space
            raise BrokerError("A club broker password cannot contain spaces.")

    def config_lines(self) -> list[str]:
        """mosquitto's own bridge section for this link, one setting a line (why: the comments)."""
        lines = [
            f"connection tc-club-{self.table}",
            f"address {self.host}:{self.port}",
            "bridge_protocol_version mqttv311",
            # an ordinary client to the club: a one-way bridge has no remote subscriptions for
            # the bridge flag to help with, and any broker accepts it
            "try_private false",
            f"remote_clientid tc-bridge-{self.table}",
            f"remote_username {self.username}",
            f"remote_password {self.password}",
            # nothing piles up on the box while the club is away (the record goes by the
            # shipper); at every connect mosquitto sends the retained state, status and
            # presence again, which is the live picture; stale events are not replayed as live
            "cleansession true",
            "start_type automatic",
            "restart_timeout 2 15",   # back at the club within 15 s of its return
            # a vanished box is noticed by the club within 1.5 x this (its link turns 0)
            "keepalive_interval 30",
            "notifications true",
            "notifications_local_only false",      # the club must see it, not only the box
            f"notification_topic {club_link(self.remote or self.table)}",
            # send the club publishes only (no UNSUBSCRIBE for the out topics)
            "bridge_attempt_unsubscribe false",
        ]
        lines += bridge_topics(self.table, self.remote)
        return lines


def mosquitto_available(binary: str | None = None) -> bool:
    """Is a mosquitto binary installed (or is ``binary`` an executable one)?"""
    try:
        find_mosquitto(binary)
        return True
    except BrokerError:
        return False


def auto_mode(binary: str | None = None) -> str:
    """The broker ``auto`` means here: ``"mosquitto"`` when it is installed (2-3x faster
    round trips and fan-out than the embedded broker, and out of the hub's process, so the
    hub's Python work never delays a delivery), else ``"embedded"`` (nothing to install)."""
    return "mosquitto" if mosquitto_available(binary) else "embedded"


def make_broker(spec: str = "auto", **options) -> Broker:
    """``"auto"`` (mosquitto if installed, else embedded: :func:`auto_mode`), ``"embedded"``,
    ``"mosquitto"``, or an ``mqtt://host:port`` URL (options: ``ws_url``)."""
    if spec == "auto":
        spec = auto_mode(options.get("binary"))
        if spec == "embedded":
            options.pop("binary", None)
    if spec == "embedded":
        return EmbeddedBroker(**options)
    if spec == "mosquitto":
        return MosquittoBroker(**options)
    if isinstance(spec, str) and spec.startswith(("mqtt://", "ws://")):
        return ExternalBroker(spec, **options)
    raise BrokerError(f"Unknown broker {spec!r}: use 'auto', 'embedded', 'mosquitto' or "
                      f"mqtt://host:port.")
