"""Who listens on a port (Linux: ``/proc/net/tcp{,6}`` and ``/proc/<pid>/fd``, or, for another
user's process, the socket's owner uid and what every user may read of ``/proc``), and free
ports for tests and benches. :func:`port_taken` is the sentence a broker says before it starts
on a taken port.
"""
from __future__ import annotations

import os
from pathlib import Path
import socket
import sys

from .errors import PortTaken, _broker_like

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
