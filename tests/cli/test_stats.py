"""`companion stats`: time per phase comes from the log's real timestamps of games a table
played. The bug (issue 12): every phase read 0.0 s, because games stored by `companion play`
ran on a bot's clock that never moves, and stats averaged their zeros in (a store of such games
showed 0.0s for every phase)."""
import json

import pytest

from companion.cli.main import main
from companion.core.log import SQLiteLog
from tests.lab.tables import play_table


def _stats(capsys, db, *extra):
    assert main(["stats", "--db", db, *extra]) == 0
    return capsys.readouterr().out


def test_time_per_phase_is_the_tables_time_not_the_bots(capsys, tmp_path):
    db = str(tmp_path / "s.db")
    log = SQLiteLog(db)
    table = play_table(log, "great-powers", 3, seed=7, think=(20.0, 60.0))
    log.close()
    assert main(["play", "great-powers", "--players", "3", "--seed", "8", "--db", db]) == 0
    capsys.readouterr()
    st = json.loads(_stats(capsys, db, "--json"))
    assert st["sessions"] == {"great-powers": 2}
    want = {}
    for phase, _r, start, end in table.state.phase_log:
        want.setdefault(phase, []).append(end - start)
    got = {r["phase"]: r for r in st["phases"]}
    assert set(got) == set(want)
    for phase, ds in want.items():
        assert got[phase]["count"] == len(ds)
        assert got[phase]["mean_s"] == pytest.approx(sum(ds) / len(ds))
    assert got["bid"]["mean_s"] > 20                       # three players thought about it
    assert st["timed"] == {"great-powers": 1}
    text = _stats(capsys, db)
    assert "time per phase, from 1 table session:" in text
    assert "Bid" in text and "0.0s" not in text.split("Bid", 1)[1].splitlines()[0]


def test_a_store_of_bot_games_shows_no_made_up_times(capsys, tmp_path):
    db = str(tmp_path / "s.db")
    assert main(["play", "great-powers", "--players", "3", "--seed", "8", "--db", db]) == 0
    capsys.readouterr()
    text = _stats(capsys, db)
    assert "0.0s" not in text
    assert "no table sessions yet" in text
    st = json.loads(_stats(capsys, db, "--json"))
    assert st["phases"] == [] and st["sessions"] == {"great-powers": 1}
