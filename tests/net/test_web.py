"""The phone web server: the page and its vendored libraries, POST /join and every refusal of
protocol section 9.5, the join QR code (decoded with pyzbar), the LAN address, and
`companion serve` as a command (clear errors, Ctrl-C and SIGTERM stop it cleanly)."""
import http.client
import io
import json
import pathlib
import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from PIL import Image
from pyzbar.pyzbar import decode

from companion.net import web
from companion.net.brokers import free_ports
from companion.net.client import MqttClient
from companion.net.seat_client import JoinFailed, post_join
from companion.net.serve import TableServer

ROOT = pathlib.Path(__file__).resolve().parents[2]
WEB = ROOT / "ui" / "web"


@pytest.fixture
def table(tmp_path):
    srv = TableServer("webtest", db=tmp_path / "s.db", game="great-powers", players=3,
                      bind="0.0.0.0", http_port=0, mqtt_port=0, ws_port=0).start()
    srv.base = f"http://127.0.0.1:{srv.web.port}"
    yield srv
    srv.stop()


def get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def post_raw(base, body: bytes, headers=None):
    host, port = base.split("//")[1].split(":")
    c = http.client.HTTPConnection(host, int(port), timeout=5)
    c.request("POST", "/join", body=body, headers=headers or {})
    r = c.getresponse()
    out = r.status, json.loads(r.read() or b"{}")
    c.close()
    return out


def refused(base, body):
    with pytest.raises(JoinFailed) as e:
        post_join(base, body)
    return e.value.status, e.value.code, str(e.value)


# -- the page ------------------------------------------------------------------------------------

def test_the_page_and_its_files_are_served_with_safe_headers(table):
    status, headers, body = get(table.base + "/?room=" + table.hub.room_code)
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    # the vendored libraries are classic scripts, loaded before the page's entry module
    assert b'<script src="vendor/mqtt.min.js"></script>' in body
    assert b'<script type="module" src="app.js"></script>' in body
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "connect-src 'self' ws:" in csp
    assert headers["Referrer-Policy"] == "no-referrer"        # the URL holds the room code
    modules = sorted(f"/js/{f.name}" for f in (WEB / "js").glob("*.js"))
    assert "/js/link.js" in modules and len(modules) >= 10
    for path, kind in (("/app.js", "text/javascript"), ("/watch.js", "text/javascript"),
                       ("/style.css", "text/css"),
                       ("/vendor/mqtt.min.js", "text/javascript"),
                       ("/vendor/sha256.js", "text/javascript"),
                       ("/vendor/NoSleep.min.js", "text/javascript"),
                       *((m, "text/javascript") for m in modules)):
        status, headers, body = get(table.base + path)
        assert status == 200 and headers["Content-Type"].startswith(kind), path
        assert body == (WEB / path.lstrip("/")).read_bytes()
    # every module the pages import is served (a relative "./x.js" from js/, "./js/x.js" from
    # the folder above)
    for page in [WEB / "app.js", WEB / "watch.js", *(WEB / "js").glob("*.js")]:
        for rel in re.findall(r'^import .* from "\./([\w/.-]+)";$', page.read_text(), re.M):
            path = "/" + ("js/" if page.parent.name == "js" else "") + rel
            assert get(table.base + path)[0] == 200, (page.name, path)
    assert get(table.base + "/../pyproject.toml")[0] == 404
    assert get(table.base + "/vendor/VERSIONS")[0] == 404
    assert get(table.base + "/nothing")[0] == 404
    for path in ("/js/nothing.js", "/js/../app.js", "/js/%2e%2e/app.js", "/js/.hidden.js",
                 "/js/sub/util.js", "/js/util.js/", "/js/UTIL.js", "/js/util.css", "/js/"):
        assert get(table.base + path)[0] == 404, path


def test_the_vendored_libraries_are_the_versions_the_lockfile_records():
    lock = json.loads((WEB / "package-lock.json").read_text())["packages"]
    pkg = json.loads((WEB / "package.json").read_text())["dependencies"]
    versions = (WEB / "vendor" / "VERSIONS").read_text()
    for name in ("mqtt", "js-sha256", "nosleep.js"):
        locked = lock[f"node_modules/{name}"]["version"]
        assert pkg[name] == locked
        assert f"{name}@{locked}" in versions
    head = (WEB / "vendor" / "mqtt.min.js").read_bytes()[:200]
    assert b"mqtt" in head


def test_the_page_computes_commitments_like_the_core():
    """The page's canonical() (js/recipe.js) + vendored js-sha256 give the core's commitment
    (run in node)."""
    from companion.core.sealed import commitment
    cases = [("bids-t1", 2, ["navy", "army"], "ab" * 16),
             ("leaders", 0, {"leader": "usa", "ranking": ["eu", "china"]}, "0f" * 16),
             ("bid-r1-0", 3, 7, "11" * 16), ("w", 1, {"é": [True, None, "ü"]}, "22" * 16)]
    recipe = (WEB / "js" / "recipe.js").read_text()
    canonical = recipe[recipe.index("export function canonical(v)"):
                       recipe.index("export function commitment(")].removeprefix("export ")
    script = (f"const sha256 = require({json.dumps(str(WEB / 'vendor' / 'sha256.js'))});\n"
              f"{canonical}\n"
              f"const cases = {json.dumps(cases)};\n"
              "for (const [w, seat, choice, salt] of cases) console.log(sha256(canonical("
              "{choice: choice, salt: salt, seat: seat, window: w})));\n")
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [commitment(*c) for c in cases]


def test_info_names_the_table_but_never_the_room_code(table):
    status, _, body = get(table.base + "/info")
    info = json.loads(body)
    assert status == 200 and info["table"] == "webtest" and info["title"] == "Great Powers"
    assert info["free"] == 3 and not info["started"]
    assert table.hub.room_code not in body.decode()


# -- joining -------------------------------------------------------------------------------------

def test_join_answers_as_the_protocol_says(table):
    room = table.hub.room_code
    a = post_join(table.base, {"name": "  Ann  ", "room": room.lower()})
    assert set(a) >= {"v", "table", "seat", "seat_id", "username", "password", "token", "ws_url",
                      "base", "topics"}
    assert (a["seat"], a["name"], a["table"]) == (0, "Ann", "webtest")
    assert a["username"] == a["seat_id"] and a["seat_id"].startswith("s1-")
    assert a["ws_url"] == f"ws://127.0.0.1:{table.broker.ws_port}/mqtt"
    assert a["topics"]["view"] == f"tc/v1/webtest/seat/{a['seat_id']}/view"
    # the login works, over WebSockets as a phone uses it
    c = MqttClient(a["ws_url"], a["username"], a["password"]).connect()
    c.close()
    # the ws:// host is the one the phone reached the page by
    status, b = post_raw(table.base, json.dumps({"v": 1, "name": "Bo", "room": room}).encode(),
                         {"Host": f"192.168.7.9:{table.web.port}",
                          "Content-Type": "application/json"})
    assert status == 200 and b["ws_url"].startswith("ws://192.168.7.9:")
    status, c3 = post_raw(table.base, json.dumps({"v": 1, "name": "Cy", "room": room}).encode(),
                          {"Host": "evil.example/<script>"})
    assert status == 200 and c3["ws_url"].startswith(f"ws://{table.web.public_host}:")


def test_every_refusal_has_its_status_code_and_a_sentence(table):
    room = table.hub.room_code
    base = table.base
    assert post_raw(base, b"not json")[0] == 400
    assert post_raw(base, b"[1, 2]")[1]["error"]["code"] == "bad_request"
    status, body = post_raw(base, b"x" * 5000)
    assert status == 413 and body["error"]["code"] == "bad_request"
    assert refused(base, {"room": room})[:2] == (400, "bad_request")
    assert refused(base, {"name": "x" * 25, "room": room})[:2] == (400, "bad_request")
    assert refused(base, {"name": "   ", "room": room})[:2] == (400, "bad_request")
    status, code, message = refused(base, {"name": "Ann", "room": "ZZZZ"})
    assert (status, code) == (403, "wrong_room") and "room code" in message
    assert refused(base, {"token": "no-such-token"})[:2] == (404, "unknown_token")
    post_join(base, {"name": "Ann", "room": room})
    status, code, message = refused(base, {"name": "ann", "room": room})
    assert (status, code) == (409, "name_taken") and "Ann" in message
    post_join(base, {"name": "Bo", "room": room})
    last = post_join(base, {"name": "Cy", "room": room})       # full: the game starts
    assert refused(base, {"name": "Di", "room": room})[:2] == (409, "table_full")
    hub = table.hub
    table.bridge.wait_idle()
    assert hub.session is not None
    with hub.session.lock:                                # the game has ended
        hub.session.state.finish([0], "a test ending", {0: 1, 1: 0, 2: 0})
    assert refused(base, {"name": "Di", "room": room})[:2] == (410, "game_over")
    again = post_join(base, {"token": last["token"]})     # a finished game can still be seen
    assert again["seat"] == 2


def test_reclaim_keeps_the_seat_id_and_token_and_changes_the_password(table):
    a = post_join(table.base, {"name": "Ann", "room": table.hub.room_code})
    b = post_join(table.base, {"token": a["token"]})
    assert (b["seat"], b["seat_id"], b["token"]) == (a["seat"], a["seat_id"], a["token"])
    assert b["password"] != a["password"]


# -- QR code and addresses -------------------------------------------------------------------------

def test_the_qr_code_holds_the_join_url_with_the_room_code(table):
    url = table.hub.join_url
    assert url == f"http://{table.web.public_host}:{table.web.port}/?room={table.hub.room_code}"
    status, headers, png = get(table.base + "/qr.png")
    assert status == 200 and headers["Content-Type"] == "image/png"
    [code] = decode(Image.open(io.BytesIO(png)))
    assert code.data.decode() == url
    # the table's own screen gets it; phones on the LAN do not (it carries the room code)
    assert web.is_loopback("127.0.0.1") and web.is_loopback("::1")
    assert not web.is_loopback("192.168.1.20")
    lan = web.lan_ip()
    if lan != "127.0.0.1":
        s = socket.create_connection((lan, table.web.port), timeout=5)
        try:
            s.sendall(b"GET /qr.png HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert s.recv(64).startswith(b"HTTP/1.1 403")
        finally:
            s.close()


def test_the_ascii_qr_code_decodes_too():
    text = web.qr_ascii("http://10.0.0.5:8000/?room=ABCD")
    lines = text.rstrip("\n").split("\n")
    # render the half-block characters back into pixels (2 rows per line)
    top = {" ": 0, "▀": 1, "▄": 0, "█": 1}
    bottom = {" ": 0, "▀": 0, "▄": 1, "█": 1}
    width = max(len(line) for line in lines)
    img = Image.new("L", (width * 4, len(lines) * 8), 255)
    for y, line in enumerate(lines):
        for x, ch in enumerate(line):
            for half, table_ in ((0, top), (1, bottom)):
                # print_ascii(invert=True) draws the light modules: dark where the glyph is not
                if not table_.get(ch, 0):
                    for dy in range(4):
                        for dx in range(4):
                            img.putpixel((x * 4 + dx, y * 8 + half * 4 + dy), 0)
    codes = decode(img)
    assert [c.data.decode() for c in codes] == ["http://10.0.0.5:8000/?room=ABCD"]


def test_lan_ip_sends_nothing_and_falls_back_to_loopback():
    ip = web.lan_ip()
    socket.inet_aton(ip)                              # an IPv4 address
    assert web.lan_ip("256.1.1.1") == "127.0.0.1"     # no route (or no network): loopback
    assert web.join_url("10.0.0.5", 8000, "ABCD") == "http://10.0.0.5:8000/?room=ABCD"
    assert web.join_url("fe80::1", 80, "ABCD") == "http://[fe80::1]:80/?room=ABCD"


def test_a_busy_port_is_one_clear_error(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        srv = TableServer("busy", db=tmp_path / "s.db", game="great-powers", players=3,
                          bind="127.0.0.1", http_port=port, mqtt_port=0, ws_port=0)
        with pytest.raises(web.WebError, match="--http-port"):
            srv.start()
    assert srv.broker is None and srv.bridge is None          # everything stopped again


# -- the command -----------------------------------------------------------------------------------

def run_cli(*args, timeout=30):
    return subprocess.run([sys.executable, "-m", "companion.cli.main", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)


def test_serve_without_a_game_to_resume_says_what_to_do(tmp_path):
    r = run_cli("serve", "--table", "empty", "--db", str(tmp_path / "s.db"), "--http-port", "0",
                "--mqtt-port", "0", "--ws-port", "0")
    assert r.returncode == 1
    assert r.stderr.strip().splitlines() == [
        f"companion: Table empty has no game to resume in {tmp_path / 's.db'}; give --game "
        f"and --players to set one up."]
    r = run_cli("serve", "--table", "Bad Name", "--db", str(tmp_path / "s.db"))
    assert r.returncode == 1 and "table id" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("serve", "--table", "x", "--broker", "mqtt://127.0.0.1:1", "--db",
                str(tmp_path / "s.db"), "--game", "great-powers", "--players", "3")
    assert r.returncode == 1 and "--ws-url" in r.stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_serve_prints_the_join_details_and_stops_cleanly(tmp_path, sig):
    ports = free_ports(3, "127.0.0.1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "companion.cli.main", "serve", "--table", "cli",
         "--db", str(tmp_path / "s.db"), "--game", "great-powers", "--players", "4",
         "--start-now", "--bind", "127.0.0.1", "--http-port", str(ports[0]),
         "--mqtt-port", str(ports[1]), "--ws-port", str(ports[2])],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith("{"):
            break
    info = json.loads(lines[-1])
    text = "".join(lines)
    assert "█" in text                                # the QR code
    assert f"Join: {info['join_url']}" in text and f"Room code: {info['room']}" in text
    assert "same Wi-Fi" in text and "Great Powers" in text
    assert get(f"http://127.0.0.1:{ports[0]}/info")[0] == 200
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=15)
    assert proc.returncode == 0, err
    assert "is saved; run the same command to resume it" in out
    assert "Traceback" not in err


def test_a_phone_that_walks_away_mid_answer_is_not_a_traceback(table, capfd, caplog):
    """A phone whose Wi-Fi drops while the page is being sent (here: a connection reset by
    the client right after asking for the page's script) is ordinary: the console shows no
    "Exception occurred during processing of request" and no traceback (socketserver's
    default), and the server answers the next phone."""
    import logging
    import struct
    import time
    host, port = "127.0.0.1", table.web.port
    caplog.set_level(logging.DEBUG, logger="companion.net.web")
    for _ in range(30):
        s = socket.create_connection((host, port), timeout=5)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
        s.sendall(b"GET /app.js HTTP/1.1\r\nHost: x\r\n\r\n")
        s.recv(16)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()                                   # RST: gone mid-answer
    time.sleep(0.5)
    status, _h, body = get(table.base + "/")
    assert status == 200 and body
    err = capfd.readouterr().err
    assert "Exception occurred" not in err and "Traceback" not in err, err
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
