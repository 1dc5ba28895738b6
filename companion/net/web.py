"""The table's small web server: the phone page (``ui/web``) and ``POST /join`` (protocol
section 9), on the standard library's ``ThreadingHTTPServer``.

Routes:

* ``GET /`` (also ``/?room=ABCD``, what the QR code holds): the phone page; ``/app.js`` (its
  entry, an ES module), ``/js/<name>.js`` (the modules it imports, ui/web/js: a plain name, so
  nothing outside that folder), ``/style.css`` and ``/vendor/*`` (mqtt.js, js-sha256 and
  NoSleep.js, vendored: phones at a table often have no internet, and the box needs no node);
* ``POST /join``: ``{"v":1,"name":...,"room":...}`` joins, ``{"v":1,"token":...}`` reclaims;
  the answer's ``ws_url`` uses the host name the phone reached this server by, so a phone that
  loaded the page from ``http://192.168.1.20:8000`` connects to ``ws://192.168.1.20:<ws>``;
* ``GET /info``: the table id, game and free seats (no secrets: not even the room code);
* ``GET /qr.png``: the join URL as a QR code, for the table's own screen; answered only to
  this machine (loopback), since it carries the room code;
* ``POST /rename``: ``{"v":1,"token":...,"name":...}``: a seated phone renames its player;
* on the box's own Wi-Fi, a request for any other host name (a phone's captive-portal probe)
  is the portal's (companion/net/portal.py): a redirect to the join page, or "online" once
  that phone has taken a seat;
* ``GET /watch``: the spectator page (a TV, a laptop): the public table, read-only, no seat;
  ``GET /watch/state``: Server-Sent Events, ``event: state`` with the whole public state
  (as published on the ``state`` topic) at once and after every change.

Nothing here holds game truth; the page talks MQTT to the broker for everything else.
"""
from __future__ import annotations

import http.server
import importlib.util
import io
import json
import logging
import re
import queue
import socket
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

from companion.core.errors import CompanionError

from . import protocol
from .bridge import JoinRefused
from .portal import Portal

log = logging.getLogger(__name__)

HOST_PATTERN = re.compile(r"(\[[0-9A-Fa-f:.]{2,45}\]"
                          r"|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(?::[0-9]{1,5})?")
STATIC = {"/": "index.html", "/index.html": "index.html", "/app.js": "app.js",
          "/style.css": "style.css", "/vendor/mqtt.min.js": "vendor/mqtt.min.js",
          "/vendor/sha256.js": "vendor/sha256.js",
          "/vendor/NoSleep.min.js": "vendor/NoSleep.min.js",
          "/watch": "watch.html", "/watch.js": "watch.js"}
#: The page's ES modules (ui/web/js/<name>.js), served as ``/js/<name>.js``: a name of letters,
#: digits and dashes only, so no path can leave the folder.
MODULE = re.compile(r"/js/([a-z][a-z0-9-]{0,40})\.js")
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".png": "image/png"}
CSP = ("default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; "
       "media-src 'self' data:; "
       "worker-src 'self' blob:; "
       "style-src 'self'; script-src 'self'; base-uri 'none'; form-action 'none'; "
       "frame-ancestors 'none'")


class WebError(CompanionError):
    """The web server could not start (port in use, no page files)."""


def web_root() -> Path:
    """``ui/web`` of this installation (found without importing the Kivy side of ``ui``)."""
    spec = importlib.util.find_spec("ui")
    if spec is not None and spec.submodule_search_locations:
        for base in spec.submodule_search_locations:
            root = Path(base) / "web"
            if (root / "index.html").is_file():
                return root
    root = Path(__file__).resolve().parents[2] / "ui" / "web"
    if (root / "index.html").is_file():
        return root
    raise WebError("The phone page (ui/web/index.html) is missing from this installation.")


def lan_ip(probe: str = "10.255.255.255") -> str:
    """This machine's address on the local network: the source address the OS would use to
    reach ``probe``. A UDP ``connect`` only picks a route; nothing is sent. 127.0.0.1 if there
    is no network."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((probe, 1))
            ip = s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    return ip if ip and ip != "0.0.0.0" else "127.0.0.1"


def join_url(host: str, port: int, room: str) -> str:
    h = f"[{host}]" if ":" in host else host
    return f"http://{h}:{port}/?room={room}"


def qr_png(text: str) -> bytes:
    import qrcode
    img = qrcode.make(text, border=2, box_size=8)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def qr_ascii(text: str) -> str:
    """The QR code as text for a terminal (two rows of modules per line)."""
    import qrcode
    q = qrcode.QRCode(border=2)
    q.add_data(text)
    q.make(fit=True)
    out = io.StringIO()
    q.print_ascii(out=out, invert=True)
    return out.getvalue()


def is_loopback(addr: str) -> bool:
    return addr.startswith("127.") or addr in ("::1", "::ffff:127.0.0.1", "localhost")


class _Handler(http.server.BaseHTTPRequestHandler):
    server_version = "TableCompanion"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    app: "WebServer"

    def log_message(self, fmt, *args):
        log.debug("%s %s", self.client_address[0], fmt % args)

    # -- helpers --------------------------------------------------------------------------------
    def _send(self, status: int, body: bytes, ctype: str, cache: str = "no-cache",
              head: bool = False):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", cache)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        if ctype.startswith("text/html"):
            self.send_header("Content-Security-Policy", CSP)
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _json(self, status: int, obj: dict):
        self._send(status, json.dumps(obj, ensure_ascii=False).encode(),
                   "application/json; charset=utf-8", cache="no-store")

    def _host(self) -> str | None:
        """The host name the client used to reach us (for the ws:// URL), if it is sane."""
        m = HOST_PATTERN.fullmatch((self.headers.get("Host") or "").strip())
        if m is None:
            return None
        host = m.group(1)
        return host[1:-1] if host.startswith("[") else host

    # -- GET --------------------------------------------------------------------------------------
    def do_HEAD(self):
        self.do_GET(head=True)

    def do_GET(self, head=False):
        path = urlsplit(self.path).path
        app = self.app
        portal = app.portal.answer(self.connection.getsockname()[0], self._host(), path,
                                   self.client_address[0])
        if portal is not None:
            return self._portal(portal, head)
        module = MODULE.fullmatch(path)
        if path in STATIC or module:
            rel = STATIC[path] if path in STATIC else f"js/{module.group(1)}.js"
            body = app.file(rel)
            if body is None:
                return self._json(404, {"v": 1, "error": {"code": "not_found",
                                                          "message": "No such page."}})
            cache = "public, max-age=86400" if path.startswith("/vendor/") else "no-cache"
            return self._send(200, body, TYPES.get(Path(rel).suffix, "application/octet-stream"),
                              cache, head)
        if path == "/info":
            return self._json(200, app.info())
        if path == "/clock":
            return self._json(200, app.clock())
        if path == "/qr.png":
            if not is_loopback(self.client_address[0]):
                return self._json(403, {"v": 1, "error": {
                    "code": "forbidden", "message": "The QR code is shown on the table."}})
            url = app.join_url()
            if not url:
                return self._json(404, {"v": 1, "error": {"code": "not_found",
                                                          "message": "No join URL yet."}})
            return self._send(200, qr_png(url), "image/png", "no-store", head)
        if path == "/watch/state":
            return self._stream(app.watchers)
        if path == "/favicon.ico":
            return self._send(204, b"", "image/x-icon", "public, max-age=86400", head)
        self._json(404, {"v": 1, "error": {"code": "not_found", "message": "No such page."}})

    def _portal(self, answer, head):
        if answer[0] == "online":
            _, status, body, ctype = answer
            return self._send(status, body, ctype + "; charset=utf-8", "no-store", head)
        where = self.app.url_for(self.app.portal.address)
        body = (f'<!doctype html><meta charset="utf-8"><title>Table Companion</title>'
                f'<a href="{where}">Join the table</a>').encode()
        self.send_response(302)
        self.send_header("Location", where)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _stream(self, watchers):
        """Server-Sent Events: the public state now and after every change, until the
        spectator goes away or the server stops."""
        q = watchers.add()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            while True:
                try:
                    data = q.get(timeout=15)
                except queue.Empty:
                    data = b": still here\n\n"          # finds a vanished spectator
                if data is None:
                    return
                self.wfile.write(data)
                self.wfile.flush()
        except OSError:
            return
        finally:
            watchers.remove(q)

    # -- POST -------------------------------------------------------------------------------------
    def do_POST(self):
        path = urlsplit(self.path).path
        if path not in ("/join", "/rename"):
            return self._json(404, {"v": 1, "error": {"code": "not_found",
                                                      "message": "No such page."}})
        try:
            length = int(self.headers.get("Content-Length") or -1)
        except ValueError:
            length = -1
        if length < 0 or length > self.app.max_body:
            self.close_connection = True
            return self._json(400 if length < 0 else 413, {"v": 1, "error": {
                "code": "bad_request", "message": "Send a JSON body of at most "
                                                  f"{self.app.max_body} bytes."}})
        body = self.rfile.read(length)
        addr = self.client_address[0]
        wait = self.app.guesses.wait(addr)
        if wait:
            return self._json(429, {"v": 1, "error": {
                "code": "too_many_tries", "message": f"Too many wrong codes from this device; "
                f"check the code on the table screen and try again in {wait} seconds."}})
        try:
            if path == "/rename":
                answer = self.app.bridge.handle_rename(body)
            else:
                answer = self.app.bridge.handle_join(body, self._host() or self.app.public_host)
        except JoinRefused as e:
            if e.code in GUESSES:
                self.app.guesses.failed(addr)
            return self._json(e.status, e.body())
        except CompanionError as e:             # e.g. the broker could not add the login
            log.warning("join failed: %s", e)   # details for the operator, not the phone
            return self._json(503, {"v": 1, "error": {
                "code": "unavailable", "message": "The table cannot take phones right now; "
                                                  "try again in a few seconds."}})
        if path == "/join" and self.connection.getsockname()[0] == self.app.portal.address:
            self.app.portal.joined(addr)        # its captive-portal probes: "online" now
        self._json(200, answer)


#: Refusals that may be someone guessing a code: counted per address.
GUESSES = ("wrong_room", "unknown_token", "unknown_code")


class Guesses:
    """At most ``limit`` wrong codes per address per ``window`` seconds: the room code cannot be
    found by trying, while a player who mistypes a few times never notices."""

    def __init__(self, limit=10, window=60.0, clock=None):
        import time as _time
        self.limit, self.window = limit, window
        self.clock = clock or _time.monotonic
        self._fails: dict[str, list] = {}
        self._lock = threading.Lock()

    def failed(self, addr):
        with self._lock:
            self._fails.setdefault(addr, []).append(self.clock())
            if len(self._fails) > 10_000:                 # a flood of addresses: forget old
                self._fails = dict(list(self._fails.items())[-5_000:])

    def wait(self, addr) -> int:
        """Seconds this address must wait (0: go ahead)."""
        now = self.clock()
        with self._lock:
            recent = [t for t in self._fails.get(addr, ()) if now - t < self.window]
            if recent:
                self._fails[addr] = recent
            else:
                self._fails.pop(addr, None)
            if len(recent) < self.limit:
                return 0
            return max(1, int(self.window - (now - recent[-self.limit])) + 1)


spectator_state = protocol.spectator_state      # (its home is the protocol now)


def serve_http(host, port, handler, *, name, error, extra=None):
    """A ``ThreadingHTTPServer`` on ``host:port`` serving on a daemon thread of its own:
    ``(server, thread)``. ``error(OSError)`` makes the exception raised when the port cannot be
    had; ``extra`` adds attributes to the server class. The phone page and the club page."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    server_cls = type("Server", (http.server.ThreadingHTTPServer,),
                      {"address_family": family, "daemon_threads": True,
                       "allow_reuse_address": True, "handle_error": _handle_error,
                       **(extra or {})})
    try:
        server = server_cls((host, port), handler)
    except OSError as e:
        raise error(e) from None
    thread = threading.Thread(target=server.serve_forever, name=name,
                              kwargs={"poll_interval": 0.2}, daemon=True)
    thread.start()
    return server, thread


class Watchers:
    """The spectators' streams. One thread turns hub changes into the public state once per
    burst of changes and hands the same bytes to every spectator; a spectator that cannot keep
    up skips to the newest state."""

    def __init__(self, bridge):
        self.bridge = bridge
        self._queues = set()
        self._lock = threading.Lock()
        self._dirty = threading.Event()
        self._stop = False
        self._unsubscribe = None
        self._thread = None

    def add(self) -> queue.Queue:
        q = queue.Queue(maxsize=4)
        with self._lock:
            self._queues.add(q)
            if self._thread is None:
                self._unsubscribe = self.bridge.hub.subscribe(lambda e: self._dirty.set())
                self._thread = threading.Thread(target=self._run, name="tc-watch",
                                                daemon=True)
                self._thread.start()
        self._dirty.set()                        # the newcomer gets the state at once
        return q

    def remove(self, q):
        with self._lock:
            self._queues.discard(q)

    def _run(self):
        while True:
            self._dirty.wait()
            self._dirty.clear()
            if self._stop:
                return
            try:
                doc = json.dumps(spectator_state(self.bridge.public_state()),
                                 ensure_ascii=False, separators=(",", ":"))
            except Exception:                    # a view that fails must not stop the stream
                log.exception("the spectators' state could not be built")
                continue
            data = f"event: state\ndata: {doc}\n\n".encode()
            with self._lock:
                queues = list(self._queues)
            for q in queues:
                while True:
                    try:
                        q.put_nowait(data)
                        break
                    except queue.Full:
                        try:
                            q.get_nowait()       # drop the oldest: only the newest matters
                        except queue.Empty:
                            pass

    def close(self):
        with self._lock:
            self._stop = True
            queues = list(self._queues)
            unsub, self._unsubscribe = self._unsubscribe, None
        self._dirty.set()
        for q in queues:
            try:
                q.put_nowait(None)
            except queue.Full:
                pass
        if unsub is not None:
            try:
                unsub()
            except ValueError:
                pass


def _handle_error(server, request, client_address):
    """A request that failed outside its handler's own answers. socketserver's default prints
    "Exception occurred during processing of request" and a traceback on the console; a phone
    that walked away mid-answer (its Wi-Fi dropped, the page reloaded) or a connection this
    server closed as it stopped is ordinary, and said in one line at debug level. Anything
    else is a bug: logged once, with its traceback, through logging."""
    err = sys.exc_info()[1]
    who = client_address[0] if client_address else "?"
    if isinstance(err, (ConnectionError, TimeoutError)) or (
            isinstance(err, OSError) and getattr(server, "stopping", False)):
        log.debug("a phone's connection from %s ended mid-request: %s", who, err)
        return
    log.error("a request from %s failed: %s", who, err, exc_info=True)


class WebServer:
    """Serves the phone page and ``/join`` for one table. ``port=0`` picks a free port."""

    max_body = 4096

    def __init__(self, bridge, host: str = "0.0.0.0", port: int = 8000, root=None,
                 public_host: str | None = None, portal: Portal | None = None):
        self.bridge = bridge
        self.portal = portal or Portal()
        self.hub = bridge.hub
        self.host, self.port = host, port
        self.root = Path(root) if root else web_root()
        self.public_host = public_host or lan_ip()
        self._cache: dict[str, bytes] = {}
        self.watchers = Watchers(bridge)
        self.guesses = Guesses()
        self._server: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def file(self, rel: str) -> bytes | None:
        data = self._cache.get(rel)
        if data is None:
            try:
                data = (self.root / rel).read_bytes()
            except OSError:
                return None
            if rel.startswith("vendor/"):
                self._cache[rel] = data          # app files are read afresh (easy editing)
        return data

    def info(self) -> dict:
        hub = self.hub
        s = hub.session
        return {"v": 1, "table": hub.table, "game": hub.game_name,
                "title": hub.games(hub.game_name).title if hub.game_name else None,
                "started": s is not None, "over": bool(s and s.state.outcome is not None),
                "seats": len(hub.seats),
                "free": sum(1 for x in hub.seats if x.token_hash is None)}

    def clock(self) -> dict:
        """The session clock now, for a client to set its own timer by (``GET /clock``): a
        retained document may be old when it arrives, so its ``now`` does not say when it was
        sent (protocol section 4.1)."""
        hub = self.bridge.hub
        s = hub.session
        return {"v": 1, "session": s.id if s is not None else None, "now": hub.session_time()}

    def join_url(self) -> str | None:
        return self.hub.join_url

    def url_for(self, host: str | None = None) -> str:
        return join_url(host or self.public_host, self.port, self.hub.room_code)

    def start(self) -> "WebServer":
        handler = type("Handler", (_Handler,), {"app": self})
        open_ = self._open = set()
        lock = self._open_lock = threading.Lock()

        def process_request_thread(server, request, client_address):
            with lock:
                open_.add(request)
            try:
                http.server.ThreadingHTTPServer.process_request_thread(server, request,
                                                                       client_address)
            finally:
                with lock:
                    open_.discard(request)

        self._server, self._thread = serve_http(
            self.host, self.port, handler, name="tc-web",
            extra={"process_request_thread": process_request_thread},
            error=lambda e: WebError(f"The phone page cannot listen on {self.host}:{self.port}: "
                                     f"{e.strerror or e}. Choose another --http-port."))
        self.port = self._server.server_address[1]
        return self

    def stop(self) -> None:
        """Stop listening and close every open connection: a browser's keep-alive connection
        would otherwise stay with this (stopped) server and never reach a restarted one."""
        if self._server is None:
            return
        self.watchers.close()
        self._server.stopping = True            # its connections' errors now are ours
        self._server.shutdown()
        self._server.server_close()
        with self._open_lock:
            conns = list(self._open)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(5)
        self._server = self._thread = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

