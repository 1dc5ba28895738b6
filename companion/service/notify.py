"""Tell systemd how the table is doing: the ``sd_notify`` datagram protocol.

A service of ``Type=notify`` gets ``$NOTIFY_SOCKET``, a Unix datagram socket (a path, or an
abstract name written with a leading ``@``); each datagram is newline-separated ``KEY=value``
lines: ``READY=1`` (the table is up: its first frame is on the screen), ``STATUS=...`` (one
line for ``systemctl status``), ``WATCHDOG=1`` (still alive; with ``WatchdogSec=`` systemd kills
and restarts a service that stops sending it; the interval is in ``$WATCHDOG_USEC``, meant for
the process named by ``$WATCHDOG_PID`` if that is set), ``STOPPING=1``.

Written here rather than taken from a library: it is about fifteen lines, and systemd documents
it as a stable interface that programs are expected to reimplement without linking libsystemd
(sd_notify(3), "Notes"; systemd's own docs carry a standalone reference implementation).
Without ``$NOTIFY_SOCKET`` (not under systemd, a test) every call does nothing. A failure to
send is never raised: a table must not stop because its supervisor went away, nor block on
one that stopped reading (a Unix datagram socket's queue holds ``net.unix.max_dgram_qlen``
datagrams: the kernel's default is 10, systemd raises it to 512; a full one makes a blocking
send wait forever, so sends do not block and a full queue drops the datagram). Standard library only.
"""
from __future__ import annotations

import os
import socket


def _address():
    path = os.environ.get("NOTIFY_SOCKET")
    if not path or path[0] not in "/@":            # unset, or a vsock address: not ours
        return None
    return "\0" + path[1:] if path[0] == "@" else path


def notify(**fields) -> bool:
    """Send ``KEY=value`` lines in one datagram (``notify(READY=1, STATUS="Home")``).
    Returns whether it was sent (False: no socket, or the send failed)."""
    addr = _address()
    if addr is None or not fields:
        return False
    lines = [f"{k}={' '.join(str(v).splitlines())}" for k, v in fields.items()]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as s:
            s.setblocking(False)        # a supervisor that stops reading fills its queue
            s.sendto("\n".join(lines).encode("utf-8", "replace"), addr)
    except OSError:
        return False
    return True


def ready(status: str | None = None) -> bool:
    """The service is up (``READY=1``), with its status line if given."""
    return notify(READY=1, **({"STATUS": status} if status else {}))


def stopping(status: str | None = None) -> bool:
    """The service is stopping (``STOPPING=1``)."""
    return notify(STOPPING=1, **({"STATUS": status} if status else {}))


def status(text: str) -> bool:
    """The one line ``systemctl status`` shows for the service."""
    return notify(STATUS=text)


def watchdog() -> bool:
    """Still alive (``WATCHDOG=1``)."""
    return notify(WATCHDOG=1)


def watchdog_interval() -> float | None:
    """Seconds within which systemd wants ``WATCHDOG=1`` (``$WATCHDOG_USEC``), or None: no
    watchdog, or it is meant for another process (``$WATCHDOG_PID``). Send it every half
    interval."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    try:
        if pid and int(pid) != os.getpid():
            return None
        value = int(usec) if usec else 0
    except ValueError:
        return None
    return value / 1e6 if value > 0 else None
