"""A session: one game at one table, from set-up to the end, with its durable log.

Every input goes through :meth:`Session.execute` (a seat's move), :meth:`close_window`,
:meth:`tick` (timer deadlines), :meth:`pause_timer`/:meth:`resume_timer`, :meth:`correct` and
:meth:`undo`. Each is checked against the rules, applied, appended to the log (durably, for the
SQLite backend) and only then acknowledged. An illegal command raises a specific error and
leaves the state exactly as it was (it is rebuilt from the log if the move got half-way).

Replay: :func:`fold` rebuilds the state from the records; ``Session.load`` resumes a session.
Undo appends an ``Undone`` record naming the command it takes back (never a deletion) and
refuses to cross a reveal of sealed choices: once bids are public, taking them back would let a
seat re-bid knowing the others'. Use a correction instead.
"""
import hashlib
import json
import math
import os
import threading
import time

from . import story as _story
from . import views
from .clock import SessionClock
from .errors import IllegalMoveError, SessionFileError, UndoError
from .game import apply, apply_move, new_state
from .sealed import SALT_BYTES
from .state import State

COMMAND_KINDS = ("move", "close", "timer", "pause", "resume", "correct", "rename", "end",
                 "warn")
_KIND_EVENT = {"close": "WindowClosed", "timer": "TimerExpired", "pause": "TimerPaused",
               "resume": "TimerResumed", "correct": "Corrected", "rename": "SeatRenamed",
               "end": "GameEndedEarly", "warn": "TimerWarned"}
#: Records an undo steps over: not moves of the game (a name, a warning given).
_NOT_UNDONE = ("rename", "warn")


def _canonical(v):
    """``v`` with every whole float as an int (``4.0`` -> ``4``: the same number, as a JavaScript
    client would send it), lists and objects walked."""
    if isinstance(v, float) and math.isfinite(v) and v.is_integer():
        return int(v)
    if isinstance(v, dict):
        return {k: _canonical(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_canonical(x) for x in v]
    return v


def command_digest(move, args=None) -> str:
    """The fingerprint of a command: SHA-256 of its canonical form, the move's name and its
    arguments as JSON with sorted keys, no spaces, whole floats as ints. Two commands are the
    same command when their digests are equal: a resend under the same ``tx`` must be, a
    different command under a known ``tx`` is refused (docs/protocol.md 5.1).

    >>> a = command_digest("bid", {"n": 4, "note": "x"})
    >>> a == command_digest("bid", {"note": "x", "n": 4.0})
    True
    >>> command_digest("bid", {"n": 4}) == command_digest("bid", {"n": 5})
    False
    >>> command_digest("bid") == command_digest("bid", {}) != command_digest("pass", {})
    True
    """
    text = json.dumps([move, _canonical(args or {})], sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def fold(game, records, upto=None) -> State:
    """Rebuild the state from a session's records (all of them, or the first ``upto``)."""
    records = records if upto is None else records[:upto]
    if not records or records[0].get("type") != "SessionStarted":
        raise SessionFileError("the session log does not begin with SessionStarted")
    start = records[0]
    undone = {r["target"] for r in records if r.get("type") == "Undone"}
    state = new_state(game, start["players"], start["options"], start["seed"],
                      now=start.get("at", 0.0))
    for version, rec in enumerate(records):
        if version == 0 or version in undone or rec.get("kind") not in COMMAND_KINDS:
            continue
        apply(game, state, rec)
        if "commitment" in rec:
            _stamp_lock(state, rec, version + 1)
    return state


class Result:
    """What an accepted command did: the log version that holds it and its notices."""
    __slots__ = ("version", "notices")

    def __init__(self, version, notices):
        self.version, self.notices = version, notices

    def __repr__(self):
        return f"Result(version={self.version}, notices={len(self.notices)})"


class Session:
    def __init__(self, game, log, session_id, records, state, clock, entropy, wall):
        self.game = game
        self.log = log
        self.id = session_id
        self.records = records
        self.state = state
        self.clock = clock
        self.entropy = entropy
        self.wall = wall
        self.lock = threading.RLock()
        self.abandoned = any(r.get("type") == "SessionAbandoned" for r in records)
        self._tx = {(r.get("seat"), r["tx"]): r for r in records if r.get("tx")}
        self._story = None          # built from the log when first asked for (story())

    # -- making and loading -------------------------------------------------------------------
    @classmethod
    def start(cls, game, players, log, options=None, seed=None, clock=None,
              entropy=os.urandom, wall=time.time, session_id=None, meta=None):
        game.check_players(len(players))
        options = game.resolve_options(options)
        if seed is None:
            seed = int.from_bytes(entropy(6), "big")
        clock = clock or SessionClock()
        now = clock.now()
        if session_id is None:
            stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(wall()))
            session_id = f"{game.name}-{stamp}-{entropy(2).hex()}"
        state = new_state(game, players, options, seed, now=now)
        first = {"type": "SessionStarted", "game": game.name, "players": list(players),
                 "options": options, "seed": seed, "at": now, "wall": wall()}
        info = {"players": list(players), "options": options, "seed": seed}
        info.update(meta or {})
        log.create(session_id, game.name, info, created=wall())
        log.append(session_id, 0, [first])
        session = cls(game, log, session_id, [first], state, clock, entropy, wall)
        session._story = _story.begun(game, state)
        return session

    @classmethod
    def load(cls, log, session_id, *, games, clock=None, entropy=os.urandom,
             wall=time.time):
        """Resume a session from its log; ``games(name)`` gives the game it was played (the
        registry, ``companion.games.get``: the core never imports the games). The session clock
        continues from the last record."""
        records = log.read(session_id)
        if not records or records[0].get("type") != "SessionStarted":
            raise SessionFileError(f"{getattr(log, 'path', 'the log')}: session {session_id} "
                                   f"does not begin with SessionStarted; nothing was changed.")
        game = games(records[0]["game"])
        try:
            state = fold(game, records)
        except IllegalMoveError as e:
            raise SessionFileError(f"{getattr(log, 'path', 'the log')}: session {session_id} "
                                   f"does not replay ({e}); nothing was changed.") from None
        last_at = max((r.get("at", 0.0) for r in records), default=0.0)
        seen = log.info(session_id).clock or 0.0   # last heartbeat of a running table
        clock = clock or SessionClock(start_at=max(last_at, seen))
        return cls(game, log, session_id, records, state, clock, entropy, wall)

    # -- inputs -------------------------------------------------------------------------------
    def execute(self, seat, move, args=None, tx=None) -> Result:
        """A seat's move (``seat=None`` for a table move). ``tx``: the client's transaction id,
        kept in the record (with the ``seq`` it led to) so a resend is answered, never
        applied twice (:meth:`find_tx`), even after a restart."""
        rec = {"type": "", "kind": "move", "seat": seat, "move": move, "args": args or {}}
        if tx:
            rec["tx"] = tx
        m = self.game.moves.get(move)
        if m is not None:
            rec["type"] = m.event
            if m.sealed is not None:
                rec["salt"] = self.entropy(SALT_BYTES).hex()
        return self._run(rec)

    def close_window(self, window_id) -> Result:
        """The table closes a sealed window: seats that have not locked in get the default."""
        return self._run({"kind": "close", "window": window_id})

    def pause_timer(self, name) -> Result:
        return self._run({"kind": "pause", "timer": name})

    def resume_timer(self, name) -> Result:
        return self._run({"kind": "resume", "timer": name})

    def correct(self, seat, counter, delta, reason) -> Result:
        """A manual correction, e.g. ``correct(2, "navy", +2, "card misread")``."""
        return self._run({"kind": "correct", "seat": seat, "counter": counter, "delta": delta,
                          "reason": reason})

    def rename(self, seat, name) -> Result:
        """A player's new display name (a late joiner, a typo). Recorded, never undone."""
        return self._run({"kind": "rename", "seat": seat, "name": name})

    def end_early(self) -> Result:
        """The table ends the game now with the scores as they stand
        (:meth:`Game.standings`)."""
        return self._run({"kind": "end"})

    def abandon(self) -> None:
        """The table gives the game up: recorded, and the log marks it ``abandoned`` (stats
        leave it out). No command is accepted afterwards."""
        with self.lock:
            if self.state.outcome is not None:
                raise IllegalMoveError("The game is already over.")
            rec = {"type": "SessionAbandoned", "at": self.clock.now(), "wall": self.wall()}
            self.log.append(self.id, len(self.records), [rec])
            self.records.append(rec)
            self.log.set_status(self.id, "abandoned")
            self.abandoned = True

    def warn(self, name) -> Result:
        """A timer reached its warning time (0:30 left): recorded, so it is given once."""
        return self._run({"kind": "warn", "timer": name})

    def find_tx(self, seat, tx):
        """The record a command with this ``tx`` from ``seat`` made, or None. The record keeps
        the command as it was applied (``move``, ``args``): ``command_digest(rec["move"],
        rec["args"])`` tells whether a resend is the same command."""
        with self.lock:
            return self._tx.get((seat, tx))

    def mark_time(self) -> None:
        """Remember where the session clock is (the hub does it every second while a timer
        runs, and at a clean stop), so a restart gives a running timer the time it had left."""
        self.log.mark_time(self.id, self.clock.now())

    def tick(self) -> list:
        """Apply every timer deadline that has passed. Returns the results."""
        out = []
        with self.lock:
            for name in self.state.due_timers(self.clock.now()):
                out.append(self._run({"kind": "timer", "timer": name}))
        return out

    def next_deadline(self):
        return self.state.next_deadline()

    def undo(self) -> Result:
        with self.lock:
            undone = {r["target"] for r in self.records if r.get("type") == "Undone"}
            target = None
            for v in range(len(self.records) - 1, 0, -1):
                r = self.records[v]
                if v in undone or r.get("kind") not in COMMAND_KINDS or \
                        r["kind"] in _NOT_UNDONE:
                    continue
                target = v
                break
            if target is None:
                raise UndoError("There is nothing to undo.")
            r = self.records[target]
            if r["kind"] == "timer":
                raise UndoError("The last thing that happened was a timer running out; time "
                                "cannot be undone. Use a correction instead.")
            if self.state.last_reveal_seq == self.state.seq:
                raise UndoError("The last command revealed sealed choices; undoing it would "
                                "let someone choose again knowing the others'. Use a "
                                "correction instead.")
            rec = {"type": "Undone", "target": target, "at": self.clock.now(),
                   "undid": r.get("type")}
            records = self.records + [rec]
            state = fold(self.game, records)
            self.log.append(self.id, len(self.records), [rec])
            locked = _open_locks(self.state)
            self.records = records
            self.state = state
            state.notices = _withdrawn(locked, _open_locks(state)) + [self._undone(r)]
            self._tell(state.notices)
            self._mark_status()
            return Result(len(records) - 1, state.notices)

    def _undone(self, r) -> dict:
        return _undone_notice(self.game, r)

    def rewind(self, version) -> None:
        """Forget the records from ``version`` on and rebuild the state from the rest: the
        records of a group whose save failed (:meth:`SQLiteLog.batch`), which the log never
        kept and nobody was told about."""
        with self.lock:
            if version >= len(self.records):
                return
            self.records = self.records[:version]
            self.state = fold(self.game, self.records)
            self.abandoned = any(r.get("type") == "SessionAbandoned" for r in self.records)
            self._tx = {(r.get("seat"), r["tx"]): r for r in self.records if r.get("tx")}
            if self._story is not None:
                self._story = [e for e in self._story if e["rev"] <= version]

    # -- the one path every command takes ------------------------------------------------------
    def _run(self, rec) -> Result:
        with self.lock:
            if self.abandoned:
                raise IllegalMoveError("This game was abandoned; no more moves.")
            rec.setdefault("type", _KIND_EVENT.get(rec["kind"], ""))
            if not rec["type"]:
                rec["type"] = _KIND_EVENT.get(rec["kind"], "MoveMade")
            rec["at"] = self.clock.now()
            state = self.state
            try:
                apply(self.game, state, rec)
            except BaseException:
                self.state = fold(self.game, self.records)
                raise
            if rec["kind"] == "move" and "salt" in rec:
                w = _locked_window(state, rec)
                if w is not None:
                    rec["window"] = w
                    rec["commitment"] = state.windows[w].entries[rec["seat"]].commitment
                    _stamp_lock(state, rec, len(self.records) + 1)
            if "tx" in rec:
                rec["seq"] = state.seq
            try:
                self.log.append(self.id, len(self.records), [rec])
            except BaseException:
                self.state = fold(self.game, self.records)
                raise
            self.records.append(rec)
            if "tx" in rec:
                self._tx[(rec.get("seat"), rec["tx"])] = rec
            self._tell(state.notices, rec)
            if state.outcome is not None:
                self._mark_status()
            return Result(len(self.records) - 1, state.notices)

    # -- the story: what happened, in sentences (core/story.py) ----------------------------------
    #: Entries kept (a view shows the newest :data:`story.SHOWN` public ones).
    STORY_KEPT = 400

    def _tell(self, notices, rec=None):
        """The story entries of the command just logged (shown from its ``rev`` on)."""
        if self._story is None:
            return                      # built from the log, this command included, when asked
        self._story.extend(_story.entries(self.game, self.state, notices, self.version, rec))
        del self._story[:-self.STORY_KEPT]

    def tell(self, says: str) -> None:
        """A sentence only the table knows (it restarted): in the story from now on, not in the
        log (a session loaded again tells its log's story)."""
        with self.lock:
            self.story()
            self._story.append({"rev": self.version, "says": says})
            del self._story[:-self.STORY_KEPT]

    def story(self, viewer=None, shown=None) -> list:
        """The story as ``viewer`` (a seat, None: the public) may see it
        (:func:`story.visible`); ``shown=0``: every entry kept, unprojected."""
        with self.lock:
            if self._story is None:
                self._story = replay_story(self.game, self.records)[-self.STORY_KEPT:]
            if shown == 0:
                return [dict(e) for e in self._story]
            return _story.visible(self._story, viewer, shown or _story.SHOWN)

    def _mark_status(self):
        st = self.state
        if st.outcome is not None:
            summary = {"winners": st.outcome.winners, "reason": st.outcome.reason,
                       "code": st.outcome.code,
                       "scores": {str(k): v for k, v in st.outcome.scores.items()},
                       "players": st.players, "phase_log": st.phase_log}
            summary.update(self.game.summary(st))
            self.log.set_status(self.id, "finished", summary)
        else:
            self.log.set_status(self.id, "open")

    # -- views ----------------------------------------------------------------------------------
    @property
    def version(self) -> int:
        """Records in the log. Every view carries it as ``rev``: unlike ``seq`` (commands in
        effect), it only grows, even when an undo rewinds the game, so a client can always tell
        a newer document from an older one."""
        return len(self.records)

    def public_view(self) -> dict:
        with self.lock:
            v = views.public(self.game, self.state)
            v["session"], v["rev"] = self.id, self.version
            v["story"] = self.story()
            return v

    def seat_view(self, seat: int) -> dict:
        with self.lock:
            v = views.seat(self.game, self.state, seat)
            v["session"], v["rev"] = self.id, self.version
            v["story"] = self.story(seat)
            return v

    def views(self, seats=None):
        """``(public view, {seat: seat view})`` of one moment, from one public projection."""
        with self.lock:
            pub = views.public(self.game, self.state)
            pub["session"], pub["rev"] = self.id, self.version
            seats = range(self.state.n) if seats is None else seats
            per_seat = {s: views.seat(self.game, self.state, s, pub) for s in seats}
            pub["story"] = self.story()
            for s, v in per_seat.items():
                v["story"] = self.story(s)
            return pub, per_seat

    def history(self, viewer=None) -> list:
        """The log as ``viewer`` (a seat, or None for the public) may see it: a sealed choice
        shows only its commitment unless the viewer owns it or it was revealed and not undone.
        The seed stays out until the game is over: it would tell every deck's order."""
        with self.lock:
            undone = {r["target"] for r in self.records if r.get("type") == "Undone"}
            out = []
            over = self.state.is_over()
            for v, r in enumerate(self.records):
                item = dict(r)
                if v == 0 and not over:
                    item.pop("seed", None)      # the seed would tell the deck order
                item["version"] = v
                item["undone"] = v in undone
                move = self.game.moves.get(r.get("move")) if r.get("kind") == "move" else None
                if move is not None and move.private and viewer != r.get("seat"):
                    item.pop("args", None)
                if "salt" in r and viewer != r.get("seat"):
                    w = self.state.windows.get(r.get("window"))
                    shown = (v not in undone and w is not None and w.is_revealed())
                    if not shown:
                        item.pop("args", None)
                        item.pop("salt", None)
                out.append(item)
            return out


class LeanSession:
    """A session for simulations: the same rules through the same :func:`~.game.apply`, with
    what only a table needs left out: no log (it counts its commands), no salts or
    commitments, no notices (nobody reads them), no locks, transaction ids or status. It offers
    what :func:`~.play.play_out` drives (``game``, ``state``, ``clock``, ``execute``, ``tick``)
    and plays every game exactly as :class:`Session` does for the same seed
    (tests/conformance/test_lean.py compares the final states of both paths)."""
    __slots__ = ("game", "state", "clock", "commands")

    def __init__(self, game, players, options=None, seed=0, clock=None):
        from .clock import FakeClock
        self.game = game
        self.clock = clock or FakeClock()
        self.state = new_state(game, players, options, seed,      # (new_state resolves them)
                               now=self.clock.now(), lean=True)
        self.commands = 0

    @property
    def version(self) -> int:
        """Records a :class:`Session` would hold now (the start and every command)."""
        return self.commands + 1

    def execute(self, seat, move, args=None):
        apply_move(self.game, self.state, seat, move, args or {}, None, self.clock.now())
        self.commands += 1

    def tick(self):
        now = self.clock.now()
        for name in self.state.due_timers(now):
            apply(self.game, self.state, {"kind": "timer", "timer": name, "at": now})
            self.commands += 1


def replay_story(game, records) -> list:
    """The story a session told, rebuilt from its log: every command applied in the order it
    came (an undone one too, until its undo), each undo as :meth:`Session.undo` made it."""
    if not records or records[0].get("type") != "SessionStarted":
        return []
    start = records[0]
    state = new_state(game, start["players"], start["options"], start["seed"],
                      now=start.get("at", 0.0))
    out = _story.begun(game, state)
    for version, rec in enumerate(records):
        if version == 0:
            continue
        if rec.get("type") == "Undone":
            locked = _open_locks(state)
            state = fold(game, records, version + 1)
            notices = (_withdrawn(locked, _open_locks(state))
                       + [_undone_notice(game, records[rec["target"]])])
        elif rec.get("kind") in COMMAND_KINDS:
            apply(game, state, rec)
            if "commitment" in rec:
                _stamp_lock(state, rec, version + 1)
            notices = state.notices
        else:
            continue
        out.extend(_story.entries(game, state, notices, version + 1,
                                  None if rec.get("type") == "Undone" else rec))
    return out


def _undone_notice(game, r) -> dict:
    """The public notice of an undo: what was taken back, and whose move it was."""
    n = {"kind": "Undone", "what": r.get("type")}
    if r.get("kind") == "move":
        if isinstance(r.get("seat"), int):
            n["seat"] = r["seat"]
        m = game.moves.get(r.get("move"))
        if m is not None:
            n["label"] = m.title()
    return n


def _stamp_lock(state, rec, rev):
    """Mark the lock-in ``rec`` made with ``rev``, the revision of the log that holds it (the
    ``rev`` of the first documents that show it): in its window's entry and in its
    ChoiceLocked notice. A lock-in withdrawn by an undo and made again gets a higher one, so a
    client tells a new lock-in from a changed one (docs/protocol.md, section 4.4)."""
    w = state.windows.get(rec.get("window"))
    e = w.entries.get(rec.get("seat")) if w is not None else None
    if e is not None:
        e.rev = rev
    for n in state.notices:
        if n["kind"] == "ChoiceLocked" and n["seat"] == rec.get("seat") \
                and n["window"] == rec.get("window"):
            n["rev"] = rev


def _open_locks(state) -> dict:
    """``{(window id, seat): commitment}`` of every lock-in not revealed yet."""
    return {(w.id, s): e.commitment for w in state.windows.values() if not w.revealed_flag
            for s, e in w.entries.items() if e.commitment}


def _withdrawn(before, after) -> list:
    """A ChoiceWithdrawn notice for each lock-in of ``before`` that ``after`` no longer has
    (an undo took it back): its window, seat and commitment, never the choice or the salt."""
    return [{"kind": "ChoiceWithdrawn", "window": w, "seat": s, "commitment": c}
            for (w, s), c in before.items() if after.get((w, s)) != c]


def _locked_window(state, rec):
    for n in state.notices:
        if n["kind"] == "ChoiceLocked" and n["seat"] == rec["seat"]:
            return n["window"]
    return None
