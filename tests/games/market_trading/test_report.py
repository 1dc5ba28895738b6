"""`companion report market-trading` and `companion simulate market-trading`."""
import json

from companion.cli.main import main
from companion.games.market_trading.report import report

from .helpers import GAME


def test_report_figures_add_up():
    r = report(GAME, 3, 30, seed=2)
    assert abs(sum(s["win_rate"] for s in r["seats"]) - 1.0) < 1e-9
    assert r["rounds_median"] <= r["rounds_p90"] and 0 <= r["stalled_share"] <= 1
    assert r["commands_mean"] > r["turns_mean"] > 0


def test_cli_report_and_board(capsys):
    assert main(["report", "market-trading", "--players", "2", "--games", "20",
                 "--show-board", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "first player wins" in out and "Player 2's board (seed 5)" in out
    assert "F = field (grain)" in out
    assert main(["report", "market-trading", "--games", "5", "--json",
                 "--option", "end=equal-turns"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["options"]["end"] == "equal-turns"
    assert main(["report", "market-trading", "--players", "9"]) == 1
    assert "2-6 players, not 9" in capsys.readouterr().err


def test_generic_simulate_works(capsys):
    assert main(["simulate", "market-trading", "--players", "2", "--games", "20"]) == 0
    assert "win rate" in capsys.readouterr().out
    assert main(["simulate", "battle-builder", "--players", "2", "--games", "3",
                 "--option", "arc=4+1"]) == 0
    assert "mean VP spread" in capsys.readouterr().out


def test_simulate_report_hook_gives_length_and_first_player(capsys):
    from companion.core.play import simulate
    r = simulate(GAME, ["A", "B"], 40, seed=3)
    rep = GAME.report(r["summaries"])
    assert abs(rep["first_player_win_rate"] - r["seats"][0]["wins"] / 40) < 1e-9  # seat 1 starts
    assert rep["rounds_median"] <= rep["rounds_p90"] and 0 <= rep["stalled_share"] <= 1
    assert main(["simulate", "market-trading", "--players", "2", "--games", "30"]) == 0
    assert "first player wins" in capsys.readouterr().out
