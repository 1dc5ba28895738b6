"""Playing and simulating an edited copy of a game's data (issue 12, item 2): one mechanism,
the game built from the copy and recording it in every session, for play, simulate, serve and
run, and replays that use the same data or say why they cannot."""
import json
import shutil

import pytest

from companion import games
from companion.cli.main import main
from companion.core.datadir import DataMismatchError, DataMissingError, fingerprint
from companion.core.errors import ConfigError, DataFileError
from companion.core.log import SQLiteLog
from companion.core.session import Session, fold
from companion.lab.data import load_session
from companion.lab.simulate import simulate
from companion.net.serve import TableServer

GAMES = ("great-powers", "battle-builder", "market-trading", "trade-warz")
PLAYERS = {"great-powers": 3, "battle-builder": 2, "market-trading": 2, "trade-warz": 3}


@pytest.fixture(autouse=True)
def _shipped_after():
    yield
    games.clear_data()


def copy_of(game, tmp_path, name="copy"):
    dst = tmp_path / name
    shutil.copytree(games.shipped_data_dir(game), dst)
    return dst


def edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("name", GAMES)
def test_every_game_plays_a_copy_of_its_data_and_records_it(name, tmp_path):
    copy = copy_of(name, tmp_path)
    assert games.detect(copy) == name
    g = games.get(name, data=copy)
    assert g is games.get(name, data=copy)                  # built once per copy and content
    ref = g.data_ref
    assert ref.edited and ref.dir == str(copy) and ref.hash == fingerprint(copy)
    shipped = games.get(name).data_ref
    assert not shipped.edited and shipped.hash == ref.hash   # an unedited copy: same files
    [facts] = simulate(g, [f"P{i}" for i in range(PLAYERS[name])], 1, seed=3)
    assert facts.winners and facts.data == ref.record()


def test_an_edited_copy_changes_the_game_and_the_session_says_which(tmp_path):
    copy = copy_of("great-powers", tmp_path)
    edit(copy / "rules.toml", "winner_vp = 10", "winner_vp = 25")
    edit(copy / "actions.toml", 'name = "Gilded Age"', 'name = "Golden Age"')
    g = games.get("great-powers", data=copy)
    assert g.rules.war_vp == 25 and g.rules.actions["gilded-age"].name == "Golden Age"
    assert g.data_ref.hash != games.get("great-powers").data_ref.hash
    log = SQLiteLog(tmp_path / "s.db")
    s = Session.start(g, ["A", "B", "C"], log, seed=1)
    first = log.read(s.id)[0]
    assert first["options"]["data"] == {"version": "gp-2026.11", "hash": g.data_ref.hash,
                                        "dir": str(copy)}
    assert log.info(s.id).meta["options"]["data"]["dir"] == str(copy)
    again = load_session(log, s.id)                         # replayed with the copy
    assert again.game is g and fold(g, again.records).fingerprint() == s.state.fingerprint()


def test_a_session_of_a_copy_never_replays_silently_with_other_data(tmp_path, capsys):
    copy = copy_of("great-powers", tmp_path)
    edit(copy / "rules.toml", "winner_vp = 10", "winner_vp = 25")
    db = str(tmp_path / "s.db")
    code, out, _ = run(capsys, "play", "great-powers", "--players", "3", "--seed", "4",
                       "--data", str(copy), "--db", db)
    assert code == 0
    sid = out.split("Saved as ")[1].split()[0]
    code, out, _ = run(capsys, "replay", sid, "--db", db)
    assert code == 0 and f"edited copy {copy}" in out
    log = SQLiteLog(db)
    with pytest.raises(DataMismatchError, match="give --data"):   # the shipped game refuses
        Session.load(log, sid, games=games.get)
    edit(copy / "rules.toml", "winner_vp = 25", "winner_vp = 30")   # the copy edited since
    code, _, err = run(capsys, "replay", sid, "--db", db)
    assert code == 1 and "the files there have changed since" in err
    edit(copy / "rules.toml", "winner_vp = 30", "winner_vp = 25")
    moved = tmp_path / "moved"
    copy.rename(moved)
    code, _, err = run(capsys, "replay", sid, "--db", db)
    assert code == 1 and "which is no longer there" in err and str(copy) in err
    assert err.count("\n") == 1 and "Traceback" not in err
    code, out, _ = run(capsys, "replay", sid, "--db", db, "--data", str(moved))
    assert code == 0 and "Winner:" in out
    code, out, _ = run(capsys, "sessions", "--db", db)
    assert f"[edited data {copy}]" in out and "[bots]" in out


def test_a_shipped_session_is_not_replayed_with_a_copy(tmp_path):
    copy = copy_of("market-trading", tmp_path)
    edit(copy / "rules.toml", 'version = "mt-2026.11"', 'version = "mt-test"')
    log = SQLiteLog(tmp_path / "s.db")
    s = Session.start(games.get("market-trading"), ["A", "B"], log, seed=1)
    with pytest.raises(DataMismatchError, match="shipped data .* leave out --data"):
        load_session(log, s.id, data=copy)


def test_a_broken_copy_is_refused_with_its_file_and_field(tmp_path, capsys):
    copy = copy_of("battle-builder", tmp_path)
    (copy / "monsters.toml").unlink()
    with pytest.raises(DataFileError, match="monsters.toml: is missing"):
        games.get("battle-builder", data=copy)
    code, _, err = run(capsys, "simulate", "battle-builder", "--players", "2", "--games", "2",
                       "--data", str(copy))
    assert code == 1 and "monsters.toml" in err and "Traceback" not in err
    code, _, err = run(capsys, "play", "great-powers", "--players", "3", "--data",
                       str(tmp_path / "nowhere"))
    assert code == 1 and "not a folder" in err


def test_compare_plays_the_same_seeds_on_both_and_shows_intervals(tmp_path, capsys):
    copy = copy_of("great-powers", tmp_path)
    code, _, err = run(capsys, "simulate", "great-powers", "--players", "3", "--games", "4",
                       "--compare", str(copy))
    assert code == 1 and "the same files" in err
    edit(copy / "rules.toml", "winner_vp = 10", "winner_vp = 40")
    code, out, _ = run(capsys, "simulate", "great-powers", "--players", "3", "--games", "20",
                       "--seed", "2", "--compare", str(copy), "--json")
    assert code == 0
    r = json.loads(out)
    a, b = r["base"], r["compare"]
    assert a["data"] == games.get("great-powers").data_ref.record()
    assert b["data"]["dir"] == str(copy)
    for side in (a, b):
        assert sum(s["win_rate"] for s in side["seats"]) == pytest.approx(1.0)
        assert all(s["ci95"][0] <= s["win_rate"] <= s["ci95"][1] for s in side["seats"])
    assert b["mean_spread"] > a["mean_spread"]              # wars are worth four times more
    code, out, _ = run(capsys, "simulate", "great-powers", "--players", "3", "--games", "5",
                       "--seed", "2", "--compare", str(copy))
    assert "A: gp-2026.11, shipped data" in out and f"B: gp-2026.11, edited copy {copy}" in out
    assert "95% interval" in out and "B - A" in out


def test_worker_processes_build_the_same_copy(tmp_path):
    from companion.core.play import simulate as core_simulate
    copy = copy_of("great-powers", tmp_path)
    edit(copy / "rules.toml", "winner_vp = 10", "winner_vp = 40")
    g = games.get("great-powers", data=copy)
    one = core_simulate(g, ["A", "B", "C"], 50, seed=5, jobs=1)
    two = core_simulate(g, ["A", "B", "C"], 50, seed=5, jobs=2)     # 50: the pool's minimum
    assert one["seats"] == two["seats"] and one["mean_spread"] == two["mean_spread"]
    shipped = core_simulate(games.get("great-powers"), ["A", "B", "C"], 50, seed=5, jobs=1)
    assert shipped["mean_spread"] != one["mean_spread"]


def _server(tmp_path, **kw):
    kw = {"http_port": 0, "mqtt_port": 0, "ws_port": 0, "start": "now", "seed": 1,
          "game": "great-powers", "players": 3, **kw}
    return TableServer("club", db=tmp_path / "t.db", **kw)


def test_a_table_plays_the_copy_and_resumes_only_with_it(tmp_path):
    copy = copy_of("great-powers", tmp_path)
    edit(copy / "actions.toml", 'name = "Gilded Age"', 'name = "Golden Age"')
    games.use_data("great-powers", copy)                     # companion serve/run --data
    assert games.card_catalog("great-powers")["cards"]["gilded-age"] == "Golden Age"
    with _server(tmp_path) as s:
        sid = s.hub.session.id
        assert s.hub.session.game.rules.actions["gilded-age"].name == "Golden Age"
        assert s.hub.session.state.config["data"]["dir"] == str(copy)
    games.clear_data()
    assert games.card_catalog("great-powers")["cards"]["gilded-age"] == "Gilded Age"
    with pytest.raises(DataMismatchError, match=f"give --data {copy}"):
        _server(tmp_path).start()
    games.use_data("great-powers", copy)
    with _server(tmp_path) as s:
        assert s.resumed is not None and s.hub.session.id == sid
    games.clear_data()
    shutil.rmtree(copy)
    with pytest.raises(DataMissingError, match="no longer there"):
        _server(tmp_path).start()


def test_serve_and_run_take_data_and_detect_the_game(tmp_path):
    from companion.cli.commands.play import use_table_data

    class Args:
        game = None
        data = str(copy_of("market-trading", tmp_path))
    assert use_table_data(Args()).startswith("Market Trading plays mt-2026.11, edited copy")
    assert games.get("market-trading").data_ref.dir == Args.data
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match="no .toml data files"):
        games.detect(empty)


def test_cards_printed_from_the_copy_are_the_tables_cards(tmp_path):
    """`companion cards print --data DIR` and `run --data DIR` agree: the codes printed from
    a copy carry the db-version the table playing that copy scans against."""
    from companion import cardcodes
    from companion.printing import print_set
    copy = copy_of("great-powers", tmp_path)
    edit(copy / "actions.toml", 'name = "Gilded Age"', 'name = "Golden Age"')
    printed = print_set("great-powers", None, copy)
    shipped_version = cardcodes.deck_version(games.card_catalog("great-powers"))
    assert printed.version != shipped_version
    games.use_data("great-powers", copy)
    assert printed.version == cardcodes.deck_version(games.card_catalog("great-powers"))
