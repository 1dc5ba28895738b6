"""The table hub: one authority per table.

Every input (a phone's move, a touch, a card scan, a button, a timer deadline) becomes a call on
the :class:`Hub`; the hub checks it through the session (rules, sealed choices, durable log) and
then tells its subscribers that something changed. Views are pulled from the hub: the public
view for the screen and spectators, one seat view per phone. Nothing else holds game truth.

Threads: any thread may call the hub; the session's lock serialises commands. Subscribers are
called on the caller's thread (the MQTT bridge and the Kivy app marshal to their own). The
timer thread sleeps until the next deadline (or 0:30 warning) and ticks the session.
"""
import hashlib
import os
import secrets
import threading
import time

from companion.core.clock import SessionClock
from companion.core.errors import CompanionError, ConfigError, IllegalMoveError
from companion.core.session import Session

ROOM_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"          # no I or O: read aloud, typed on a phone


class JoinError(CompanionError):
    """A phone could not join: wrong room code, table full, or an unknown seat token."""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Seat:
    __slots__ = ("no", "name", "token_hash", "online", "phone", "seen")

    def __init__(self, no, name, token_hash=None, phone=False):
        self.no, self.name, self.token_hash, self.phone = no, name, token_hash, phone
        self.online = False
        self.seen = None

    def public(self):
        return {"seat": self.no, "name": self.name, "phone": self.phone,
                "online": self.online}


class Hub:
    def __init__(self, log, table="table", games=None, clock=None, room_code=None,
                 entropy=os.urandom):
        if games is None:
            from companion.games import get as games
        self.log = log
        self.table = table
        self.games = games
        self.entropy = entropy
        self.clock = clock
        self.room_code = room_code or "".join(
            ROOM_ALPHABET[b % len(ROOM_ALPHABET)] for b in entropy(4))
        self.session = None
        self.game_name = None
        self.options = {}
        self.seats = []
        self.alerts = []
        self.join_url = None
        self._subs = []
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._warned = set()
        self._timer_thread = None
        self._stopping = False

    # -- subscribers ------------------------------------------------------------------------------
    def subscribe(self, fn):
        """``fn(event)`` after every change. Events: ``{"kind": "changed", "version", "seq",
        "notices"}``
        (a command was applied), ``{"kind": "lobby"}``, ``{"kind": "alert", ...}``,
        ``{"kind": "presence", "seat", "online"}``, ``{"kind": "timer_warning", "timer"}``."""
        self._subs.append(fn)
        return lambda: self._subs.remove(fn)

    def _emit(self, event):
        for fn in list(self._subs):
            fn(event)

    # -- the lobby --------------------------------------------------------------------------------
    def configure(self, game, players=4, options=None, names=None):
        """Choose the game, player count and options before the start (the Home screen)."""
        with self._lock:
            if self.session is not None and not self.session.state.is_over():
                raise ConfigError("A game is running; finish it or start a new table.")
            g = self.games(game)
            g.check_players(players)
            self.options = g.resolve_options(options)
            self.game_name = g.name
            old = self.seats
            self.seats = [old[i] if i < len(old) else Seat(i, f"Seat {i + 1}")
                          for i in range(players)]
            for i, name in enumerate(names or ()):
                self.seats[i].name = name
            self.session = None
        self._emit({"kind": "lobby"})

    def join(self, name, room_code):
        """A phone joins: returns ``(seat, token)``. The token reclaims the seat later."""
        name = (name or "").strip()
        if not name or len(name) > 24:
            raise JoinError("Please give a name of 1 to 24 characters.")
        with self._lock:
            if (room_code or "").strip().upper() != self.room_code:
                raise JoinError("That room code is not this table's. Check the code on the "
                                "table screen.")
            if not self.seats:
                raise JoinError("The table has not chosen a game yet.")
            free = [s for s in self.seats if s.token_hash is None]
            if not free:
                raise JoinError("Every seat at this table is taken.")
            seat = free[0]
            token = secrets.token_urlsafe(18)
            seat.token_hash, seat.phone = _hash(token), True
            if self.session is None:
                seat.name = name
            self._save_seats()
        self._emit({"kind": "lobby"})
        return seat.no, token

    def reclaim(self, token):
        """A phone that slept or reloaded presents its token and gets its seat back."""
        h = _hash(token or "")
        with self._lock:
            for s in self.seats:
                if s.token_hash is not None and secrets.compare_digest(s.token_hash, h):
                    return s.no
        raise JoinError("This phone's seat is not at this table any more; join again.")

    def set_presence(self, seat, online):
        with self._lock:
            if not 0 <= seat < len(self.seats):
                return
            s = self.seats[seat]
            if s.online == online:
                return
            s.online, s.seen = online, time.time()
            name, phone = s.name, s.phone
        # subscribers are told after the lock is released (they may call back in)
        if not online and phone:
            self._alert("phone_disconnected", f"{name}'s phone is disconnected.",
                        key=f"presence-{seat}")
        else:
            self.clear_alert(f"presence-{seat}")
        self._emit({"kind": "presence", "seat": seat, "online": online})

    def _save_seats(self):
        self.update_session_meta(seats=[{"name": s.name, "token_hash": s.token_hash,
                                         "phone": s.phone} for s in self.seats])

    def update_session_meta(self, **fields):
        """Keep table facts (seats, the bridge's seat ids, ...) with the session, so a restart
        finds them. Thread-safe; a no-op before the game starts."""
        with self._lock:
            if self.session is None:
                return
            meta = dict(self.log.info(self.session.id).meta)
            if all(meta.get(k) == v for k, v in fields.items()):
                return
            meta.update(fields)
            self.log.set_meta(self.session.id, meta)

    def session_meta(self) -> dict:
        with self._lock:
            return dict(self.log.info(self.session.id).meta) if self.session else {}

    # -- starting and resuming --------------------------------------------------------------------
    def start(self, seed=None):
        with self._lock:
            if self.game_name is None:
                raise ConfigError("Choose a game first.")
            game = self.games(self.game_name)
            seats = [{"name": s.name, "token_hash": s.token_hash, "phone": s.phone}
                     for s in self.seats]
            self.session = Session.start(
                game, [s.name for s in self.seats], self.log, options=self.options,
                seed=seed, clock=self.clock or SessionClock(), entropy=self.entropy,
                meta={"table": self.table, "seats": seats, "room": self.room_code})
            self._warned.clear()
            self._wake.notify_all()
        self._emit({"kind": "changed", "version": self.session.version,
                    "notices": self.session.state.notices})
        return self.session

    def resume(self, session_id=None):
        """Resume a session from the log (the newest open one of this table by default)."""
        with self._lock:
            if session_id is None:
                open_ = [i for i in self.log.sessions() if i.status == "open"
                         and i.meta.get("table", self.table) == self.table]
                if not open_:
                    return None
                session_id = open_[-1].id
            self.session = Session.load(self.log, session_id, games=self.games,
                                        clock=None if self.clock is None else self.clock)
            meta = self.log.info(session_id).meta
            self.game_name = self.session.game.name
            self.options = dict(self.session.state.config)
            self.room_code = meta.get("room", self.room_code)
            self.seats = [Seat(i, d["name"], d.get("token_hash"), d.get("phone", False))
                          for i, d in enumerate(meta.get("seats") or
                                                [{"name": n} for n in
                                                 self.session.state.players])]
            self._wake.notify_all()
        self._emit({"kind": "changed", "version": self.session.version, "notices": []})
        return self.session

    def resumable(self):
        return [i for i in self.log.sessions() if i.status == "open"]

    # -- commands ---------------------------------------------------------------------------------
    def _need_session(self):
        if self.session is None:
            raise IllegalMoveError("No game is running at this table yet.")
        return self.session

    def _after(self, result):
        with self._lock:
            self._wake.notify_all()
        self._emit({"kind": "changed", "version": result.version, "seq": self.session.state.seq,
                    "notices": result.notices})
        return result

    def submit(self, seat, move, args=None):
        """A seat's move (from its phone or a touch on its part of the screen)."""
        return self._after(self._need_session().execute(seat, move, args or {}))

    def table_move(self, move, args=None):
        return self._after(self._need_session().execute(None, move, args or {}))

    def undo(self):
        return self._after(self._need_session().undo())

    def correct(self, seat, counter, delta, reason):
        return self._after(self._need_session().correct(seat, counter, delta, reason))

    def close_window(self, window_id):
        return self._after(self._need_session().close_window(window_id))

    def toggle_pause(self):
        """Pause every running timer, or resume every paused one."""
        s = self._need_session()
        timers = s.state.timers
        running = [t.name for t in timers.values() if not t.is_paused()]
        if running:
            return [self._after(s.pause_timer(n)) for n in running]
        return [self._after(s.resume_timer(t.name)) for t in list(timers.values())]

    def next(self):
        """The table's Next button: confirm the table prompt if there is one."""
        s = self._need_session()
        p = s.state.prompts.get(None)
        if p is None:
            waiting = ", ".join(s.state.players[x] for x in s.state.prompts if x is not None)
            raise IllegalMoveError(f"Waiting for {waiting}." if waiting else
                                   "Nothing to confirm.")
        move = p.get("next") or p["moves"][0]
        return self.table_move(move, p.get("next_args") or {})

    def press(self, button):
        """A physical button: ``next``, ``pause`` or ``undo``. Errors become alerts."""
        try:
            {"next": self.next, "pause": self.toggle_pause, "undo": self.undo}[button]()
        except CompanionError as e:
            self._alert("button", str(e), key="button")

    def scan(self, code, resolve=None):
        """A card was scanned. ``resolve(code) -> card_id`` checks the code (see
        ``companion.cardcodes``); problems become an alert and change nothing."""
        s = self.session
        try:
            card = resolve(code) if resolve else code
            if s is None:
                raise IllegalMoveError("No game is running; the scan was ignored.")
            hook = getattr(s.game, "scan_move", None)
            cmd = hook(s.state, card) if hook else None
            if cmd is None:
                self._emit({"kind": "scan", "card": card})
                return None
            seat, move, args = cmd
            return self._after(s.execute(seat, move, args))
        except CompanionError as e:
            self._alert("scan", str(e), key="scan")
            return None

    # -- alerts -----------------------------------------------------------------------------------
    def _alert(self, kind, message, key=None):
        with self._lock:
            key = key or kind
            self.alerts = [a for a in self.alerts if a["key"] != key][-4:]
            self.alerts.append({"key": key, "kind": kind, "message": message,
                                "at": time.time()})
        self._emit({"kind": "alert", "alert": kind, "message": message})

    def alert(self, kind, message, key=None):
        """An alert from outside the core (reader unplugged, ...)."""
        self._alert(kind, message, key)

    def clear_alert(self, key):
        with self._lock:
            before = len(self.alerts)
            self.alerts = [a for a in self.alerts if a["key"] != key]
            changed = len(self.alerts) != before
        if changed:
            self._emit({"kind": "alert", "alert": None, "message": None})

    # -- views ------------------------------------------------------------------------------------
    def _hub_part(self):
        return {"table": self.table, "room": self.room_code, "join_url": self.join_url,
                "game": self.game_name, "options": self.options,
                "seats": [s.public() for s in self.seats],
                "alerts": [{k: a[k] for k in ("key", "kind", "message")} for a in self.alerts]}

    def public_view(self):
        with self._lock:
            hub = self._hub_part()
            if self.session is None:
                return {"v": 1, "hub": hub, "phase": "lobby"}
            view = self.session.public_view()
            view["hub"] = hub
            return view

    def seat_view(self, seat):
        with self._lock:
            hub = self._hub_part()
            hub.pop("alerts")
            if self.session is None:
                return {"v": 1, "hub": hub, "phase": "lobby", "seat": seat}
            view = self.session.seat_view(seat)
            view["hub"] = hub
            return view

    def views(self, seats=None):
        """``(public view, {seat: seat view})`` of one moment: what the bridge publishes after
        a change, computed from one public projection."""
        with self._lock:
            hub = self._hub_part()
            seat_hub = dict(hub)
            seat_hub.pop("alerts")
            seats = range(len(self.seats)) if seats is None else seats
            if self.session is None:
                return ({"v": 1, "hub": hub, "phase": "lobby"},
                        {s: {"v": 1, "hub": seat_hub, "phase": "lobby", "seat": s}
                         for s in seats})
            pub, per_seat = self.session.views(seats)
            pub["hub"] = hub
            for v in per_seat.values():
                v["hub"] = seat_hub
            return pub, per_seat

    # -- timers -----------------------------------------------------------------------------------
    def start_timers(self):
        """Run the timer thread: ticks deadlines and announces 0:30 warnings."""
        if self._timer_thread is None:
            self._stopping = False
            self._timer_thread = threading.Thread(target=self._timer_loop, name="hub-timers",
                                                  daemon=True)
            self._timer_thread.start()

    def _next_wakeup(self):
        s = self.session
        if s is None or s.state.is_over():
            return None, None
        soon = None
        for t in s.state.timers.values():
            if t.deadline is None:
                continue
            for at, what in ((t.deadline - t.warn_before, ("warn", t.name, t.deadline)),
                             (t.deadline, ("due", t.name, t.deadline))):
                if what[0] == "warn" and (t.warn_before <= 0 or
                                          (t.name, t.deadline) in self._warned):
                    continue
                if soon is None or at < soon[0]:
                    soon = (at, what)
        return soon if soon else (None, None)

    def _timer_loop(self):
        while True:
            events = []
            with self._lock:
                if self._stopping:
                    return
                at, what = self._next_wakeup()
                if at is None:
                    self._wake.wait(1.0)
                    continue
                wait = at - self.session.clock.now()
                if wait > 0:
                    self._wake.wait(min(wait, 1.0))
                    continue
                if what[0] == "warn":
                    self._warned.add((what[1], what[2]))
                    events.append({"kind": "timer_warning", "timer": what[1]})
                else:
                    try:
                        for r in self.session.tick():
                            events.append({"kind": "changed", "version": r.version,
                                           "seq": self.session.state.seq,
                                           "notices": r.notices})
                    except CompanionError as e:
                        events.append({"kind": "alert", "alert": "timer", "message": str(e)})
            for e in events:
                self._emit(e)

    def stop(self):
        with self._lock:
            self._stopping = True
            self._wake.notify_all()
        if self._timer_thread is not None:
            self._timer_thread.join(timeout=2)
            self._timer_thread = None
