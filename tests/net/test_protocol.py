"""Protocol v1 messages: command parsing with its error codes, replies, and the sealed-choice
events checked against the real rules core (a real Session of the core's toy game)."""
import json
import re

import pytest

from companion.core.errors import (IllegalMoveError, NotYourTurnError, SealedChoiceError,
                                   UnknownMoveError)
from companion.core.log import MemoryLog
from companion.core.sealed import canonical, commitment
from companion.core.session import Session
from companion.net import protocol
from companion.net.protocol import ProtocolError, parse_command
from tests.core.toy import Toy


def code_of(payload, **kw):
    with pytest.raises(ProtocolError) as e:
        parse_command(payload, **kw)
    return e.value.code, e.value.tx, str(e.value)


def test_a_good_command_parses_and_unknown_fields_are_ignored():
    cmd = parse_command(b'{"v":1,"tx":"a1b2","move":"submit_bids","args":{"navy":3},"x":1}')
    assert (cmd.tx, cmd.move, cmd.args) == ("a1b2", "submit_bids", {"navy": 3})
    assert parse_command(b'{"v":1,"tx":"t","move":"pass"}').args == {}
    assert parse_command('{"v":1,"tx":"t","move":"bid","args":{"who":"Zoë"}}'.encode()).args \
        == {"who": "Zoë"}


@pytest.mark.parametrize("payload,code,tx", [
    (b"not json", "malformed_json", None),
    (b"\xff\xfe", "malformed_json", None),
    (b"[1,2]", "malformed_json", None),
    (b'{"v":2,"tx":"a1","move":"m"}', "unsupported_version", "a1"),
    (b'{"tx":"a1","move":"m"}', "unsupported_version", "a1"),
    (b'{"v":1,"move":"m"}', "bad_command", None),
    (b'{"v":1,"tx":"has space","move":"m"}', "bad_command", None),
    (b'{"v":1,"tx":"a1","move":"Bad Move"}', "bad_command", "a1"),
    (b'{"v":1,"tx":"a1"}', "bad_command", "a1"),
    (b'{"v":1,"tx":"a1","move":"m","args":[1]}', "bad_command", "a1"),
])
def test_bad_commands_get_a_code_a_sentence_and_the_tx_when_readable(payload, code, tx):
    got_code, got_tx, message = code_of(payload)
    assert (got_code, got_tx) == (code, tx)
    assert message.endswith(".") and len(message) > 20


def test_too_large_commands_are_refused_before_parsing():
    big = json.dumps({"v": 1, "tx": "a1", "move": "m", "args": {"x": "y" * 5000}}).encode()
    code, _, message = code_of(big)
    assert code == "too_large" and str(protocol.MAX_COMMAND_BYTES) in message
    assert protocol.MAX_COMMAND_BYTES < protocol.MAX_PAYLOAD_BYTES


def test_replies_echo_the_tx():
    assert protocol.encode(protocol.ok_reply("a1b2")) == b'{"v":1,"tx":"a1b2","ok":true}'
    assert protocol.ok_reply("a1", {"version": 7})["result"] == {"version": 7}
    err = protocol.error_reply("a1b2", "illegal_move", "You cannot bid 12.")
    assert err == {"v": 1, "tx": "a1b2", "ok": False,
                   "error": {"code": "illegal_move", "message": "You cannot bid 12."}}
    with pytest.raises(ValueError):
        protocol.error_reply("a1", "made_up", "x")


def test_core_errors_map_to_reply_codes():
    cases = [(NotYourTurnError("Wait."), "not_your_turn"),
             (UnknownMoveError("No."), "unknown_move"),
             (SealedChoiceError("Twice."), "sealed_choice"),
             (IllegalMoveError("No."), "illegal_move"),
             (ProtocolError("too_large", "Big."), "too_large"),
             (KeyError("boom"), "internal")]
    for exc, code in cases:
        assert protocol.error_code_for(exc) == code
    hidden = protocol.reply_for("a1", KeyError("secret detail"))
    assert hidden["error"]["code"] == "internal" and "secret" not in json.dumps(hidden)
    assert protocol.reply_for("a1", IllegalMoveError("Bid 0 to 9."))["error"]["message"] == \
        "Bid 0 to 9."
    assert set(protocol.ERROR_CODES) >= {"malformed_json", "too_large", "unknown_move",
                                         "not_your_turn", "illegal_move", "sealed_choice"}


def test_presence_and_hub_status_payloads():
    assert protocol.encode(protocol.presence(True)) == b'{"v":1,"online":true}'
    assert protocol.encode(protocol.presence(False)) == b'{"v":1,"online":false}'
    assert protocol.hub_status(True, "s-1") == {"v": 1, "online": True, "session": "s-1"}


def test_commitment_recipe_in_the_doc_is_the_cores():
    """docs/protocol.md tells clients: SHA-256 hex of the canonical JSON of
    {"choice", "salt", "seat", "window"}, keys sorted, separators , and :, UTF-8, no ASCII
    escaping. Do it by hand and compare with the core."""
    import hashlib
    choice, salt = {"navy": 3, "note": "é"}, "0f" * 16
    body = json.dumps({"window": "r1", "seat": 2, "salt": salt, "choice": choice},
                      sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    assert body == canonical({"choice": choice, "salt": salt, "seat": 2, "window": "r1"})
    assert hashlib.sha256(body).hexdigest() == commitment("r1", 2, choice, salt)


def test_sealed_events_from_a_real_session_verify_and_leak_nothing_early():
    s = Session.start(Toy(), ["Ann", "Bo", "Cy"], MemoryLog(), seed=7)
    window = "r1"
    locked, events = {}, []
    for seat, n in ((0, 4), (1, 9)):
        result = s.execute(seat, "bid", {"n": n})
        for notice in result.notices:
            if "to" not in notice:
                events.append(protocol.event(result.version, notice))
    lock_events = [e for e in events if e["type"] == "ChoiceLocked"]
    assert [e["seat"] for e in lock_events] == [0, 1]
    for e in lock_events:
        assert set(e) == {"v", "seq", "type", "window", "seat", "commitment", "rev"}
        locked[e["seat"]] = e["commitment"]
    wire = b"".join(protocol.encode(e) for e in events)
    assert b'"n"' not in wire and b"salt" not in wire     # nothing but commitments so far

    result = s.execute(2, "bid", {"n": 1})
    revealed = [protocol.event(result.version, n) for n in result.notices
                if n["kind"] == "ChoicesRevealed"]
    assert len(revealed) == 1
    ev = json.loads(protocol.encode(revealed[0]))          # as a client receives it
    locked[2] = next(n["commitment"] for n in result.notices if n["kind"] == "ChoiceLocked")
    assert ev["window"] == window
    assert {k: v["choice"] for k, v in ev["choices"].items()} == {"0": 4, "1": 9, "2": 1}
    assert protocol.verify_reveal(ev, locked) == {0: True, 1: True, 2: True}
    # a hub that changed a choice after lock-in is caught
    ev["choices"]["1"]["choice"] = 8
    assert protocol.verify_reveal(ev, locked)[1] is False
    # the helper builds the same shape from core entries
    w = s.state.windows[window]
    built = protocol.choices_revealed(result.version, window, w.entries)
    assert built["choices"] == json.loads(protocol.encode(revealed[0]))["choices"]


def test_defaulted_seats_have_no_commitment_to_check():
    ev = protocol.choices_revealed(5, "r2", {
        0: {"choice": 3, "salt": "ab" * 16, "commitment": commitment("r2", 0, 3, "ab" * 16),
            "defaulted": False},
        1: {"choice": 0, "salt": "", "commitment": "", "defaulted": True}})
    assert protocol.verify_reveal(ev) == {0: True, 1: None}
    assert protocol.choice_locked(4, "r2", 0, "c0ffee") == {
        "v": 1, "seq": 4, "type": "ChoiceLocked", "window": "r2", "seat": 0,
        "commitment": "c0ffee"}


def test_private_notices_never_become_public_events():
    with pytest.raises(ValueError, match="never goes on the public events topic"):
        protocol.event(3, {"kind": "CardsDrawn", "to": 1, "cards": ["a"]})


def test_seat_clients_draw_128_bit_tx_prefixes():
    """docs/protocol.md 5.1: a tx prefix has 128 random bits (32 hex digits), new per client."""
    from companion.net.seat_client import TX_PREFIX_BITS, SeatClient, new_tx_prefix
    assert TX_PREFIX_BITS == 128
    drawn = {new_tx_prefix() for _ in range(1000)} | {SeatClient("http://x", {})._prefix}
    assert len(drawn) == 1001 and all(re.fullmatch(r"[0-9a-f]{32}", p) for p in drawn)
