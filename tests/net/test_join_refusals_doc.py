"""docs/protocol.md section 9.5 lists the refusals of a name as the table answers them over
HTTP: the status, the code and the message, word for word."""
import pathlib

import pytest

from companion.net.seat_client import JoinFailed, post_join
from companion.net.serve import TableServer

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
SECTION = DOC.read_text(encoding="utf-8").split("### 9.5 Errors", 1)[1].split("\n## ", 1)[0]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    srv = TableServer("names", db=tmp_path_factory.mktemp("names") / "s.db",
                      game="great-powers", players=3, broker="embedded", bind="127.0.0.1",
                      http_port=0, mqtt_port=0, ws_port=0).start()
    yield f"http://127.0.0.1:{srv.web.port}", srv.hub.room_code
    srv.stop()


def _row(message):
    rows = [line for line in SECTION.splitlines() if line.startswith("|") and message in line]
    assert len(rows) == 1, f"section 9.5 has no row with {message!r}"
    return [cell.strip() for cell in rows[0].strip("|").split("|")]


# a direction change, a zero-width joiner, a NUL, private use, unassigned, a lone surrogate
@pytest.mark.parametrize("name", ["Eve\u202e", "A\u200dnn", "a\x00b", "Ann\ue000", "Ann\u0378",
                                  "\ud800"])
def test_a_name_with_a_character_the_table_cannot_show_is_refused_as_documented(base, name):
    url, room = base
    with pytest.raises(JoinFailed) as e:
        post_join(url, {"name": name, "room": room})
    status, code, when = _row(str(e.value))
    assert (int(status), code) == (e.value.status, f"`{e.value.code}`") == (400, "`bad_request`")
    assert str(e.value) == "Names can only use letters, digits, spaces and punctuation."


def test_a_name_that_mixes_alphabets_is_refused_as_documented(base):
    url, room = base
    with pytest.raises(JoinFailed) as e:
        post_join(url, {"name": "\u0410nn", "room": room})     # a Cyrillic A
    status, code, when = _row(str(e.value))
    assert (int(status), code) == (e.value.status, f"`{e.value.code}`") == (400, "`bad_request`")
