"""`companion report battle-builder` and the calibration behind it."""
import json
import re
import shutil

from companion.cli.main import main
from companion.core.play import wilson
from companion.games.battle_builder.data import DATA
from companion.games.battle_builder.report import battles_for, calibrate, free_choice

from .helpers import GAME


def test_calibration_counts_exactly_the_battles_asked_for():
    r = calibrate(GAME, "medium", 25, seed=3)
    assert r["battles"] == 25 and r["options"]["monster_pool"] == "medium"
    assert r["ci95"] == list(wilson(r["won"], 25))
    assert r["target"] == 0.65
    lo, hi = r["ci95"]
    assert r["verdict"] == ("on target" if lo <= 0.65 <= hi else
                            "too easy" if lo > 0.65 else "too hard")
    assert battles_for(0.5) == 1068 and battles_for(0.85) == 545


def test_calibration_is_reproducible_and_takes_variants():
    a = calibrate(GAME, "hard", 20, seed=4, options={"tokens": "B", "targeting": "higher-hp"})
    b = calibrate(GAME, "hard", 20, seed=4, options={"tokens": "B", "targeting": "higher-hp"})
    assert a["won"] == b["won"] and a["mean_turns"] == b["mean_turns"]
    assert a["options"]["tokens"] == "B"


def test_free_choice_reports_what_was_chosen():
    r = free_choice(GAME, 30, seed=1)
    assert r["battles"] == 30 and sum(row["chosen"] for row in r["rows"]) == 30


def test_cli_prints_the_table_and_json(capsys):
    assert main(["report", "battle-builder", "--battles", "20", "--difficulty", "easy",
                 "--option", "tokens=C"]) == 0
    out = capsys.readouterr().out
    assert "options: tokens=C" in out and re.search(r"easy\s+\d+\.\d%", out)
    assert main(["report", "battle-builder", "--battles", "10", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["difficulty"] for r in rows] == ["easy", "medium", "hard"]
    assert main(["report", "battle-builder", "--battles", "10", "--difficulty", "free"]) == 0
    assert "chosen" in capsys.readouterr().out


def test_cli_refuses_bad_input_with_one_line(capsys):
    assert main(["report", "battle-builder", "--battles", "0"]) == 1
    assert "at least 1" in capsys.readouterr().err
    assert main(["report", "battle-builder", "--option", "monster_pool=easy"]) == 1
    assert "--difficulty sets monster_pool" in capsys.readouterr().err
    assert main(["report", "battle-builder", "--option", "colour=blue"]) == 1
    assert "no option 'colour'" in capsys.readouterr().err


def test_cli_calibrates_an_alternative_data_directory(tmp_path, capsys):
    d = tmp_path / "data"
    shutil.copytree(DATA, d)
    text = (d / "monsters.toml").read_text()
    (d / "monsters.toml").write_text(re.sub(r"\nattack = \d+", "\nattack = 60", text))
    assert main(["report", "battle-builder", "--battles", "15", "--difficulty", "easy",
                 "--data", str(d), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["win_rate"] < 0.5                      # 60-damage slimes win
    (d / "monsters.toml").write_text("not toml [")
    assert main(["report", "battle-builder", "--data", str(d)]) == 1
    assert "monsters.toml" in capsys.readouterr().err


def test_simulate_report_hook_gives_win_rate_per_difficulty(capsys):
    from companion.core.play import simulate
    r = simulate(GAME, ["A", "B"], 6, seed=2, options={"arc": "4+1"})
    rep = GAME.report(r["summaries"])
    rows = {row["difficulty"]: row for row in rep["difficulties"]}
    assert sum(row["battles"] for row in rows.values()) == 6 * 4
    for row in rows.values():
        if row["battles"]:
            assert row["ci95"] == list(wilson(row["won"], row["battles"]))
    assert abs(sum(rep["choices"].values()) - 1) < 1e-9
    assert main(["simulate", "battle-builder", "--players", "2", "--games", "4",
                 "--option", "monster_pool=medium", "--option", "arc=4+1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"medium\s+16\s+100.0%", out) and "easy" in out
