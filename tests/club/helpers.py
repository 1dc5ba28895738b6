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
