"""One contract, run against both log backends."""
import sqlite3
import time

import pytest

from companion.core.errors import ConcurrencyError, SessionFileError, SessionNotFoundError
from companion.core.log import APPLICATION_ID, SCHEMA_VERSION, MemoryLog, SQLiteLog


@pytest.fixture(params=["memory", "sqlite"])
def log(request, tmp_path):
    if request.param == "memory":
        yield MemoryLog()
    else:
        lg = SQLiteLog(tmp_path / "s.db")
        yield lg
        lg.close()


def test_append_and_read_in_order(log):
    log.create("s1", "g", {"players": ["a"]})
    assert log.append("s1", 0, [{"type": "SessionStarted", "n": 0}]) == 1
    assert log.append("s1", 1, [{"type": "X", "n": 1}, {"type": "Y", "n": 2}]) == 3
    assert [r["n"] for r in log.read("s1")] == [0, 1, 2]
    assert log.info("s1").length == 3


def test_version_is_a_concurrency_guard(log):
    log.create("s1", "g", {})
    log.append("s1", 0, [{"type": "A"}])
    with pytest.raises(ConcurrencyError):
        log.append("s1", 0, [{"type": "B"}])
    with pytest.raises(ConcurrencyError):
        log.append("s1", 5, [{"type": "B"}])
    assert [r["type"] for r in log.read("s1")] == ["A"]


def test_sessions_are_separate_and_listed(log):
    log.create("s1", "g", {})
    log.create("s2", "h", {"x": 1})
    log.append("s2", 0, [{"type": "A"}])
    assert {i.id: i.game for i in log.sessions()} == {"s1": "g", "s2": "h"}
    assert log.read("s1") == []
    with pytest.raises(ConcurrencyError):
        log.create("s1", "g", {})


def test_unknown_session(log):
    with pytest.raises(SessionNotFoundError):
        log.read("nope")
    with pytest.raises(SessionNotFoundError):
        log.append("nope", 0, [{}])


def test_status_and_summary(log):
    log.create("s1", "g", {})
    log.set_status("s1", "finished", {"winners": [0]})
    assert log.info("s1").status == "finished"
    assert log.info("s1").summary == {"winners": [0]}
    log.set_status("s1", "open")
    assert log.info("s1").summary == {"winners": [0]}


def test_records_come_back_as_written_json(log):
    log.create("s1", "g", {})
    rec = {"type": "A", "args": {"traits": ["navy"], "n": 1.5, "ok": True, "none": None}}
    log.append("s1", 0, [rec])
    rec["args"]["traits"].append("mutated after append")
    assert log.read("s1") == [{"type": "A", "args": {"traits": ["navy"], "n": 1.5, "ok": True,
                                                     "none": None}}]


def test_updated_is_when_the_last_record_was_saved(log):
    """The Home screen lists open games by when they were last played, not when they began."""
    log.create("s1", "g", {}, created=1_000.0)
    assert log.info("s1").updated == 1_000.0               # nothing played yet: its start
    before = time.time()
    log.append("s1", 0, [{"type": "A"}])
    first = log.info("s1").updated
    assert before <= first <= time.time()
    log.append("s1", 1, [{"type": "B"}])
    assert log.info("s1").updated >= first
    assert log.info("s1").created == 1_000.0               # the start stays the start
    with pytest.raises(ConcurrencyError):
        log.append("s1", 0, [{"type": "C"}])               # a refused append plays nothing


def test_a_schema_2_store_is_migrated_in_place(tmp_path):
    """A store written before ``updated`` existed opens, keeps every record, and says its old
    sessions were last played when they began until a new move is saved."""
    p = tmp_path / "old.db"
    db = sqlite3.connect(p)
    db.executescript(f"""
        PRAGMA application_id={APPLICATION_ID};
        PRAGMA user_version=2;
        CREATE TABLE sessions(id TEXT PRIMARY KEY, game TEXT NOT NULL, created REAL NOT NULL,
            meta TEXT NOT NULL, status TEXT NOT NULL, summary TEXT, clock REAL);
        CREATE TABLE events(session_id TEXT NOT NULL REFERENCES sessions(id),
            version INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL,
            PRIMARY KEY(session_id, version)) WITHOUT ROWID;
        CREATE TABLE replies(session_id TEXT NOT NULL, seat INTEGER NOT NULL, tx TEXT NOT NULL,
            reply TEXT NOT NULL, PRIMARY KEY(session_id, seat, tx)) WITHOUT ROWID;
        INSERT INTO sessions VALUES ('s1', 'g', 500.0, '{{}}', 'open', NULL, 12.5);
        INSERT INTO events VALUES ('s1', 0, 'SessionStarted', '{{"type": "SessionStarted"}}');
    """)
    db.close()
    lg = SQLiteLog(p)
    try:
        assert lg._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
        info = lg.info("s1")
        assert (info.created, info.updated, info.clock, info.length) == (500.0, 500.0, 12.5, 1)
        lg.append("s1", 1, [{"type": "A"}])
        assert lg.info("s1").updated > 500.0
        assert [r["type"] for r in lg.read("s1")] == ["SessionStarted", "A"]
    finally:
        lg.close()


def test_a_refusal_is_kept_with_the_digest_of_its_command(log):
    log.create("s1", "g", {})
    log.put_reply("s1", 0, "tx-1", '{"ok":false}', "d1")
    log.put_reply("s1", 0, "tx-1", '{"ok":false,"again":1}', "d2")     # the first one wins
    log.put_reply("s1", 1, "tx-2", '{"ok":false}')                      # no digest given
    assert log.find_reply("s1", 0, "tx-1") == ('{"ok":false}', "d1")
    assert log.get_reply("s1", 0, "tx-1") == '{"ok":false}'
    assert log.find_reply("s1", 1, "tx-2") == ('{"ok":false}', None)
    assert log.find_reply("s1", 0, "tx-2") is None and log.get_reply("s1", 1, "x") is None


def test_a_schema_3_store_keeps_its_replies_without_a_digest(tmp_path):
    """Schema 4 adds the digest of a refused command beside its reply; a reply kept before has
    none (NULL): the command it answered was never kept (docs/protocol.md 12 says what the hub
    does with it). The migration is in place, in one transaction, and keeps everything."""
    p = tmp_path / "v3.db"
    db = sqlite3.connect(p)
    db.executescript(f"""
        PRAGMA application_id={APPLICATION_ID};
        PRAGMA user_version=3;
        CREATE TABLE sessions(id TEXT PRIMARY KEY, game TEXT NOT NULL, created REAL NOT NULL,
            meta TEXT NOT NULL, status TEXT NOT NULL, summary TEXT, clock REAL, updated REAL);
        CREATE TABLE events(session_id TEXT NOT NULL REFERENCES sessions(id),
            version INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL,
            PRIMARY KEY(session_id, version)) WITHOUT ROWID;
        CREATE TABLE replies(session_id TEXT NOT NULL, seat INTEGER NOT NULL, tx TEXT NOT NULL,
            reply TEXT NOT NULL, PRIMARY KEY(session_id, seat, tx)) WITHOUT ROWID;
        CREATE TABLE tables(id TEXT PRIMARY KEY, meta TEXT NOT NULL);
        INSERT INTO sessions VALUES ('s1', 'g', 500.0, '{{}}', 'open', NULL, 12.5, 600.0);
        INSERT INTO events VALUES ('s1', 0, 'SessionStarted', '{{"type": "SessionStarted"}}');
        INSERT INTO replies VALUES ('s1', 2, 'old-1', '{{"ok":false}}');
    """)
    db.close()
    lg = SQLiteLog(p)
    try:
        assert lg._db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
        assert lg.info("s1").updated == 600.0 and len(lg.read("s1")) == 1
        assert lg.find_reply("s1", 2, "old-1") == ('{"ok":false}', None)
        lg.put_reply("s1", 2, "new-1", '{"ok":false}', "abc")
    finally:
        lg.close()
    lg = SQLiteLog(p)                                  # and it opens again as schema 4
    try:
        assert lg.find_reply("s1", 2, "new-1") == ('{"ok":false}', "abc")
    finally:
        lg.close()


def test_sqlite_survives_reopen_and_uses_wal_full(tmp_path):
    p = tmp_path / "s.db"
    lg = SQLiteLog(p)
    lg.create("s1", "g", {})
    lg.append("s1", 0, [{"type": "A"}])
    assert lg._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert lg._db.execute("PRAGMA synchronous").fetchone()[0] == 2      # FULL
    lg.close()
    again = SQLiteLog(p)
    assert again.read("s1") == [{"type": "A"}]


def test_foreign_files_are_refused_and_left_untouched(tmp_path):
    text = tmp_path / "notes.db"
    text.write_bytes(b"my shopping list\n")
    with pytest.raises(SessionFileError, match="notes.db"):
        SQLiteLog(text)
    assert text.read_bytes() == b"my shopping list\n"

    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE birds(name TEXT)")
    con.commit()
    con.close()
    before = other.read_bytes()
    with pytest.raises(SessionFileError, match="other.db.*another program"):
        SQLiteLog(other)
    assert other.read_bytes() == before


def test_damaged_store_names_the_file(tmp_path):
    p = tmp_path / "s.db"
    lg = SQLiteLog(p)
    lg.create("s1", "g", {})
    lg.append("s1", 0, [{"type": "A"}])
    lg._db.execute("UPDATE events SET data='{broken' WHERE version=0")
    with pytest.raises(SessionFileError, match="s.db.*damaged"):
        lg.read("s1")
