"""Logins: random secrets, in-memory table, mosquitto_passwd-compatible hashes, private files."""
import base64
import os
import stat
import subprocess

import pytest

from companion.net import credentials as cred
from companion.net.topics import is_seat_id


def test_passwords_and_tokens_are_random_and_long():
    pw = {cred.new_password() for _ in range(200)}
    assert len(pw) == 200 and min(len(p) for p in pw) >= 24
    assert len(cred.new_token()) >= 32
    ids = {cred.new_seat_id(3) for _ in range(200)}
    assert len(ids) > 190 and all(is_seat_id(i) and i.startswith("s3-") for i in ids)
    with pytest.raises(cred.CredentialError, match="whole number"):
        cred.new_seat_id(-1)


def test_credential_repr_never_shows_the_password():
    c = cred.seat_credential("s1-ab", "hunter2-hunter2")
    assert "hunter2" not in repr(c) and "hunter2" not in str(c)
    assert cred.hub_credential().username == "hub"


@pytest.mark.parametrize("name", ["", "Hub", "_probe", "a/b", "s1+", "#", None, "x" * 33])
def test_bad_usernames_are_refused(name):
    with pytest.raises(cred.CredentialError, match="cannot be a broker username"):
        cred.PasswordTable().add(name, "pw")


@pytest.mark.parametrize("pw", ["", "a:b", "a\nb", "a\0b", "x" * 300, None])
def test_bad_passwords_are_refused(pw):
    with pytest.raises(cred.CredentialError, match="password"):
        cred.PasswordTable().add("s1-ab", pw)


def test_password_table_checks_in_memory_without_keeping_the_password():
    secret = cred.new_password()
    table = cred.PasswordTable({"hub": secret})
    table.add("s1-ab", "other-password")
    assert table.check("hub", secret) and not table.check("hub", secret + "x")
    assert not table.check("s9-zz", secret) and not table.check(None, None)
    assert table.names() == ["hub", "s1-ab"] and "hub" in table
    held = repr(vars(table)) + repr(table._digests)
    assert secret not in held and secret.encode() not in b"".join(table._digests.values())
    assert table.remove("hub") and not table.remove("hub")
    assert not table.check("hub", secret)


def test_our_hash_is_the_one_mosquitto_passwd_writes(tmp_path):
    path = tmp_path / "pw"
    path.touch()
    subprocess.run(["mosquitto_passwd", "-b", str(path), "alice", "s3cret pass"], check=True,
                   capture_output=True)
    name, hashed = path.read_text().strip().split(":", 1)
    assert name == "alice" and hashed.startswith("$7$101$")
    assert cred.mosquitto_verify("s3cret pass", hashed)
    assert not cred.mosquitto_verify("s3cret pasS", hashed)
    salt = base64.b64decode(hashed.split("$")[3])
    assert cred.mosquitto_hash("s3cret pass", salt=salt) == hashed
    assert not cred.mosquitto_verify("x", "$6$not$ours") and not cred.mosquitto_verify("x", "junk")


def test_password_file_and_run_dir_are_private(tmp_path):
    d = cred.private_dir()
    try:
        assert stat.S_IMODE(os.stat(d).st_mode) == 0o700
        p = cred.write_password_file(d / "passwd", {"s1-ab": cred.mosquitto_hash("pw1"),
                                                    "hub": cred.mosquitto_hash("pw2")})
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o600
        lines = p.read_text().splitlines()
        assert [x.split(":")[0] for x in lines] == ["hub", "s1-ab"]
        assert "pw1" not in p.read_text() and all("$7$" in x for x in lines)
        # rewritten atomically: no temp file left behind
        cred.write_password_file(p, {"hub": cred.mosquitto_hash("pw3")})
        assert sorted(os.listdir(d)) == ["passwd"]
        with pytest.raises(cred.CredentialError):
            cred.write_password_file(d / "bad", {"a:b": "x"})
    finally:
        import shutil
        shutil.rmtree(d)


def test_as_pairs_accepts_the_usual_shapes():
    c = cred.Credential("hub", "pw")
    assert cred.as_pairs([c]) == [("hub", "pw")]
    assert cred.as_pairs({"hub": "pw"}) == [("hub", "pw")]
    assert cred.as_pairs([("hub", "pw")]) == [("hub", "pw")]
    assert cred.as_pairs(None) == []
