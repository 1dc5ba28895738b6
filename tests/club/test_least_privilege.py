"""The club's record belongs to the club (issue 35): every step of what a visitor did with the
club page's join code now fails, against a real `companion club` (its own PostgreSQL and
mosquitto, started with --bind 127.0.0.1) and a real box's store shipped by the real shipper.

What was measured, and what each test checks instead:

* the public config carried the join code, and any name POSTed with it got the database's
  owner login: now the config holds no code, a visitor's join waits for the organiser and gets
  no login, and a table let in gets a role that can neither read, change nor delete another
  table's rows (test_a_visitor_gets_nothing_and_a_table_only_its_own_rows);
* the record held each table's room code: now no shipped field holds a room code, a seat's
  token, a salt or choice never revealed, or a reply (test_no_secret_in_any_shipped_field);
* anyone with the code could put a table on the page: a table the organiser did not let in has
  no broker login, and one taken out is off the page and out of the broker and the record;
* --bind 127.0.0.1 still had PostgreSQL and the WebSockets listener on every address: now
  every listener of the club's processes is on 127.0.0.1 (``ss``);
* a SIGKILLed club left its PostgreSQL running: now it stops (and mosquitto with it);
* a schema-1 club (``tc_box`` owning the database) is migrated in place
  (test_a_schema_1_club_is_migrated_in_place).
"""
import ipaddress
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import paho.mqtt.client as paho
import psycopg
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from companion.club import pg
from companion.club.public import SECRET_KEYS
from companion.club.record import Record, admit_table
from companion.club.shipper import Shipper
from companion.core.clock import FakeClock, SessionClock
from companion.core.log import SQLiteLog
from companion.core.play import resolve_bots
from companion.net.brokers import free_ports, mosquitto_available, probe_login
from companion.games import get
from companion.service.hub import Hub

from ..waiting import wait_until
from .helpers import organiser

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not pg.installed() or not mosquitto_available(),
                                reason="needs PostgreSQL and mosquitto")


# -- a box's store with every kind of secret in it --------------------------------------------------

class BotTable:
    """A game played by bots through the real hub, the players joined with the room code (so
    the session's meta holds the room and each seat's token hash)."""

    def __init__(self, log, table, game, seed):
        rng, self.brng = random_pair(seed)
        self.base = FakeClock(1000.0)
        self.hub = Hub(log, table=table, clock=SessionClock(self.base), entropy=rng.randbytes,
                       games=get)
        self.hub.configure(game, 2)
        self.tokens = [self.hub.join(name, self.hub.room_code)[1] for name in ("Ann", "Bob")]
        self.s = self.hub.start(seed=seed)
        self.bots = resolve_bots(self.s.game, "greedy", 2)

    def hidden(self):
        """The records of lock-ins not revealed (yet)."""
        st = self.s.state
        return [r for r in self.s.records if "salt" in r and "window" in r
                and not st.windows[r["window"]].is_revealed()]

    def play(self, stop_at_lock_in=False):
        """To the end, or (``stop_at_lock_in``) until one seat locked in a sealed choice the
        others have not."""
        s, g, hub = self.s, self.s.game, self.hub
        for _ in range(20000):
            st = s.state
            if st.outcome is not None or stop_at_lock_in and self.hidden():
                return self
            if not st.prompts:
                self.base.advance(max(0.0, (st.next_deadline() or 0) - s.clock.now()))
                s.tick()
                continue
            self.base.advance(2.0)
            seat = min(st.prompts, key=lambda x: -1 if x is None else x)
            if seat is None:
                hub.table_move(*g.table_bot(g, g.observe(st, None), self.brng))
            else:
                hub.submit(seat, *self.bots[seat](g, g.observe(st, seat), self.brng))
        raise AssertionError("the game did not end")


def hub_game(log, table, game, seed, *, stop_at_lock_in=False):
    t = BotTable(log, table, game, seed).play(stop_at_lock_in)
    return t.hub.room_code, t.tokens, t.s


def random_pair(seed):
    import random
    return random.Random(seed), random.Random(seed ^ 0x5EED)


def store_with_secrets(path, table="kitchen"):
    """A store like a box's: one game over, one stopped with a lock-in never revealed, and a
    kept reply. Returns what must never leave it."""
    log = SQLiteLog(path)
    room, tokens, done = hub_game(log, table, "battle-builder", 5)
    _room, more, open_ = hub_game(log, table, "battle-builder", 6, stop_at_lock_in=True)
    assert done.state.outcome is not None and open_.state.outcome is None
    hidden = [r for r in open_.records if "salt" in r and
              not open_.state.windows[r["window"]].is_revealed()]
    assert hidden, "the second game stops with a choice locked in and not revealed"
    log.put_reply(done.id, 0, "tx-secret-1", json.dumps({"ok": False, "error": "your hand"}))
    metas = [i.meta for i in log.sessions()]
    log.close()
    secrets = {room, _room, *tokens, *more}
    secrets |= {s["token_hash"] for m in metas for s in m.get("seats", []) if s.get("token_hash")}
    secrets |= {r["salt"] for r in hidden}
    return secrets, hidden


def walk(value, path="$"):
    """Every (path, key or None, value) of a JSON value."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield path, k, v
            yield from walk(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk(v, f"{path}[{i}]")
    else:
        yield path, None, value


def test_no_secret_in_any_shipped_field(club_url, tmp_path):
    db = tmp_path / "kitchen.db"
    secrets, hidden = store_with_secrets(db)
    url = (Record(club_url).close(), admit_table(club_url, "kitchen"))[1]
    s = Shipper(db, "kitchen", url, interval=0.2)
    try:
        wait_until(lambda: s.status()["sent"] > 0 and s.status()["queued"] == 0, 60,
                   what="the store shipped")
        assert s.status()["last_error"] is None
    finally:
        s.stop()
    with psycopg.connect(club_url) as con:
        sessions = con.execute("SELECT * FROM club_sessions").fetchall()
        events = con.execute("SELECT * FROM club_events").fetchall()
        replies = con.execute("SELECT count(*) FROM club_replies").fetchone()[0]
    assert len(sessions) == 2 and events and replies == 0   # a seat's replies stay home
    checked = 0
    for row in sessions + events:
        for field in row:
            doc = field
            if isinstance(field, str) and field[:1] in "{[":
                doc = json.loads(field)
            for where, key, value in walk(doc):
                checked += 1
                assert key not in SECRET_KEYS, (where, key)
                assert not (isinstance(value, str) and value in secrets), (where, value)
                assert not (isinstance(key, str) and key in secrets), (where, key)
    assert checked > 1000
    # the lock-ins never revealed went without their choice and salt, with their commitment
    shipped = {(r[1], r[2]): json.loads(r[4]) for r in events}
    open_id = next(r[1] for r in sessions if r[5] == "open")
    for rec in hidden:
        got = [d for (sid, _v), d in shipped.items() if sid == open_id and
               d.get("commitment") == rec["commitment"]]
        assert got and "args" not in got[0] and "salt" not in got[0]
    # the running game's seed stays home; the finished game's is there (it replays)
    v0 = {sid: d for (sid, v), d in shipped.items() if v == 0}
    assert "seed" not in v0[open_id] and all("seed" in d for sid, d in v0.items()
                                              if sid != open_id)


def test_a_game_shipped_while_running_is_completed_when_it_ends(club_url, tmp_path):
    """Mid-game the club gets what a spectator has seen (no seed, no unrevealed choice); when
    the game ends the box sends it again as the end shows it, so it replays at the club."""
    from companion.club.record import ClubLog
    from companion.core.session import fold
    db = tmp_path / "kitchen.db"
    log = SQLiteLog(db)
    t = BotTable(log, "kitchen", "battle-builder", 9).play(stop_at_lock_in=True)
    hidden = t.hidden()
    url = (Record(club_url).close(), admit_table(club_url, "kitchen"))[1]
    s = Shipper(db, "kitchen", url, interval=0.2)
    try:
        wait_until(lambda: s.status()["sent"] >= len(t.s.records), 60, what="shipped mid-game")
        rows = {r[1]: json.loads(r[3]) for r in _events(club_url)}
        assert "seed" not in rows[0]
        for rec in hidden:
            shown = [d for d in rows.values() if d.get("commitment") == rec["commitment"]]
            assert shown and "args" not in shown[0] and "salt" not in shown[0]
        t.play()                                        # to the end
        s.notify()
        wait_until(lambda: len(_events(club_url)) == len(t.s.records) and
                   "seed" in json.loads(_events(club_url)[0][3]), 60,
                   what="the ended game sent again whole")
    finally:
        s.stop()
        log.close()
    rows = [json.loads(r[3]) for r in _events(club_url)]
    for rec in hidden:                                  # revealed at last: there now
        got = [d for d in rows if d.get("commitment") == rec["commitment"]]
        assert got and "args" in got[0] and "salt" in got[0]
    club = ClubLog(club_url)
    try:
        sid = club.sessions()[0].id
        assert fold(get("battle-builder"), club.read(sid)).outcome is not None   # replays
    finally:
        club.close()


def _events(url):
    with psycopg.connect(url) as con:
        return con.execute("SELECT session_id, version, type, data FROM club_events "
                           "ORDER BY version").fetchall()


def test_a_refused_record_login_asks_the_box_to_join_again(kitchen_url, tmp_path):
    """A club migrated from schema 1 (or a login renewed) refuses the box's record login: the
    shipper says so to its ClubLink (which joins again with its last broker login)."""
    import threading

    from companion.club.record import with_login
    db = tmp_path / "s.db"
    store_with_secrets(db)
    refused = threading.Event()
    s = Shipper(db, "kitchen", with_login(kitchen_url, "tc_box", "old-password"),
                interval=0.2, on_refused=refused.set)
    try:
        assert refused.wait(30)
        assert not s.status()["connected"] and s.status()["sent"] == 0
    finally:
        s.stop()


def test_tables_let_in_at_once_each_get_their_login(club_url):
    """The organiser lets several tables in at once (a club night's start): each admission
    grants CONNECT on the one database, and PostgreSQL refuses two such catalog updates at the
    same moment ("tuple concurrently updated"; on a club night a table's join failed so, and it
    came back under a second name). Admissions take turns: every table gets its own login."""
    from concurrent.futures import ThreadPoolExecutor
    Record(club_url).close()
    names = [f"t{i}" for i in range(12)]
    for attempt in range(3):                # each round admits all of them again, at once
        with ThreadPoolExecutor(len(names)) as pool:
            urls = list(pool.map(lambda n: admit_table(club_url, n), names))
        for name, url in zip(names, urls):
            with psycopg.connect(url, connect_timeout=10) as db:
                assert db.execute("SELECT current_user").fetchone()[0].endswith("_t_" + name)


# -- the club, as its organiser starts it -----------------------------------------------------------

def _companion(log, *args):
    out = open(log, "a")
    try:
        return subprocess.Popen([sys.executable, "-m", "companion.cli.main", *args], cwd=ROOT,
                                stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, text=True)
    finally:
        out.close()


def _post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def _get(url, auth=None):
    req = urllib.request.Request(url, headers={"Authorization": auth} if auth else {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def _listening_sockets():
    """``{socket inode: (address, port)}`` of every listening TCP socket, from /proc/net (no
    ``ss``: a minimal Debian 13 root has no iproute2)."""
    out = {}
    for name in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/net/{name}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] != "0A":                        # TCP_LISTEN
                continue
            hexaddr, hexport = f[1].split(":")
            raw = bytes.fromhex(hexaddr)
            # the kernel prints each 32-bit word of the address in host (little-endian) order
            raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
            out[int(f[9])] = (str(ipaddress.ip_address(raw)), int(hexport, 16))
    return out


def listeners(pids):
    """``(address, port)`` of every TCP socket the processes ``pids`` listen on."""
    sockets, found = _listening_sockets(), []
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:                             # gone
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inode = int(target[8:-1])
                if inode in sockets:
                    found.append(sockets[inode])
    return found


def children(pid):
    """The processes whose parent is ``pid``, from /proc (no ``ps`` needed)."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:     # the field after the state
                out.append(int(d.name))
    return out


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:                                    # a zombie is gone for our purpose
        return "Z" not in Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False


@pytest.fixture
def club(tmp_path):
    base = tempfile.mkdtemp(prefix="club-priv-")        # postgres (under root) must reach it
    os.chmod(base, 0o711)
    folder = Path(base) / "club"
    page, mqtt, ws, pgp = free_ports(4, "127.0.0.1")
    log = tmp_path / "club.log"
    proc = _companion(log, "club", "--folder", str(folder), "--name", "Thursday club",
                      "--bind", "127.0.0.1", "--host", "127.0.0.1", "--port", str(page),
                      "--mqtt-port", str(mqtt), "--ws-port", str(ws), "--pg-port", str(pgp),
                      "--json")
    try:
        wait_until(lambda: proc.poll() is not None or '{"v": 1, "name"' in log.read_text(),
                   120, what="companion club started")
        lines = [ln for ln in log.read_text().splitlines() if ln.startswith('{"v": 1, "name"')]
        assert lines, log.read_text()[-3000:]
        info = json.loads(lines[-1])
        info["password"] = json.loads((folder / "club.json").read_text())["organiser_password"]
        info.update(proc=proc, folder=folder, ports=(page, mqtt, ws, pgp), log=log)
        yield info
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        pg.Server(folder / "postgresql").stop()
        shutil.rmtree(base, ignore_errors=True)


def _auth(password):
    import base64
    return "Basic " + base64.b64encode(f"organiser:{password}".encode()).decode()


def _let_in(club, table, token):
    """A box asks as ``table``; the organiser allows it on the organiser's page; the box asks
    again and gets its logins."""
    status, answer = _post(club["join"], {"table": table, "request": token})
    assert status == 202, answer
    organiser(club["page"], club["password"], "allow", answer["table"])
    status, answer = _post(club["join"], {"table": table, "request": token})
    assert status == 200, answer
    return answer


def test_a_visitor_gets_nothing_and_a_table_only_its_own_rows(club, tmp_path):
    page = club["page"].rstrip("/")
    code = club["join"].rsplit("/", 1)[1]

    # 1. the public page and its config never show the join code
    status, cfg = _get(page + "/club/config")
    assert status == 200 and code not in cfg and "join" not in json.loads(cfg)
    assert code not in _get(page + "/")[1] and code not in _get(page + "/club/tables")[1]
    # ... the organiser's page does, behind the organiser's password
    assert _get(page + "/organiser")[0] == 401
    assert _get(page + "/organiser/state", _auth("guess"))[0] == 401
    status, text = _get(page + "/organiser/state", _auth(club["password"]))
    assert status == 200 and json.loads(text)["code"] == code
    assert _get(page + "/organiser", _auth(club["password"]))[0] == 200

    # 2. a visitor with the code asks to join: it waits for the organiser and gets no login
    status, answer = _post(club["join"], {"table": "visitor", "request": "v" * 24})
    assert status == 202 and "record" not in answer and "broker" not in answer
    status, answer = _post(club["join"], {"table": "visitor"})      # no token: no way in
    assert status == 403 and "record" not in answer
    # it cannot let itself in
    req = urllib.request.Request(page + "/organiser/allow", method="POST",
                                 data=json.dumps({"table": "visitor"}).encode(),
                                 headers={"Content-Type": "application/json",
                                          "Authorization": _auth("visitor")})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, timeout=30)
    assert e.value.code == 401
    # the organiser refuses it
    state = organiser(page, club["password"])
    assert [r["table"] for r in state["asking"]] == ["visitor"]
    organiser(page, club["password"], "refuse", "visitor")
    status, answer = _post(club["join"], {"table": "visitor", "request": "v" * 24})
    assert status == 403 and "did not let" in answer["error"]["message"]

    # 3. two tables let in by the organiser ship their stores
    kitchen = _let_in(club, "kitchen", "k" * 24)
    porch = _let_in(club, "porch", "p" * 24)
    assert kitchen["record"] != porch["record"]
    assert "tc_box" not in kitchen["record"] and "postgres:" not in kitchen["record"]
    stores = {}
    for name, answer, seed in (("kitchen", kitchen, 5), ("porch", porch, 7)):
        db = tmp_path / f"{name}.db"
        log = SQLiteLog(db)
        hub_game(log, name, "battle-builder", seed)
        log.close()
        stores[name] = db
        s = Shipper(db, name, answer["record"], interval=0.2)
        try:
            wait_until(lambda: s.status()["connected"] and s.status()["queued"] == 0
                       and s.status()["sent"] > 0, 60, what=f"{name} shipped")
        finally:
            s.stop()
    admin = _admin_url(club)
    with psycopg.connect(admin) as con:
        porch_rows = con.execute("SELECT count(*) FROM club_events WHERE table_id = 'porch'"
                                 ).fetchone()[0]
        assert porch_rows > 0
        assert con.execute("SELECT count(*) FROM club_sessions WHERE meta ? 'room'"
                           ).fetchone()[0] == 0

    # 4. kitchen's login reads, changes and deletes nothing of porch's, and no replies
    with psycopg.connect(kitchen["record"], autocommit=True) as con:
        assert con.execute("SELECT DISTINCT table_id FROM club_sessions").fetchall() == \
            [("kitchen",)]
        assert con.execute("SELECT count(*) FROM club_events WHERE table_id = 'porch'"
                           ).fetchone()[0] == 0
        cur = con.execute("UPDATE club_sessions SET status = 'hacked' WHERE table_id = 'porch'")
        assert cur.rowcount == 0
        for attack in ("DELETE FROM club_events WHERE table_id = 'porch'",
                       "DELETE FROM club_sessions",
                       "TRUNCATE club_events",
                       "SELECT * FROM club_replies",
                       "SELECT * FROM club_members",
                       "UPDATE club_sessions SET table_id = 'porch'",
                       "DROP TABLE club_events",
                       "CREATE TABLE mine(x int)",
                       "ALTER TABLE club_events DISABLE ROW LEVEL SECURITY"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                con.execute(attack)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):     # RLS: not its rows
            con.execute("INSERT INTO club_events(table_id, session_id, version, type, data) "
                        "VALUES ('porch', 'x', 0, 'SessionStarted', '{}')")
    with psycopg.connect(admin) as con:
        assert con.execute("SELECT count(*) FROM club_events WHERE table_id = 'porch'"
                           ).fetchone()[0] == porch_rows
        assert con.execute("SELECT count(*) FROM club_sessions WHERE status = 'hacked'"
                           ).fetchone()[0] == 0
    # the old shared login is no login at all
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(kitchen["record"].replace(
            kitchen["record"].split("//")[1].split("@")[0], "tc_box:x"), connect_timeout=5)

    # 5. only tables let in are on the page; a table with a login writes only its own topics
    assert json.loads(_get(page + "/club/tables")[1])["tables"] == ["kitchen", "porch"]
    b = kitchen["broker"]
    assert probe_login("127.0.0.1", b["port"], "visitor", "") != 0       # no broker login
    assert probe_login("127.0.0.1", b["port"], "kitchen", b["password"]) == 0

    # 6. the organiser takes porch out: off the page, no broker login, no record login
    organiser(page, club["password"], "remove", "porch")
    assert json.loads(_get(page + "/club/tables")[1])["tables"] == ["kitchen"]
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(porch["record"], connect_timeout=5)
    status, answer = _post(club["join"], {"table": "porch", "request": "q" * 24, "previous": {
        "table": "porch", "password": porch["broker"]["password"]}})
    assert status == 202                    # its old login proves nothing any more: it asks

    # 7. kitchen comes back with its last login without asking (a box's restart)
    status, again = _post(club["join"], {"table": "kitchen", "request": "z" * 24, "previous": {
        "table": "kitchen", "password": kitchen["broker"]["password"]}})
    assert status == 200 and again["table"] == "kitchen"
    with psycopg.connect(again["record"]) as con:      # a new record login, the old one gone
        con.execute("SELECT 1")
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(kitchen["record"], connect_timeout=5)


def _admin_url(club):
    """The organiser's login on the record (reports, stats), from the club's folder."""
    folder = club["folder"] / "postgresql"
    server = pg.Server(folder, club["ports"][3], "127.0.0.1")
    return server.create_owned_database("club", "tc_club")


def test_bind_holds_for_every_listener_and_the_children_die_with_the_club(club):
    proc = club["proc"]
    page, mqtt, ws, pgp = club["ports"]
    postmaster = int((club["folder"] / "postgresql" / "postmaster.pid").read_text().split()[0])
    mosquitto = [p for p in children(proc.pid) if "mosquitto" in
                 Path(f"/proc/{p}/cmdline").read_bytes().decode(errors="replace")]
    assert mosquitto and alive(postmaster)
    found = listeners([proc.pid, postmaster, *mosquitto])
    ports = {port for _a, port in found}
    assert {page, mqtt, pgp} <= ports, found
    assert all(addr == "127.0.0.1" for addr, _p in found), found
    assert ws not in ports                          # the page's WebSockets come through page

    # the page's WebSockets, relayed to the broker on 127.0.0.1, log in as the viewer
    cfg = json.loads(_get(club["page"].rstrip("/") + "/club/config")[1])
    assert cfg["ws_url"] == f"ws://127.0.0.1:{page}/mqtt"
    got = []
    c = paho.Client(CallbackAPIVersion.VERSION2, transport="websockets")
    c.ws_set_options(path="/mqtt")
    c.username_pw_set(cfg["username"], cfg["password"])
    c.on_connect = lambda cl, _u, _f, rc, _p: got.append(("connect", rc.value))
    c.connect("127.0.0.1", page)
    c.loop_start()
    try:
        wait_until(lambda: got, 20, what="the viewer logged in over the relay")
        assert got[0] == ("connect", 0)
    finally:
        c.loop_stop()
        c.disconnect()

    # SIGKILL: nothing of the club is left running
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    wait_until(lambda: not alive(postmaster) and not any(alive(p) for p in mosquitto), 60,
               what="PostgreSQL and mosquitto stopped after the club's SIGKILL")
    assert listeners([postmaster, *mosquitto]) == []


def test_a_schema_1_club_is_migrated_in_place(tmp_path):
    """A club started before issue 35: tc_box owns the database, the rows hold room codes and
    seat tokens, replies are there. `Club.start` hands the database to the organiser, locks
    tc_box out and cleans the rows; a box that shipped as tc_box joins again with its login."""
    from companion.club.broker import ClubBroker
    from companion.club.record import SCHEMA
    from companion.club.run import Club
    from companion.club.server import admit_all
    base = tempfile.mkdtemp(prefix="club-v1-")
    os.chmod(base, 0o711)
    folder = Path(base) / "club"
    folder.mkdir(mode=0o711)
    page, mqtt, ws, pgp = free_ports(4, "127.0.0.1")
    try:
        server = pg.Server(folder / "postgresql", pgp, "*", max_connections=50).start()
        old = server.create_owned_database("club", "tc_box")          # what schema 1 did
        with psycopg.connect(old) as con:
            con.execute(SCHEMA)
            con.execute("INSERT INTO club_schema VALUES (1)")
            con.execute("INSERT INTO club_sessions(table_id, session_id, game, created, meta, "
                        "status) VALUES ('kitchen', 's1', 'battle-builder', 1, %s, 'finished')",
                        (json.dumps({"table": "kitchen", "room": "4711", "seats": [
                            {"name": "Ann", "token_hash": "abcdef"}]}),))
            con.execute("INSERT INTO club_replies VALUES ('kitchen', 's1', 0, 'tx', '{}')")
        server.stop()
        # the box's broker login of schema 1 is kept: it proves the box when it asks again
        broker = ClubBroker("127.0.0.1", mqtt, None, run_dir=folder / "mosquitto")
        kitchen_pw = broker.add_table("kitchen")
        club = Club(folder, name="Old club", bind="127.0.0.1", host="127.0.0.1",
                    page_port=page, mqtt_port=mqtt, ws_port=ws, pg_port=pgp).start()
        try:
            with pytest.raises(psycopg.OperationalError):       # tc_box: no login any more
                psycopg.connect(old, connect_timeout=5)
            with psycopg.connect(club.record_url) as con:
                assert con.execute("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE "
                                   "datname = 'club'").fetchone()[0] == "tc_club"
                meta = con.execute("SELECT meta FROM club_sessions").fetchone()[0]
                assert meta == {"table": "kitchen", "seats": [{"name": "Ann"}]}
                assert con.execute("SELECT count(*) FROM club_replies").fetchone()[0] == 0
                assert con.execute("SELECT version FROM club_schema").fetchone()[0] == 2
            # the box's next join proves its old login: in at once, with a role of its own
            status, answer = _post(club.join_url, {"table": "kitchen", "request": "k" * 24,
                                                   "previous": {"table": "kitchen",
                                                                "password": kitchen_pw}})
            assert status == 200 and "tc_club_t_kitchen" in answer["record"]
            assert club.server.admit is None and admit_all("x", "y")
        finally:
            club.stop()
    finally:
        pg.Server(folder / "postgresql").stop()
        shutil.rmtree(base, ignore_errors=True)


def test_an_existing_postgresql_given_with_record(pg_server, tmp_path):
    """`companion club --record URL`: that login is the organiser's (it owns the club's tables
    and may create roles); each table still gets a role of its own, fenced to its own rows."""
    from psycopg import sql

    from companion.club.record import with_login
    from companion.club.run import Club
    from companion.club.server import admit_all
    pg_server.start()
    pg_server.drop_database("given")
    with psycopg.connect(pg_server.url("postgres"), autocommit=True) as su:
        su.execute("DROP ROLE IF EXISTS club_org")
        su.execute(sql.SQL("CREATE ROLE club_org LOGIN CREATEROLE PASSWORD {}").format(
            sql.Literal("org-pw")))
        su.execute("CREATE DATABASE given OWNER club_org")
    given = with_login(pg_server.url("given"), "club_org", "org-pw")
    page, mqtt, ws, _pgp = free_ports(4, "127.0.0.1")
    club = Club(tmp_path / "club", name="Given", record=given, bind="127.0.0.1",
                host="127.0.0.1", page_port=page, mqtt_port=mqtt, ws_port=ws,
                admit=admit_all).start()
    try:
        answers = {}
        for table in ("kitchen", "porch"):
            status, answers[table] = _post(club.join_url, {"table": table})
            assert status == 200
        assert answers["kitchen"]["record"].startswith("postgresql://tc_given_t_kitchen:")
        with psycopg.connect(answers["porch"]["record"], autocommit=True) as con:
            con.execute("INSERT INTO club_sessions(table_id, session_id, game, created, meta, "
                        "status) VALUES ('porch', 's', 'g', 1, '{}', 'open')")
        with psycopg.connect(answers["kitchen"]["record"], autocommit=True) as con:
            assert con.execute("SELECT count(*) FROM club_sessions").fetchone()[0] == 0
            assert con.execute("UPDATE club_sessions SET status = 'x'").rowcount == 0
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                con.execute("DELETE FROM club_sessions")
        with psycopg.connect(given) as con:
            assert con.execute("SELECT count(*) FROM club_sessions").fetchone()[0] == 1
    finally:
        club.stop()
        pg_server.drop_database("given")
        with psycopg.connect(pg_server.url("postgres"), autocommit=True) as su:
            for (role,) in su.execute("SELECT rolname FROM pg_roles WHERE rolname LIKE "
                                      "'tc\\_given\\_t\\_%'").fetchall():
                su.execute(sql.SQL("DROP ROLE {}").format(sql.Identifier(role)))
            su.execute("DROP ROLE IF EXISTS club_org")
