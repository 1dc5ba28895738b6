"""The club's record in a real PostgreSQL: what a box ingests is there once however often it is
sent, row for row what its store holds, and ClubLog reads it like the store itself."""
import json

import psycopg
import pytest

from companion.club.record import ClubLog, ClubRecordError, Record
from companion.core.errors import SessionNotFoundError
from companion.core.log import SQLiteLog

from .helpers import local_rows, play


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Two bot games and a kept reply to a refused command, written by the real code."""
    db = tmp_path_factory.mktemp("store") / "s.db"
    play(db, seed=3)
    play(db, seed=4, players=3)
    log = SQLiteLog(db)
    first = log.sessions()[0].id
    log.put_reply(first, 1, "tx-1", json.dumps({"ok": False, "error": "not your turn"}))
    log.close()
    return db


def _ingest(url, table, db, shift=0.0):
    sessions, events, replies = local_rows(db)
    for s in sessions:
        s["created"] += shift
        s["updated"] += shift
    rec = Record(url)
    try:
        return rec.ingest(table, sessions, events, replies)
    finally:
        rec.close()


def test_ingest_twice_is_once_row_by_row(club_url, store):
    sessions, events, replies = local_rows(store)
    first = _ingest(club_url, "kitchen", store)
    assert first == {"sessions": len(sessions), "events": len(events),
                     "replies": len(replies)}
    assert _ingest(club_url, "kitchen", store) == {"sessions": 0, "events": 0, "replies": 0}
    with psycopg.connect(club_url) as db:
        got = db.execute("SELECT session_id, version, type, data FROM club_events "
                         "WHERE table_id = 'kitchen' ORDER BY session_id, version").fetchall()
        assert got == events                    # the record's JSON text, byte for byte
        got = db.execute("SELECT session_id, seat, tx, reply FROM club_replies "
                         "ORDER BY session_id, seat, tx").fetchall()
        assert got == replies
        rows = {r[0]: r[1:] for r in db.execute(
            "SELECT session_id, game, created, meta, status, summary, clock, updated "
            "FROM club_sessions")}
    assert len(rows) == len(sessions)
    for s in sessions:
        game, created, meta, status, summary, clock, updated = rows[s["id"]]
        assert (game, created, status, clock, updated) == (
            s["game"], s["created"], s["status"], s["clock"], s["updated"])
        assert meta == json.loads(s["meta"]) and summary == json.loads(s["summary"])


def test_heads_are_what_the_club_holds(club_url, store):
    rec = Record(club_url)
    try:
        assert rec.heads("kitchen") == {}
        _sessions, events, _replies = local_rows(store)
        some = [e for e in events if e[1] < 10]
        rec.ingest("kitchen", events=some)
        assert rec.heads("kitchen") == {sid: 9 for sid in {e[0] for e in events}}
        _ingest(club_url, "kitchen", store)
        want = {}
        for sid, v, _t, _d in events:
            want[sid] = max(want.get(sid, -1), v)
        assert rec.heads("kitchen") == want
        assert rec.heads("attic") == {}
    finally:
        rec.close()


def test_a_newer_session_row_wins_an_older_never_does(club_url, store):
    sessions, _events, _replies = local_rows(store)
    row = dict(sessions[0])
    rec = Record(club_url)
    try:
        rec.ingest("kitchen", sessions=[dict(row, status="open", summary=None)])
        assert rec.ingest("kitchen", sessions=[row])["sessions"] == 1      # played on
        old = dict(row, status="open", summary=None, updated=row["updated"] - 60)
        assert rec.ingest("kitchen", sessions=[old])["sessions"] == 0      # a stale copy
        assert rec.session_rows("kitchen")[row["id"]][0] == "finished"
    finally:
        rec.close()


def test_club_log_reads_like_the_store(club_url, store):
    _ingest(club_url, "kitchen", store)
    local = SQLiteLog(store)
    club = ClubLog(club_url)
    try:
        mine, theirs = local.sessions(), club.sessions()
        assert [i.id for i in theirs] == [i.id for i in mine]
        for a, b in zip(mine, theirs):
            for field in ("game", "created", "meta", "status", "summary", "length", "clock",
                          "updated"):
                assert getattr(b, field) == getattr(a, field), field
            assert club.read(a.id) == local.read(a.id)
            assert club.info(a.id).length == a.length
        sid = mine[0].id
        assert club.get_reply(sid, 1, "tx-1") == local.get_reply(sid, 1, "tx-1")
        assert "***" in club.path and club.table_of(sid) == "kitchen"
        with pytest.raises(ClubRecordError, match="read here, never written"):
            club.append(sid, 0, [{}])
        with pytest.raises(ClubRecordError):
            club.set_status(sid, "finished")
        with pytest.raises(SessionNotFoundError):
            club.read("nope")
    finally:
        local.close()
        club.close()


def test_an_id_two_tables_share_is_named_with_its_table(club_url, store):
    _ingest(club_url, "kitchen", store)
    _ingest(club_url, "attic", store)           # the same ids at another table
    ids = [i.id for i in SQLiteLog(store).sessions()]
    club = ClubLog(club_url)
    try:
        assert sorted(i.id for i in club.sessions()) == sorted(
            f"{sid}@{t}" for sid in ids for t in ("kitchen", "attic"))
        with pytest.raises(SessionNotFoundError, match="more than one table"):
            club.read(ids[0])
        assert club.read(f"{ids[0]}@attic") == club.read(f"{ids[0]}@kitchen")
        assert club.tables() == ["attic", "kitchen"]
    finally:
        club.close()
    only = ClubLog(club_url, table="attic")
    try:
        assert sorted(i.id for i in only.sessions()) == sorted(ids)     # plain again
        assert only.read(ids[0]) == only.read(f"{ids[0]}@attic")
        with pytest.raises(SessionNotFoundError):
            only.read(f"{ids[0]}@kitchen")
    finally:
        only.close()


def test_filters_by_table_and_evening(club_url, store):
    _ingest(club_url, "kitchen", store)
    _ingest(club_url, "attic", store, shift=-2 * 86400)     # two days earlier
    created = min(i.created for i in SQLiteLog(store).sessions())
    n = len(SQLiteLog(store).sessions())

    def count(**kw):
        log = ClubLog(club_url, **kw)
        try:
            return len(log.sessions())
        finally:
            log.close()
    assert count() == 2 * n
    assert count(table="kitchen") == n
    assert count(since=created - 3600) == n
    assert count(since=created - 3 * 86400, until=created - 86400) == n
    assert count(table="kitchen", until=created - 86400) == 0


def test_an_empty_club_reads_as_empty(club_url):
    log = ClubLog(club_url)
    try:
        assert log.sessions() == []
        with pytest.raises(SessionNotFoundError):
            log.info("x")
    finally:
        log.close()
