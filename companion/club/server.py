"""The club's small web server (issue 24, parts 2 and 4): the club page and the join address,
on the standard library's ``ThreadingHTTPServer`` in a thread, like the table's
:mod:`companion.net.web` (whose request helpers it reuses).

Routes:

* ``GET /``: the club page (``ui/web/club.html``, ``club.js``, ``club.css``, the phone page's
  ``style.css`` and the vendored ``mqtt.min.js``): one card per table, live from the club
  broker over MQTT-over-WebSockets;
* ``GET /club/config``: what the page needs to log in to the club broker: ``{"v": 1, "name",
  "ws_url", "username": "_viewer", "password", "quiet_after", "tables"}`` (the viewer login
  only reads public topics; ``tables``: the tables the organiser let in, the only ones the page
  shows). **Never the join code**: who may join is the organiser's decision (issue 35);
* ``GET /club/tables``: ``{"v": 1, "tables": [...]}``, the page asks again now and then;
* ``GET /join/<code>``: a small page for a person who opened the join address in a browser:
  type this address on the table's settings;
* ``POST /join/<code>`` with ``{"table": TABLE, "request": TOKEN, "previous": {"table",
  "password"}}`` (the last part from a box that joined before, which keeps its place without
  asking again): ``200 {"v": 1, "club", "record", "table": NAME, "broker": {"host", "port",
  "username": NAME, "password"}}`` once the organiser let the table in (NAME is TABLE unless
  another box has it: then ``TABLE-2``...); ``202 {"v": 1, "asking": true, "table": NAME,
  "message"}`` while the organiser has not decided (the box asks again with the same
  ``request``, a random token of its own, so nobody else can take the answer); ``403`` with a
  sentence on a wrong code or when the organiser refused; ``400`` on a table id that cannot be
  a topic level and a login;
* the organiser's (HTTP Basic login ``organiser`` and the password ``companion club`` prints):
  ``GET /organiser`` (the page), ``GET /organiser/state`` (``{"v": 1, "code", "join": {"url",
  "qr"}, "asking": [{"table", "asked_as", "address", "since"}], "tables": [...]}``) and ``POST
  /organiser/allow``, ``/organiser/refuse``, ``/organiser/remove`` with ``{"table": NAME}``.

The server owns neither the broker nor the record: it is given the broker's address, the
viewer's password and the callables that give a table its login on the broker
(``add_table(table, previous) -> (name, password)``, the club broker's ``claim``) and on the
record (``admit_record(name) -> url``), and take them away (``remove_table(name)``).
"""
from __future__ import annotations

import hmac
import base64
import hashlib
import html
import json
import logging
import secrets
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from companion.core.errors import CompanionError
from companion.net import web
from companion.net.brokers import WS_PATH
from companion.net.topics import HUB_USER, TopicError, check_table_id

log = logging.getLogger(__name__)

VIEWER_USER = "_viewer"
#: Join codes: no 0/O, 1/I/L, so a code read off a wall screen is typed right.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
#: A table that sent nothing for this long is shown as silent (seconds; the page's default).
QUIET_AFTER = 120

STATIC = {"/": "club.html", "/club.html": "club.html", "/club.js": "club.js",
          "/club.css": "club.css", "/style.css": "style.css", "/organiser.js": "organiser.js",
          "/vendor/mqtt.min.js": "vendor/mqtt.min.js"}
ORGANISER_USER = "organiser"
#: Tables asking at once, at most (a flood of requests cannot grow the club's memory), and how
#: long a request waits for the organiser before it is forgotten (seconds).
MAX_ASKING, ASKING_FOR = 64, 3600.0


def admit_all(table: str, address: str) -> bool:
    """An ``admit`` policy that lets every table with the join code in (tests, benchmarks)."""
    return True


class Request:
    """A table asking to join: what it asked as, the name it would get, its token's hash."""
    __slots__ = ("table", "name", "token", "address", "since", "state")

    def __init__(self, table, name, token, address, since):
        self.table, self.name, self.token = table, name, token
        self.address, self.since, self.state = address, since, "asking"

    def public(self) -> dict:
        return {"table": self.name, "asked_as": self.table, "address": self.address,
                "since": self.since}


def cred_password() -> str:
    return secrets.token_urlsafe(12)


def free_name(table: str, taken) -> str:
    """``table``, or the first of ``table-2``, ``table-3``... that is not ``taken``."""
    name, n = table, 1
    while name in taken:
        n += 1
        suffix = f"-{n}"
        name = table[:32 - len(suffix)].rstrip("-") + suffix
    return name


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
        if path == WS_PATH and app.relay is not None:
            from .relay import relay
            return relay(self, app.relay, app.relays)
        if path == "/club/tables":
            return self._json(200, {"v": 1, "tables": app.tables()})
        if path in ("/organiser", "/organiser/", "/organiser/state"):
            if not self._organiser():
                return
            if path == "/organiser/state":
                return self._json(200, app.organiser_state(self._host()))
            body = app.file("organiser.html")
            if body is None:
                return self._error(404, "not_found", "No such page.")
            return self._send(200, body, web.TYPES[".html"], "no-store", head)
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

    def _organiser(self) -> bool:
        """Whether the request carries the organiser's login; else it is answered (401 asks
        the browser for it, 429 after too many wrong passwords from one address)."""
        if self._guessing():
            return False
        got = self.headers.get("Authorization") or ""
        ok = False
        if got.startswith("Basic "):
            try:
                user, _, password = base64.b64decode(got[6:]).decode().partition(":")
                ok = user == ORGANISER_USER and self.app.organiser_ok(password)
            except (ValueError, UnicodeDecodeError):
                ok = False
            if not ok:
                self.app.guesses.failed(self.client_address[0])
        if not ok:
            body = json.dumps({"v": 1, "error": {"code": "login", "message": (
                "This page is the organiser's: log in as organiser with the password "
                "`companion club` printed.")}}).encode()
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="the club organiser", '
                                                 'charset="UTF-8"')
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)
        return ok

    def _body(self):
        """The request's JSON body (None when it was answered with an error)."""
        try:
            length = int(self.headers.get("Content-Length") or -1)
        except ValueError:
            length = -1
        if length < 0 or length > self.app.max_body:
            self.close_connection = True
            self._error(400 if length < 0 else 413, "bad_request",
                        f"Send a JSON body of at most {self.app.max_body} bytes, like "
                        '{"table": "kitchen"}.')
            return None
        body = self.rfile.read(length)
        try:
            doc = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            doc = None
        return doc if isinstance(doc, dict) else {}

    def _organiser_post(self, action):
        # a form on another site cannot send JSON without asking first (CORS): no CSRF
        if not (self.headers.get("Content-Type") or "").startswith("application/json"):
            return self._error(415, "bad_request", "Send JSON (Content-Type: "
                               "application/json).")
        if not self._organiser():
            self.close_connection = True        # its body was not read
            return
        doc = self._body()
        if doc is None:
            return
        table = doc.get("table")
        try:
            ok = getattr(self.app, action)(table)
        except CompanionError as e:
            return self._error(503, "unavailable", str(e))
        if not ok:
            return self._error(404, "no_table", f"No table {table!r} to {action}.")
        self._json(200, self.app.organiser_state(self._host()))

    # -- POST -----------------------------------------------------------------------------------
    def do_POST(self):
        path = urlsplit(self.path).path
        if path in ("/organiser/allow", "/organiser/refuse", "/organiser/remove"):
            return self._organiser_post(path.rsplit("/", 1)[1])
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
                               "join address again from the organiser.")
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
        request = doc.get("request")
        if request is not None and not (isinstance(request, str) and 16 <= len(request) <= 128):
            return self._error(400, "bad_request", "A join request's token is 16 to 128 "
                               "characters.")
        try:
            status, answer = self.app.ask(table, previous, request, self.client_address[0])
        except CompanionError as e:             # the broker or the record could not add it
            log.warning("the table %s could not join: %s", table, e)
            return self._error(503, "unavailable", "The club cannot add tables right now; "
                               "try again in a few seconds.")
        self._json(status, answer)


class ClubServer:
    """Serves the club page, the join address and the organiser's page. ``port=0`` picks a
    free port.

    ``ws_url`` is the club broker's WebSockets address for the page; ``{host}`` in it is
    replaced with the host name the browser reached this server by (so a wall screen that
    loaded ``http://192.168.1.5:8080`` connects to ``ws://192.168.1.5:...``).
    ``add_table(table, previous) -> (name, password)`` gives the table its name and login on
    the club broker (``ClubBroker.claim``); ``proven(previous) -> name or None`` says whether a
    box proved an earlier login (``ClubBroker.proven``); ``known()`` lists the tables let in
    (``ClubBroker.tables``); ``remove_table(name)`` takes a table's logins away.
    ``admit_record(name) -> url`` gives it its own login on the record (None: every table gets
    ``record_url``). ``admit(table, address) -> bool`` decides without the organiser (tests:
    :func:`admit_all`); by default the organiser decides (:meth:`allow`, :meth:`refuse`), told
    by ``on_request(request)``.
    """

    max_body = 4096

    def __init__(self, name: str, record_url: str, broker_host: str, broker_port: int,
                 ws_url: str, viewer_password: str, add_table, *, host: str = "0.0.0.0",
                 port: int = 8080, code: str | None = None, public_host: str | None = None,
                 root=None, quiet_after: float = QUIET_AFTER, admit=None, proven=None,
                 known=None, remove_table=None, admit_record=None, on_request=None,
                 organiser_password: str | None = None, relay=None):
        self.name = name
        self.record_url = record_url
        self.broker_host, self.broker_port = broker_host, int(broker_port)
        self.ws_url = ws_url
        self.viewer_password = viewer_password
        self.add_table = add_table
        self.admit = admit
        self.proven = proven or (lambda previous: None)
        self.known = known
        self.remove_table_login = remove_table
        self.admit_record = admit_record
        self.on_request = on_request or (lambda request: None)
        self.organiser_password = organiser_password or cred_password()
        self.relay = relay                  # (host, port) of the broker's TCP listener: the
        self.host, self.port = host, port   # page's WebSockets are relayed there (relay.py)
        self.code = code or new_code()
        self.public_host = public_host or web.lan_ip()
        self.root = Path(root) if root else web.web_root()
        self.quiet_after = quiet_after
        self.guesses = web.Guesses()
        self._qr: dict[str, str] = {}
        self._server = None
        self._thread = None
        self._lock = threading.Lock()
        self._asking: dict[str, Request] = {}       # token hash -> request
        self._members: set[str] = set(known() if known else ())
        from .relay import Relays
        self.relays = Relays()

    # -- what it answers ----------------------------------------------------------------------------
    def file(self, rel: str) -> bytes | None:
        """A page file, read afresh each time (easy editing; the club serves a few screens)."""
        try:
            return (self.root / rel).read_bytes()
        except OSError:
            return None

    def code_ok(self, code: str) -> bool:
        return hmac.compare_digest(code.strip().upper().encode(), self.code.encode())

    def organiser_ok(self, password: str) -> bool:
        return hmac.compare_digest(password.encode(), self.organiser_password.encode())

    def join_url(self, host: str | None = None) -> str:
        h = host or self.public_host
        h = f"[{h}]" if ":" in h else h
        return f"http://{h}:{self.port}/join/{self.code}"

    @property
    def organiser_url(self) -> str:
        h = self.public_host
        h = f"[{h}]" if ":" in h else h
        return f"http://{h}:{self.port}/organiser"

    def qr(self, url: str) -> str:
        with self._lock:
            if url not in self._qr:
                if len(self._qr) > 16:          # a handful of host names at most
                    self._qr.clear()
                self._qr[url] = qr_svg_data_url(url)
            return self._qr[url]

    def tables(self) -> list[str]:
        """The tables the organiser let in: the only ones the page shows."""
        known = set(self.known()) if self.known else set()
        with self._lock:
            return sorted(self._members | known)

    def config(self, host: str | None = None) -> dict:
        """What the club page needs: the broker's WebSockets address, the viewer's login and
        the tables let in. Never the join code (the organiser gives it, :meth:`organiser_state`)."""
        return {"v": 1, "name": self.name,
                "ws_url": self.ws_url.replace("{host}", host or self.public_host).replace(
                    "{port}", str(self.port)),
                "username": VIEWER_USER, "password": self.viewer_password,
                "quiet_after": self.quiet_after, "tables": self.tables()}

    def organiser_state(self, host: str | None = None) -> dict:
        """The organiser's page: the join address, the tables asking and the tables in."""
        url = self.join_url(host)
        self._expire()
        with self._lock:
            asking = [r.public() for r in self._asking.values() if r.state == "asking"]
        return {"v": 1, "name": self.name, "code": self.code,
                "join": {"url": url, "qr": self.qr(url)},
                "asking": sorted(asking, key=lambda r: r["since"]), "tables": self.tables()}

    # -- joining --------------------------------------------------------------------------------------
    def _expire(self):
        now = time.time()
        with self._lock:
            for k in [k for k, r in self._asking.items() if now - r.since > ASKING_FOR]:
                del self._asking[k]

    def _answer(self, name: str, password: str) -> dict:
        record = self.admit_record(name) if self.admit_record else self.record_url
        with self._lock:
            self._members.add(name)
        return {"v": 1, "club": self.name, "record": record, "table": name,
                "broker": {"host": self.broker_host, "port": self.broker_port,
                           "username": name, "password": password}}

    def join(self, table: str, previous: dict | None = None) -> dict:
        """Let ``table`` in at once: its name at the club and its login on the club broker
        (new, kept from its ``previous`` join, or renewed) and on the record. ``add_table`` is
        the club broker's :meth:`~companion.club.broker.ClubBroker.claim`."""
        fresh = not (previous and self.proven(previous))
        name, password = self.add_table(table, previous)
        try:
            answer = self._answer(name, password)
        except BaseException:
            # the record could not add it: the broker login just made goes too, so the box,
            # asking again, gets the same name (not ``table-2`` beside a login nobody holds)
            if fresh and self.remove_table_login is not None:
                try:
                    self.remove_table_login(name)
                except Exception as e:      # said; the failure the box hears is the first
                    log.warning("taking table %s's half-made login away failed: %s", name, e)
            raise
        log.info("table %s joined the club as %s", table, name)
        return answer

    def ask(self, table: str, previous: dict | None, request: str | None,
            address: str) -> tuple[int, dict]:
        """A box asks to join as ``table``: ``(HTTP status, answer)``. A box that proves its
        earlier login comes back in at once; one the ``admit`` policy lets in too; any other
        waits for the organiser (202), asking again with its ``request`` token."""
        name = self.proven(previous) if previous else None
        if name is not None and name in self.tables():
            return 200, self._answer(name, previous["password"])
        if self.admit is not None and self.admit(table, address):
            return 200, self.join(table, None)
        if request is None:
            return 403, {"v": 1, "error": {"code": "ask_first", "message": (
                "This club's organiser lets each table in: update this table so it can "
                "ask.")}}
        key = hashlib.sha256(request.encode()).hexdigest()
        self._expire()
        with self._lock:
            r = self._asking.get(key)
            if r is None:
                if sum(q.state == "asking" for q in self._asking.values()) >= MAX_ASKING:
                    return 503, {"v": 1, "error": {"code": "busy", "message": (
                        "Too many tables are asking to join; try again in a minute.")}}
                taken = self._members | {q.name for q in self._asking.values()}
                taken |= set(self.known() if self.known else ())
                r = Request(table, free_name(table, taken), key, address, time.time())
                self._asking[key] = r
                new = True
            else:
                new = False
            state, name = r.state, r.name
        if new:
            log.warning("table %s (from %s) asks to join the club as %s", table, address, name)
            self.on_request(r)
        if state == "refused":
            with self._lock:
                self._asking.pop(key, None)
            return 403, {"v": 1, "error": {"code": "refused", "message": (
                f"The organiser of {self.name} did not let table {name} in.")}}
        if state == "allowed":
            answer = self.join(name, None)      # its name is kept free while it asks
            with self._lock:
                self._asking.pop(key, None)
            return 200, answer
        return 202, {"v": 1, "asking": True, "table": name, "message": (
            f"Asked the organiser of {self.name} to let table {name} in; the table plays on "
            f"meanwhile and joins as soon as they do.")}

    def _find(self, name):
        with self._lock:
            for r in self._asking.values():
                if r.name == name and r.state == "asking":
                    return r
        return None

    def allow(self, name) -> bool:
        """The organiser lets the table asking as ``name`` in (it gets its logins when it asks
        again, within seconds)."""
        return self._decide(name, "allowed", "let table %s in")

    def refuse(self, name) -> bool:
        """The organiser turns the table asking as ``name`` away."""
        return self._decide(name, "refused", "turned table %s away")

    def _decide(self, name, state, said) -> bool:
        r = self._find(name)
        if r is None:
            return False
        r.state = state
        log.warning("the organiser " + said, name)
        return True

    def remove(self, name) -> bool:
        """The organiser takes a table out of the club: its logins on the broker and the
        record end at once (its bridge is dropped, its shipper refused) and the page stops
        showing it. What it sent stays in the record."""
        with self._lock:
            known = name in self._members
            self._members.discard(name)
        if self.remove_table_login is not None and isinstance(name, str):
            known = bool(self.remove_table_login(name)) or known
        if known:
            log.warning("the organiser took table %s out of the club", name)
        return known

    def join_page(self, url: str | None) -> bytes:
        """The page a person sees who opened the join address in a browser (None: a wrong
        code)."""
        name = html.escape(self.name)
        if url is None:
            body = ("<h1>Not this club's join address</h1><p>The code in this address is not "
                    f"{name}'s. Ask the organiser for the join address again.</p>")
        else:
            body = (f"<h1>Join {name}</h1><p>This address is for a table, not a browser. "
                    "Type it on the table's settings (Club), and the table joins the club:</p>"
                    f'<p class="address"><b>{html.escape(url)}</b></p>')
        return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                f"<title>{name}: join</title><link rel=\"stylesheet\" href=\"/style.css\">"
                f"</head><body><main>{body}</main></body></html>").encode()

    def announce(self, out=None, host: str | None = None) -> None:
        """Print the join address, its code and its QR code, and the organiser's page with
        its login (for the club's terminal: the organiser's eyes only)."""
        out = out or sys.stdout
        url = self.join_url(host)
        print(f"{self.name}: tables join at {url}  (code {self.code}; the club page does not "
              f"show it: give it to the tables you expect)", file=out)
        print(web.qr_ascii(url), file=out)
        print(f"Organiser's page: {self.organiser_url}  (log in as {ORGANISER_USER}, "
              f"password {self.organiser_password})", file=out)

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
        self.relays.close_all()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
        self._server = self._thread = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
