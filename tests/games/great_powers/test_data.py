"""Great Powers data files: every card of the rulebook is there, and a mistake names the file,
the card and the field."""
import shutil

import pytest

from companion.core.errors import DataFileError
from companion.games.great_powers.data import DATA, default_rules, load_rules


def test_every_card_and_event_of_the_rulebook_is_loaded():
    r = default_rules()
    assert len(r.actions) == 89 and len(r.events) == 12
    assert r.actions["five-year-plan"].extra_bids == 1
    assert r.actions["assassination"].target_fewer_bids == 1
    assert r.actions["great-depression"].others_lose == {"industry": 1}
    assert r.events["arms-race"].award_traits == ("industry", "army")
    assert {e.war for e in r.events.values() if e.war} == {"great", "east", "west"}
    assert r.gains == (1, 2, 4, 0) and r.beyond == -1


def _broken(tmp_path, name, old, new):
    d = tmp_path / "data"
    shutil.copytree(DATA, d)
    text = (d / name).read_text()
    assert old in text
    (d / name).write_text(text.replace(old, new, 1))
    return d


@pytest.mark.parametrize("name, old, new, where", [
    ("actions.toml", 'gain = { vp = 5 }', 'gain = { gold = 5 }',
     "actions.toml: gilded-age: field 'gain.gold'"),
    ("actions.toml", 'gain = { vp = 5 }', 'gain = { vp = -5 }',
     "actions.toml: gilded-age: field 'gain.vp'"),
    ("actions.toml", 'name = "Gilded Age"', 'name = 7', "actions.toml: gilded-age: field 'name'"),
    ("actions.toml", 'id = "mass-production"', 'id = "gilded-age"',
     "actions.toml: gilded-age: field 'id': is used twice"),
    ("actions.toml", 'extra_bids = 1', 'extra_bid = 1', "field 'extra_bid'"),
    ("events.toml", '\nwar = "great"', '\nwar = "cold"', "events.toml: great-war: field 'war'"),
    ("events.toml", 'traits = ["colony"]', 'traits = ["spice"]',
     "events.toml: imports: field 'award.traits'"),
    ("rules.toml", 'gains = [1, 2, 4, 0]', 'gains = [1, 2, 4]', "rules.toml: chart: field 'gains'"),
    ("rules.toml", 'bonus = "steal_colony"', 'bonus = "steal_navy"',
     "rules.toml: score #2: field 'bonus'"),
    ("actions.toml", '[[action]]', '[[action]\n', "actions.toml: is not valid TOML"),
])
def test_a_mistake_names_the_file_the_card_and_the_field(tmp_path, name, old, new, where):
    with pytest.raises(DataFileError) as e:
        load_rules(_broken(tmp_path, name, old, new))
    assert where in str(e.value)


def test_a_missing_file_is_named(tmp_path):
    d = tmp_path / "data"
    shutil.copytree(DATA, d)
    (d / "events.toml").unlink()
    with pytest.raises(DataFileError, match="events.toml: is missing"):
        load_rules(d)
