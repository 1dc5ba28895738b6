"""Card codes: what a card's QR code or NFC tag says, and how the table turns it into a card.

Standard library only. One scheme for QR payloads and NDEF Text records::

    tc1:<game>:<card-id>:<copy>:<db-version>:<check>

* ``tc1`` - the scheme and its version;
* ``game`` - the game's registry name (``trade-warz``);
* ``card-id`` - the id in that game's card catalog;
* ``copy`` - which physical copy (1, 2, ...) when a deck holds duplicates;
* ``db-version`` - the catalog version the card was printed for;
* ``check`` - CRC-16/CCITT-FALSE of everything before the last ``:``, four upper-case hex
  digits: a damaged read, a torn sticker or a typo is caught instead of becoming another card.

Fields other than ``copy`` may hold any text: ``%``, ``:``, ``/``, spaces and non-ASCII are
percent-encoded (UTF-8), so any catalog id fits. Example::

    >>> c = CardCode("trade-warz", "export-014", 2, "2024.11")
    >>> c.format()
    'tc1:trade-warz:export-014:2:2024.11:42E1'
    >>> parse_code(c.format()) == c
    True

A blank NFC tag can instead be *bound*: :class:`UidBindings` maps tag UIDs to codes, filled by
:class:`Provisioning` (tap the tag, pick the card). :func:`identify` takes what a scan gave
(code, UID, problem) and returns a :class:`Card`, or raises one of the :class:`CardCodeError`
subclasses below, each with a sentence for the table; nothing is changed by a failed scan.
"""
import dataclasses
import json
import os
import tempfile
from pathlib import Path

from companion.core.errors import CompanionError

SCHEME = "tc1"
_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")


class CardCodeError(CompanionError):
    """A scan that does not give a card of this game. Nothing was changed."""


class NotACardCodeError(CardCodeError):
    """The text is not a Table Companion card code at all (a web address, another system)."""


class DamagedCodeError(CardCodeError):
    """It looks like a card code but is damaged: wrong check digits, missing fields, bad tag."""


class WrongGameError(CardCodeError):
    """A card of another game."""

    def __init__(self, message, card_game=None, table_game=None):
        super().__init__(message)
        self.card_game, self.table_game = card_game, table_game


class UnknownCardError(CardCodeError):
    """This game's code, but the card id is not in the catalog."""


class UnboundTagError(CardCodeError):
    """A blank NFC tag that has not been bound to a card."""

    def __init__(self, message, uid=None):
        super().__init__(message)
        self.uid = uid


class BindingError(CardCodeError):
    """A provisioning step out of order, or a tag that is already bound to another card."""


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE (the same check as the reader protocol).

    >>> "%04X" % crc16(b"123456789")
    '29B1'
    """
    for b in data:
        crc ^= b << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def _quote(text: str) -> str:
    return "".join(c if c in _SAFE else "".join("%%%02X" % b for b in c.encode("utf-8"))
                   for c in text)


def _unquote(text: str) -> str:
    out = bytearray()
    i = 0
    raw = text.encode("utf-8")
    while i < len(raw):
        if raw[i] == 0x25:  # %
            h = raw[i + 1:i + 3]
            if len(h) != 2 or not all(c in b"0123456789abcdefABCDEF" for c in h):
                raise ValueError("bad percent escape")
            out.append(int(h, 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8")


@dataclasses.dataclass(frozen=True)
class CardCode:
    game: str
    card_id: str
    copy: int = 1
    db_version: str = "1"

    def __post_init__(self):
        for name in ("game", "card_id", "db_version"):
            v = getattr(self, name)
            if not isinstance(v, str) or not v:
                raise ValueError(f"a card code's {name} must be non-empty text, not {v!r}")
        if not isinstance(self.copy, int) or isinstance(self.copy, bool) or self.copy < 1:
            raise ValueError(f"a card code's copy must be a whole number from 1, not {self.copy!r}")

    def format(self) -> str:
        body = ":".join((SCHEME, _quote(self.game), _quote(self.card_id), str(self.copy),
                         _quote(self.db_version)))
        return "%s:%04X" % (body, crc16(body.encode("ascii")))


def format_code(game: str, card_id: str, copy: int = 1, db_version: str = "1") -> str:
    return CardCode(game, card_id, copy, db_version).format()


def parse_code(text) -> CardCode:
    """A :class:`CardCode` from scanned text; NotACardCodeError or DamagedCodeError if not."""
    if not isinstance(text, str):
        raise NotACardCodeError("That scan held no text, so it is not a card.")
    text = text.strip()
    if not text.lower().startswith(SCHEME + ":"):
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise NotACardCodeError(f"That is not a Table Companion card code ({shown!r}).")
    parts = text.split(":")
    if len(parts) != 6:
        raise DamagedCodeError("This card's code is damaged (it has "
                               f"{len(parts)} parts, not 6). Scan it again.")
    body = text[:text.rfind(":")]
    check = parts[5].upper()
    try:
        body_bytes = body.encode("ascii")
    except UnicodeEncodeError:
        raise DamagedCodeError("This card's code is damaged (unexpected characters). "
                               "Scan it again.") from None
    if len(check) != 4 or "%04X" % crc16(SCHEME.encode() + body_bytes[3:]) != check:
        raise DamagedCodeError("This card's code is damaged (its check digits do not match). "
                               "Scan it again.")
    try:
        game, card_id, db_version = (_unquote(parts[1]), _unquote(parts[2]), _unquote(parts[4]))
    except (ValueError, UnicodeDecodeError):
        raise DamagedCodeError("This card's code is damaged (a bad % escape). "
                               "Scan it again.") from None
    if not parts[3].isdigit() or not parts[3].isascii():
        raise DamagedCodeError("This card's code is damaged (the copy number is not a number).")
    try:
        return CardCode(game, card_id, int(parts[3]), db_version)
    except ValueError as e:
        raise DamagedCodeError(f"This card's code is damaged ({e}).") from None


@dataclasses.dataclass(frozen=True)
class Card:
    """A resolved card: ``outdated`` when printed for another catalog version."""
    game: str
    card_id: str
    name: str
    copy: int
    db_version: str
    catalog_version: str
    via_uid: str | None = None

    @property
    def outdated(self) -> bool:
        return self.db_version != self.catalog_version


def _title(game: str) -> str:
    return game.replace("-", " ").replace("_", " ").title()


def resolve(code, game: str, catalog: dict) -> Card:
    """The card a code names, checked against the table's game and its catalog
    (``{"version": str, "cards": {card_id: name}}``)."""
    cc = code if isinstance(code, CardCode) else parse_code(code)
    if cc.game != game:
        raise WrongGameError(f"This card belongs to {_title(cc.game)}, not {_title(game)}. "
                             "Nothing was changed.", cc.game, game)
    if not catalog or not isinstance(catalog.get("cards"), dict):
        raise UnknownCardError(f"{_title(game)} has no card list yet, so card "
                               f"{cc.card_id!r} cannot be checked.")
    cards = catalog["cards"]
    version = str(catalog.get("version", ""))
    if cc.card_id not in cards:
        raise UnknownCardError(f"Card {cc.card_id!r} is not in the {_title(game)} card list "
                               f"(version {version}; the card was printed for "
                               f"{cc.db_version}). Nothing was changed.")
    return Card(cc.game, cc.card_id, str(cards[cc.card_id]), cc.copy, cc.db_version, version)


def identify(code, uid, game, catalog, bindings=None, problem=None) -> Card:
    """The card behind one scan (as in ``hardware.events.CardScanned``): a damaged read, a code
    or a bound UID. Raises a :class:`CardCodeError` subclass with a sentence for the table."""
    if problem:
        raise DamagedCodeError(f"The card could not be read cleanly: {problem}. Scan it again.")
    if code:
        return resolve(code, game, catalog)
    if uid:
        bound = bindings.lookup(uid) if bindings is not None else None
        if bound is None:
            raise UnboundTagError(f"Tag {uid} is blank and not bound to a card. Bind it first "
                                  "(tap the tag, then pick its card).", uid)
        return dataclasses.replace(resolve(bound, game, catalog), via_uid=uid.upper())
    raise DamagedCodeError("The scan carried neither a code nor a tag id. Scan it again.")


def _norm_uid(uid) -> str:
    text = str(uid).replace(":", "").replace(" ", "").upper()
    if not text or len(text) % 2 or any(c not in "0123456789ABCDEF" for c in text):
        raise BindingError(f"{uid!r} is not a tag id (hex digits, e.g. 04A1B2C3D4E5F6).")
    return text


class UidBindings:
    """Tag UID -> card code, optionally kept in a JSON file (written atomically).

    ``path=None`` keeps the bindings in memory. A file that is not ours raises
    :class:`companion.core.errors.DataFileError` naming it; it is never overwritten then.
    """

    def __init__(self, path=None):
        self.path = Path(path) if path else None
        self._map = {}
        if self.path and self.path.exists():
            self._load()

    def _load(self):
        from companion.core.errors import DataFileError
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise DataFileError(self.path, problem=f"is not a tag bindings file ({e})") from None
        if not isinstance(data, dict) or data.get("format") != "tc-bindings-1" \
                or not isinstance(data.get("tags"), dict):
            raise DataFileError(self.path, problem="is not a tag bindings file "
                                "(expected format tc-bindings-1)")
        for uid, code in data["tags"].items():
            try:
                parse_code(code)
                self._map[_norm_uid(uid)] = code
            except CardCodeError as e:
                raise DataFileError(self.path, item=uid, problem=str(e)) from None

    def save(self):
        if not self.path:
            return
        data = {"format": "tc-bindings-1", "tags": dict(sorted(self._map.items()))}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".bindings-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def lookup(self, uid):
        try:
            return self._map.get(_norm_uid(uid))
        except BindingError:
            return None

    def bind(self, uid, code, replace=False):
        uid = _norm_uid(uid)
        code = code.format() if isinstance(code, CardCode) else code
        parse_code(code)
        old = self._map.get(uid)
        if old is not None and old != code and not replace:
            raise BindingError(f"Tag {uid} is already bound to {parse_code(old).card_id!r}. "
                               "Unbind it first, or choose replace.")
        self._map[uid] = code
        self.save()

    def unbind(self, uid):
        uid = _norm_uid(uid)
        if self._map.pop(uid, None) is None:
            raise BindingError(f"Tag {uid} is not bound.")
        self.save()

    def __len__(self):
        return len(self._map)

    def items(self):
        return sorted(self._map.items())


class Provisioning:
    """The bind-a-blank-tag flow: ``tag_tapped(uid)``, then ``card_picked(card_id, copy)``.

    ``state`` is ``"waiting-for-tag"``, then ``"waiting-for-card"``, then back. Out-of-order
    steps raise :class:`BindingError`; nothing is bound until a card is picked.
    """

    def __init__(self, bindings: UidBindings, game: str, catalog: dict, replace=False):
        if not catalog or not isinstance(catalog.get("cards"), dict):
            raise BindingError(f"{_title(game)} has no card list, so tags cannot be bound.")
        self.bindings, self.game, self.catalog, self.replace = bindings, game, catalog, replace
        self.uid = None
        self.state = "waiting-for-tag"

    def tag_tapped(self, uid, code=None):
        """A tag was tapped. A tag that already carries a code needs no binding."""
        if code:
            raise BindingError("This tag already carries a card code; it needs no binding.")
        uid = _norm_uid(uid)
        current = self.bindings.lookup(uid)
        if current is not None and not self.replace:
            raise BindingError(f"Tag {uid} is already bound to "
                               f"{parse_code(current).card_id!r}.")
        self.uid = uid
        self.state = "waiting-for-card"
        return uid

    def card_picked(self, card_id, copy=1) -> str:
        if self.state != "waiting-for-card":
            raise BindingError("Tap a blank tag first, then pick its card.")
        if card_id not in self.catalog["cards"]:
            raise UnknownCardError(f"Card {card_id!r} is not in the {_title(self.game)} card list.")
        code = format_code(self.game, card_id, copy, str(self.catalog.get("version", "1")))
        self.bindings.bind(self.uid, code, replace=self.replace)
        self.uid = None
        self.state = "waiting-for-tag"
        return code

    def cancel(self):
        self.uid = None
        self.state = "waiting-for-tag"
