"""`companion run` never silently ignores --game: a table with a game in progress says it
resumes it (and how to switch); --new sets the named game up and leaves the other resumable;
--host is the address the join QR shows."""
import pytest

from companion.cli.commands.run import resume_note
from companion.cli.main import main
from companion.net.serve import TableServer


def server(tmp_path, **kw):
    kw = {"http_port": 0, "mqtt_port": 0, "ws_port": 0, "start": "manual", **kw}
    return TableServer("home", db=tmp_path / "t.db", **kw)


def test_a_game_in_progress_is_resumed_and_the_note_says_how_to_switch(tmp_path):
    with server(tmp_path, game="great-powers", players=3, start="now", seed=1) as s:
        first = s.hub.session.id
    with server(tmp_path, game="trade-warz", players=4) as s:
        assert s.resumed is not None and s.hub.session.id == first
        note = resume_note(s, "trade-warz")
        assert "resuming the game in progress (Great Powers, round 1" in note
        assert "Trade Warz was not set up" in note and "--new" in note and "Home" in note
        assert resume_note(s, "great-powers").startswith("resuming the game in progress")
    with server(tmp_path, game="trade-warz", players=4, fresh=True) as s:
        assert s.resumed is None and s.hub.game_name == "trade-warz"
        assert resume_note(s, "trade-warz") == "set up Trade Warz for 4 players."
        assert [x["id"] for x in s.hub.resumable()] == [first]    # still there to resume


def test_host_is_what_the_join_qr_shows(tmp_path):
    with server(tmp_path, game="great-powers", players=3, public_host="10.9.8.7") as s:
        assert s.hub.join_url.startswith("http://10.9.8.7:")


def test_new_without_game_is_refused_in_a_sentence(tmp_path, capsys):
    code = main(["run", "--new", "--db", str(tmp_path / "x.db")])
    assert code != 0
    assert "--new sets up the game named by --game" in capsys.readouterr().err
