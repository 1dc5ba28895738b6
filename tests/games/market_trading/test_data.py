"""The data files load, hold the rulebook's numbers, and every mistake names file, item and
field."""
import shutil

import pytest

from companion.core.errors import DataFileError
from companion.games.market_trading import card_catalog
from companion.games.market_trading.data import DATA, load_rules

from .helpers import GAME


def test_rulebook_numbers():
    r = GAME.rules
    assert (r.bowl, r.face_up, r.market_cap, r.forage) == (30, 10, 4, 2)
    assert (r.rows, r.cols) == (4, 6)
    grain = r.resources["grain"]
    assert (grain.value, grain.first, grain.terrain) == (1, 2, "field")
    assert {res.terrain for res in r.resources.values() if res.tier == 1} == {
        "field", "forest", "mountain", "water", "desert"}
    assert card_catalog()["cards"]["mill"] == "Mill"


@pytest.mark.parametrize("file,old,new,where", [
    ("resources.toml", 'terrain = "field"', 'terrain = "swamp"', "grain: field 'terrain'"),
    ("resources.toml", "value = 1                 #", "value = -1                #",
     "grain: field 'value'"),
    ("improvements.toml", "cost = { stone = 1, grain = 1 }", "cost = { marble = 1 }",
     "sawmill: field 'cost.marble'"),
    ("improvements.toml", "on_forage = { extra = { water = 1 } }",
     "on_forage = { extra = { lava = 1 } }", "fishery: field 'on_forage.extra.lava'"),
    ("improvements.toml", "on_build = { points = 2 }", "on_build = { cheer = 2 }",
     "market-stall: field 'on_build.cheer'"),
    ("rules.toml", "bowl = 30", "bowl = 0", "setup: field 'bowl'"),
    ("rules.toml", 'letter = "T"', 'letter = "F"', "board.terrain.forest: field 'letter'"),
    ("rules.toml", "start_piles = 4", "start_piles = 99", "setup: field 'start_piles'"),
])
def test_mistakes_name_file_item_and_field(tmp_path, file, old, new, where):
    d = tmp_path / "data"
    shutil.copytree(DATA, d)
    text = (d / file).read_text()
    assert old in text
    (d / file).write_text(text.replace(old, new, 1))
    with pytest.raises(DataFileError) as e:
        load_rules(d)
    assert file in str(e.value) and where in str(e.value), str(e.value)
