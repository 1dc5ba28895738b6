"""Card codes: what a card's QR code or NFC tag says, and how the table turns it into a card.

Standard library only. One scheme for QR payloads and NDEF Text records::

    tc1:<game>:<card-id>:<copy>:<db-version>:<check>

* ``tc1`` - the scheme and its version;
* ``game`` - the game's registry name (``trade-warz``);
* ``card-id`` - the id in that game's card catalog;
* ``copy`` - which physical copy (1, 2, ...) when a deck holds duplicates;
* ``db-version`` - the deck the card was printed from: :func:`deck_version` of its catalog,
  the data's declared version and a fingerprint of its cards (``0.1.0-proto~3f9a1c``);
* ``check`` - CRC-16/CCITT-FALSE of everything before the last ``:``, four upper-case hex
  digits: a damaged read, a torn sticker or a typo is caught instead of becoming another card.

Fields other than ``copy`` may hold any text: ``%``, ``:``, ``/``, spaces and non-ASCII are
percent-encoded (UTF-8), so any catalog id fits. Example::

    >>> c = CardCode("trade-warz", "export-014", 2, "2024.11")
    >>> c.format()
    'tc1:trade-warz:export-014:2:2024.11:42E1'
    >>> parse_code(c.format()) == c
    True

A card printed from another version of the deck (an older print run, an edited copy) is
refused with :class:`OutdatedCardError` and a sentence saying so: the same card id may mean
another card now. A code whose db-version is the bare declared version (no fingerprint, as
codes made before fingerprints were) is accepted when that version matches.

A blank NFC tag can instead be *bound*: :class:`UidBindings` maps tag UIDs to codes, filled by
:class:`Provisioning` (tap the tag, pick the card). :func:`identify` takes what a scan gave
(code, UID, problem) and returns a :class:`Card`, or raises one of the :class:`CardCodeError`
subclasses below, each with a sentence for the table; nothing is changed by a failed scan.
"""
import dataclasses
import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

from companion.core.args import is_whole
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


class OutdatedCardError(CardCodeError):
    """A card printed from another version of the deck than the table's: it may not be the card
    the table would take it for, so it is refused. ``printed`` and ``current`` are the two
    db-versions."""

    def __init__(self, message, card_id=None, printed=None, current=None):
        super().__init__(message)
        self.card_id, self.printed, self.current = card_id, printed, current


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
        if not is_whole(self.copy) or self.copy < 1:
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
    """A resolved card. ``catalog_version`` is the table's :func:`deck_version`; a card from
    another version is refused (:class:`OutdatedCardError`), so ``outdated`` is False for every
    card :func:`resolve` returns (kept for callers that check it)."""
    game: str
    card_id: str
    name: str
    copy: int
    db_version: str
    catalog_version: str
    via_uid: str | None = None

    @property
    def outdated(self) -> bool:
        return self.db_version not in (self.catalog_version, _declared(self.catalog_version))


FINGERPRINT_SEP = "~"


def catalog_fingerprint(catalog: dict) -> str:
    """Six hex digits that change when the catalog's version or any card's id or name changes
    (SHA-256 of a canonical JSON of them).

    >>> catalog_fingerprint({"version": "1", "cards": {"a": "Alpha"}})
    '74122f'
    """
    cards = catalog.get("cards") or {}
    text = json.dumps([str(catalog.get("version", "")), sorted((str(k), str(v))
                                                               for k, v in cards.items())],
                      ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:6]


def deck_version(catalog: dict) -> str:
    """The db-version a card printed from ``catalog`` carries: the declared version, ``~`` and
    :func:`catalog_fingerprint`. A table whose catalog gives the same string takes the card.

    >>> deck_version({"version": "gp-2026.11", "cards": {"a": "Alpha"}})
    'gp-2026.11~25cddd'
    """
    return f"{catalog.get('version', '')}{FINGERPRINT_SEP}{catalog_fingerprint(catalog)}"


def _declared(db_version: str) -> str:
    head, sep, tail = db_version.rpartition(FINGERPRINT_SEP)
    return head if sep and re.fullmatch(r"[0-9a-f]{6}", tail) else db_version


def _natural(text: str):
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.findall(r"\d+|\D+", text)]


def _outdated(cc, version: str, current: str, game: str) -> OutdatedCardError:
    printed, declared = cc.db_version, _declared(cc.db_version)
    tail = "Nothing was changed."
    if declared == version:
        what = (f"This card was printed from another edit of the deck (version {version}, but "
                f"the cards have changed since: it was printed as {printed}, the table plays "
                f"{current}). {tail} Reprint it, or play it by hand.")
    elif _natural(declared) > _natural(version):
        what = (f"This card was printed from a newer version of the deck ({declared}) than this "
                f"table plays ({version}). {tail} Update the table's card data, or play it by "
                f"hand.")
    else:
        what = (f"This card was printed from an older version of the deck ({declared}); this "
                f"table plays {version}. {tail} Reprint it, or play it by hand.")
    return OutdatedCardError(what, cc.card_id, printed, current)


def _title(game: str) -> str:
    return game.replace("-", " ").replace("_", " ").title()


def resolve(code, game: str, catalog: dict) -> Card:
    """The card a code names, checked against the table's game and its catalog
    (``{"version": str, "cards": {card_id: name}}``). A card printed from another version of
    the deck raises :class:`OutdatedCardError` before its id is looked up: in another version
    the id may name another card."""
    cc = code if isinstance(code, CardCode) else parse_code(code)
    if cc.game != game:
        raise WrongGameError(f"This card belongs to {_title(cc.game)}, not {_title(game)}. "
                             "Nothing was changed.", cc.game, game)
    if not catalog or not isinstance(catalog.get("cards"), dict):
        raise UnknownCardError(f"{_title(game)} has no card list yet, so card "
                               f"{cc.card_id!r} cannot be checked.")
    cards = catalog["cards"]
    version = str(catalog.get("version", ""))
    current = deck_version(catalog)
    if cc.db_version not in (current, version):
        raise _outdated(cc, version, current, game)
    if cc.card_id not in cards:
        raise UnknownCardError(f"Card {cc.card_id!r} is not in the {_title(game)} card list "
                               f"(version {version}). Nothing was changed.")
    return Card(cc.game, cc.card_id, str(cards[cc.card_id]), cc.copy, cc.db_version, current)


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
        code = format_code(self.game, card_id, copy, deck_version(self.catalog))
        self.bindings.bind(self.uid, code, replace=self.replace)
        self.uid = None
        self.state = "waiting-for-tag"
        return code

    def cancel(self):
        self.uid = None
        self.state = "waiting-for-tag"
