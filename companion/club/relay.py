"""MQTT over WebSockets for the club page, relayed by the club's web server to the broker's TCP
listener, so ``companion club --bind ADDRESS`` holds for every listener the club starts.

mosquitto 2.0.11 (Debian 12's, Raspberry Pi OS's) opens its WebSockets listener on every
address whatever the configuration says (``listener PORT ADDRESS``, ``bind_address``;
``bind_interface`` makes it fail to start; measured with ``ss``, issue 35, upstream #3045). When
the club is told to listen on one address only, the broker gets no WebSockets listener at all;
the page's WebSockets come to the club's own web server (``/mqtt``, on the bound address) and
are relayed byte for byte to the broker's TCP listener (also on the bound address). MQTT rides
in binary frames either way, so the page, its login and the broker's wall are the same.

This is RFC 6455's server side, as small as the relay needs: the handshake, masked frames in
(continuations joined by simply passing their bytes on, ping answered, close ended), binary
frames out.
"""
from __future__ import annotations

import base64
import hashlib
import logging
import socket
import struct
import threading

log = logging.getLogger(__name__)

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
MAX_FRAME = 1 << 20             # one MQTT message to the broker is far smaller (the club's limit)


def accept_key(key: str) -> str:
    """RFC 6455's ``Sec-WebSocket-Accept`` for a client's ``Sec-WebSocket-Key``.

    >>> accept_key("dGhlIHNhbXBsZSBub25jZQ==")
    's3pPLMBiTxaQ9kYGzzhZRbK+xOo='
    """
    return base64.b64encode(hashlib.sha1(key.encode() + GUID).digest()).decode()


def _unmask(data: bytes, mask: bytes) -> bytes:
    n = len(data)
    if not n:
        return data
    m = (mask * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "big") ^ int.from_bytes(m, "big")).to_bytes(n, "big")


def frame(opcode: int, payload: bytes) -> bytes:
    """One unmasked, final frame (a server's)."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", 0x80 | opcode, 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 127, n)
    return head + payload


class Relays:
    """The open relays of one web server, so that stopping the server ends them too."""

    def __init__(self):
        self._lock = threading.Lock()
        self._open: set = set()

    def add(self, *socks):
        with self._lock:
            self._open.update(socks)

    def discard(self, *socks):
        with self._lock:
            self._open.difference_update(socks)

    def close_all(self):
        with self._lock:
            socks, self._open = list(self._open), set()
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                s.close()
            except OSError:
                pass


def relay(handler, target: tuple[str, int], relays: Relays) -> None:
    """Answer the WebSocket upgrade ``handler`` (a ``BaseHTTPRequestHandler`` in ``do_GET``)
    holds and relay it to the TCP listener at ``target`` until either side closes."""
    h = handler.headers
    key = h.get("Sec-WebSocket-Key")
    if "websocket" not in (h.get("Upgrade") or "").lower() or not key:
        handler._error(400, "bad_request", "This address speaks MQTT over WebSockets only.")
        return
    try:
        up = socket.create_connection(target, timeout=5)
    except OSError as e:
        log.warning("the club page's WebSocket cannot reach the club broker at %s:%s: %s",
                    *target, e)
        handler._error(503, "unavailable", "The club's broker is not answering; the page "
                       "tries again by itself.")
        return
    up.settimeout(None)
    up.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    protocols = [p.strip() for p in (h.get("Sec-WebSocket-Protocol") or "").split(",")]
    handler.send_response(101, "Switching Protocols")
    handler.send_header("Upgrade", "websocket")
    handler.send_header("Connection", "Upgrade")
    handler.send_header("Sec-WebSocket-Accept", accept_key(key))
    for p in ("mqtt", "mqttv3.1"):
        if p in protocols:
            handler.send_header("Sec-WebSocket-Protocol", p)
            break
    handler.end_headers()
    handler.wfile.flush()
    handler.close_connection = True
    down = handler.connection
    down.settimeout(None)
    send_lock = threading.Lock()
    relays.add(up, down)

    def send(opcode, payload):
        with send_lock:
            down.sendall(frame(opcode, payload))

    def upstream():                             # broker -> page
        try:
            while True:
                data = up.recv(65536)
                if not data:
                    break
                send(0x2, data)
        except OSError:
            pass
        finally:
            try:
                send(0x8, struct.pack("!H", 1000))
            except OSError:
                pass
            try:
                down.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    t = threading.Thread(target=upstream, name="tc-club-ws-relay", daemon=True)
    t.start()
    rfile = handler.rfile
    try:
        while True:                             # page -> broker
            head = rfile.read(2)
            if len(head) < 2:
                break
            opcode, n, masked = head[0] & 0x0F, head[1] & 0x7F, head[1] & 0x80
            if n == 126:
                n = struct.unpack("!H", rfile.read(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", rfile.read(8))[0]
            if not masked or n > MAX_FRAME:
                break                           # a client's frames are masked (RFC 6455)
            mask = rfile.read(4)
            data = _unmask(rfile.read(n), mask)
            if opcode in (0x0, 0x1, 0x2):
                up.sendall(data)
            elif opcode == 0x8:
                break
            elif opcode == 0x9:
                send(0xA, data)
    except (OSError, struct.error):
        pass
    finally:
        try:
            up.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        up.close()
        t.join(5)
        relays.discard(up, down)
