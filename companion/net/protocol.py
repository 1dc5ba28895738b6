"""Protocol v1 message shapes: commands, replies, presence, sealed-choice events (stdlib only).

Every payload is one UTF-8 JSON object with ``"v": 1``. See docs/protocol.md for the page a
client author reads; this module is the hub's side of the same rules.

>>> cmd = parse_command(b'{"v":1,"tx":"a1b2","move":"submit_bids","args":{"navy":3}}')
>>> cmd.tx, cmd.move, cmd.args
('a1b2', 'submit_bids', {'navy': 3})
>>> encode(ok_reply("a1b2"))
b'{"v":1,"tx":"a1b2","ok":true}'
>>> try:
...     parse_command(b'{"v":1,"tx":"a1b2","move":"submit_bids","args":[1]}')
... except ProtocolError as e:
...     print(e.code, e.tx, "|", e)
bad_command a1b2 | "args" must be a JSON object, like {"navy": 3}.
"""
from __future__ import annotations

import dataclasses
import json
import re

from companion.core import errors as core_errors
from companion.core.sealed import SALT_BYTES, commitment

PROTOCOL_VERSION = 1

#: Hard limit on any payload, enforced by both brokers: bigger publishes are dropped unseen.
#: The public state is the largest message; 64 KiB leaves it room.
MAX_PAYLOAD_BYTES = 64 * 1024
#: Limit on a command, checked by the hub (the reply is ``too_large``).
MAX_COMMAND_BYTES = 4 * 1024

TX_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")
MOVE_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,63}")

#: Every error code a reply may carry, with what it means to a client author.
ERROR_CODES = {
    "malformed_json": "The payload is not a UTF-8 JSON object (or holds an invalid character).",
    "too_deep": "The command nests lists or objects more than 8 levels deep.",
    "too_large": f"The command is over {MAX_COMMAND_BYTES} bytes.",
    "unsupported_version": "The command's \"v\" is not a protocol version the hub speaks.",
    "bad_command": "A field is missing or has the wrong type (tx, move, args).",
    "unknown_move": "The game has no move of that name.",
    "not_your_turn": "The move is legal in this game, but not for this seat right now.",
    "illegal_move": "The rules do not allow this move now; nothing changed.",
    "sealed_choice": "The sealed choice was already locked in, is late, or is not yours to make.",
    "not_seated": "This login has no seat at the table (it was released or replaced).",
    "game_over": "The game has ended; no more moves.",
    "tx_reused": "The tx was already used by a different command (another move or other "
                 "arguments); this one was not applied and nothing changed. Send it with a new "
                 "tx.",
    "cannot_save": "The table cannot save right now (its storage is full or failing); the move "
                   "was not applied. It works again once the table can save; resend then.",
    "internal": "The hub failed; the move was not applied. Safe to retry with the same tx.",
}


#: The message of a ``tx_reused`` refusal: the player reads it on the phone.
TX_REUSED_MESSAGE = ("That move was not taken: the phone sent it under the id of an earlier, "
                     "different move. Nothing changed; send it again.")


class ProtocolError(core_errors.CompanionError):
    """A command the hub refuses before the rules see it. ``code`` is from :data:`ERROR_CODES`."""

    def __init__(self, code: str, message: str, tx: str | None = None):
        if code not in ERROR_CODES:
            raise ValueError(f"unknown protocol error code {code!r}")
        super().__init__(message)
        self.code, self.message, self.tx = code, message, tx


@dataclasses.dataclass(frozen=True)
class Command:
    tx: str
    move: str
    args: dict


def encode(message: dict) -> bytes:
    """Compact JSON, UTF-8, no ASCII escaping (the wire form of every message)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()


#: How deep a command's lists and objects may nest (real moves need 3).
MAX_DEPTH = 8


def _depth_and_text_ok(v, depth=0):
    """Raise a ProtocolError for nesting deeper than MAX_DEPTH or a lone surrogate (which
    JSON can carry as an escape but UTF-8 cannot: it would break every message after it)."""
    if depth > MAX_DEPTH:
        raise ProtocolError("too_deep", f"The command nests lists or objects more than "
                                        f"{MAX_DEPTH} levels deep.")
    if isinstance(v, str):
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            raise ProtocolError("malformed_json", "The message holds an invalid character "
                                                  "(a lone surrogate).") from None
    elif isinstance(v, dict):
        for k, x in v.items():
            _depth_and_text_ok(k, depth + 1)
            _depth_and_text_ok(x, depth + 1)
    elif isinstance(v, list):
        for x in v:
            _depth_and_text_ok(x, depth + 1)


def _decode_object(payload: bytes, limit: int | None):
    if limit is not None and len(payload) > limit:
        raise ProtocolError("too_large", f"The message is {len(payload)} bytes; the limit is "
                                         f"{limit} bytes.")
    if not payload:
        raise ProtocolError("malformed_json", "The message is empty; send a JSON object.")
    try:
        obj = json.loads(payload.decode("utf-8"))
    except RecursionError:
        raise ProtocolError("too_deep", f"The command nests lists or objects more than "
                                        f"{MAX_DEPTH} levels deep.") from None
    except (UnicodeDecodeError, ValueError):
        raise ProtocolError("malformed_json", "The message is not valid UTF-8 JSON.") from None
    if not isinstance(obj, dict):
        raise ProtocolError("malformed_json", "The message must be a JSON object {...}.")
    return obj


def parse_command(payload: bytes, limit: int = MAX_COMMAND_BYTES) -> Command:
    """Check a seat's command payload; raise :class:`ProtocolError` with the reply's code.

    Unknown extra fields are ignored, so a newer client can talk to an older hub.
    """
    obj = _decode_object(payload, limit)
    raw_tx = obj.get("tx")
    tx = raw_tx if isinstance(raw_tx, str) and TX_PATTERN.fullmatch(raw_tx) else None
    try:
        _depth_and_text_ok(obj)
    except ProtocolError as e:
        e.tx = tx
        raise
    if obj.get("v") != PROTOCOL_VERSION:
        raise ProtocolError("unsupported_version",
                            f"This hub speaks protocol v{PROTOCOL_VERSION}; the command says "
                            f"\"v\": {json.dumps(obj.get('v'))}.", tx)
    if tx is None:
        raise ProtocolError("bad_command", "\"tx\" must be 1 to 64 characters from A-Z, a-z, "
                                           "0-9, '_' and '-'.")
    move = obj.get("move")
    if not isinstance(move, str) or not MOVE_PATTERN.fullmatch(move):
        raise ProtocolError("bad_command", "\"move\" must be a move name like \"submit_bids\" "
                                           "(a-z, 0-9 and '_').", tx)
    args = obj.get("args", {})
    if not isinstance(args, dict):
        raise ProtocolError("bad_command", "\"args\" must be a JSON object, like {\"navy\": 3}.",
                            tx)
    return Command(tx, move, args)


def ok_reply(tx: str, result=None) -> dict:
    msg = {"v": PROTOCOL_VERSION, "tx": tx, "ok": True}
    if result is not None:
        msg["result"] = result
    return msg


def error_reply(tx: str | None, code: str, message: str) -> dict:
    if code not in ERROR_CODES:
        raise ValueError(f"unknown protocol error code {code!r}")
    return {"v": PROTOCOL_VERSION, "tx": tx, "ok": False,
            "error": {"code": code, "message": message}}


def error_code_for(exc: BaseException) -> str:
    """The reply code for an exception raised while applying a command."""
    if isinstance(exc, ProtocolError):
        return exc.code
    for cls, code in ((core_errors.StorageError, "cannot_save"),
                      (core_errors.BadArgumentsError, "bad_command"),
                      (core_errors.NotYourTurnError, "not_your_turn"),
                      (core_errors.UnknownMoveError, "unknown_move"),
                      (core_errors.SealedChoiceError, "sealed_choice"),
                      (core_errors.IllegalMoveError, "illegal_move")):
        if isinstance(exc, cls):
            return code
    return "internal"


def reply_for(tx: str | None, exc: BaseException) -> dict:
    """The error reply for ``exc``: a rules error keeps its message, anything else is hidden."""
    code = error_code_for(exc)
    message = str(exc) if code != "internal" else ERROR_CODES["internal"]
    return error_reply(tx, code, message)


# -- presence ---------------------------------------------------------------------------------

def presence(online: bool) -> dict:
    """Payload of a seat's presence topic, and of its Last Will (``online: false``)."""
    return {"v": PROTOCOL_VERSION, "online": bool(online)}


def hub_status(online: bool, session: str | None = None, boot: str | None = None) -> dict:
    """``boot``: a new id each time the hub starts, so a client that sees it change knows the
    table restarted (and says so)."""
    msg = {"v": PROTOCOL_VERSION, "online": bool(online)}
    if session is not None:
        msg["session"] = session
    if boot is not None:
        msg["boot"] = boot
    return msg


# -- public events ------------------------------------------------------------------------------

def event(seq: int, notice: dict) -> dict:
    """The ``events`` payload for one public notice of the core (``state.notices``):
    ``{"v": 1, "seq": ..., "type": <notice kind>, ...the notice's fields}``.

    A private notice (one with ``"to"``) is refused: it belongs in that seat's view only.
    """
    if "to" in notice:
        raise ValueError(f"a private {notice.get('kind')} notice never goes on the public "
                         f"events topic")
    body = {k: v for k, v in notice.items() if k != "kind"}
    return {"v": PROTOCOL_VERSION, "seq": seq, "type": notice["kind"], **body}


def choice_locked(seq: int, window: str, seat: int, digest: str) -> dict:
    """Public event at lock-in: who locked in, and the commitment, never the choice."""
    return event(seq, {"kind": "ChoiceLocked", "window": window, "seat": seat,
                       "commitment": digest})


def choices_revealed(seq: int, window: str, entries) -> dict:
    """Public event at the reveal: every seat's choice and salt at once.

    ``entries`` maps seat -> an object with ``choice``, ``salt``, ``commitment`` and
    ``defaulted`` (as :class:`companion.core.sealed.Entry`), or -> a dict with those keys.
    """
    choices = {}
    for seat in sorted(entries, key=int):
        e = entries[seat]
        get = e.get if isinstance(e, dict) else (lambda k, e=e: getattr(e, k))
        choices[str(seat)] = {"choice": get("choice"), "salt": get("salt"),
                              "commitment": get("commitment"), "defaulted": bool(get("defaulted"))}
    return event(seq, {"kind": "ChoicesRevealed", "window": window, "choices": choices})


def verify_reveal(revealed: dict, locked: dict | None = None) -> dict:
    """Check a ChoicesRevealed event: seat (int) -> True/False, or None for a defaulted seat
    (it never locked in, so it has no commitment; its choice is the window's default).

    ``locked`` maps seat -> the commitment announced earlier by ChoiceLocked. Pass it: without
    it the check only proves the event agrees with itself.
    """
    result = {}
    for key, item in revealed["choices"].items():
        seat = int(key)
        if item.get("defaulted"):
            result[seat] = None
            continue
        expected = (locked or {}).get(seat, item.get("commitment"))
        salt = item.get("salt")
        result[seat] = (isinstance(salt, str) and len(salt) >= 2 * SALT_BYTES
                        and commitment(revealed["window"], seat, item["choice"], salt) == expected)
    return result


def spectator_state(state: dict) -> dict:
    """The public state without the room code and the join address: what may leave the table's
    own players. A spectator (``/watch``) needs no seat, anyone on the Wi-Fi may open /watch,
    and a club's page is read by a whole convention: with the room code a stranger could type
    an offline player's name and take that seat, hidden hand and all."""
    hub = dict(state.get("hub") or {})
    hub.pop("room", None)
    hub.pop("join_url", None)
    return dict(state, hub=hub)
