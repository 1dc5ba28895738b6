"""What the club's tests share: a store filled by real play, and both sides' rows to compare."""
import sqlite3

import psycopg

from companion.cli.main import main


def play(db, seed, players=4, game="great-powers"):
    """One whole bot game stored by `companion play` (the real command, in this process)."""
    assert main(["play", game, "--players", str(players), "--seed", str(seed), "--bots",
                 "all", "--db", str(db)]) == 0


def local_rows(db):
    """The store's sessions, events and replies, as the shipper reads them."""
    con = sqlite3.connect(str(db))
    try:
        sessions = [dict(zip(("id", "game", "created", "meta", "status", "summary", "clock",
                              "updated"), r)) for r in con.execute(
            "SELECT id, game, created, meta, status, summary, clock, updated FROM sessions")]
        events = con.execute("SELECT session_id, version, type, data FROM events "
                             "ORDER BY session_id, version").fetchall()
        replies = con.execute("SELECT session_id, seat, tx, reply FROM replies "
                              "ORDER BY session_id, seat, tx").fetchall()
    finally:
        con.close()
    return sessions, events, replies


def club_events(url, table):
    with psycopg.connect(url) as db:
        if db.execute("SELECT to_regclass('club_events') IS NULL").fetchone()[0]:
            return []                       # no shipper has made the tables yet
        return db.execute("SELECT session_id, version, type, data FROM club_events "
                          "WHERE table_id = %s ORDER BY session_id, version",
                          (table,)).fetchall()


def club_count(url, what="club_events"):
    with psycopg.connect(url) as db:
        if db.execute(f"SELECT to_regclass('{what}') IS NULL").fetchone()[0]:
            return 0
        return db.execute(f"SELECT count(*) FROM {what}").fetchone()[0]


def let_in(server, name, timeout=30):
    """The organiser lets table ``name`` in once it asks (the club's ClubServer)."""
    from ..waiting import wait_until
    wait_until(lambda: any(r["table"] == name for r in server.organiser_state()["asking"]),
               timeout, what=f"table {name} asking to join")
    assert server.allow(name)


def organiser(page, password, action=None, table=None, timeout=10):
    """The organiser's page over HTTP (Basic login): its state, or an action's answer."""
    import base64
    import json
    import urllib.request
    auth = "Basic " + base64.b64encode(f"organiser:{password}".encode()).decode()
    if action is None:
        req = urllib.request.Request(page.rstrip("/") + "/organiser/state",
                                     headers={"Authorization": auth})
    else:
        req = urllib.request.Request(page.rstrip("/") + f"/organiser/{action}",
                                     data=json.dumps({"table": table}).encode(), method="POST",
                                     headers={"Authorization": auth,
                                              "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read().decode())


def shipped_events(db):
    """The store's records as a box ships them (the public history, companion.club.public),
    in the order local_rows gives them."""
    from companion import games
    from companion.club.public import public_events
    sessions, events, _replies = local_rows(db)
    by = {s["id"]: s for s in sessions}
    out = []
    for sid in sorted({e[0] for e in events}):
        rows = [e for e in events if e[0] == sid]
        s = by[sid]
        out += public_events(games.get(s["game"]), rows, s["status"])
    return out
