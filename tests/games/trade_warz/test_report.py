"""Balance figures: `companion simulate trade-warz --edition trade|tariff` reports win rate per
Leader with 95% intervals, GDP per round and disputes per round; `companion stats` per Leader;
the summary stored with each finished session; the public view has what the screens need."""
import doctest
import json
import random

import pytest

from companion.cli.main import main
from companion.core.play import play_out, simulate
from companion.games.trade_warz import report as report_mod

from .helpers import GAME, drive, session


def test_report_doctests():
    assert doctest.testmod(report_mod).failed == 0


@pytest.mark.parametrize("edition", ["trade", "tariff"])
def test_simulate_reports_per_leader_gdp_and_disputes(edition):
    r = simulate(GAME, ["A", "B", "C", "D"], 40, seed=3, bots="greedy",
                 options={"edition": edition})
    rep = GAME.report(r["summaries"])
    assert rep["games"] == 40 and rep["editions"] == [edition]
    leaders = rep["leaders"]
    assert set(leaders) <= {"usa", "china", "russia", "eu", "india", "brazil"}
    assert sum(v["games"] for v in leaders.values()) == 160          # 4 seats x 40 games
    assert sum(v["wins"] for v in leaders.values()) == pytest.approx(40)
    for v in leaders.values():
        lo, hi = v["ci95"]
        assert 0 <= lo <= v["win_rate"] <= hi <= 1
    rounds = rep["gdp_per_round"]
    assert rounds[0]["games"] == 40 and rounds[0]["mean_gdp"] > 0
    assert all(a["games"] >= b["games"] for a, b in zip(rounds, rounds[1:]))
    assert rep["disputes_per_round"][0]["mean"] >= 0
    assert rep["ends"]["boom"] + rep["ends"]["close"] == 40
    text = GAME.report_text(rep)
    assert "Win rate per Leader" in text and "GDP after each round" in text
    assert "Disputes per round" in text


def test_cli_simulate_with_edition(capsys):
    assert main(["simulate", "trade-warz", "--edition", "tariff", "--players", "3",
                 "--games", "12", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "Win rate per Leader" in out and "95%" in out and "round 1:" in out
    assert main(["simulate", "trade-warz", "--edition", "trade", "--players", "2",
                 "--games", "8", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["options"]["edition"] == "trade" and "leaders" in got["report"]


def test_cli_simulate_bad_edition_is_one_line(capsys):
    assert main(["simulate", "trade-warz", "--edition", "deluxe", "--players", "3",
                 "--games", "2"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("companion: ") and err.count("\n") == 1


def test_summary_and_stats_per_leader(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    for seed in range(3):
        assert main(["play", "trade-warz", "--players", "3", "--seed", str(seed), "--db", db,
                     "--option", "leaders=usa,china,russia"]) == 0
    out = capsys.readouterr().out
    assert "Trade Warz" in out and "Winner:" in out
    assert main(["stats", "--db", db, "--game", "trade-warz"]) == 0
    out = capsys.readouterr().out
    for name in ("USA", "China", "Russia"):
        assert name in out


def test_summary_fields():
    s = session(3, seed=4, leaders="usa,china,russia")
    play_out(s, [GAME.bots["greedy"]] * 3, random.Random(4))
    summ = GAME.summary(s.state)
    assert summ["factions"] == {"0": "USA", "1": "China", "2": "Russia"}
    assert summ["winners"] == s.state.outcome.winners
    assert summ["reason"] in ("boom", "close")
    assert len(summ["gdp_curve"]) == len(summ["disputes_per_round"]) == s.state.round


def test_public_view_has_what_the_screens_need():
    s = session(4, seed=6, leaders="usa,china,russia,brazil")
    drive(s, lambda st: st.phase == "disputes" or st.round >= 2)
    v = s.public_view()
    g = v["game_view"]
    for key in ("round_text", "gdp", "win_gdp", "gdp_curve", "income", "upkeep", "disputes",
                "partners", "event", "leaders", "policies", "cmyk", "trade", "check"):
        assert key in g, key
    assert g["win_gdp"] == 50 and g["round_text"].startswith("Round ")
    assert [c["letter"] for c in g["cmyk"]] == ["C", "M", "Y", "K"]
    assert [c["name"] for c in g["cmyk"]] == ["Canary", "Mint", "Yeti", "Kraken"]
    assert "timers" in v and "outcome" in v
    drive(s, lambda st: st.phase == "trade" and st.data.trade.timer_started)
    t = s.public_view()["timers"]["trade"]
    assert t["duration"] == 180 and t["warn_before"] == 30
    play_out(s, [GAME.bots["greedy"]] * 4, random.Random(1))
    o = s.public_view()["outcome"]
    assert o["reason"] and "tiebreak" in o
