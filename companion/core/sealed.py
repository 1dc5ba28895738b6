"""Sealed choices: every seat in a window submits once; nobody sees anything but a commitment
until all are in (or the table closes the window); then every choice comes out together with
its salt, so anyone can check it against the commitment published at lock-in.

Commitment = SHA-256 over the canonical encoding (see :func:`canonical`) of
``{"choice": ..., "salt": ..., "seat": ..., "window": ...}``. The salt is 16 random bytes (128
bits) as 32 hex digits, drawn by the session for every choice, so two equal bids never have
equal commitments and a small choice space cannot be brute-forced.

>>> c = commitment("bids:t1", 0, ["navy", "army"], "00" * 16)
>>> verify("bids:t1", 0, ["navy", "army"], "00" * 16, c)
True
>>> verify("bids:t1", 0, ["army", "navy"], "00" * 16, c)
False
"""
import hashlib
import json
import re

from .errors import SealedChoiceError

SALT_BYTES = 16


def canonical(value) -> bytes:
    """The canonical encoding: JSON, keys sorted, no spaces, UTF-8.

    >>> canonical({"b": 1, "a": [True, None, "é"]})
    b'{"a":[true,null,"\\xc3\\xa9"],"b":1}'
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


_PLAIN = re.compile(r'[ !#-\[\]-~]*\Z')       # printable ASCII that JSON writes as it is


def _canon(v) -> bytes:
    """canonical(v), with a shortcut for the plain ints and strings that ids and salts are."""
    t = type(v)
    if t is int:
        return str(v).encode()
    if t is str and _PLAIN.match(v):
        return b'"' + v.encode() + b'"'
    return canonical(v)


def commitment(window: str, seat: int, choice, salt: str) -> str:
    # The same bytes as canonical({"choice":..., "salt":..., "seat":..., "window":...}):
    # the keys are written in their sorted order, each value canonically encoded.
    body = b"".join((b'{"choice":', _canon(choice), b',"salt":', _canon(salt),
                     b',"seat":', _canon(seat), b',"window":', _canon(window), b"}"))
    return hashlib.sha256(body).hexdigest()


def verify(window: str, seat: int, choice, salt: str, digest: str) -> bool:
    return commitment(window, seat, choice, salt) == digest


class Entry:
    """One seat's locked choice. ``rev``: the session's revision of the lock-in (the ``rev``
    of the first documents that show it), set by the session, not by the rules; a lock-in
    withdrawn by an undo and made again has a higher one. None where no log counts them."""
    __slots__ = ("choice", "salt", "commitment", "defaulted", "rev")

    def __init__(self, choice, salt, digest, defaulted=False):
        self.choice, self.salt, self.commitment, self.defaulted = choice, salt, digest, defaulted
        self.rev = None


class Window:
    """One round of sealed choices. Games read choices only through :meth:`revealed`."""

    __slots__ = ("id", "kind", "seats", "entries", "revealed_flag", "on_reveal", "default",
                 "label", "hold")

    def __init__(self, wid, kind, seats, on_reveal, default=None, label="", hold=False):
        self.id = wid
        self.kind = kind
        self.seats = tuple(seats)
        self.entries = {}
        self.revealed_flag = False
        self.on_reveal = on_reveal          # fn(state, window), called at the reveal
        self.default = default              # used for seats left out when the table closes it
        self.label = label
        self.hold = hold                    # True: stays sealed when complete, until closed

    # -- questions --------------------------------------------------------------------------
    def is_complete(self) -> bool:
        return len(self.entries) == len(self.seats)

    def is_revealed(self) -> bool:
        return self.revealed_flag

    def has_locked(self, seat) -> bool:
        return seat in self.entries

    def waiting_on(self):
        return [s for s in self.seats if s not in self.entries]

    # -- changes ----------------------------------------------------------------------------
    def seal(self, seat, choice, salt, who=None):
        """Lock ``seat``'s choice in. ``who`` is the player's name for the messages (a seat
        number means nothing to a player)."""
        who = who or f"Seat {seat}"
        if self.revealed_flag:
            raise SealedChoiceError(f"{self.label or self.id} is already revealed.")
        if seat not in self.seats:
            raise SealedChoiceError(f"{who} has no choice to make in "
                                    f"{self.label or self.id}.")
        if seat in self.entries:
            raise SealedChoiceError(f"{who} has already locked in for "
                                    f"{self.label or self.id}.")
        if not isinstance(salt, str) or len(salt) < 2 * SALT_BYTES:
            raise SealedChoiceError("A sealed choice needs a salt of at least 128 bits.")
        digest = commitment(self.id, seat, choice, salt)
        self.entries[seat] = Entry(choice, salt, digest)
        return digest

    def put(self, seat, choice):
        """Lock in a choice without salt or commitment: a lean state's (simulations), where
        nobody is there to check one. The same checks as :meth:`seal`."""
        if self.revealed_flag or seat not in self.seats or seat in self.entries:
            self.seal(seat, choice, "0" * 32)           # raises the right error
        self.entries[seat] = Entry(choice, "", "")

    def fill_defaults(self):
        for s in self.waiting_on():
            self.entries[s] = Entry(self.default, "", "", defaulted=True)

    def reveal(self):
        self.revealed_flag = True

    def revealed(self) -> dict:
        """Every seat's choice; only after the reveal."""
        if not self.revealed_flag:
            raise SealedChoiceError(f"{self.label or self.id} is not revealed yet.")
        return {s: e.choice for s, e in self.entries.items()}

    # -- projection -------------------------------------------------------------------------
    def view(self, viewer):
        """What ``viewer`` (a seat, or None for the public) may see of this window."""
        out = {"id": self.id, "kind": self.kind, "label": self.label, "seats": list(self.seats),
               "revealed": self.revealed_flag, "locked": {}}
        for s in self.seats:
            e = self.entries.get(s)
            if e is None:
                continue
            item = {"commitment": e.commitment, "defaulted": e.defaulted}
            if e.rev is not None:
                item["rev"] = e.rev
            if self.revealed_flag or viewer == s:
                item["choice"] = e.choice
                item["salt"] = e.salt
            out["locked"][str(s)] = item
        return out

    def fingerprint(self):
        return [self.id, self.kind, list(self.seats), self.revealed_flag,
                getattr(self.on_reveal, "__name__", self.on_reveal),
                self.hold,
                sorted((s, e.choice, e.salt, e.commitment, e.defaulted)
                       for s, e in self.entries.items())]
