"""The data files load, hold the rulebook's numbers, and every mistake names file, item and
field."""
import pathlib
import shutil

import pytest

from companion.core.errors import DataFileError
from companion.games.battle_builder import card_catalog
from companion.games.battle_builder.data import DATA, load_rules

from .helpers import GAME


def test_rulebook_numbers_are_in_the_data():
    r = GAME.rules
    assert r.setup["hp"] == 20 and r.setup["stamina"] == 20
    assert len(r.setup["attack_deck"]) == 5 and len(r.setup["defense_deck"]) == 3
    assert all(2 <= r.cards[c].damage <= 4 for c in r.setup["attack_deck"])
    assert r.arcs == {"9+3": (9, 3), "6+2": (6, 3), "4+1": (4, 3)}
    assert r.shop["tier_cost"] == (4, 8, 12) and r.shop["hp_costs_diminishing"] == (3, 5, 8, 12)
    assert (r.shop["hp_cap"], r.shop["stamina_cap"]) == (20, 15)
    assert r.battle["vp_monster"] == 1 and r.battle["vp_pvp"] == 2
    tiers = {"easy": (10, 15, 2, 3, 3, 3), "medium": (20, 25, 4, 5, 5, 6),
             "hard": (35, 40, 6, 8, 7, 10)}
    for m in r.monsters.values():
        lo, hi, alo, ahi, speed, reward = tiers[m.difficulty]
        assert lo <= m.hp <= hi and alo <= m.attack <= ahi, m.id
        assert m.speed == speed and m.reward == reward, m.id
    ranges = {("attack", 1): (5, 7), ("attack", 2): (8, 10), ("attack", 3): (11, 15),
              ("defense", 1): (4, 6), ("defense", 2): (7, 9), ("defense", 3): (10, 12)}
    for c in r.cards.values():
        if c.tier:
            lo, hi = ranges[(c.kind, c.tier)]
            assert lo <= (c.damage if c.kind == "attack" else c.block) <= hi, c.id
    assert set(r.environments) == {"narrow-passage", "sandstorm", "healing-springs",
                                   "high-ground"}


def test_card_catalog_names_every_physical_card():
    cat = card_catalog()
    assert cat["version"] == GAME.rules.version
    assert cat["cards"]["troll"] == "Troll" and cat["cards"]["aegis"] == "Aegis"


def copy_data(tmp_path):
    d = tmp_path / "data"
    shutil.copytree(DATA, d)
    return d


def edit(path: pathlib.Path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize("file,old,new,where", [
    ("monsters.toml", 'difficulty = "easy"', 'difficulty = "trivial"',
     "slime: field 'difficulty'"),
    ("monsters.toml", 'abilities = ["regeneration"]', 'abilities = ["teleport"]',
     "slime: field 'abilities'"),
    ("monsters.toml", "hp = 13", "hp = \"lots\"", "slime: field 'hp'"),
    ("cards.toml", "damage = 2", "", "jab: field 'damage'"),
    ("cards.toml", 'tier = 0\ndamage = 2', 'tier = 0\ndamage = 2\ncolour = "red"',
     "jab: field 'colour'"),
    ("rules.toml", "hp_cap = 20", "hp_cap = -1", "shop: field 'hp_cap'"),
    ("rules.toml", 'attack_deck = ["jab"', 'attack_deck = ["guard"', "setup: field "
                                                                      "'attack_deck'"),
    ("rules.toml", "best_of = 3", "best_of = 2", "pvp: field 'best_of'"),
    ("rules.toml", 'types = ["skill"]', 'types = ["skill", "x", "y"]',
     "tokens.A: field 'types'"),
    ("effects.toml", 'kind = "win_final_pvp"', 'kind = "win_the_lottery"',
     "final-champion: field 'kind'"),
    ("rules.toml", "[battle]", "[battle", "not valid TOML"),
])
def test_mistakes_name_file_item_and_field(tmp_path, file, old, new, where):
    d = copy_data(tmp_path)
    edit(d / file, old, new)
    with pytest.raises(DataFileError) as e:
        load_rules(d)
    assert file in str(e.value) and where in str(e.value), str(e.value)


def test_a_missing_file_is_named(tmp_path):
    d = copy_data(tmp_path)
    (d / "effects.toml").unlink()
    with pytest.raises(DataFileError, match="effects.toml: is missing"):
        load_rules(d)
