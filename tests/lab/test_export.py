"""`companion sessions export`: CSV, and BG Stats' play import format checked field by field
against what BG Stats documents
(https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/):

    https://app.bgstatsapp.com/createPlay.html?data=<url-encoded JSON>
    {"sourceName", "sourcePlayId", "playDate": "YYYY-MM-DD HH:MM:SS", "durationMin", "board",
     "comments", "location", "game": {"bggId", "highestWins", "name", "noPoints",
     "sourceGameId"}, "players": [{"startPlayer", "name", "rank", "role", "score",
     "sourcePlayerId", "winner"}]}
"""
import csv
import datetime
import json
import urllib.parse

import pytest

from companion.cli.main import main
from companion.core.log import SQLiteLog
from companion.lab import export
from tests.lab.tables import play_table

# The documented elements, with the JSON types BG Stats' example gives them.
PLAY_FIELDS = {"sourceName": str, "sourcePlayId": str, "playDate": str, "durationMin": int,
               "board": str, "comments": str, "location": str, "game": dict, "players": list}
GAME_FIELDS = {"bggId": int, "highestWins": bool, "name": str, "noPoints": bool,
               "sourceGameId": str}
PLAYER_FIELDS = {"startPlayer": bool, "name": str, "rank": int, "role": str,
                 "score": (int, float), "sourcePlayerId": str, "winner": bool}


def check_play(play):
    """A play as BG Stats documents it: only documented elements, each of its type."""
    assert set(play) <= set(PLAY_FIELDS), set(play) - set(PLAY_FIELDS)
    assert {"sourceName", "sourcePlayId", "playDate", "game", "players"} <= set(play)
    for k, v in play.items():
        assert isinstance(v, PLAY_FIELDS[k]) and not isinstance(v, bool), k
    datetime.datetime.strptime(play["playDate"], "%Y-%m-%d %H:%M:%S")
    assert play["durationMin"] >= 0
    g = play["game"]
    assert set(g) <= set(GAME_FIELDS) and {"name", "highestWins", "noPoints"} <= set(g)
    for k, v in g.items():
        assert isinstance(v, GAME_FIELDS[k]), k
    assert play["players"]
    for p in play["players"]:
        assert set(p) <= set(PLAYER_FIELDS) and {"name", "score", "winner", "rank"} <= set(p)
        for k, v in p.items():
            assert isinstance(v, PLAYER_FIELDS[k]), k
            if k in ("score", "rank"):
                assert not isinstance(v, bool)
    ranks = sorted(p["rank"] for p in play["players"])
    assert ranks[0] == 1 and all(p["rank"] == 1 for p in play["players"] if p["winner"])
    assert sum(p["startPlayer"] for p in play["players"]) <= 1


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("store")
    log = SQLiteLog(d / "s.db")
    gp = play_table(log, "great-powers", 3, seed=51, names=["Ann", "Bob", "Cat"],
                    table="kitchen")
    tw = play_table(log, "trade-warz", 3, seed=52, names=["Ann", "Bob", "Cat"],
                    options={"edition": "tariff"})
    log.close()
    assert main(["play", "market-trading", "--players", "2", "--seed", "3", "--db",
                 str(d / "s.db")]) == 0
    return {"db": str(d / "s.db"), "gp": gp, "tw": tw, "dir": d}


def test_bgstats_plays_follow_the_documented_format(store, capsys):
    out = store["dir"] / "bg"
    capsys.readouterr()
    assert main(["sessions", "export", "--format", "bgstats", "--db", store["db"], "--out",
                 str(out)]) == 0
    said = capsys.readouterr().out
    assert "2 plays in BG Stats' import format" in said
    plays = json.loads((out / "bgstats-plays.json").read_text())
    assert [p["sourcePlayId"] for p in plays] == [store["gp"].id, store["tw"].id]
    for play in plays:
        check_play(play)
    gp, tw = plays
    s = store["gp"]
    assert gp["game"] == {"name": "Great Powers", "highestWins": True, "noPoints": False,
                          "sourceGameId": "great-powers"}
    assert [p["name"] for p in gp["players"]] == ["Ann", "Bob", "Cat"]
    assert [p["score"] for p in gp["players"]] == [s.state.outcome.scores[i] for i in range(3)]
    assert [i for i, p in enumerate(gp["players"]) if p["winner"]] == s.state.outcome.winners
    minutes = (max(r["at"] for r in s.records) - s.records[0]["at"]) / 60
    assert gp["durationMin"] == round(minutes) and gp["durationMin"] > 10
    assert gp["location"] == "Table Companion (kitchen)"
    assert tw["board"] == "Tariff Warz" and all(p["role"] for p in tw["players"])
    assert sum(p["startPlayer"] for p in tw["players"]) == 1
    # the link BG Stats opens: its data parameter decodes to the very same play
    for play in plays:
        link = export.bgstats_link(play)
        url = urllib.parse.urlsplit(link)
        assert (url.scheme, url.netloc, url.path) == ("https", "app.bgstatsapp.com",
                                                      "/createPlay.html")
        [data] = urllib.parse.parse_qs(url.query)["data"]
        assert json.loads(data) == play
    page = (out / "bgstats-plays.html").read_text()
    assert page.count("Add this play to BG Stats") == 2 and page.count("<svg") == 2


def test_csv_export_of_every_session(store, capsys):
    out = store["dir"] / "csv"
    assert main(["sessions", "export", "--db", store["db"], "--out", str(out)]) == 0
    with open(out / "sessions.csv") as f:
        sessions = list(csv.DictReader(f))
    assert [r["played_by"] for r in sessions] == ["table", "table", "bots"]
    assert sessions[1]["edition"] == "Tariff Warz"
    assert sessions[0]["data_hash"] and float(sessions[0]["minutes"]) > 10
    with open(out / "players.csv") as f:
        players = list(csv.DictReader(f))
    assert len(players) == 3 + 3 + 2
    gp = [r for r in players if r["session"] == store["gp"].id]
    assert sorted(int(r["won"]) for r in gp) == [0, 0, 1]
    assert sum(int(r["first_player"]) for r in gp) == 1
    with open(out / "events.csv") as f:
        events = list(csv.DictReader(f))
    s = store["gp"]
    mine = [e for e in events if e["session"] == s.id]
    assert len(mine) == len(s.records)
    assert [e["type"] for e in mine] == [r["type"] for r in s.records]


def test_ranks_follow_the_winner_then_the_score():
    assert export.ranks([10, 30, 30, 5], [1]) == [3, 1, 2, 4]
    assert export.ranks([10, 30, 30, 5], [1, 2]) == [3, 1, 1, 4]
    assert export.ranks([7, 7], [0]) == [1, 2]                # a tiebreak parted them


def test_export_errors_are_sentences(store, capsys):
    code = main(["sessions", "export", "--db", store["db"], "--session", "nope", "--out",
                 str(store["dir"] / "x")])
    err = capsys.readouterr().err
    assert code == 1 and "No session 'nope'" in err and "Traceback" not in err


def test_the_bgstats_page_scans(store, capsys):
    """Each play's QR code, as Chromium draws the page, reads back as that play's link."""
    from PIL import Image
    from playwright.sync_api import sync_playwright
    from pyzbar.pyzbar import decode
    out = store["dir"] / "bg-page"
    assert main(["sessions", "export", "--format", "bgstats", "--db", store["db"], "--out",
                 str(out)]) == 0
    capsys.readouterr()
    shot = out / "page.png"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium",
                              args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            page = b.new_page(viewport={"width": 900, "height": 900})
            page.goto((out / "bgstats-plays.html").as_uri())
            page.screenshot(path=str(shot), full_page=True)
        finally:
            b.close()
    plays = json.loads((out / "bgstats-plays.json").read_text())
    read = sorted(c.data.decode() for c in decode(Image.open(shot)))
    assert read == sorted(export.bgstats_link(p) for p in plays)
