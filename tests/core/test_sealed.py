import hashlib
import json

import pytest

from companion.core.errors import SealedChoiceError
from companion.core.sealed import Window, canonical, commitment, verify

SALT = "ab" * 16


def test_commitment_is_sha256_of_the_canonical_encoding():
    body = json.dumps({"choice": [1, "x"], "salt": SALT, "seat": 2, "window": "w"},
                      sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    assert commitment("w", 2, [1, "x"], SALT) == hashlib.sha256(body).hexdigest()


def test_canonical_ignores_key_order():
    assert canonical({"a": 1, "b": {"d": 2, "c": 3}}) == canonical({"b": {"c": 3, "d": 2},
                                                                    "a": 1})


def test_commitment_binds_choice_salt_seat_and_window():
    c = commitment("w", 0, 5, SALT)
    assert verify("w", 0, 5, SALT, c)
    assert not verify("w", 0, 6, SALT, c)
    assert not verify("w", 1, 5, SALT, c)
    assert not verify("v", 0, 5, SALT, c)
    assert not verify("w", 0, 5, "cd" * 16, c)


def test_window_hides_choices_until_all_are_in():
    w = Window("w", "bids", (0, 1), "cb")
    w.seal(0, ["navy"], SALT)
    assert "choice" not in w.view(None)["locked"]["0"]
    assert "choice" not in w.view(1)["locked"]["0"]
    assert w.view(0)["locked"]["0"]["choice"] == ["navy"]
    with pytest.raises(SealedChoiceError):
        w.revealed()
    w.seal(1, ["army"], "cd" * 16)
    assert w.is_complete()
    w.reveal()
    assert w.revealed() == {0: ["navy"], 1: ["army"]}
    v = w.view(None)["locked"]
    assert verify("w", 0, v["0"]["choice"], v["0"]["salt"], v["0"]["commitment"])


def test_window_refuses_twice_strangers_short_salts_and_late_entries():
    w = Window("w", "bids", (0, 1), "cb", label="Turn 1 bids")
    w.seal(0, 1, SALT)
    with pytest.raises(SealedChoiceError, match="already locked in"):
        w.seal(0, 2, SALT)
    with pytest.raises(SealedChoiceError, match="no choice to make"):
        w.seal(5, 2, SALT)
    with pytest.raises(SealedChoiceError, match="128 bits"):
        w.seal(1, 2, "abc")
    w.reveal()
    with pytest.raises(SealedChoiceError, match="already revealed"):
        w.seal(1, 2, SALT)


@pytest.mark.parametrize("window, seat, choice", [
    ("w", 0, "plain"), ('quote"d', 3, 'back\\slash'), ("tab\there", 12, "é ü 漢"),
    ("ctrl\x01", 1, {"b": [1, 2.5, None, True], "a": "x"}), ("", 7, ""), ("w", -1, 10**20),
])
def test_commitment_matches_the_canonical_encoding_for_awkward_values(window, seat, choice):
    body = canonical({"choice": choice, "salt": SALT, "seat": seat, "window": window})
    assert commitment(window, seat, choice, SALT) == hashlib.sha256(body).hexdigest()
