"""The skill ladder and balance under weak and strong bots (companion/lab/ladder.py)."""
from companion.games import get
from companion.lab import ladder

GP = get("great-powers")
PLAYERS = ["A", "B", "C", "D"]


def test_a_rung_rotates_the_strong_seat_and_says_whether_it_holds():
    r = ladder.rung(GP, PLAYERS, "greedy", "random", 120, seed=3)
    assert r["games"] == 120 and [s["seat"] for s in r["seats"]] == [0, 1, 2, 3]
    assert all(s["games"] == 30 for s in r["seats"])
    assert r["fair"] == 0.25
    lo, hi = r["ci95"]
    assert lo <= r["win_rate"] <= hi
    assert r["holds"] == (lo > 0.25) and r["holds"]       # greedy beats random clearly
    back = ladder.rung(GP, PLAYERS, "random", "greedy", 120, seed=3)
    assert not back["holds"]                              # and not the other way round
    assert "greedy vs 3 x random" in ladder.text([r, back])


def test_a_sequential_rung_stops_once_decided_on_new_deals():
    """``until="decided"``: blocks of new deals (seed, seed + 1, ...) until the interval,
    widened for the looks the budget allows, clears the fair share; greedy over random is
    decided in fewer games than the budget, and so is random under greedy, the other way."""
    r = ladder.rung(GP, PLAYERS, "greedy", "random", 800, seed=3, until="decided", block=80)
    assert r["decided"] and r["holds"] and r["games"] < 800 and r["games"] % 80 == 0
    assert r["looks"] == r["games"] // 80 and r["budget"] == 800
    z = ladder._z(0.05 / 10)                       # ten looks allowed: each at 99.5%
    assert r["ci95"] == list(__import__("companion.core.play", fromlist=["wilson"]).wilson(
        round(r["wins"]), r["games"], z))
    assert sum(s["wins"] for s in r["seats"]) == r["wins"]
    # one block is the fixed rung: the same deals, the plain 95% interval
    one = ladder.rung(GP, PLAYERS, "greedy", "random", 80, seed=3, until="decided", block=80)
    fixed = ladder.rung(GP, PLAYERS, "greedy", "random", 80, seed=3)
    assert (one["wins"], one["ci95"], one["looks"]) == (fixed["wins"], fixed["ci95"], 1)
    back = ladder.rung(GP, PLAYERS, "random", "greedy", 800, seed=3, until="decided", block=80)
    assert back["decided"] and not back["holds"] and back["games"] < 800
    assert "(1 look, 80 of 800 games)" in ladder.text([r, back])


def test_the_ladder_plays_each_rung_against_the_one_below():
    rows = ladder.ladder(GP, PLAYERS, 8, rungs=("random", "greedy", "random"))
    assert [(r["strong"], r["weak"]) for r in rows] == [("greedy", "random"),
                                                        ("random", "greedy")]


def test_balance_sets_weak_and_strong_side_by_side_with_their_rank_correlation():
    res = ladder.balance(GP, PLAYERS, 60, weak="random", strong="greedy", seed=1)
    kinds = {r["kind"] for r in res["rows"]}
    assert kinds == {"seat", "position"}                 # Great Powers has no Leaders
    for r in res["rows"]:
        assert r["weak"]["games"] == 60 and r["strong"]["games"] == 60
    assert set(res["spearman"]) == {"all", "seat", "position"}
    text = ladder.balance_text(res)
    assert "Spearman" in text and "position 1" in text


def test_spearman_is_rank_based_and_says_when_it_is_undefined():
    assert ladder.spearman([1, 2, 3], [1, 4, 9]) == 1.0
    assert ladder.spearman([1, 2, 3], [5, 5, 5]) is None
    assert ladder.spearman([1, 2], [1, 2]) is None
    assert abs(ladder.spearman([1, 2, 3, 4], [1, 3, 2, 4]) - 0.8) < 1e-12


def test_the_command_prints_the_rungs_and_the_balance(capsys):
    from companion.cli.main import main
    assert main(["ladder", "great-powers", "--rungs", "random,greedy", "--games", "8"]) == 0
    out = capsys.readouterr().out
    assert "greedy vs 3 x random" in out and "holds" in out
    assert main(["ladder", "great-powers", "--balance", "--games", "8", "--weak", "random",
                 "--strong", "greedy"]) == 0
    assert "Spearman rank correlation (position)" in capsys.readouterr().out


def test_the_report_page_has_the_balance_section(tmp_path, capsys, monkeypatch):
    """`companion report great-powers --balance N`: the page's section (greedy and search-100
    side by side, the rank correlation) and balance.csv, one row per figure and bot; a game
    without a search bot says so in one sentence."""
    import csv
    from companion.cli.main import main
    out = tmp_path / "gp"
    assert main(["report", "great-powers", "--players", "3", "--simulate", "60", "--balance",
                 "1", "--jobs", "1", "--db", str(tmp_path / "s.db"), "--out", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert "Balance under greedy and under search-100 bots" in page
    assert "Spearman rank correlation" in page
    rows = list(csv.DictReader(open(out / "balance.csv")))
    assert {r["bots"] for r in rows} == {"greedy", "search-100"}
    greedy = [r for r in rows if r["bots"] == "greedy" and r["kind"] == "seat"]
    search = [r for r in rows if r["bots"] == "search-100" and r["kind"] == "seat"]
    assert len(greedy) == len(search) == 3
    assert {r["games"] for r in greedy} == {"1000"} and {r["games"] for r in search} == {"1"}
    assert abs(sum(float(r["win_rate"]) for r in search) - 1) < 1e-9   # one game: its winners
    capsys.readouterr()
    monkeypatch.delitem(get("market-trading").bots, "search-100")   # (every game has one now)
    assert main(["report", "market-trading", "--players", "3", "--balance", "1",
                 "--db", str(tmp_path / "s.db"), "--out", str(tmp_path / "mt")]) == 1
    assert "no search bot yet" in capsys.readouterr().err


def test_market_tradings_report_has_the_balance_section(tmp_path, monkeypatch):
    """`companion report market-trading --balance N` (no --out needed: --balance asks for the
    page) plays its greedy games and N search-100 games, and writes the section."""
    import csv
    from companion.cli.main import main
    monkeypatch.chdir(tmp_path)
    assert main(["report", "market-trading", "--players", "3", "--balance", "1",
                 "--jobs", "1", "--db", str(tmp_path / "s.db")]) == 0
    out = tmp_path / "market-trading-report"
    assert "Balance under greedy and under search-100 bots" in (out / "report.html").read_text()
    rows = list(csv.DictReader(open(out / "balance.csv")))
    assert {r["bots"] for r in rows} == {"greedy", "search-100"}
