"""The table hub: one authority per table.

Every input (a phone's move, a touch, a card scan, a button, a timer deadline) becomes a call on
the :class:`Hub`; the hub checks it through the session (rules, sealed choices, durable log) and
then tells its subscribers that something changed. Views are pulled from the hub: the public
view for the screen and spectators, one seat view per phone. Nothing else holds game truth.

Threads: any thread may call the hub; the session's lock serialises commands. Subscribers are
called on the caller's thread (the MQTT bridge and the Kivy app marshal to their own). The
timer thread sleeps until the next deadline (or 0:30 warning) and ticks the session.
"""
import contextlib
import hashlib
import json
import os
import re
import secrets
import threading
import time
import unicodedata
from urllib.parse import urlsplit, urlunsplit

from companion.core.clock import SessionClock, fmt_clock
from companion.core.errors import CompanionError, ConfigError, IllegalMoveError, StorageError
from companion.core.session import Session

ROOM_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"          # no I or O: read aloud, typed on a phone
ROOM_LENGTH = 6                     # 24^6 ~ 1.9e8 codes; with /join's rate limit, years to guess
HANDOVER_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L: it may be read aloud
HANDOVER_LENGTH = 8                                   # 31^8 ~ 8.5e11: not guessable in minutes
HANDOVER_SECONDS = 600
MAX_NAME = 24
_DEFAULT_NAME = re.compile(r"Seat \d+")          # a seat nobody has named
#: A seat whose phone was given its login this recently counts as present while that phone
#: connects (its presence is not in yet): nobody can take it by name in that moment.
CLAIM_GRACE = 15.0
#: Alert kinds that are good news (the table joined its club): a view shows them as such, the
#: reader's speaker does not blip an error for them. The club raises them; the hub owns the kinds.
CLUB_JOINED = "club_joined"
GOOD_NEWS = frozenset({CLUB_JOINED})


class JoinError(CompanionError):
    """A phone could not join: wrong room code, table full, or an unknown seat token."""


class SeatMovedError(JoinError):
    """This phone's seat was handed over to another phone."""


class BadNameError(JoinError):
    """A name that is empty, too long, or has control or direction-changing characters."""


class NameTakenError(JoinError):
    """Another seat at this table already has that name."""


class TableFullError(JoinError):
    """Every seat has a phone. ``seats``: the seats whose phones are offline, which a new
    player may choose to take (``[{"seat", "name"}]``; empty when every phone is here)."""

    def __init__(self, message, seats=()):
        super().__init__(message)
        self.seats = list(seats)


class SeatTakenError(JoinError):
    """The seat asked for has its phone here (online): only a handover moves it."""


def clean_name(name) -> str:
    """A player's display name, normalised (NFKC, single spaces), or :class:`JoinError` with a
    sentence: 1 to 24 characters, no control or direction-changing characters, letters of one
    alphabet (so "Аnn" with a Cyrillic А cannot pass for "Ann")."""
    if not isinstance(name, str):
        raise BadNameError("Please give your name.")
    name = " ".join(unicodedata.normalize("NFKC", name).split())
    if not 1 <= len(name) <= MAX_NAME:
        raise BadNameError(f"Please give a name of 1 to {MAX_NAME} characters.")
    for ch in name:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Cn") or unicodedata.bidirectional(ch) in (
                "RLO", "LRO", "RLE", "LRE", "PDF", "RLI", "LRI", "FSI", "PDI"):
            raise BadNameError("Names can only use letters, digits, spaces and punctuation.")
    scripts = {_script(ch) for ch in name if ch.isalpha()}
    if len(scripts) > 1:
        raise BadNameError(f"A name may not mix alphabets ({' and '.join(sorted(scripts))}): "
                           f"two names that look alike must not be two players.")
    return name


def _unnamed(message: str, name) -> str:
    """A scan's message without the card's name (a card in someone's hand is private)."""
    if not name or name not in message:
        return message
    out = message.replace(name, "this card")
    return out[0].upper() + out[1:] if out.startswith("this card") else out


def _script(ch) -> str:
    """The alphabet of a letter, from its Unicode name (LATIN, CYRILLIC, GREEK, CJK...)."""
    try:
        word = unicodedata.name(ch).split()[0]
    except ValueError:
        return "OTHER"
    return {"HIRAGANA": "Han", "KATAKANA": "Han", "CJK": "Han"}.get(word, word.capitalize())


def _last_played(info):
    """Sort key of a stored session: when its last move was saved (then when it began)."""
    return info.updated, info.created


def _offline_phones(seats) -> str:
    """"Bo's phone is" / "Bo's and Cy's phones are" (the seats whose phones are offline)."""
    names = [f"{s.name}\u2019s" for s in seats]
    if len(names) == 1:
        return f"{names[0]} phone is"
    return f"{', '.join(names[:-1])} and {names[-1]} phones are"


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Seat:
    __slots__ = ("no", "name", "token_hash", "online", "phone", "seen", "claimed")

    def __init__(self, no, name, token_hash=None, phone=False, restored=False):
        self.no, self.name, self.token_hash, self.phone = no, name, token_hash, phone
        self.online = False
        self.seen = None
        # monotonic time a phone last joined or reclaimed it; a seat restored from the store
        # counts from now: its phone is reconnecting after the table's restart
        self.claimed = time.monotonic() if restored and token_hash is not None else None

    def has_phone_here(self) -> bool:
        """A phone holds this seat and is connected (or was given its login moments ago and is
        connecting). A seat with no phone, or whose phone is offline, is not held: its player
        may come back to it by name from the join QR, and a new player may choose it."""
        if self.token_hash is None:
            return False
        return self.online or (self.claimed is not None
                               and time.monotonic() - self.claimed < CLAIM_GRACE)

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
        kept = self._table_meta()
        #: what else the table keeps between runs (the club it joined), rewritten with the room
        self._kept = {k: v for k, v in kept.items() if k not in ("room", "lobby")}
        self.room_code = room_code or kept.get("room") or "".join(
            ROOM_ALPHABET[b % len(ROOM_ALPHABET)] for b in entropy(ROOM_LENGTH))
        self.session = None
        self.game_name = None
        self.options = {}
        self.seats = []
        self.alerts = []
        self.join_url = None
        #: the join address is only this machine's loopback because the box has no network
        #: yet (set by the server, which knows whether the address was found or given)
        self.join_offline = False
        self.last_scan = None
        self._handovers = {}                # code -> (seat, monotonic expiry)
        self._moved = {}                    # token hash of a handed-over seat -> seat
        self._left = {}                     # token hash of a phone offline at a new game -> name
        self._subs = []
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._marked = 0.0                  # monotonic time of the last clock heartbeat
        self._timer_thread = None
        self._stopping = False
        self.next_seed = None               # the seed of the next start, once (serve --seed)
        self._restore_lobby(kept.get("lobby"))

    # -- what a table keeps between runs ------------------------------------------------------------
    def _table_meta(self) -> dict:
        getter = getattr(self.log, "table_meta", None)
        try:
            return (getter(self.table) if getter else None) or {}
        except CompanionError:
            return {}

    def _restore_lobby(self, lobby):
        """A restart before the start keeps the room code, the game chosen and the seats taken
        (the phones reclaim them with their tokens)."""
        if not lobby or not lobby.get("game"):
            return
        try:
            g = self.games(lobby["game"])
            self.options = g.resolve_options(lobby.get("options"))
        except CompanionError:
            return
        self.game_name = g.name
        self.seats = [Seat(i, d["name"], d.get("token_hash"), d.get("phone", False),
                           restored=True) for i, d in enumerate(lobby.get("seats") or [])]

    def _save_table(self):
        """Keep the room code, and the lobby while no game runs, in the store."""
        setter = getattr(self.log, "set_table_meta", None)
        if setter is None:
            return
        lobby = None
        if self.session is None and self.game_name:
            options = {k: v for k, v in self.options.items() if k != "data"}   # which copy
            lobby = {"game": self.game_name, "options": options,        # is the run's --data
                     "seats": [{"name": x.name, "token_hash": x.token_hash, "phone": x.phone}
                               for x in self.seats]}
        try:
            setter(self.table, {**self._kept, "room": self.room_code, "lobby": lobby})
        except CompanionError as e:
            self._alert("storage", str(e), key="storage")

    def kept(self, key, default=None):
        """A fact this table keeps between runs besides its room and lobby (``"club"``)."""
        with self._lock:
            return self._kept.get(key, default)

    def keep(self, key, value):
        """Keep ``value`` under ``key`` (None forgets it) with the room and lobby, durably;
        a storage error raises (the caller says it where it was asked)."""
        with self._lock:
            if value is None:
                self._kept.pop(key, None)
            else:
                self._kept[key] = value
            setter = getattr(self.log, "set_table_meta", None)
            if setter is not None:
                lobby = (self._table_meta() or {}).get("lobby")
                setter(self.table, {**self._kept, "room": self.room_code, "lobby": lobby})

    # -- subscribers ------------------------------------------------------------------------------
    def subscribe(self, fn):
        """``fn(event)`` after every change. Events: ``{"kind": "changed", "version", "seq",
        "notices"}``
        (a command was applied), ``{"kind": "lobby"}``, ``{"kind": "alert", ...}``,
        ``{"kind": "handover", "seat", "claimed": True}`` (a new phone took a handed-over seat),
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
                raise ConfigError("A game is running: end it, abandon it or go Home first.")
            g = self.games(game)
            g.check_players(players)
            self.options = g.resolve_options(options)
            self.game_name = g.name
            self.seats = self._next_seats(players)
            for i, name in enumerate(names or ()):
                if self.seats[i].token_hash is None:
                    self.seats[i].name = name
            self.session = None
            self._save_table()
        self._emit({"kind": "lobby"})

    def _next_seats(self, players):
        """The seats of the next game at this table: each keeps its number (a phone's login
        belongs to its seat number) and the phones that are here (online, or given their login
        moments ago) keep their seats. A seat whose phone is offline is not carried as if
        present: it keeps its player's name but not the phone, and that phone's reclaim says to
        join again (the name then takes the seat back: protocol.md section 9.2)."""
        old = self.seats
        seats = [old[i] if i < len(old) else Seat(i, f"Seat {i + 1}") for i in range(players)]
        for s in seats:
            if s.token_hash is not None and not s.has_phone_here():
                self._left[s.token_hash] = s.name
                s.token_hash, s.phone, s.claimed = None, False, None
        return seats

    def join(self, name, room_code, seat=None):
        """A phone joins: returns ``(seat, token)``. The token reclaims the seat later.

        * A name that is a seat's name takes that seat if no phone is there: a seat without a
          phone, or one whose phone is offline (its player comes back on a new or reloaded
          phone; the old phone's token then answers "moved"). If that seat's phone is online,
          :class:`NameTakenError` (a player on a new phone moves the seat from the table screen).
        * Another name takes the first seat without a phone and gives it that name (a late
          joiner: the seat is renamed in the game too). With none left but some seats whose
          phones are offline, :class:`TableFullError` lists those seats (``.seats``) ...
        * ... and ``seat`` (a seat number) takes one of them on purpose, or any seat without a
          phone: a new player sits in for one who left. A seat whose phone is online is refused
          (:class:`SeatTakenError`)."""
        name = clean_name(name)
        with self._lock:
            if (room_code or "").strip().upper() != self.room_code:
                raise JoinError("That room code is not this table's. Check the code on the "
                                "table screen.")
            if not self.seats:
                raise JoinError("The table has not chosen a game yet.")
            same = [x for x in self.seats if x.name.casefold() == name.casefold()]
            if seat is not None:
                if isinstance(seat, bool) or not isinstance(seat, int) or \
                        not 0 <= seat < len(self.seats):
                    raise JoinError(f"There is no seat {seat!r} at this table.")
                target = self.seats[seat]
                if target.has_phone_here():
                    raise SeatTakenError(f"{target.name}'s phone is connected to that seat. If "
                                         f"that is your seat on a new phone, tap it on the table "
                                         f"screen and choose \u201cMove to a new phone\u201d.")
                if any(x is not target for x in same):
                    raise NameTakenError(f"Someone at this table is already called "
                                         f"{same[0].name}; pick another name.")
            elif same:
                target = same[0]
                if target.has_phone_here():
                    raise NameTakenError(
                        f"{target.name}'s seat already has a phone, and it is connected. If "
                        f"that is you on a new phone, tap your seat on the table screen and "
                        f"choose \u201cMove to a new phone\u201d; otherwise pick another name.")
            else:
                # seats nobody named first: a newcomer does not take a seat the table named
                # for someone (a player by touch, or one whose phone was away at the set-up)
                free = sorted((s for s in self.seats if s.token_hash is None),
                              key=lambda s: not _DEFAULT_NAME.fullmatch(s.name))
                if not free:
                    away = [s for s in self.seats if not s.has_phone_here()]
                    if away:
                        raise TableFullError(
                            f"Every seat has a player, and {_offline_phones(away)} offline. "
                            f"If you are taking a seat over, choose it; if it is yours, type "
                            f"your name as the table shows it.",
                            seats=[{"seat": s.no, "name": s.name} for s in away])
                    raise TableFullError("Every seat at this table is taken.")
                target = free[0]
            if target.token_hash is not None:       # its old phone: "Your seat moved ..."
                self._moved[target.token_hash] = target.no
            self._handovers = {c: v for c, v in self._handovers.items() if v[0] != target.no}
            token = secrets.token_urlsafe(18)
            target.token_hash, target.phone = _hash(token), True
            target.claimed = time.monotonic()
            result = None
            if target.name.casefold() != name.casefold():     # a new player's name
                target.name = name
                if self.session is not None and not self.session.state.is_over():
                    result = self.session.rename(target.no, name)
            self._save_seats()
        self._emit({"kind": "lobby"})
        self._emit({"kind": "handover", "seat": target.no, "claimed": True})
        if result is not None:
            self._after(result)
        return target.no, token

    def rename(self, seat, name):
        """A player's new name, before the start or during the game (recorded in the log)."""
        name = clean_name(name)
        with self._lock:
            if not isinstance(seat, int) or not 0 <= seat < len(self.seats):
                raise JoinError(f"There is no seat {seat!r} at this table.")
            others = [x for x in self.seats if x.no != seat
                      and x.name.casefold() == name.casefold()]
            if others:
                raise NameTakenError(f"Someone at this table is already called "
                                     f"{others[0].name}.")
            if self.seats[seat].name == name:
                return name
            self.seats[seat].name = name
            result = None
            if self.session is not None and not self.session.state.is_over():
                result = self.session.rename(seat, name)
            self._save_seats()
        self._emit({"kind": "lobby"})
        if result is not None:
            self._after(result)
        return name

    def seat_of_token(self, token):
        """The seat a phone's token holds (or :class:`JoinError`)."""
        return self.reclaim(token)

    # -- moving a seat to another phone ------------------------------------------------------------
    def handover(self, seat):
        """A one-seat join code for ``seat``: the first phone that opens its URL gets the seat
        and the old phone is cut off. The code is shown only on the table screen (never in a
        view). Returns ``{"seat", "code", "url", "expires_in"}``."""
        with self._lock:
            if not isinstance(seat, int) or not 0 <= seat < len(self.seats):
                raise JoinError(f"There is no seat {seat!r} at this table.")
            code = "".join(secrets.choice(HANDOVER_ALPHABET) for _ in range(HANDOVER_LENGTH))
            self._handovers = {c: v for c, v in self._handovers.items()
                               if v[0] != seat and v[1] > time.monotonic()}
            self._handovers[code] = (seat, time.monotonic() + HANDOVER_SECONDS)
            url = self.join_url or ""
            if url:
                parts = urlsplit(url)
                url = urlunsplit((parts.scheme, parts.netloc, parts.path or "/",
                                  f"seat={code}", ""))
        return {"seat": seat, "code": code, "url": url, "expires_in": HANDOVER_SECONDS}

    def cancel_handover(self, seat):
        with self._lock:
            self._handovers = {c: v for c, v in self._handovers.items() if v[0] != seat}

    def claim_handover(self, code):
        """A phone opened a handover URL: ``(seat, token)``; the seat's old token stops
        working (its reclaim says the seat moved)."""
        code = (code or "").strip().upper() if isinstance(code, str) else ""
        with self._lock:
            got = self._handovers.pop(code, None)
            if got is None or got[1] < time.monotonic() or got[0] >= len(self.seats):
                raise JoinError("That seat code is not valid any more; ask the table to show "
                                "a new one.")
            seat = self.seats[got[0]]
            if seat.token_hash is not None:
                self._moved[seat.token_hash] = seat.no
            token = secrets.token_urlsafe(18)
            seat.token_hash, seat.phone = _hash(token), True
            seat.claimed = time.monotonic()
            self._save_seats()
        self._emit({"kind": "lobby"})
        self._emit({"kind": "handover", "seat": seat.no, "claimed": True})
        return seat.no, token

    def reclaim(self, token):
        """A phone that slept or reloaded presents its token and gets its seat back."""
        h = _hash(token or "")
        with self._lock:
            for s in self.seats:
                if s.token_hash is not None and secrets.compare_digest(s.token_hash, h):
                    s.claimed = time.monotonic()
                    return s.no
            if h in self._moved:
                raise SeatMovedError("Your seat moved to another phone.")
            if h in self._left:
                raise JoinError(f"This phone was offline when the table set up a new game. "
                                f"Tap Join to sit down again as {self._left[h]}.")
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
        if self.session is None:
            self._save_table()
            return
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
        """Start the game set up in the lobby. ``seed``: the deal (default: ``next_seed``
        once, as ``companion serve --seed`` sets it, else a random one)."""
        with self._lock:
            if self.game_name is None:
                raise ConfigError("Choose a game first.")
            if self.session is not None and not self.session.state.is_over():
                # checked under the lock: two starts at once (the table's tap and a server's
                # automatic start) must not make two games
                raise ConfigError("A game is already running: end it or go Home first.")
            game = self.games(self.game_name)
            if seed is None:
                seed = self.next_seed
            self.next_seed = None
            seats = [{"name": s.name, "token_hash": s.token_hash, "phone": s.phone}
                     for s in self.seats]
            self.session = Session.start(
                game, [s.name for s in self.seats], self.log, options=self.options,
                seed=seed, clock=self.clock or SessionClock(), entropy=self.entropy,
                meta={"table": self.table, "seats": seats, "room": self.room_code})
            self._save_table()                  # the lobby became this session
            self._wake.notify_all()
        self._emit({"kind": "changed", "version": self.session.version,
                    "notices": self.session.state.notices})
        return self.session

    def resume(self, session_id=None):
        """Resume a session from the log (by default this table's open one that was played
        last: after a crash, the game that was being played, even if a newer one is open)."""
        restarted = session_id is None         # at the table's start, not from Home
        with self._lock:
            if (self.session is not None and not self.session.state.is_over()
                    and session_id != self.session.id):
                raise ConfigError("A game is running: go Home first, then resume another.")
            if session_id is None:
                open_ = [i for i in self.log.sessions() if i.status == "open"
                         and i.meta.get("table", self.table) == self.table]
                if not open_:
                    return None
                session_id = max(open_, key=_last_played).id
            self.session = Session.load(self.log, session_id, games=self.games,
                                        clock=None if self.clock is None else self.clock)
            meta = self.log.info(session_id).meta
            self.game_name = self.session.game.name
            self.options = dict(self.session.state.config)
            self.room_code = meta.get("room", self.room_code)
            self.seats = [Seat(i, d["name"], d.get("token_hash"), d.get("phone", False),
                               restored=True)
                          for i, d in enumerate(meta.get("seats") or
                                                [{"name": n} for n in
                                                 self.session.state.players])]
            # only the table knows it stopped and came back (the log tells the rest); a game
            # nobody has played a move in yet has nothing to resume: its feed starts with the
            # game, not with "The table restarted."
            if self.session.version > 1:
                self.session.tell("The table restarted." if restarted else
                                  "The table resumed this game.")
            paused = self._pause_after_restart()
            self._wake.notify_all()
        self._emit({"kind": "changed", "version": self.session.version, "notices": []})
        if paused:
            self._alert("restart", "The table restarted: " + "; ".join(paused) + ". Tap "
                        "Resume when everyone is ready.", key="restart")
        return self.session

    def _pause_after_restart(self):
        """A timer that was running when the table stopped comes back paused with the time it
        had left (the outage itself is not counted; nobody could play meanwhile)."""
        s = self.session
        out = []
        if s.state.is_over() or s.abandoned:
            return out
        paused = {}                 # (kind, time left) -> how many: said once per group
        for t in list(s.state.timers.values()):
            if t.deadline is not None:
                s.pause_timer(t.name)
                # "turn:b1.2" (one turn timer per battle) is a turn timer to the players
                kind = t.name.split(":")[0].replace("-", " ")
                key = (kind, fmt_clock(s.state.timers[t.name].remaining))
                paused[key] = paused.get(key, 0) + 1
        for (kind, left), n in paused.items():
            out.append(f"the {kind} timer is paused at {left}" if n == 1 else
                       f"the {n} {kind} timers are paused at {left}")
        return out

    def resumable(self):
        """This table's open sessions, the last played first, as ``{"id", "game", "title",
        "players", "round", "phase_label", "started", "updated", "records"}`` for the Home
        screen (``updated``: the wall-clock time of its last saved move)."""
        out = []
        for info in sorted(self.log.sessions(), key=_last_played, reverse=True):
            if info.status != "open" or info.meta.get("table", self.table) != self.table:
                continue
            if self.session is not None and info.id == self.session.id:
                continue
            item = {"id": info.id, "game": info.game, "title": info.game,
                    "players": list(info.meta.get("players") or []), "round": None,
                    "phase_label": None, "started": info.created, "updated": info.updated,
                    "records": info.length}
            try:
                game = self.games(info.game)
                item["title"] = game.title
                if len(out) < 12:                    # the newest: say where they stand
                    state = Session.load(self.log, info.id, games=self.games).state
                    item.update(players=list(state.players), round=state.round,
                                phase_label=game.phases[state.phase].label or state.phase)
            except CompanionError as e:
                item["problem"] = str(e) or "does not replay"     # e.g. its edited data is gone
            out.append(item)
        return out

    def _leave(self):
        """Back to Home: no game chosen; phones keep their seats for the next game."""
        if self.session is not None and not self.session.abandoned:
            self.session.mark_time()
        self.session = None
        self.game_name = None
        self._save_table()
        self._wake.notify_all()

    def suspend(self):
        """Go Home and leave the running game open: it can be resumed later."""
        with self._lock:
            self._leave()
        self._emit({"kind": "lobby"})

    def abandon(self):
        """Give up the running game (recorded; its log says ``abandoned``) and go Home."""
        with self._lock:
            s = self._need_session()
            s.abandon()
            self._leave()
        self._emit({"kind": "lobby"})

    def end_game(self):
        """End the running game now with the scores as they stand (the Victory screen)."""
        return self._saving(self._need_session().end_early)

    # -- commands ---------------------------------------------------------------------------------
    def _need_session(self):
        if self.session is None:
            raise IllegalMoveError("No game is running at this table yet.")
        return self.session

    def _after(self, result):
        with self._lock:
            self._wake.notify_all()
            settled = next((n for n in result.notices if n.get("kind") == "MismatchSettled"),
                           None)
            if settled is not None and (self.last_scan or {}).get("result") == "mismatch":
                # the table settled the scanned card: the red banner has done its work; the
                # screens say what was kept
                kept = "the scanned card" if settled.get("keep") == "scanned" else \
                    "the phone's choice"
                self.last_scan = dict(self.last_scan, result="settled", at=time.time(),
                                      message=f"Settled: the table kept {kept}.")
        self.clear_alert("storage")                 # it saved: writing works again
        self._emit({"kind": "changed", "version": result.version, "seq": self.session.state.seq,
                    "notices": result.notices})
        return result

    def _saving(self, fn, *args, **kw):
        """Run a session command; a store that cannot save becomes an alert on every screen
        (once per kind of failure, not once per move) and the same refusal for the caller."""
        try:
            return self._after(fn(*args, **kw))
        except StorageError as e:
            self._alert("storage", str(e), key="storage")
            raise

    @contextlib.contextmanager
    def batch(self):
        """Commands inside share one save (group commit: one fsync for the commands that
        arrived together, see :meth:`SQLiteLog.batch`); the hub stays locked meanwhile, so no
        other writer joins. Nothing inside may be acknowledged before the block ends. If the
        save fails, the session goes back to what the log holds (every command of the block
        is forgotten), the screens get the storage alert, and :class:`StorageError` is raised
        for the caller to answer each of them "not saved"."""
        lost = None
        with self._lock:
            s = self.session
            mark = s.version if s is not None else None
            try:
                with self.log.batch():
                    yield
            except StorageError as e:
                lost = e
                if s is not None and self.session is s:
                    s.rewind(mark)
                self._wake.notify_all()
        if lost is not None:
            self._alert("storage", str(lost), key="storage")
            if s is not None and self.session is s:
                self._emit({"kind": "changed", "version": s.version, "seq": s.state.seq,
                            "notices": []})
            raise lost

    def submit(self, seat, move, args=None, tx=None):
        """A seat's move (from its phone or a touch on its part of the screen). ``tx``: the
        phone's transaction id, recorded with the move (see :meth:`Session.find_tx`)."""
        return self._saving(self._need_session().execute, seat, move, args or {}, tx=tx)

    def table_move(self, move, args=None):
        return self._saving(self._need_session().execute, None, move, args or {})

    def undo(self):
        return self._saving(self._need_session().undo)

    def correct(self, seat, counter, delta, reason):
        return self._saving(self._need_session().correct, seat, counter, delta, reason)

    def close_window(self, window_id):
        return self._saving(self._need_session().close_window, window_id)

    def toggle_pause(self):
        """Pause every running timer, or resume every paused one."""
        self.clear_alert("restart")
        s = self._need_session()
        timers = s.state.timers
        running = [t.name for t in timers.values() if not t.is_paused()]
        if running:
            return [self._saving(s.pause_timer, n) for n in running]
        return [self._saving(s.resume_timer, t.name) for t in list(timers.values())]

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
        card = None
        try:
            card = resolve(code) if resolve else code
            if s is None:
                raise IllegalMoveError("No game is running; the scan was ignored.")
            hook = getattr(s.game, "scan_move", None)
            cmd = hook(s.state, card) if hook else None
            if cmd is None:
                # a card nobody asked about may be in someone's hand: acknowledge the scan
                # without naming it on the public screens
                self._scanned(None, "read", "Read; nothing to check with it now.",
                              name="A card")
                return None
            seat, move, args = cmd
            result = s.execute(seat, move, args)
        except CompanionError as e:
            # a refused scan may be a card from someone's hand: its name stays off the public
            # screens (whoever holds it to the reader knows which card it is) - unless the
            # card is face up for everyone already (on the board, flipped, in play)
            if card is not None and self._face_up(card):
                message = str(e)
                self._scanned(card, "refused", message)
            else:
                message = _unnamed(str(e), self._card_name(card))
                if card is not None:
                    message = message.rstrip(".") + ". (Its name stays off the screens: it " \
                                                     "may be from someone's hand.)"
                self._scanned(None, "unknown" if card is None else "refused", message)
            self._alert("scan", message, key="scan")
            return None
        kinds = {n["kind"] for n in result.notices}
        sealed = getattr(s.game.moves.get(move), "sealed", None) is not None
        if sealed and seat is not None:
            # a card put down face down (a Trade Warz Export) is a sealed choice: the screens
            # say that it was placed, never which card it is, until its reveal
            self._scanned(None, "recorded", f"Placed for {s.state.players[seat]}; it stays "
                                            f"secret until it is revealed.",
                          name="Face-down card")
        elif "ScanMismatch" in kinds:
            self._scanned(card, "mismatch", "Does not match what was chosen on the phone: "
                                            "the table decides which card counts.")
        elif "ScanConfirmed" in kinds:
            self._scanned(card, "matched", "Matches what was chosen on the phone.")
        else:
            self._scanned(card, "recorded", "Recorded.")
        self.clear_alert("scan")
        return self._after(result)

    def _face_up(self, card) -> bool:
        """Is ``card`` named in the public view already (face up for everyone)?"""
        s = self.session
        if s is None or not isinstance(card, str):
            return False
        try:
            return json.dumps(s.public_view().get("game_view")).find(f'"{card}"') >= 0
        except (TypeError, ValueError, CompanionError):
            return False

    def _card_name(self, card):
        if card is None or not self.game_name:
            return None
        try:
            from companion.games import card_catalog
            return ((card_catalog(self.game_name) or {}).get("cards") or {}).get(card)
        except CompanionError:
            return None

    def _scanned(self, card, result, message, name=None):
        """Remember and announce a scan, so the screens can acknowledge every one. Only a
        card whose identity is public (it matched, or failed to match, a revealed choice) is
        named."""
        if card is not None:
            name = self._card_name(card) or name
        scan = {"card": card, "name": name or card, "result": result, "message": message,
                "at": time.time()}
        with self._lock:
            self.last_scan = scan
        self._emit(dict(scan, kind="scan"))

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
                "join_offline": self.join_offline,
                "game": self.game_name, "title": self._title(), "options": self.options,
                "seats": [s.public() for s in self.seats],
                "scan": self.last_scan,
                "alerts": [{k: a[k] for k in ("key", "kind", "message")} for a in self.alerts],
                "devices": self._devices_part()}

    def _title(self):
        """The name of what this table plays, in its edition (Tariff Warz, not Trade Warz):
        for the lobby, where no game view says it yet."""
        if not self.game_name:
            return None
        try:
            game = self.games(self.game_name)
        except Exception:                   # a game this box does not have
            return None
        from companion.lab.games import edition_of
        return edition_of(game, self.options) or game.title

    def _devices_part(self):
        """What the buzzer and the light follow, game-neutral (the hardware glue reads only
        this view): the game's light cue and how it wants reveals counted down."""
        s = self.session
        if s is None:
            return {"cue": None, "reveal_count": "auto"}
        return {"cue": s.game.cue(s.state), "reveal_count": s.game.reveal_count}

    @property
    def game(self):
        """The game the table plays, as a definition (its rules and data; None at Home): what
        screens may read besides the views. Never its state."""
        s = self.session
        return s.game if s is not None else None

    def history(self, viewer=None):
        """The running game's log as ``viewer`` (a seat, None: the public) may see it ([] at
        Home)."""
        with self._lock:
            return self.session.history(viewer) if self.session is not None else []

    def session_time(self):
        """The session clock now (None without a session), to turn a view's deadlines into
        the devices' monotonic time."""
        with self._lock:
            return self.session.clock.now() if self.session is not None else None

    def summary(self):
        """The finished (or running) game's summary for the table screen: score curve, time
        per phase and per round (:func:`companion.lab.facts.game_summary`); None with no game."""
        with self._lock:
            if self.session is None:
                return None
            from companion.lab.facts import game_summary
            return game_summary(self.session)

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
            hub.pop("devices")
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
            seat_hub.pop("devices")
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
                if what[0] == "warn" and (t.warn_before <= 0 or t.warned):
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
                self._heartbeat()
                wait = at - self.session.clock.now()
                if wait > 0:
                    self._wake.wait(min(wait, 1.0))
                    continue
                if what[0] == "warn":
                    try:
                        r = self.session.warn(what[1])
                        events.append({"kind": "changed", "version": r.version,
                                       "seq": self.session.state.seq, "notices": r.notices})
                        events.append({"kind": "timer_warning", "timer": what[1]})
                    except CompanionError as e:
                        events.append({"kind": "alert", "alert": "timer", "message": str(e)})
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

    def _heartbeat(self, every=1.0):
        """While a timer runs, note the session clock in the store once a second: after a
        crash the timer comes back with the time it had left (to within that second)."""
        s = self.session
        if s is None or not any(t.deadline is not None for t in s.state.timers.values()):
            return
        now = time.monotonic()
        if now - self._marked >= every:
            self._marked = now
            try:
                s.mark_time()
            except Exception as e:          # a full disk must not stop the timers
                self._alert("storage", f"Cannot save the clock: {e}", key="storage")

    def answers(self, within: float) -> bool:
        """Is the hub free to take a command within ``within`` seconds (not stuck)? For a
        watchdog: the systemd unit's pings stop while this says no."""
        if not self._lock.acquire(timeout=within):
            return False
        self._lock.release()
        return True

    def stop(self):
        with self._lock:
            self._stopping = True
            s = self.session
            if s is not None and not s.abandoned:
                try:
                    s.mark_time()           # a clean stop: timers keep exactly their time
                except Exception:
                    pass
            self._wake.notify_all()
        if self._timer_thread is not None:
            self._timer_thread.join(timeout=2)
            self._timer_thread = None
