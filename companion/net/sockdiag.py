"""How long each TCP connection to some local ports has been silent, from the kernel (Linux
``sock_diag``, what ``ss -ti`` shows as ``lastrcv``). No privileges needed; standard library only.

The hub uses it to notice a phone that went silent on mosquitto, whose own keepalive check
runs only every 6 s (see :mod:`companion.net.silence`).

>>> # tcp_silence({1883, 9001})
>>> # {('192.168.1.31', 50412): Connection(local_port=9001, silent=0.42), ...}
"""
from __future__ import annotations

import dataclasses
import os
import socket
import struct

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
INET_DIAG_INFO = 2
TCP_ESTABLISHED = 1
_NLMSG = struct.Struct("=IHHII")            # len, type, flags, seq, pid
# inet_diag_req_v2: family, protocol, ext, pad, states, then an inet_diag_sockid (48 bytes:
# ports, addresses, interface, cookie) left zero: a dump filters nothing by it
_REQ = struct.Struct("=BBBxI48x")
_MSG_HEAD = struct.Struct("=BBBB")          # family, state, timer, retrans
_SOCKID = struct.Struct(">HH16s16s")        # sport, dport, src, dst (then if, cookie)
_MSG_LEN = 72                               # sizeof(struct inet_diag_msg)
_RTA = struct.Struct("=HH")
_LAST_DATA_RECV = 52                        # offsetof(struct tcp_info, tcpi_last_data_recv)


@dataclasses.dataclass(frozen=True)
class Connection:
    local_port: int
    silent: float           # seconds since data last came in from the other end


def _address(family, raw) -> str:
    """As mosquitto writes it in its log (``inet_ntop``: ``::ffff:1.2.3.4`` for a v4-mapped)."""
    if family == socket.AF_INET:
        return socket.inet_ntop(socket.AF_INET, raw[:4])
    return socket.inet_ntop(socket.AF_INET6, raw[:16])


def _dump(sock, family, seq):
    req = _REQ.pack(family, socket.IPPROTO_TCP, 1 << (INET_DIAG_INFO - 1),
                    1 << TCP_ESTABLISHED)
    sock.sendto(_NLMSG.pack(_NLMSG.size + len(req), SOCK_DIAG_BY_FAMILY,
                            NLM_F_REQUEST | NLM_F_DUMP, seq, 0) + req, (0, 0))
    while True:
        data = sock.recv(1 << 16)
        off = 0
        while off + _NLMSG.size <= len(data):
            length, kind, _, _, _ = _NLMSG.unpack_from(data, off)
            if length < _NLMSG.size:
                return
            if kind == NLMSG_DONE:
                return
            if kind == NLMSG_ERROR:
                err = struct.unpack_from("=i", data, off + _NLMSG.size)[0]
                raise OSError(-err, os.strerror(-err))
            yield data[off + _NLMSG.size:off + length]
            off += (length + 3) & ~3


def tcp_silence(local_ports) -> dict:
    """``{(remote address, remote port): Connection}`` for every established TCP connection
    whose local port is one of ``local_ports`` (IPv4 and IPv6). Raises :class:`OSError` where
    the kernel does not answer (not Linux, no ``inet_diag``)."""
    ports = set(local_ports)
    out = {}
    with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG) as sock:
        for seq, family in enumerate((socket.AF_INET, socket.AF_INET6), 1):
            for msg in _dump(sock, family, seq):
                fam = msg[0]
                sport, dport, _src, dst = _SOCKID.unpack_from(msg, _MSG_HEAD.size)
                if sport not in ports:
                    continue
                off = _MSG_LEN
                while off + _RTA.size <= len(msg):
                    rlen, rtype = _RTA.unpack_from(msg, off)
                    if rlen < _RTA.size:
                        break
                    if rtype == INET_DIAG_INFO and \
                            rlen - _RTA.size >= _LAST_DATA_RECV + 4:
                        ms = struct.unpack_from("=I", msg, off + _RTA.size + _LAST_DATA_RECV)[0]
                        out[(_address(fam, dst), dport)] = Connection(sport, ms / 1000)
                    off += (rlen + 3) & ~3
    return out
