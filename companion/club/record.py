"""The club's playtest record in PostgreSQL: the schema, the ingest and the read side.

Every box ships what its own store holds (:mod:`companion.core.log`), keyed by the table it
came from: a session id is unique in one store, not across the club, so every key starts with
``table_id``. Records and replies never change, so they are inserted with ``ON CONFLICT DO
NOTHING``: a record sent twice (a box that crashed mid-way, the same box shipping twice, a
club restart) is there once. A session's own row changes while it is played (status, summary,
meta, clock, when it was last played) and is upserted; an older copy never overwrites a newer
one.

:class:`ClubLog` reads the record through the store's read contract (``sessions()``,
``info()``, ``read()``), so ``companion stats`` and ``companion report`` work on the whole club
with ``--db postgresql://...``, for one table or one evening if asked.
"""
import json
import re
import secrets
import urllib.parse

import psycopg
from psycopg import sql

from companion.core.errors import CompanionError, SessionNotFoundError
from companion.core.log import SessionInfo

SCHEMA_VERSION = 2

SCHEMA = """
    CREATE TABLE IF NOT EXISTS club_schema(version INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS club_sessions(
        table_id TEXT NOT NULL, session_id TEXT NOT NULL, game TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL, meta JSONB NOT NULL, status TEXT NOT NULL,
        summary JSONB, clock DOUBLE PRECISION, updated DOUBLE PRECISION,
        received TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY(table_id, session_id));
    CREATE INDEX IF NOT EXISTS club_sessions_created ON club_sessions(created);
    CREATE TABLE IF NOT EXISTS club_events(
        table_id TEXT NOT NULL, session_id TEXT NOT NULL, version INTEGER NOT NULL,
        type TEXT NOT NULL, data TEXT NOT NULL,
        received TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY(table_id, session_id, version));
    CREATE TABLE IF NOT EXISTS club_replies(
        table_id TEXT NOT NULL, session_id TEXT NOT NULL, seat INTEGER NOT NULL,
        tx TEXT NOT NULL, reply TEXT NOT NULL,
        received TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY(table_id, session_id, seat, tx));
"""

#: Schema 2 (issue 35): the record belongs to the club. The organiser's login owns the tables;
#: each admitted table logs in with a role of its own (``club_members``) and row-level security
#: fences it to its own rows: it may add its sessions and records and bring its own session rows
#: up to date, and read, change or delete nothing of another table's. It gets no replies table
#: at all (a seat's replies are private).
PRIVILEGES = """
    CREATE TABLE IF NOT EXISTS club_members(
        table_id TEXT PRIMARY KEY, role TEXT NOT NULL UNIQUE,
        admitted TIMESTAMPTZ NOT NULL DEFAULT now(), removed TIMESTAMPTZ);
    CREATE OR REPLACE FUNCTION club_table() RETURNS TEXT LANGUAGE sql STABLE
        SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
        $$ SELECT table_id FROM public.club_members WHERE role = session_user
           AND removed IS NULL $$;
    REVOKE ALL ON FUNCTION club_table() FROM PUBLIC;
    REVOKE ALL ON club_schema, club_sessions, club_events, club_replies, club_members
        FROM PUBLIC;
    ALTER TABLE club_sessions ENABLE ROW LEVEL SECURITY;
    ALTER TABLE club_events ENABLE ROW LEVEL SECURITY;
    ALTER TABLE club_replies ENABLE ROW LEVEL SECURITY;
    ALTER TABLE club_members ENABLE ROW LEVEL SECURITY;
    DROP POLICY IF EXISTS club_own ON club_sessions;
    CREATE POLICY club_own ON club_sessions USING (table_id = club_table())
        WITH CHECK (table_id = club_table());
    DROP POLICY IF EXISTS club_own ON club_events;
    CREATE POLICY club_own ON club_events USING (table_id = club_table())
        WITH CHECK (table_id = club_table());
"""

#: What an admitted table's role may do (and row-level security fences it to its own rows).
TABLE_GRANTS = """
    GRANT SELECT ON club_schema TO {role};
    GRANT SELECT, INSERT ON club_sessions, club_events TO {role};
    GRANT UPDATE (status, summary, meta, clock, updated) ON club_sessions TO {role};
    GRANT UPDATE (type, data) ON club_events TO {role};
    GRANT EXECUTE ON FUNCTION club_table() TO {role};
"""
#: A table's role may hold this many connections (its shipper holds one; a box that lost its
#: power leaves one behind until the server finds it dead: TCP keepalives, about 2 minutes).
TABLE_CONNECTIONS = 8

#: The transaction lock every change to the tables' logins takes first. Each admission grants
#: CONNECT on the one database (and rights on its tables): PostgreSQL rewrites the same catalog
#: row for every grant and refuses two at once ("tuple concurrently updated"), so admissions
#: and removals take turns, whichever process (a club, or two on one server) makes them.
ROLES_LOCK = 0x74635F726F6C6573         # "tc_roles"


class ClubRecordError(CompanionError):
    """The club record cannot be used as asked (a newer schema, a write to the read side)."""


def safe_url(url: str) -> str:
    """``url`` without its password, for messages and ``log.path``."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = parts.username or ""
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[-1]}"))


def is_club_url(text) -> bool:
    return isinstance(text, str) and text.startswith(("postgresql://", "postgres://"))


def connect(url, *, connect_timeout=3, read_only=False, autocommit=False):
    """A psycopg connection to the record; a dead club fails within ``connect_timeout``."""
    kw = {"options": "-c default_transaction_read_only=on"} if read_only else {}
    return psycopg.connect(url, connect_timeout=connect_timeout, autocommit=autocommit, **kw)


def ensure_schema(db):
    """Create the club's tables if they are missing, fence them (schema 2: each table's role
    sees only its own rows) and clean what schema 1 kept that the record must not hold (one
    transaction; concurrent first connections wait on an advisory lock instead of racing);
    refuse a newer schema. Run by the organiser's login, which owns the tables."""
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(2024062401)")
        db.execute(SCHEMA)
        row = db.execute("SELECT max(version) FROM club_schema").fetchone()
        if row[0] is not None and row[0] > SCHEMA_VERSION:
            raise ClubRecordError(f"The club record was written by a newer Table Companion "
                                  f"(schema {row[0]}); update this one to use it.")
        db.execute(PRIVILEGES)
        db.execute("""DO $$ BEGIN
            EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
            EXCEPTION WHEN insufficient_privilege THEN NULL; END $$""")
        if row[0] is None or row[0] < SCHEMA_VERSION:
            clean(db)
            db.execute("DELETE FROM club_schema")
            db.execute("INSERT INTO club_schema(version) VALUES (%s)", (SCHEMA_VERSION,))


def clean(db) -> dict:
    """Take out of the record what it must not hold (issue 35): the secret keys of every
    session's meta, every record's secrets as the public history shows them
    (:mod:`companion.club.public`), and every reply. Returns how many rows changed."""
    from companion import games
    from .public import public_events, public_meta
    out = {"sessions": 0, "events": 0, "replies": 0}
    for table, sid, game, meta, status in db.execute(
            "SELECT table_id, session_id, game, meta, status FROM club_sessions").fetchall():
        shown = public_meta(meta)
        if shown != meta:
            db.execute("UPDATE club_sessions SET meta = %s WHERE table_id = %s AND "
                       "session_id = %s", (json.dumps(shown), table, sid))
            out["sessions"] += 1
    for table, sid, game, status in db.execute(
            "SELECT e.table_id, e.session_id, s.game, s.status FROM club_events e LEFT JOIN "
            "club_sessions s USING (table_id, session_id) GROUP BY 1, 2, 3, 4").fetchall():
        rows = db.execute("SELECT session_id, version, type, data FROM club_events WHERE "
                          "table_id = %s AND session_id = %s ORDER BY version",
                          (table, sid)).fetchall()
        try:
            name = game or json.loads(rows[0][3]).get("game")
            shown = public_events(games.get(name), rows, status)
        except Exception:               # a game this version does not know, a broken log:
            shown = [(r[0], r[1], r[2], _strip_text(r[3])) for r in rows]  # keys at least
        for old, new in zip(rows, shown):
            if new[3] != old[3]:
                db.execute("UPDATE club_events SET data = %s WHERE table_id = %s AND "
                           "session_id = %s AND version = %s", (new[3], table, sid, old[1]))
                out["events"] += 1
    out["replies"] = db.execute("DELETE FROM club_replies").rowcount
    return out


def _strip_text(data: str) -> str:
    """A record's JSON text without a salt, a seed or a secret key (when it cannot be replayed
    to know what was revealed, nothing that might not have been)."""
    from .public import SECRET_KEYS
    rec = json.loads(data)
    drop = SECRET_KEYS | {"salt", "seed"} | ({"args"} if "salt" in rec else set())
    return data if not drop & rec.keys() else json.dumps(
        {k: v for k, v in rec.items() if k not in drop})


def role_name(database: str, table: str) -> str:
    """The PostgreSQL role of ``table`` in the club database ``database`` (roles are the whole
    server's: a second club on the same server has roles of its own).

    >>> role_name("club", "kitchen")
    'tc_club_t_kitchen'
    """
    db = re.sub(r"[^a-z0-9]", "", database.lower())[:20]
    return f"tc_{db}_t_{table}"


def with_login(url: str, user: str, password: str) -> str:
    """``url`` with another login."""
    parts = urllib.parse.urlsplit(url)
    host = parts.netloc.rsplit("@", 1)[-1]
    return urllib.parse.urlunsplit(parts._replace(
        netloc=f"{urllib.parse.quote(user, safe='')}:{urllib.parse.quote(password, safe='')}"
               f"@{host}"))


def admit_table(admin_url: str, table: str) -> str:
    """Give ``table`` a login of its own on the record (a new password each time: a table that
    joins again gets a new one) that may add only its own rows; returns the record's URL with
    that login. ``admin_url``: a login that may create roles and owns (or may grant on) the
    club's tables: the club's own PostgreSQL's superuser, or the ``--record`` login (which then
    needs CREATEROLE). Anything that fails raises :class:`ClubRecordError` in words (the club
    answers the box "try again"), and nothing of the admission is kept."""
    try:
        with connect(admin_url, autocommit=True, connect_timeout=10) as db:
            database = db.info.dbname
            role = role_name(database, table)
            password = secrets.token_urlsafe(18)
            ident = sql.Identifier(role)
            with db.transaction():
                db.execute("SELECT pg_advisory_xact_lock(%s)", (ROLES_LOCK,))
                exists = db.execute("SELECT 1 FROM pg_roles WHERE rolname = %s",
                                    (role,)).fetchone()
                verb = "ALTER" if exists else "CREATE"
                db.execute(sql.SQL(verb + " ROLE {} LOGIN NOINHERIT NOCREATEDB NOCREATEROLE "
                                   "CONNECTION LIMIT {} PASSWORD {}").format(
                    ident, sql.Literal(TABLE_CONNECTIONS), sql.Literal(password)))
                db.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(
                    sql.Identifier(database), ident))
                db.execute(sql.SQL(TABLE_GRANTS).format(role=ident))
                db.execute("INSERT INTO club_members(table_id, role) VALUES (%s, %s) ON "
                           "CONFLICT (table_id) DO UPDATE SET role = excluded.role, "
                           "removed = NULL, admitted = now()", (table, role))
    except psycopg.errors.InsufficientPrivilege as e:
        raise ClubRecordError(
            f"The club record's login cannot give table {table} a login of its own "
            f"({str(e).strip().splitlines()[0]}): it needs CREATEROLE and the club's "
            f"tables.") from None
    except psycopg.Error as e:
        raise ClubRecordError(
            f"The club record could not give table {table} a login "
            f"({str(e).strip().splitlines()[0]}); the table may ask again.") from None
    return with_login(admin_url, role, password)


def remove_table(admin_url: str, table: str) -> bool:
    """Take ``table``'s login away (what it shipped stays in the record); its open
    connections are ended. Returns whether it had one."""
    with connect(admin_url, autocommit=True, connect_timeout=10) as db:
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (ROLES_LOCK,))
            row = db.execute("UPDATE club_members SET removed = now() WHERE table_id = %s AND "
                             "removed IS NULL RETURNING role", (table,)).fetchone()
            if row is None:
                return False
            ident = sql.Identifier(row[0])
            db.execute(sql.SQL("ALTER ROLE {} NOLOGIN PASSWORD NULL").format(ident))
            db.execute(sql.SQL("REVOKE CONNECT ON DATABASE {} FROM {}").format(
                sql.Identifier(db.info.dbname), ident))
        try:
            db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                       "WHERE usename = %s", (row[0],))
        except psycopg.Error:
            pass                        # not allowed to: the login is gone all the same
    return True


def check_schema(db):
    """A table's side: the record is there and not newer than this code (a table's role may
    not create anything)."""
    with db.transaction():
        row = db.execute("SELECT max(version) FROM club_schema").fetchone()
    if row[0] is None:
        raise ClubRecordError("The club record has no schema yet; the club sets it up.")
    if row[0] > SCHEMA_VERSION:
        raise ClubRecordError(f"The club record was written by a newer Table Companion "
                              f"(schema {row[0]}); update this one to use it.")


def _json_text(value):
    """A store's JSON column (text) or a Python value, as JSON text for a JSONB column."""
    if value is None:
        return None
    return value if isinstance(value, str) else json.dumps(value)


class Record:
    """The write side: what a box sends and what the club already has."""

    def __init__(self, url, *, connect_timeout=3, setup=True):
        """``setup``: make and fence the schema (the organiser's login); a table's shipper
        passes False and only checks it."""
        self.url = url
        self.db = connect(url, connect_timeout=connect_timeout)
        try:
            (ensure_schema if setup else check_schema)(self.db)
        except BaseException:
            self.db.close()
            raise

    def ingest(self, table_id, sessions=(), events=(), replies=()) -> dict:
        """Store one box's rows in one transaction. ``sessions``: dicts with the store's
        columns (id, game, created, meta, status, summary, clock, updated; meta and summary as
        JSON text or values); ``events``: ``(session_id, version, type, data)`` with ``data``
        the record's JSON text; ``replies``: ``(session_id, seat, tx, reply)``. Returns how
        many rows were new (events, replies) or changed (sessions)."""
        sessions, events, replies = list(sessions), list(events), list(replies)
        out = {"sessions": 0, "events": 0, "replies": 0}
        with self.db.transaction():
            cur = self.db.cursor()
            if sessions:
                cur.executemany(
                    "INSERT INTO club_sessions AS c(table_id, session_id, game, created, meta, "
                    "status, summary, clock, updated) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s) "
                    "ON CONFLICT (table_id, session_id) DO UPDATE SET status=excluded.status, "
                    "summary=excluded.summary, meta=excluded.meta, clock=excluded.clock, "
                    "updated=excluded.updated "
                    "WHERE COALESCE(excluded.updated, excluded.created) >= "
                    "COALESCE(c.updated, c.created) AND (c.status, c.summary, c.meta, c.clock, "
                    "c.updated) IS DISTINCT FROM (excluded.status, excluded.summary, "
                    "excluded.meta, excluded.clock, excluded.updated)",
                    [(table_id, s["id"], s["game"], s["created"], _json_text(s["meta"]),
                      s["status"], _json_text(s.get("summary")), s.get("clock"),
                      s.get("updated")) for s in sessions])
                out["sessions"] = max(cur.rowcount, 0)
            if events:
                # a record arrives once; a newer public copy of it (the game ended: its seed,
                # its revealed choices) replaces the one the club has
                cur.executemany(
                    "INSERT INTO club_events AS c(table_id, session_id, version, type, data) "
                    "VALUES (%s,%s,%s,%s,%s) ON CONFLICT (table_id, session_id, version) "
                    "DO UPDATE SET data = excluded.data WHERE c.data <> excluded.data",
                    [(table_id, sid, v, t, d) for sid, v, t, d in events])
                out["events"] = max(cur.rowcount, 0)
            if replies:
                cur.executemany(
                    "INSERT INTO club_replies(table_id, session_id, seat, tx, reply) "
                    "VALUES (%s,%s,%s,%s,%s) ON CONFLICT DO NOTHING",
                    [(table_id, sid, seat, tx, r) for sid, seat, tx, r in replies])
                out["replies"] = max(cur.rowcount, 0)
        return out

    def heads(self, table_id) -> dict:
        """``{session_id: newest version}`` the club holds for ``table_id`` (-1: the session's
        row but none of its records yet)."""
        with self.db.transaction():
            rows = self.db.execute(
                "SELECT s.session_id, COALESCE(max(e.version), -1) FROM club_sessions s "
                "LEFT JOIN club_events e ON e.table_id = s.table_id "
                "AND e.session_id = s.session_id WHERE s.table_id = %s GROUP BY s.session_id",
                (table_id,)).fetchall()
            orphans = self.db.execute(        # records whose session row has not come (yet)
                "SELECT session_id, max(version) FROM club_events WHERE table_id = %s "
                "AND session_id NOT IN (SELECT session_id FROM club_sessions WHERE "
                "table_id = %s) GROUP BY session_id", (table_id, table_id)).fetchall()
        return dict(rows + orphans)

    def session_rows(self, table_id) -> dict:
        """``{session_id: (status, summary, meta, clock, updated)}`` as the club holds them
        for ``table_id`` (summary and meta parsed), so a box resends only rows that changed."""
        with self.db.transaction():
            return {r[0]: tuple(r[1:]) for r in self.db.execute(
                "SELECT session_id, status, summary, meta, clock, updated FROM club_sessions "
                "WHERE table_id = %s", (table_id,)).fetchall()}

    def reply_counts(self, table_id) -> dict:
        """``{session_id: replies held}`` for ``table_id``."""
        with self.db.transaction():
            return dict(self.db.execute(
                "SELECT session_id, count(*) FROM club_replies WHERE table_id = %s "
                "GROUP BY session_id", (table_id,)).fetchall())

    def ping(self):
        """Raise (psycopg.Error) if the club has gone away."""
        with self.db.transaction():
            self.db.execute("SELECT 1")

    def close(self):
        self.db.close()


class ClubLog:
    """The club record read like a session store: the read contract of
    :class:`companion.core.log.SQLiteLog` over every table's sessions, or those of ``table``,
    created between ``since`` and ``until`` (seconds since the epoch; ``until`` excluded).

    A session id is unique only within its table: where two selected tables hold the same id,
    each is named ``ID@TABLE``; otherwise the plain id (``ID@TABLE`` is always understood).
    Read-only: every write raises :class:`ClubRecordError`."""

    def __init__(self, url, table=None, since=None, until=None, *, connect_timeout=5):
        self.url = url
        self.path = safe_url(url)           # what messages name, like a store's file
        self.table, self.since, self.until = table, since, until
        try:
            self.db = connect(url, connect_timeout=connect_timeout, read_only=True,
                              autocommit=True)
        except psycopg.Error as e:
            raise ClubRecordError(f"Cannot reach the club record at {self.path}: "
                                  f"{str(e).strip().splitlines()[0]}") from None
        # no table has shipped yet: an empty record (the tables are the shippers' to make)
        self._empty = self.db.execute(
            "SELECT to_regclass('club_sessions') IS NULL").fetchone()[0]

    def _where(self, alias="s"):
        conds, params = [], []
        if self.table is not None:
            conds.append(f"{alias}.table_id = %s")
            params.append(self.table)
        if self.since is not None:
            conds.append(f"{alias}.created >= %s")
            params.append(float(self.since))
        if self.until is not None:
            conds.append(f"{alias}.created < %s")
            params.append(float(self.until))
        return (" AND ".join(conds) or "TRUE"), params

    _SELECT = ("SELECT s.table_id, s.session_id, s.game, s.created, s.meta, s.status, "
               "s.summary, (SELECT count(*) FROM club_events e WHERE e.table_id = s.table_id "
               "AND e.session_id = s.session_id), s.clock, s.updated FROM club_sessions s ")

    def _info(self, row, name):
        _table, sid, game, created, meta, status, summary, length, clock, updated = row
        return SessionInfo(name, game, created, meta, status, summary, length, clock, updated)

    def sessions(self):
        if self._empty:
            return []
        where, params = self._where()
        rows = self.db.execute(self._SELECT + f"WHERE {where} ORDER BY s.created, s.table_id",
                               params).fetchall()
        seen = {}
        for r in rows:
            seen[r[1]] = seen.get(r[1], 0) + 1
        return [self._info(r, r[1] if seen[r[1]] == 1 else f"{r[1]}@{r[0]}") for r in rows]

    def _resolve(self, name):
        """``(table_id, session_id, shown name)`` of ``name`` among the selected sessions."""
        if self._empty:
            raise SessionNotFoundError(f"No session {name} in {self.path}.")
        where, params = self._where()
        tables = [r[0] for r in self.db.execute(
            f"SELECT s.table_id FROM club_sessions s WHERE s.session_id = %s AND {where}",
            [name, *params]).fetchall()]
        if len(tables) == 1:
            return tables[0], name, name
        if len(tables) > 1:
            raise SessionNotFoundError(
                f"Session {name} was played at more than one table ({', '.join(sorted(tables))}) "
                f"in {self.path}; name one as {name}@TABLE.")
        if "@" in name:
            sid, table = name.rsplit("@", 1)
            if self.table is None or table == self.table:
                row = self.db.execute(
                    f"SELECT 1 FROM club_sessions s WHERE s.session_id = %s AND "
                    f"s.table_id = %s AND {where}", [sid, table, *params]).fetchone()
                if row:
                    return table, sid, name
        raise SessionNotFoundError(f"No session {name} in {self.path}.")

    def info(self, session_id):
        table, sid, name = self._resolve(session_id)
        row = self.db.execute(self._SELECT + "WHERE s.table_id = %s AND s.session_id = %s",
                              (table, sid)).fetchone()
        return self._info(row, name)

    def read(self, session_id):
        table, sid, _name = self._resolve(session_id)
        rows = self.db.execute("SELECT data FROM club_events WHERE table_id = %s AND "
                               "session_id = %s ORDER BY version", (table, sid)).fetchall()
        return [json.loads(r[0]) for r in rows]

    def table_of(self, session_id) -> str:
        """The table that played ``session_id`` (as :meth:`sessions` names it)."""
        return self._resolve(session_id)[0]

    def tables(self) -> list:
        """Every table with a session in the selection."""
        if self._empty:
            return []
        where, params = self._where()
        return [r[0] for r in self.db.execute(
            f"SELECT DISTINCT s.table_id FROM club_sessions s WHERE {where} ORDER BY 1",
            params).fetchall()]

    def get_reply(self, session_id, seat, tx):
        table, sid, _name = self._resolve(session_id)
        row = self.db.execute("SELECT reply FROM club_replies WHERE table_id = %s AND "
                              "session_id = %s AND seat = %s AND tx = %s",
                              (table, sid, seat, tx)).fetchone()
        return row[0] if row else None

    def table_meta(self, table):
        return None                         # a box's own keeping, never shipped

    def _read_only(self, *_args, **_kw):
        raise ClubRecordError(f"The club record ({self.path}) is read here, never written: "
                              f"tables ship their sessions to it from their own stores.")

    create = append = set_meta = set_status = mark_time = put_reply = set_table_meta = \
        _read_only

    def batch(self):
        self._read_only()

    def close(self):
        if self.db is not None:
            self.db.close()
            self.db = None
