"""Who sits where: the seats of a table and the phones that hold them. The room code's alphabet,
joining by name (a late joiner, a player back on a new phone, a newcomer sitting in for one
who left), renaming, the seat token a phone reclaims its seat with, handing a seat over to
another phone by a one-time code, and each seat's presence. Also the names themselves
(:func:`clean_name`: one alphabet, no control characters) and the errors a phone is told.
"""
from __future__ import annotations

import hashlib
import re
import secrets
import time
import unicodedata
from urllib.parse import urlsplit, urlunsplit

from companion.core.errors import CompanionError


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


def _script(ch) -> str:
    """The alphabet of a letter, from its Unicode name (LATIN, CYRILLIC, GREEK, CJK...)."""
    try:
        word = unicodedata.name(ch).split()[0]
    except ValueError:
        return "OTHER"
    return {"HIRAGANA": "Han", "KATAKANA": "Han", "CJK": "Han"}.get(word, word.capitalize())


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


class Seating:
    """The hub's seats: joining, renaming, reclaiming, handing over, presence."""

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
