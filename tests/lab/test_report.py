"""`companion report GAME`: the playtest page and its CSV files, from table sessions played
through the hub into a real SQLite store and from bot games, rendered in Chromium."""
import csv
import json
import re
import shutil
from pathlib import Path

import pytest

from companion import games
from companion.cli.main import main
from companion.core.log import SQLiteLog
from companion.core.play import simulate as core_simulate
from companion.lab import facts as lab_facts
from companion.lab import report as lab_report
from companion.lab import stats
from companion.lab.simulate import simulate
from tests.lab.tables import play_table

SHOTS = Path(__file__).resolve().parents[2] / "screenshots" / "lab"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """Four Great Powers games at a 3-player table, one at 4, two Trade Warz games, a game of
    an edited copy, and a bot game stored by `companion play`."""
    d = tmp_path_factory.mktemp("store")
    db = d / "s.db"
    log = SQLiteLog(db)
    gp = [play_table(log, "great-powers", 3, seed=10 + i, names=["Ann", "Bob", "Cat"])
          for i in range(4)]
    gp4 = play_table(log, "great-powers", 4, seed=20, names=["Ann", "Bob", "Cat", "Dan"])
    tw = [play_table(log, "trade-warz", 3, seed=30 + i, names=["Ann", "Bob", "Cat"])
          for i in range(2)]
    copy = d / "gp-copy"
    shutil.copytree(games.shipped_data_dir("great-powers"), copy)
    (copy / "rules.toml").write_text((copy / "rules.toml").read_text().replace(
        "winner_vp = 10", "winner_vp = 30"))
    edited = play_table(log, "great-powers", 3, seed=40, data=copy)
    log.close()
    assert main(["play", "great-powers", "--players", "3", "--seed", "9", "--db", str(db)]) == 0
    return {"db": str(db), "gp": gp, "gp4": gp4, "tw": tw, "edited": edited, "copy": copy}


def test_live_facts_come_from_the_log(store):
    log = SQLiteLog(store["db"])
    s = store["gp"][0]
    f = lab_facts.live_facts(log, log.info(s.id))
    assert f.source == "live" and f.timed and f.n == 3
    assert f.winners == s.state.outcome.winners
    assert f.scores == [s.state.outcome.scores[i] for i in range(3)]
    assert f.curve == s.state.data.vp_curve and len(f.curve) == 10
    assert f.rounds == 10
    first = s.records[0]
    assert f.seconds == pytest.approx(max(r["at"] for r in s.records) - first["at"])
    assert f.first is not None and 0 <= f.first < 3
    assert f.phases == [list(p) for p in s.state.phase_log]


def test_the_selection_never_mixes_data(store):
    log = SQLiteLog(store["db"])
    sel = lab_report.select_live(log, games.get("great-powers"))
    ids = {f.session for f in sel.live}
    assert ids == {s.id for s in store["gp"]} | {store["gp4"].id}
    assert sel.bots == 1
    [(sid, why)] = sel.left_out
    assert sid == store["edited"].id and "played with other data" in why
    sel = lab_report.select_live(log, games.get("great-powers", data=store["copy"]))
    assert [f.session for f in sel.live] == [store["edited"].id]
    games.clear_data()


def test_simulated_facts_are_companion_simulates_games():
    g = games.get("great-powers")
    names = ["A", "B", "C"]
    fs = simulate(g, names, 40, seed=3)
    ref = core_simulate(g, names, 40, seed=3)
    assert [r["wins"] for r in stats.seats(fs)] == [r["wins"] for r in ref["seats"]]
    assert sum(f.lead_changes for f in fs) / 40 == pytest.approx(ref["mean_lead_changes"])
    assert sum(f.spread for f in fs) / 40 == pytest.approx(ref["mean_spread"])
    assert all(f.first is not None and not f.timed and f.phases == [] for f in fs)


def test_figures_have_intervals_and_add_up():
    rows = stats.seats(simulate(games.get("great-powers"), ["A", "B", "C"], 30, seed=1))
    assert sum(r["win_rate"] for r in rows) == pytest.approx(1.0)
    for r in rows:
        lo, hi = r["ci95"]
        assert 0 <= lo <= r["win_rate"] <= hi <= 1
    fp = stats.first_player(simulate(games.get("market-trading"), ["A", "B"], 20, seed=1))
    assert fp["games"] == 20 and fp["fair"] == pytest.approx(0.5)


@pytest.fixture(scope="module")
def gp_report(store, tmp_path_factory):
    """`companion report great-powers --simulate 60`, run once for the tests below."""
    out = tmp_path_factory.mktemp("gp") / "report"
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["report", "great-powers", "--db", store["db"], "--simulate", "60",
                     "--out", str(out)])
    assert code == 0
    return out, buf.getvalue()


def test_report_page_and_csv(store, gp_report):
    out, text = gp_report
    assert "table sessions: 5 with this data, 4 of them with 3 players" in text
    assert "simulated: 60 games" in text and "left out: 1 bot games" in text
    assert f"left out: {store['edited'].id}: played with other data" in text
    names = sorted(p.name for p in out.iterdir())
    assert names == ["curves.csv", "games.csv", "groups.csv", "phases.csv", "report.html",
                     "rounds.csv", "seats.csv"]
    with open(out / "games.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["source"] for r in rows].count("live") == 5
    assert [r["source"] for r in rows].count("sim") == 60
    assert all(r["data_hash"] == games.get("great-powers").data_ref.hash for r in rows)
    with open(out / "seats.csv") as f:
        seats = list(csv.DictReader(f))
    live = [r for r in seats if r["source"] == "table sessions"]
    assert len(live) == 3 and sum(float(r["games"]) for r in live) == 12
    assert all(float(r["ci95_low"]) <= float(r["win_rate"]) <= float(r["ci95_high"])
               for r in seats)
    with open(out / "phases.csv") as f:
        phases = {r["phase"]: r for r in csv.DictReader(f)}
    assert float(phases["bid"]["mean_s"]) > 5                  # the table's own times
    assert int(phases["bid"]["times_entered"]) == 50           # 5 sessions x 10 turns
    with open(out / "curves.csv") as f:
        curves = list(csv.DictReader(f))
    assert len([c for c in curves if c["source"] == "live"]) == 4 * 10 * 3 + 10 * 4
    page = (out / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") >= 5
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)   # nothing fetched
    assert "Win rate per seat" in page and "Where the time goes" in page
    assert "First-player advantage" in page and "Score per round" in page


def test_trade_warz_page_has_leaders_and_the_json(store, tmp_path, capsys):
    out = tmp_path / "tw"
    code = main(["report", "trade-warz", "--db", store["db"], "--simulate", "3", "--out",
                 str(out), "--json"])
    r = json.loads(capsys.readouterr().out)
    assert code == 0 and r["live"] == 2 and r["simulated"] == 3 and r["players"] == 3
    page = (out / "report.html").read_text()
    assert "Win rate per Leader" in page and "Trade Warz's own figures" in page
    with open(out / "groups.csv") as f:
        kinds = {row["kind"] for row in csv.DictReader(f)}
    assert kinds == {"leader", "first player"}


def test_the_page_renders_in_chromium(gp_report):
    from playwright.sync_api import sync_playwright
    out, _ = gp_report
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium",
                              args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                    "--disable-background-networking"])
        try:
            page = b.new_page(viewport={"width": 1100, "height": 900})
            requests = []
            page.on("request", lambda r: requests.append(r.url))
            page.goto((out / "report.html").as_uri())
            page.wait_for_load_state("load", timeout=60_000)
            svgs = page.locator("svg.plot")
            assert svgs.count() >= 5
            for i in range(svgs.count()):
                box = svgs.nth(i).bounding_box()
                assert box["width"] > 200 and box["height"] > 100
                assert box["x"] + box["width"] <= 1100            # nothing off the page
            assert page.evaluate("document.documentElement.scrollWidth") <= 1100
            assert all(u.startswith("file:") for u in requests)
            page.screenshot(path=str(SHOTS / "report-great-powers.png"), full_page=True)
        finally:
            b.close()
    assert (SHOTS / "report-great-powers.png").stat().st_size > 50_000


def test_summary_for_the_table_screen(store):
    s = store["gp"][0]
    summary = lab_facts.game_summary(s)
    assert summary["unit"] == "VP" and summary["players"] == ["Ann", "Bob", "Cat"]
    assert summary["curve"] == s.state.data.vp_curve
    phases = {p["phase"]: p for p in summary["phases"]}
    assert phases["bid"]["count"] == 10 and phases["bid"]["label"] == "Bid"
    assert sum(p["seconds"] for p in summary["phases"]) == pytest.approx(summary["seconds"])
    assert [r["round"] for r in summary["rounds"]] == list(range(0, 11))
    assert sum(r["seconds"] for r in summary["rounds"]) == pytest.approx(summary["seconds"])
    json.dumps(summary)                                      # plain data for a screen


def test_report_errors_are_sentences(store, tmp_path, capsys):
    code = main(["report", "great-powers", "--db", store["db"], "--sessions", "nope",
                 "--out", str(tmp_path / "x")])
    err = capsys.readouterr().err
    assert code == 1 and "No Great Powers session 'nope'" in err and "Traceback" not in err
    code = main(["report", "great-powers", "--db", store["db"], "--players", "9",
                 "--out", str(tmp_path / "x")])
    assert code == 1 and "3-8 players" in capsys.readouterr().err


@pytest.mark.parametrize("game, section", [("battle-builder", "Monster battles won per "
                                                              "difficulty"),
                                           ("market-trading", "Market Trading's own figures")])
def test_the_other_games_pages(game, section, tmp_path, capsys):
    out = tmp_path / game
    code = main(["report", game, "--db", str(tmp_path / "empty.db"), "--simulate", "2",
                 "--players", "2", "--out", str(out)])
    said = capsys.readouterr().out
    assert code == 0 and "simulated: 2 games" in said
    page = (out / "report.html").read_text()
    assert section in page and "Win rate per seat" in page
    assert "No timed table sessions yet" in page


def test_matplotlib_stays_out_of_the_core_and_the_table():
    """Only the report's plots import matplotlib; the rules core, the games, the hub and the
    table screen's summary never do."""
    import subprocess
    import sys
    code = ("import sys, companion.core.session, companion.core.play, companion.games, "
            "companion.service.hub, companion.lab.facts, companion.lab.report, "
            "companion.lab.export, companion.lab.transcript, companion.cli.main; "
            "from companion.cli.main import build_parser; build_parser(); "
            "assert 'matplotlib' not in sys.modules, 'matplotlib was imported'")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=Path(__file__).resolve().parents[2])
    assert p.returncode == 0, p.stderr
