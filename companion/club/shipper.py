"""Store-and-forward: a box's own SQLite store is the queue, the club's record the destination.

:class:`Shipper` is a thread beside the table, never in its command path. It reads the store
through a read-only connection of its own (WAL lets it read while the table writes; it never
holds a lock the table waits on) and copies to the club what the club does not have: on every
connect it asks the club how far it got (``Record.heads``), then sends the sessions' rows, the
records past those heads (as the public sees them, :mod:`companion.club.public`; never a
seat's replies), up to ``batch`` rows a transaction, and after
each committed batch it moves its own idea of the heads on. A record arrives exactly once
because the club's primary keys say so, not because the shipper never repeats itself: a box
that crashed mid-batch, or two shippers on one store, only resend what the club then ignores.

While the club cannot be reached the shipper waits (1 s, doubling up to 30 s), says so once in
the log and once when the club is back, and never raises into the table. ``notify()`` (cheap,
from any thread) wakes it after the table saved something; otherwise it looks every
``interval`` seconds.
"""
import json
import logging
import os
import pathlib
import sqlite3
import threading
import time

import psycopg

from companion import games

from .public import public_events, public_meta
from .record import Record, safe_url

log = logging.getLogger("companion.club")

BACKOFF_FIRST, BACKOFF_MAX = 1.0, 30.0


def _refused(e: Exception) -> bool:
    """Whether the club refused this table's login or its rights (not: the club is away)."""
    if isinstance(e, psycopg.errors.InsufficientPrivilege):
        return True
    text = str(e)
    return "password authentication failed" in text or "not permitted to log in" in text \
        or "permission denied" in text


def _words(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


class Shipper:
    """Ship ``store_path``'s sessions to the club record at ``club_url`` as ``table_id``.

    Starts at once (``start=False`` to start it later with :meth:`start`); :meth:`stop` ends
    it between two batches and joins it."""

    def __init__(self, store_path, table_id, club_url, *, interval=2.0, batch=2000,
                 connect_timeout=3, start=True, linger=1.0, on_refused=None):
        self.store_path = str(store_path)
        self.table_id = table_id
        self.club_url = club_url
        self.interval = float(interval)
        self.batch = int(batch)
        self.connect_timeout = connect_timeout
        self.linger = float(linger)     # seconds a wake-up waits for more saves to join it
        self.on_refused = on_refused    # the club refused this table's login: join again
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._club_heads = {}       # session -> newest version the club holds (as far as known)
        self._club_rows = {}        # session -> its row as the club holds it
        self._status = {"connected": False, "sent": 0, "queued": 0, "last_error": None,
                        "last_sent_at": None}
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"club-shipper-{table_id}")
        if start:
            self.start()

    # -- the caller's side ---------------------------------------------------------------------
    def start(self):
        self._thread.start()
        return self

    def notify(self):
        """The table saved something: look now rather than at the next poll."""
        self._wake.set()

    def status(self) -> dict:
        """``connected``, ``sent`` (records this shipper delivered), ``queued``
        (records in the store the club does not have, as far as it knows), ``last_error`` (a
        sentence, or None) and ``last_sent_at`` (time.time() of the last delivered batch)."""
        with self._lock:
            return dict(self._status)

    def stop(self, timeout=15):
        """End the thread (after the batch in flight, if any) and wait for it."""
        self._stopping.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _set(self, **kw):
        with self._lock:
            self._status.update(kw)

    def _sleep(self, seconds):
        woke = self._wake.wait(seconds)
        self._wake.clear()
        if woke and self.linger and not self._stopping.is_set():
            # woken by a save: let the next moments' saves join it, one batch rather than one
            # per command (the table's own thread then meets this one far less often)
            self._stopping.wait(self.linger)

    # -- the thread ----------------------------------------------------------------------------
    def _run(self):
        record, backoff, away, said_away = None, BACKOFF_FIRST, False, False
        where = safe_url(self.club_url)
        while not self._stopping.is_set():
            if record is None:
                try:
                    record = Record(self.club_url, connect_timeout=self.connect_timeout,
                                    setup=False)
                    self._club_heads = record.heads(self.table_id)
                    self._club_rows = record.session_rows(self.table_id)
                except Exception as e:          # a dead club, a refused login, a bad schema
                    record = self._drop(record)
                    if _refused(e) and self.on_refused is not None:
                        try:
                            self.on_refused()
                        except Exception:
                            log.warning("joining the club again failed", exc_info=True)
                    sentence = f"The club record at {where} cannot be reached: {_words(e)}."
                    self._set(connected=False, last_error=sentence)
                    if not said_away:
                        log.warning("%s Records wait in the store %s.", sentence,
                                    self.store_path)
                        said_away = away = True
                    self._count_queue()
                    self._sleep(backoff)
                    backoff = min(backoff * 2, BACKOFF_MAX)
                    continue
                backoff = BACKOFF_FIRST
                self._set(connected=True, last_error=None)
            try:
                sent = self._drain(record)
            except (psycopg.Error, OSError) as e:
                record = self._drop(record)
                if _refused(e) and self.on_refused is not None:
                    try:
                        self.on_refused()
                    except Exception:
                        log.warning("joining the club again failed", exc_info=True)
                sentence = f"The club record at {where} went away: {_words(e)}."
                self._set(connected=False, last_error=sentence)
                if not said_away:
                    log.warning("%s Records wait in the store %s.", sentence, self.store_path)
                    said_away = away = True
                self._sleep(backoff)
                backoff = min(backoff * 2, BACKOFF_MAX)
                continue
            except Exception as e:              # the store itself (missing table, damage)
                self._set(last_error=f"Cannot read the store {self.store_path} to ship it: "
                                     f"{_words(e)}.")
                self._sleep(self.interval)
                continue
            if away:
                log.warning("club record reachable again: %d records sent", sent)
                away = said_away = False
            self._sleep(self.interval)
        self._drop(record)

    @staticmethod
    def _drop(record):
        if record is not None:
            try:
                record.close()
            except Exception:
                pass
        return None

    # -- reading the store ---------------------------------------------------------------------
    def _open_store(self):
        """A read-only connection to the store, or None when there is no store yet."""
        if not os.path.exists(self.store_path):
            return None
        uri = pathlib.Path(os.path.abspath(self.store_path)).as_uri() + "?mode=ro"
        return sqlite3.connect(uri, uri=True, timeout=5, isolation_level=None,
                               check_same_thread=False)

    @staticmethod
    def _row(r):
        sid, game, created, meta, status, summary, clock, updated = r
        return {"id": sid, "game": game, "created": created, "meta": meta, "status": status,
                "summary": summary, "clock": clock, "updated": updated}

    def _key(self, row):
        """What the club must hold of a session's row (its meta without a secret, issue 35),
        comparable with the club's copy."""
        summary = json.loads(row["summary"]) if row["summary"] else None
        return (row["status"], summary, public_meta(json.loads(row["meta"])), row["clock"],
                row["updated"])

    def _public(self, db, row, since):
        """The session's records past ``since`` as they may leave the box (its whole log is
        read: what is public depends on what came after). A log that does not replay ships
        nothing, and says so."""
        rows = db.execute("SELECT session_id, version, type, data FROM events WHERE "
                          "session_id = ? ORDER BY version", (row["id"],)).fetchall()
        try:
            shown = public_events(games.get(row["game"]), rows, row["status"])
        except Exception as e:
            self._set(last_error=f"Session {row['id']} in {self.store_path} does not replay "
                                 f"({_words(e)}); its records stay on the box.")
            return []
        return [r for r in shown if r[1] > since]

    def _collect(self, db):
        """One batch past the club's heads, read in one snapshot of the store, and how many
        records it leaves behind. Every record goes as the public sees it
        (:mod:`companion.club.public`); a session that ended since the club last heard of it
        goes again whole, as the end shows it (the seed, the revealed choices), with its row
        in the same transaction."""
        db.execute("BEGIN")
        try:
            rows = [self._row(r) for r in db.execute(
                "SELECT id, game, created, meta, status, summary, clock, updated FROM sessions "
                "ORDER BY created")]
            heads = dict(db.execute("SELECT session_id, MAX(version) FROM events "
                                    "GROUP BY session_id"))
            budget = self.batch
            sessions, events = [], []
            by_id = {row["id"]: row for row in rows}
            resent = set()
            for row in rows:
                if budget <= 0:
                    break
                if self._club_rows.get(row["id"]) != self._key(row):
                    club = self._club_rows.get(row["id"])
                    if club is not None and club[0] == "open" and row["status"] != "open" \
                            and self._club_heads.get(row["id"], -1) >= 0:
                        got = self._public(db, row, -1)     # ended: all of it, once more
                        events += got
                        budget -= len(got)
                        resent.add(row["id"])
                    sessions.append(dict(row, meta=json.dumps(
                        public_meta(json.loads(row["meta"])))))
                    budget -= 1
            order = {row["id"]: i for i, row in enumerate(rows)}
            for sid in sorted(heads, key=lambda s: order.get(s, -1)):
                if budget <= 0:
                    break
                have = self._club_heads.get(sid, -1)
                if heads[sid] > have and sid not in resent:
                    row = by_id.get(sid) or {"id": sid, "game": None, "status": "open"}
                    if row["game"] is None:
                        continue                    # its row comes first
                    got = self._public(db, row, have)[:budget]
                    events += got
                    budget -= len(got)
        finally:
            db.execute("COMMIT")
        return sessions, events, [], heads, {}

    def _queue_size(self, heads, counts=None):
        return sum(max(0, v - self._club_heads.get(sid, -1)) for sid, v in heads.items())

    def _count_queue(self):
        """While the club is away: how much waits, against the heads last known."""
        try:
            db = self._open_store()
            if db is None:
                return
            try:
                db.execute("BEGIN")
                heads = dict(db.execute("SELECT session_id, MAX(version) FROM events "
                                        "GROUP BY session_id"))
                db.execute("COMMIT")
            finally:
                db.close()
            self._set(queued=self._queue_size(heads))
        except sqlite3.Error:
            pass

    # -- sending -------------------------------------------------------------------------------
    def _drain(self, record) -> int:
        """Send batches until the club has everything the store holds (or stop() is called);
        returns how many records were delivered."""
        sent = 0
        db = self._open_store()
        if db is None:
            self._set(queued=0)
            return 0
        try:
            while not self._stopping.is_set():
                sessions, events, replies, heads, counts = self._collect(db)
                if not (sessions or events or replies):
                    self._set(queued=self._queue_size(heads, counts))
                    if not sent:
                        record.ping()       # nothing to send: is the club still there?
                    break
                record.ingest(self.table_id, sessions, events, replies)
                # committed: the club has these now
                for row in sessions:
                    self._club_rows[row["id"]] = self._key(row)
                    self._club_heads.setdefault(row["id"], -1)
                for sid, version, _t, _d in events:
                    if version > self._club_heads.get(sid, -1):
                        self._club_heads[sid] = version
                sent += len(events)
                with self._lock:
                    self._status["sent"] += len(events)
                    self._status["last_sent_at"] = time.time()
                    self._status["queued"] = self._queue_size(heads, counts)
                    self._status["connected"] = True
        finally:
            db.close()
        return sent
