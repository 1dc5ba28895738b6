"""Recovering a damaged session store (`companion sessions recover`).

The damaged file is never changed or deleted: it and its companions (``-wal``, ``-shm``,
``-heads``) are moved aside under ``<file>.damaged-<time>``. A recovered copy is then built at
the original path from what can still be read: with SQLite's own recovery (the ``sqlite3``
command's ``.recover``, Debian package ``sqlite3``) when it is installed, else by reading every
record that still reads. Each session is then replayed; the report says, per session, how many
records came back and whether it replays (a session that does not replay is kept, but marked
``damaged`` so the table does not resume it).
"""
import json
import os
import shutil
import sqlite3
import subprocess
import time

from companion.core.errors import CompanionError, SessionFileError
from companion.core.log import APPLICATION_ID, SCHEMA, SCHEMA_VERSION, SQLiteLog
from companion.core.session import fold

SIDECARS = ("", "-wal", "-shm", "-heads")


def move_aside(path: str) -> str:
    """Move the store and its companion files to ``<path>.damaged-<time>``; return that name."""
    aside = f"{path}.damaged-{time.strftime('%Y%m%d-%H%M%S')}"
    n = 1
    while os.path.exists(aside):
        n += 1
        aside = f"{path}.damaged-{time.strftime('%Y%m%d-%H%M%S')}-{n}"
    for suffix in SIDECARS:
        if os.path.exists(path + suffix):
            os.replace(path + suffix, aside + suffix)
    return aside


def _json(text):
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None


def _from_lost_and_found(db):
    """SQLite's recovery puts rows whose table it could not name in ``lost_and_found``: a
    record row has 4 fields (session, version, type, JSON); take those back, and make a
    session row from a ``SessionStarted`` record when the session's own row was lost."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name='lost_and_found'").fetchone():
        return
    cols = [r[1] for r in db.execute("PRAGMA table_info(lost_and_found)")]
    if not {"nfield", "c0", "c1", "c2", "c3"} <= set(cols):
        return
    for sid, version, kind, data in db.execute(
            "SELECT c0, c1, c2, c3 FROM lost_and_found WHERE nfield=4").fetchall():
        rec = _json(data)
        if isinstance(sid, str) and isinstance(version, int) and isinstance(rec, dict):
            db.execute("INSERT OR IGNORE INTO events VALUES (?,?,?,?)",
                       (sid, version, kind or "", data))
    for sid, data in db.execute("SELECT session_id, data FROM events WHERE version=0 AND "
                                "session_id NOT IN (SELECT id FROM sessions)").fetchall():
        first = _json(data) or {}
        if first.get("type") != "SessionStarted":
            continue
        meta = {"players": first.get("players"), "options": first.get("options"),
                "seed": first.get("seed")}
        db.execute("INSERT OR IGNORE INTO sessions(id, game, created, meta, status) VALUES "
                   "(?,?,?,?,?)", (sid, first.get("game", "?"), first.get("wall") or 0.0,
                                   json.dumps(meta), "open"))


def _sqlite_recover(src: str) -> str | None:
    """SQL that rebuilds what SQLite can still read of ``src`` (None without the tool)."""
    tool = shutil.which("sqlite3")
    if tool is None:
        return None
    r = subprocess.run([tool, src, ".recover"], capture_output=True, text=True, timeout=300)
    return r.stdout if r.stdout.strip() else None


def _salvage_rows(src: str):
    """Without the sqlite3 tool: every session row and every record that still reads."""
    db = sqlite3.connect(f"file:{src}?mode=ro", uri=True)
    sessions, events = [], []
    try:
        try:
            sessions = db.execute("SELECT id, game, created, meta, status, summary "
                                  "FROM sessions").fetchall()
        except sqlite3.DatabaseError:
            sessions = []
        for (sid, *_rest) in sessions:
            version = 0
            misses = 0
            while misses < 50:
                try:
                    row = db.execute("SELECT version, type, data FROM events WHERE "
                                     "session_id=? AND version=?", (sid, version)).fetchone()
                except sqlite3.DatabaseError:
                    row = None
                if row is None:
                    misses += 1
                else:
                    misses = 0
                    events.append((sid, *row))
                version += 1
    finally:
        db.close()
    return sessions, events


def recover(path: str, games=None) -> dict:
    """Move the damaged store aside and build a recovered copy at ``path``. Returns a report:
    ``{"aside": name, "method": "sqlite3 .recover" | "row by row", "sessions": [...]}``."""
    path = str(path)
    if not os.path.exists(path):
        raise SessionFileError(f"There is no store at {path} to recover.")
    if games is None:
        from companion.games import get as games
    aside = move_aside(path)
    sql = _sqlite_recover(aside)
    tmp = path + ".recovering"
    if os.path.exists(tmp):
        os.remove(tmp)
    db = sqlite3.connect(tmp, isolation_level=None)
    try:
        if sql is not None:
            method = "sqlite3 .recover"
            db.executescript(sql)
        else:
            method = "row by row"
            sessions, events = _salvage_rows(aside)
            db.executescript(SCHEMA)
            db.executemany("INSERT INTO sessions(id, game, created, meta, status, summary) "
                           "VALUES (?,?,?,?,?,?)", sessions)
            db.executemany("INSERT OR IGNORE INTO events VALUES (?,?,?,?)", events)
        db.executescript(SCHEMA)
        cols = {r[1] for r in db.execute("PRAGMA table_info(sessions)")}
        for col in ("clock", "updated"):            # (a store of an older schema)
            if col not in cols:
                db.execute(f"ALTER TABLE sessions ADD COLUMN {col} REAL")
        _from_lost_and_found(db)
        db.execute("DROP TABLE IF EXISTS lost_and_found")
        db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    finally:
        db.close()
    os.replace(tmp, path)
    report = {"aside": aside, "method": method, "path": path, "sessions": []}
    log = SQLiteLog(path)
    try:
        _check_sessions(log, games, report)
    finally:
        log.close()
    return report


def _check_sessions(log, games, report):
    for info in log.sessions():
        item = {"id": info.id, "game": info.game, "records": 0, "replays": False,
                "status": info.status}
        try:
            records = log.read(info.id)
            item["records"] = len(records)
            top = _max_version(log.path, info.id)
            if top is not None and top + 1 != len(records):
                raise ValueError(f"{top + 1 - len(records)} records are missing in the middle")
            fold(games(info.game), records)
            item["replays"] = True
        except (CompanionError, ValueError, KeyError, TypeError) as e:
            item["problem"] = str(e)
            if info.status == "open":
                log.set_status(info.id, "damaged")
                item["status"] = "damaged"
        report["sessions"].append(item)


def _max_version(path, sid):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return db.execute("SELECT MAX(version) FROM events WHERE session_id=?",
                          (sid,)).fetchone()[0]
    finally:
        db.close()


def report_text(report) -> str:
    lines = [f"The damaged store was moved aside, untouched: {report['aside']}",
             f"A recovered copy is in its place ({report['method']}): {report['path']}"]
    for s in report["sessions"]:
        state = "replays" if s["replays"] else f"does NOT replay ({s.get('problem')})"
        lines.append(f"  {s['id']}: {s['records']} records, {state}; {s['status']}")
    if not report["sessions"]:
        lines.append("  no session could be read back")
    return "\n".join(lines)


def dumps(report) -> str:
    return json.dumps(report, indent=2)
