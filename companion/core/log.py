"""The append-only session log, two backends behind one contract.

A record is a JSON object. The first record of a session is ``SessionStarted`` (game, players,
options, seed); the rest are accepted commands (named by their past-tense event), undos
(``Undone``), corrections (``Corrected``) and ``SessionEnded``. Records are never changed or
deleted: an undo is a new record that names the one it takes back.

``(session_id, version)`` is the primary key, so two writers cannot both append version 7
(:class:`ConcurrencyError`). The SQLite backend runs in WAL mode with ``synchronous=FULL``: when
:meth:`append` returns, the record is on disk and the command may be acknowledged. Inside
:meth:`batch` (group commit: the commands waiting at the hub together) the appends share one
transaction and one fsync, and nothing of the group is on disk, or may be acknowledged, until
the block ends without an error.

Beside the records, a store keeps three small facts per session: the session clock's last known
position (:meth:`mark_time`, so a restart knows how much time a running timer had left), the
wall-clock time of its last saved record (``updated``: when it was last played, for the list of
games to resume), and the replies to refused commands (:meth:`put_reply`, so a command resent
after a restart gets its first answer again; an accepted command's ``tx`` is in its own
record), each with the digest of the command it answered
(:func:`companion.core.session.command_digest`), so a different command under the same ``tx``
is told apart from a resend.
"""
import contextlib
import json
import os
import sqlite3
import threading
import time

from .errors import ConcurrencyError, SessionFileError, SessionNotFoundError, StorageError

APPLICATION_ID = 0x54436F6D        # "TCom": marks a file as a Table Companion store
SCHEMA_VERSION = 4                 # 2: sessions.clock and the replies table; 3: sessions.updated;
#                                    4: replies.digest (the refused command's digest; NULL in a
#                                    reply kept before schema 4: see SQLiteLog.find_reply)


class SessionInfo:
    __slots__ = ("id", "game", "created", "meta", "status", "summary", "length", "clock",
                 "updated")

    def __init__(self, id, game, created, meta, status, summary, length, clock=None,
                 updated=None):
        self.id, self.game, self.created, self.meta = id, game, created, meta
        self.status, self.summary, self.length = status, summary, length
        self.clock = clock              # the session clock when last seen running
        # wall-clock time of the last saved record (a store from before schema 3 knows none
        # for sessions it held then: their start)
        self.updated = updated if updated is not None else created

    def __repr__(self):
        return f"SessionInfo({self.id!r}, {self.game!r}, {self.status!r}, {self.length})"


class MemoryLog:
    """The in-memory backend: same contract, nothing durable (simulations, tests)."""

    def __init__(self, copy_records=True):
        # copy_records=True stores a JSON round-trip of each record, exactly what SQLite would
        # give back; simulations turn it off for speed (they never mutate records).
        self._copy = copy_records
        self._sessions = {}
        self._records = {}
        self._replies = {}
        self._tables = {}
        self._lock = threading.Lock()

    def create(self, session_id, game, meta, created=None):
        with self._lock:
            if session_id in self._sessions:
                raise ConcurrencyError(f"Session {session_id} already exists.")
            self._sessions[session_id] = SessionInfo(session_id, game, created or time.time(),
                                                     dict(meta), "open", None, 0)
            self._records[session_id] = []

    def append(self, session_id, expected_version, records):
        with self._lock:
            recs = self._records.get(session_id)
            if recs is None:
                raise SessionNotFoundError(f"No session {session_id}.")
            if len(recs) != expected_version:
                raise ConcurrencyError(f"Session {session_id} is at version {len(recs)}, "
                                       f"not {expected_version}.")
            recs.extend(json.loads(json.dumps(r)) if self._copy else r for r in records)
            info = self._sessions[session_id]
            info.length = len(recs)
            info.updated = time.time()
            return len(recs)

    @contextlib.contextmanager
    def batch(self):
        """The same contract as :meth:`SQLiteLog.batch`; in memory every append is already
        as saved as it will ever be."""
        yield

    def read(self, session_id):
        recs = self._records.get(session_id)
        if recs is None:
            raise SessionNotFoundError(f"No session {session_id}.")
        return list(recs)

    def sessions(self):
        return list(self._sessions.values())

    def info(self, session_id):
        try:
            return self._sessions[session_id]
        except KeyError:
            raise SessionNotFoundError(f"No session {session_id}.") from None

    def set_meta(self, session_id, meta):
        self.info(session_id).meta = dict(meta)

    def set_status(self, session_id, status, summary=None):
        info = self.info(session_id)
        info.status = status
        if summary is not None:
            info.summary = summary

    def mark_time(self, session_id, at):
        info = self.info(session_id)
        info.clock = max(info.clock or 0.0, float(at))

    def put_reply(self, session_id, seat, tx, reply: str, digest=None):
        self.info(session_id)
        self._replies.setdefault((session_id, seat, tx), (reply, digest))

    def get_reply(self, session_id, seat, tx):
        got = self._replies.get((session_id, seat, tx))
        return got[0] if got is not None else None

    def find_reply(self, session_id, seat, tx):
        """``(reply, digest)`` kept for this ``tx``, or None."""
        return self._replies.get((session_id, seat, tx))

    def table_meta(self, table):
        meta = self._tables.get(table)
        return dict(meta) if meta is not None else None

    def set_table_meta(self, table, meta):
        self._tables[table] = json.loads(json.dumps(meta))

    def close(self):
        pass


_REPLIES = """
    CREATE TABLE IF NOT EXISTS replies(
        session_id TEXT NOT NULL, seat INTEGER NOT NULL, tx TEXT NOT NULL, reply TEXT NOT NULL,
        digest TEXT, PRIMARY KEY(session_id, seat, tx)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS tables(id TEXT PRIMARY KEY, meta TEXT NOT NULL);
"""

#: Every table of a store, as this schema has them (a new store; a recovered copy).
SCHEMA = """
    CREATE TABLE IF NOT EXISTS sessions(
        id TEXT PRIMARY KEY, game TEXT NOT NULL, created REAL NOT NULL,
        meta TEXT NOT NULL, status TEXT NOT NULL, summary TEXT, clock REAL, updated REAL);
    CREATE TABLE IF NOT EXISTS events(
        session_id TEXT NOT NULL REFERENCES sessions(id),
        version INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL,
        PRIMARY KEY(session_id, version)) WITHOUT ROWID;
""" + _REPLIES


def default_db() -> str:
    """Where this user's session store lives: ``$COMPANION_DB``, else
    ``$XDG_DATA_HOME/table-companion/sessions.db`` (``~/.local/share/...``). Here, beside the
    store, so that everything above the core (the CLI, printing's tag progress) asks one place."""
    env = os.environ.get("COMPANION_DB")
    if env:
        return env
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                           "share")
    return os.path.join(base, "table-companion", "sessions.db")


def _storage_error(e: Exception, path: str) -> StorageError:
    """A failed write, in words a table can act on."""
    text = str(e).lower()
    if "full" in text or "too big" in text or "file size" in text:
        return StorageError(f"Cannot save: the box's storage is full ({path}); the move was not "
                            f"applied. Free some space, then play on.", "full")
    if "readonly" in text or "read-only" in text or "permission" in text:
        return StorageError(f"Cannot save: {path} has become read-only; the move was not "
                            f"applied.", "read_only")
    return StorageError(f"Cannot save: the storage failed ({e}); the move was not applied. "
                        f"Check the card or disk of the box.", "io")


RECOVER_HINT = ("It was left untouched. Run `companion sessions recover --db {path}` to keep it "
                "aside and continue from a recovered copy, or start with a fresh store "
                "(--db NEW.db).")


class SQLiteLog:
    """The durable backend: one SQLite file per table box, WAL, synchronous=FULL.

    Beside the file, ``<file>-heads`` holds the newest version each append acknowledged (one
    small write, no fsync): a store that comes back with fewer records than the table had
    acknowledged (a damaged or torn copy) is refused with a message, never resumed silently.
    """

    def __init__(self, path, check=True):
        self.path = str(path)
        self.heads_path = self.path + "-heads"
        self._lock = threading.Lock()
        self._db = None
        self._batch = None                  # inside batch(): {"heads", "lost"}
        exists = os.path.exists(self.path) and os.path.getsize(self.path) > 0
        if exists:
            with open(self.path, "rb") as f:
                head = f.read(16)
            if head != b"SQLite format 3\x00":
                raise SessionFileError(f"{self.path} is not a Table Companion session store "
                                       f"(not an SQLite file); it was left untouched.")
        else:
            parent = os.path.dirname(os.path.abspath(self.path))
            os.makedirs(parent, exist_ok=True)
        try:
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            tables = {r[0] for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.DatabaseError as e:
            raise SessionFileError(f"{self.path} is damaged or not a session store ({e}). "
                                   + RECOVER_HINT.format(path=self.path)) from None
        if exists and (app_id != APPLICATION_ID) and tables:
            db.close()
            raise SessionFileError(f"{self.path} is an SQLite file of another program, not a "
                                   f"Table Companion session store; it was left untouched.")
        self._db = db
        if exists and check:
            self._check(db)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("BEGIN IMMEDIATE")       # can we write at all? (a read-only file or
            db.execute("CREATE TABLE write_probe(x)")     # mount opens, then refuses every
            db.execute("ROLLBACK")              # move)
        except sqlite3.DatabaseError as e:
            db.close()
            raise SessionFileError(f"{self.path} cannot be written ({e}): the table could not "
                                   f"save a single move. Make it (and its folder) writable, or "
                                   f"choose another store with --db.") from None
        db.execute("PRAGMA synchronous=FULL")
        db.execute("PRAGMA busy_timeout=5000")
        if app_id != APPLICATION_ID or not tables:
            db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            db.executescript(SCHEMA)
        else:
            ver = db.execute("PRAGMA user_version").fetchone()[0]
            if ver > SCHEMA_VERSION:
                db.close()
                raise SessionFileError(f"{self.path} was written by a newer Table Companion "
                                       f"(schema {ver}); it was left untouched.")
            if ver < SCHEMA_VERSION:            # an older schema -> this one, in one transaction
                has_digest = "replies" not in tables or any(
                    r[1] == "digest" for r in db.execute("PRAGMA table_info(replies)"))
                db.executescript(
                    "BEGIN;" + ("ALTER TABLE sessions ADD COLUMN clock REAL;" if ver < 2 else "")
                    + ("ALTER TABLE sessions ADD COLUMN updated REAL;" if ver < 3 else "")
                    # a reply kept before schema 4 has no digest (NULL): see find_reply
                    + ("" if has_digest else "ALTER TABLE replies ADD COLUMN digest TEXT;")
                    + _REPLIES + f"PRAGMA user_version={SCHEMA_VERSION}; COMMIT;")
            else:
                db.executescript(_REPLIES)

    def _check(self, db):
        """Refuse a damaged store with one sentence naming the file and what to do."""
        try:
            problems = [r[0] for r in db.execute("PRAGMA quick_check").fetchall()]
        except sqlite3.DatabaseError as e:
            problems = [str(e)]
        if problems != ["ok"]:
            db.close()
            raise SessionFileError(f"{self.path} is damaged ({'; '.join(problems[:2])}). "
                                   + RECOVER_HINT.format(path=self.path))
        heads = self._read_heads()
        if not heads:
            return
        sid, version = heads
        try:
            row = db.execute("SELECT COUNT(*) FROM events WHERE session_id=?",
                             (sid,)).fetchone()
        except sqlite3.DatabaseError as e:
            db.close()
            raise SessionFileError(f"{self.path} is damaged ({e}). "
                                   + RECOVER_HINT.format(path=self.path)) from None
        if row[0] < version:
            db.close()
            raise SessionFileError(
                f"{self.path} has lost records: session {sid} has {row[0]} but the table had "
                f"saved {version} (the file was damaged, or copied while in use). "
                + RECOVER_HINT.format(path=self.path))

    def _read_heads(self):
        try:
            with open(self.heads_path, encoding="utf-8") as f:
                sid, version = f.read(200).split()
            return sid, int(version)
        except (OSError, ValueError):
            return None                     # none yet, or cut short by a power cut: no claim

    def _write_heads(self, session_id, version):
        try:
            with open(self.heads_path, "w", encoding="utf-8") as f:
                f.write(f"{session_id} {version}\n")
        except OSError:
            pass                            # a missing note only weakens the check

    def _guard(self, fn, *args):
        """Run a read; a damaged file becomes one sentence, not a traceback."""
        try:
            return fn(*args)
        except sqlite3.DatabaseError as e:
            raise SessionFileError(f"{self.path} is damaged ({e}). "
                                   + RECOVER_HINT.format(path=self.path)) from None

    def create(self, session_id, game, meta, created=None):
        created = created or time.time()
        with self._lock:
            try:
                self._db.execute(
                    "INSERT INTO sessions(id, game, created, meta, status, updated) "
                    "VALUES (?,?,?,?,?,?)", (session_id, game, created, json.dumps(meta),
                                             "open", created))
            except sqlite3.IntegrityError:
                raise ConcurrencyError(f"Session {session_id} already exists.") from None
            except sqlite3.DatabaseError as e:
                raise _storage_error(e, self.path) from None

    def append(self, session_id, expected_version, records):
        with self._lock:
            batch = self._batch
            try:
                n = self._append(session_id, expected_version, records, batch)
            except sqlite3.DatabaseError as e:
                raise _storage_error(e, self.path) from None
            if batch is not None:
                batch["heads"] = (session_id, n)
                return n
        self._write_heads(session_id, n)
        return n

    @contextlib.contextmanager
    def batch(self):
        """Group commit: every append and write inside the block shares one transaction, made
        durable by one COMMIT (one fsync) when the block ends. Until then nothing of it is on
        disk: acknowledge none of it before the block has ended without an error.

        Each append inside is its own savepoint, so one refused append (a version conflict,
        a full disk on its INSERT) leaves the others. If the transaction itself is lost (an
        I/O error can end it) or the COMMIT fails, leaving the block raises
        :class:`StorageError` and nothing of the block is kept: the caller forgets it too
        (the hub rewinds its session to the version before the block). A block inside a block
        joins the outer one."""
        with self._lock:
            if self._batch is not None:
                outer = None
            else:
                outer = self._batch = {"heads": None, "lost": None}
        if outer is None:
            yield
            return
        try:
            yield
        except BaseException:
            with self._lock:
                self._batch = None
                self._rollback()
            raise
        with self._lock:
            self._batch = None
            if outer["lost"] is not None:
                self._rollback()
                raise outer["lost"]
            if self._db.in_transaction:
                try:
                    self._db.execute("COMMIT")
                except sqlite3.DatabaseError as e:
                    self._rollback()
                    raise _storage_error(e, self.path) from None
        if outer["heads"] is not None:
            self._write_heads(*outer["heads"])

    def _append(self, session_id, expected_version, records, batch=None):
        db = self._db
        if batch is not None:
            if batch["lost"] is not None:
                raise batch["lost"]             # the group is lost already: say so again
            if not db.in_transaction:
                db.execute("BEGIN IMMEDIATE")
            db.execute("SAVEPOINT rec")
        else:
            db.execute("BEGIN IMMEDIATE")
        try:
            # when it was last played; and is there such a session at all?
            if not db.execute("UPDATE sessions SET updated=? WHERE id=?",
                              (time.time(), session_id)).rowcount:
                raise SessionNotFoundError(f"No session {session_id} in {self.path}.")
            row = db.execute("SELECT COALESCE(MAX(version) + 1, 0) FROM events "
                             "WHERE session_id=?", (session_id,)).fetchone()
            if row[0] != expected_version:
                raise ConcurrencyError(f"Session {session_id} is at version {row[0]}, "
                                       f"not {expected_version}.")
            db.executemany(
                "INSERT INTO events(session_id, version, type, data) VALUES (?,?,?,?)",
                [(session_id, expected_version + i, r.get("type", ""), json.dumps(r))
                 for i, r in enumerate(records)])
            db.execute("RELEASE rec" if batch is not None else "COMMIT")
        except sqlite3.IntegrityError:
            self._undo(batch)
            raise ConcurrencyError(f"Session {session_id}: version {expected_version} "
                                   f"was written by someone else.") from None
        except BaseException as e:
            self._undo(batch, e)
            raise
        return expected_version + len(records)

    def _undo(self, batch, error=None):
        """Take back a failed append: the whole transaction, or inside a batch only its
        savepoint; a batch whose transaction is gone (an I/O error ends it) is lost whole."""
        if batch is None:
            self._rollback()
            return
        db = self._db
        if db.in_transaction:
            try:
                db.execute("ROLLBACK TO rec")
                db.execute("RELEASE rec")
                return
            except sqlite3.DatabaseError:
                pass
        self._lose(batch, error)

    def _lose(self, batch, error=None):
        if batch["lost"] is None:
            reason = _storage_error(error, self.path) if isinstance(
                error, sqlite3.DatabaseError) else None
            batch["lost"] = reason or StorageError(
                f"{self.path}: the moves waiting to be saved together were lost; none of "
                f"them was applied. Safe to retry.")

    def _rollback(self):
        if self._db.in_transaction:         # a failed COMMIT may have ended it already
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.DatabaseError:
                pass

    def read(self, session_id):
        with self._lock:
            rows = self._guard(self._read_rows, session_id)
        out = []
        for version, data in rows:
            try:
                out.append(json.loads(data))
            except ValueError:
                raise SessionFileError(f"{self.path}: session {session_id} record {version} "
                                       f"is damaged; nothing was changed.") from None
        return out

    def _read_rows(self, session_id):
        if not self._db.execute("SELECT 1 FROM sessions WHERE id=?", (session_id,)).fetchone():
            raise SessionNotFoundError(f"No session {session_id} in {self.path}.")
        return self._db.execute(
            "SELECT version, data FROM events WHERE session_id=? ORDER BY version",
            (session_id,)).fetchall()

    def _info(self, row):
        sid, game, created, meta, status, summary, length, clock, updated = row
        return SessionInfo(sid, game, created, json.loads(meta), status,
                           json.loads(summary) if summary else None, length, clock, updated)

    _SELECT = ("SELECT s.id, s.game, s.created, s.meta, s.status, s.summary, "
               "(SELECT COUNT(*) FROM events e WHERE e.session_id = s.id), s.clock, s.updated "
               "FROM sessions s ")

    def sessions(self):
        with self._lock:
            rows = self._guard(lambda: self._db.execute(
                self._SELECT + "ORDER BY s.created").fetchall())
        return [self._info(r) for r in rows]

    def info(self, session_id):
        with self._lock:
            row = self._guard(lambda: self._db.execute(self._SELECT + "WHERE s.id=?",
                                                       (session_id,)).fetchone())
        if row is None:
            raise SessionNotFoundError(f"No session {session_id} in {self.path}.")
        return self._info(row)

    def _write(self, sql, params):
        with self._lock:
            try:
                self._db.execute(sql, params)
            except sqlite3.DatabaseError as e:
                if self._batch is None:
                    self._rollback()
                elif not self._db.in_transaction:
                    self._lose(self._batch, e)      # an I/O error ended the group's transaction
                raise _storage_error(e, self.path) from None

    def set_meta(self, session_id, meta):
        self._write("UPDATE sessions SET meta=? WHERE id=?", (json.dumps(meta), session_id))

    def set_status(self, session_id, status, summary=None):
        self._write("UPDATE sessions SET status=?, summary=COALESCE(?, summary) WHERE id=?",
                    (status, json.dumps(summary) if summary is not None else None, session_id))

    def mark_time(self, session_id, at):
        """Remember the session clock's position (a running timer's time left is measured
        from it after a restart)."""
        self._write("UPDATE sessions SET clock=MAX(COALESCE(clock, 0), ?) WHERE id=?",
                    (float(at), session_id))

    def put_reply(self, session_id, seat, tx, reply: str, digest=None):
        """Keep the answer to a refused command (the first answer wins), with the digest of
        the command it answered (:func:`companion.core.session.command_digest`)."""
        self._write("INSERT OR IGNORE INTO replies(session_id, seat, tx, reply, digest) "
                    "VALUES (?,?,?,?,?)", (session_id, seat, tx, reply, digest))

    def table_meta(self, table):
        """What a table keeps between games: its room code and its lobby (before a start)."""
        with self._lock:
            row = self._guard(lambda: self._db.execute("SELECT meta FROM tables WHERE id=?",
                                                       (table,)).fetchone())
        return json.loads(row[0]) if row else None

    def set_table_meta(self, table, meta):
        self._write("INSERT INTO tables(id, meta) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET "
                    "meta=excluded.meta", (table, json.dumps(meta)))

    def get_reply(self, session_id, seat, tx):
        got = self.find_reply(session_id, seat, tx)
        return got[0] if got is not None else None

    def find_reply(self, session_id, seat, tx):
        """``(reply, digest)`` kept for this ``tx``, or None. ``digest`` is None for a reply
        kept before schema 4 (the command it answered was not kept, so it cannot be told apart
        from another under the same ``tx``: the hub answers such a repeat with the reply, as it
        did then; a refusal, so nothing is applied)."""
        with self._lock:
            row = self._db.execute("SELECT reply, digest FROM replies WHERE session_id=? AND "
                                   "seat=? AND tx=?", (session_id, seat, tx)).fetchone()
        return (row[0], row[1]) if row else None

    def close(self):
        if self._db is not None:
            self._db.close()
            self._db = None
