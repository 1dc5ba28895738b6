"""The club's small web server (issue 24, parts 2 and 4): the club page and the join address,
on the standard library's ``ThreadingHTTPServer`` in a thread, like the table's
:mod:`companion.net.web` (whose request helpers it reuses).

Routes:

* ``GET /``: the club page (``ui/web/club.html``, ``club.js``, ``club.css``, the phone page's
  ``style.css`` and the vendored ``mqtt.min.js``): one card per table, live from the club
  broker over MQTT-over-WebSockets;
* ``GET /club/config``: what the page needs to log in to the club broker: ``{"v": 1, "name",
  "ws_url", "username": "_viewer", "password", "join": {"url", "code", "qr"}}`` (the viewer
  login only reads public topics, and the join address is meant to be seen: the club page on
  the wall shows it for anyone bringing a box);
* ``GET /join/<code>``: a small page for a person who opened the join address in a browser:
  type this address on the table's settings;
* ``POST /join/<code>`` with ``{"table": TABLE, "previous": {"table", "password"}}`` (the
  second part from a box that joined before): ``200 {"v": 1, "club", "record", "table": NAME,
  "broker": {"host", "port", "username": NAME, "password"}}`` (what a box keeps in its table
  meta to ship its record and bridge its public topics; NAME is TABLE unless another box has
  it: then ``TABLE-2``...); ``403`` with a sentence on a wrong code, ``400`` on a table id
  that cannot be a topic level and a login.

The server owns neither the broker nor the record: it is given the record's address, the
broker's address, the viewer's password and ``add_table(table, previous) -> (name,
password)`` (the club broker's ``claim``: the table's name at the club and its login).
"""
from __future__ import annotations

import hmac
import html
import json
import logging
import secrets
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

from companion.core.errors import CompanionError
from companion.net import web
from companion.net.topics import HUB_USER, TopicError, check_table_id

log = logging.getLogger(__name__)

VIEWER_USER = "_viewer"
#: Join codes: no 0/O, 1/I/L, so a code read off a wall screen is typed right.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
#: A table that sent nothing for this long is shown as silent (seconds; the page's default).
QUIET_AFTER = 120

STATIC = {"/": "club.html", "/club.html": "club.html", "/club.js": "club.js",
          "/club.css": "club.css", "/style.css": "style.css",
          "/vendor/mqtt.min.js": "vendor/mqtt.min.js"}


def new_code(n: int = CODE_LENGTH) -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(n))


def qr_svg_data_url(text: str) -> str:
    """``text`` as a QR code in an SVG ``data:`` URL, for an ``<img>`` (the page's CSP allows
    ``data:`` images, and an SVG stays sharp on a wall screen of any size)."""
    import base64

    import qrcode
    import qrcode.image.svg
    img = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, box_size=10, border=2)
    svg = img.to_string(encoding="unicode")
    svg = svg[svg.index("<svg"):]
    if "xmlns=" not in svg[:200]:
        svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


class ClubError(CompanionError):
    """The club's web server could not start (port in use, no page files)."""


class _Handler(web._Handler):
    """The club's routes; sending, JSON answers and the Host check are the table's own."""

    app: "ClubServer"

    def _error(self, status: int, code: str, message: str):
        return self._json(status, {"v": 1, "error": {"code": code, "message": message}})

    def _code_of(self, path: str) -> str | None:
        """The code of a ``/join/<code>`` path (None for any other path)."""
        if not path.startswith("/join/"):
            return None
        code = path[len("/join/"):].strip("/")
        return code if code and "/" not in code else None

    def _guessing(self) -> int:
        """Seconds this address must wait after too many wrong codes (0: go ahead)."""
        wait = self.app.guesses.wait(self.client_address[0])
        if wait:
            self._error(429, "too_many_tries", "Too many wrong join codes from this address; "
                        f"check the code on the club page and try again in {wait} seconds.")
        return wait

    # -- GET ------------------------------------------------------------------------------------
    def do_GET(self, head=False):
        path = urlsplit(self.path).path
        app = self.app
        if path in STATIC:
            body = app.file(STATIC[path])
            if body is None:
                return self._error(404, "not_found", "No such page.")
            cache = "public, max-age=86400" if path.startswith("/vendor/") else "no-cache"
            return self._send(200, body, web.TYPES.get(Path(STATIC[path]).suffix,
                                                       "application/octet-stream"), cache, head)
        if path == "/club/config":
            return self._json(200, app.config(self._host()))
        code = self._code_of(path)
        if code is not None:
            if self._guessing():
                return
            if not app.code_ok(code):
                app.guesses.failed(self.client_address[0])
                return self._send(403, app.join_page(None), web.TYPES[".html"], "no-store",
                                  head)
            return self._send(200, app.join_page(app.join_url(self._host())),
                              web.TYPES[".html"], "no-store", head)
        if path == "/favicon.ico":
            return self._send(204, b"", "image/x-icon", "public, max-age=86400", head)
        self._error(404, "not_found", "No such page.")

    # -- POST -----------------------------------------------------------------------------------
    def do_POST(self):
        path = urlsplit(self.path).path
        code = self._code_of(path)
        if code is None:
            return self._error(404, "not_found", "No such page.")
        try:
            length = int(self.headers.get("Content-Length") or -1)
        except ValueError:
            length = -1
        if length < 0 or length > self.app.max_body:
            self.close_connection = True
            return self._error(400 if length < 0 else 413, "bad_request",
                               f"Send a JSON body of at most {self.app.max_body} bytes, like "
                               '{"table": "kitchen"}.')
        body = self.rfile.read(length)
        if self._guessing():
            return
        if not self.app.code_ok(code):
            self.app.guesses.failed(self.client_address[0])
            return self._error(403, "wrong_code", "That join code is not this club's: read the "
                               "join address again from the club page.")
        try:
            doc = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            doc = None
        table = doc.get("table") if isinstance(doc, dict) else None
        try:
            check_table_id(table)
        except TopicError as e:
            return self._error(400, "bad_table", str(e))
        if table == HUB_USER:
            return self._error(400, "bad_table", f"The table id {table!r} is reserved (it is "
                               "the name of a table's own hub login); choose another.")
        previous = doc.get("previous") if isinstance(doc.get("previous"), dict) else None
        try:
            answer = self.app.join(table, previous)
        except CompanionError as e:             # the broker could not add the login
            log.warning("the table %s could not join: %s", table, e)
            return self._error(503, "unavailable", "The club cannot add tables right now; "
                               "try again in a few seconds.")
        self._json(200, answer)


class ClubServer:
    """Serves the club page and the join address. ``port=0`` picks a free port.

    ``ws_url`` is the club broker's WebSockets address for the page; ``{host}`` in it is
    replaced with the host name the browser reached this server by (so a wall screen that
    loaded ``http://192.168.1.5:8080`` connects to ``ws://192.168.1.5:...``).
    ``add_table(table, previous) -> (name, password)`` gives the table its name and login on
    the club broker (``ClubBroker.claim``).
    """

    max_body = 4096

    def __init__(self, name: str, record_url: str, broker_host: str, broker_port: int,
                 ws_url: str, viewer_password: str, add_table, *, host: str = "0.0.0.0",
                 port: int = 8080, code: str | None = None, public_host: str | None = None,
                 root=None, quiet_after: float = QUIET_AFTER):
        self.name = name
        self.record_url = record_url
        self.broker_host, self.broker_port = broker_host, int(broker_port)
        self.ws_url = ws_url
        self.viewer_password = viewer_password
        self.add_table = add_table
        self.host, self.port = host, port
        self.code = code or new_code()
        self.public_host = public_host or web.lan_ip()
        self.root = Path(root) if root else web.web_root()
        self.quiet_after = quiet_after
        self.guesses = web.Guesses()
        self._qr: dict[str, str] = {}
        self._server = None
        self._thread = None
        self._lock = threading.Lock()

    # -- what it answers ----------------------------------------------------------------------------
    def file(self, rel: str) -> bytes | None:
        """A page file, read afresh each time (easy editing; the club serves a few screens)."""
        try:
            return (self.root / rel).read_bytes()
        except OSError:
            return None

    def code_ok(self, code: str) -> bool:
        return hmac.compare_digest(code.strip().upper().encode(), self.code.encode())

    def join_url(self, host: str | None = None) -> str:
        h = host or self.public_host
        h = f"[{h}]" if ":" in h else h
        return f"http://{h}:{self.port}/join/{self.code}"

    def qr(self, url: str) -> str:
        with self._lock:
            if url not in self._qr:
                if len(self._qr) > 16:          # a handful of host names at most
                    self._qr.clear()
                self._qr[url] = qr_svg_data_url(url)
            return self._qr[url]

    def config(self, host: str | None = None) -> dict:
        """What the club page needs: the broker's WebSockets address and the viewer's login,
        and the join address with its QR code."""
        url = self.join_url(host)
        return {"v": 1, "name": self.name,
                "ws_url": self.ws_url.replace("{host}", host or self.public_host),
                "username": VIEWER_USER, "password": self.viewer_password,
                "quiet_after": self.quiet_after,
                "join": {"url": url, "code": self.code, "qr": self.qr(url)}}

    def join(self, table: str, previous: dict | None = None) -> dict:
        """A table joins: its name at the club and its login on the club broker (new, kept
        from its ``previous`` join, or renewed) and the record. ``add_table`` is the club
        broker's :meth:`~companion.club.broker.ClubBroker.claim` (a name of its own for a box
        whose id another box has)."""
        name, password = self.add_table(table, previous)
        log.info("table %s joined the club as %s", table, name)
        return {"v": 1, "club": self.name, "record": self.record_url, "table": name,
                "broker": {"host": self.broker_host, "port": self.broker_port,
                           "username": name, "password": password}}

    def join_page(self, url: str | None) -> bytes:
        """The page a person sees who opened the join address in a browser (None: a wrong
        code)."""
        name = html.escape(self.name)
        if url is None:
            body = ("<h1>Not this club's join address</h1><p>The code in this address is not "
                    f"{name}'s. Read the join address again from the club page.</p>")
        else:
            body = (f"<h1>Join {name}</h1><p>This address is for a table, not a browser. "
                    "Type it on the table's settings (Club), and the table joins the club:</p>"
                    f'<p class="address"><b>{html.escape(url)}</b></p>')
        return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                f"<title>{name}: join</title><link rel=\"stylesheet\" href=\"/style.css\">"
                f"</head><body><main>{body}</main></body></html>").encode()

    def announce(self, out=None, host: str | None = None) -> None:
        """Print the join address, its code and its QR code (for the club's terminal)."""
        out = out or sys.stdout
        url = self.join_url(host)
        print(f"{self.name}: tables join at {url}  (code {self.code})", file=out)
        print(web.qr_ascii(url), file=out)

    # -- life -----------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://{self.public_host}:{self.port}/"

    def start(self) -> "ClubServer":
        handler = type("Handler", (_Handler,), {"app": self})
        self._server, self._thread = web.serve_http(
            self.host, self.port, handler, name="tc-club-web",
            error=lambda e: ClubError(f"The club page cannot listen on {self.host}:{self.port}:"
                                      f" {e.strerror or e}. Choose another port."))
        self.port = self._server.server_address[1]
        log.info("the club page is at %s; tables join at %s", self.url, self.join_url())
        return self

    def stop(self) -> None:
        if self._server is None:
            return
        self._server.stopping = True
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
        self._server = self._thread = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
