"""The `companion` command: one clear line and a non-zero exit for every error."""
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from companion.cli.main import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_games_lists_great_powers(capsys):
    code, out, _ = run(capsys, "games")
    assert code == 0 and "great-powers" in out and "3-8 players" in out


def test_play_prints_the_final_table_and_stores_the_session(capsys, tmp_path):
    db = str(tmp_path / "s.db")
    code, out, _ = run(capsys, "play", "great-powers", "--players", "4", "--seed", "5",
                       "--bots", "all", "--db", db)
    assert code == 0 and "Winner:" in out and "Turn 10 of 10" in out
    code, out, _ = run(capsys, "sessions", "--db", db)
    sid = out.split()[0]
    assert code == 0 and "finished" in out
    code, out2, _ = run(capsys, "replay", sid, "--db", db)
    assert code == 0 and "Winner:" in out2
    code, out3, _ = run(capsys, "stats", "--db", db, "--json")
    st = json.loads(out3)
    assert st["sessions"] == {"great-powers": 1}
    assert sum(r["wins"] for r in st["seats"]) == pytest.approx(1.0)
    # bots play on a clock that never runs: no time per phase is read from their game
    assert st["phases"] == [] and st["timed"] == {}
    code, text, _ = run(capsys, "stats", "--db", db)
    assert "0.0s" not in text and "no table sessions yet" in text


def test_simulate_reports_win_rates_with_intervals(capsys):
    code, out, _ = run(capsys, "simulate", "great-powers", "--players", "3", "--games", "40",
                       "--seed", "1", "--json")
    r = json.loads(out)
    assert code == 0 and r["games"] == 40
    assert sum(s["win_rate"] for s in r["seats"]) == pytest.approx(1.0)
    for s in r["seats"]:
        lo, hi = s["ci95"]
        assert 0 <= lo <= s["win_rate"] <= hi <= 1
    code, out, _ = run(capsys, "simulate", "great-powers", "--players", "3", "--games", "10",
                       "--bots", "random,greedy,random")
    assert code == 0 and "95% interval" in out


@pytest.mark.parametrize("argv, message", [
    (["play", "chess", "--players", "2"], "No game called 'chess'"),
    (["play", "great-powers", "--players", "9"], "3-8 players"),
    (["simulate", "great-powers", "--players", "3", "--bots", "smart"], "no bot 'smart'"),
    (["simulate", "great-powers", "--players", "3", "--option", "ties=maybe"],
     "must be one of"),
    (["simulate", "great-powers", "--players", "3", "--games", "0"], "at least 1"),
    (["replay", "no-such-session"], "No session no-such-session"),
])
def test_errors_are_one_clear_line(capsys, tmp_path, argv, message):
    if argv[0] == "replay":
        argv = argv + ["--db", str(tmp_path / "s.db")]
    code, out, err = run(capsys, *argv)
    assert code != 0
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_foreign_store_is_named_and_untouched(tmp_path):
    db = tmp_path / "other.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE photos(x)")
    con.commit()
    con.close()
    before = db.read_bytes()
    p = subprocess.run([sys.executable, "-m", "companion.cli.main", "sessions", "--db", str(db)],
                       capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.getcwd()))
    assert p.returncode == 1
    assert "other.db" in p.stderr and "Traceback" not in p.stderr
    assert db.read_bytes() == before


def test_stats_groups_finished_games_by_how_they_ended(capsys, tmp_path):
    from companion.core.log import SQLiteLog
    from companion.core.play import play_out, resolve_bots
    from companion.core.session import Session
    from companion.games import get
    import random
    db = str(tmp_path / "s.db")
    log = SQLiteLog(db)
    game = get("great-powers")
    for seed in range(3):
        s = Session.start(game, ["A", "B", "C"], log, seed=seed)
        play_out(s, resolve_bots(game, "greedy", 3), random.Random(seed))
        assert s.state.outcome.code == "last_turn"
    s = Session.start(game, ["A", "B", "C"], log, seed=9)
    s.end_early()
    assert s.state.outcome.code == "ended_early"
    log.close()
    code, out, _ = run(capsys, "stats", "--db", db, "--json")
    assert code == 0
    assert json.loads(out)["endings"] == [
        {"game": "great-powers", "code": "last_turn", "games": 3, "share": 0.75},
        {"game": "great-powers", "code": "ended_early", "games": 1, "share": 0.25}]
    code, out, _ = run(capsys, "stats", "--db", db)
    assert "ended: last turn 3 (75%), ended early 1 (25%)" in out
