"""The db-version on a printed card comes from the data it was printed from, so a card from an
old print run, or from an edited copy, is refused by name at a table that plays other data,
instead of being taken for whatever its id means there."""
import shutil

import pytest

from companion import cardcodes, games
from companion.printing import GAMES, catalog_of, print_set

from .conftest import RUNS


@pytest.mark.parametrize("game", GAMES)
def test_the_print_catalog_is_the_tables_catalog(game):
    """The catalog built from a data folder is exactly the one the table scans against."""
    assert catalog_of(game) == games.card_catalog(game)


@pytest.mark.parametrize("game, edition, paper", RUNS)
def test_shipped_prints_carry_the_tables_deck_version(game, edition, paper):
    ps = print_set(game, edition)
    assert ps.version == cardcodes.deck_version(games.card_catalog(game))
    assert all(cardcodes.parse_code(f.code).db_version == ps.version for f in ps.faces())


def _copy(tmp_path):
    from companion.games.great_powers import data as gp
    dst = tmp_path / "gp"
    shutil.copytree(gp.DATA, dst)
    return dst


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_an_edited_copy_prints_its_own_version_and_the_table_says_so(tmp_path):
    shipped = print_set("great-powers")
    data = _copy(tmp_path)
    _edit(data / "actions.toml", 'name = "Gilded Age"', 'name = "Gilded Era"')
    edited = print_set("great-powers", data=data)
    assert edited.version != shipped.version
    assert edited.version.startswith("gp-2026.11~")
    code = edited.faces()[0].code                       # Gilded Era, copy 1
    table = games.card_catalog("great-powers")          # a table with the shipped data
    with pytest.raises(cardcodes.OutdatedCardError,
                       match="printed from another edit of the deck") as e:
        cardcodes.identify(code, None, "great-powers", table)
    assert "Nothing was changed" in str(e.value) and e.value.card_id == "gilded-age"
    # the edited table takes its own prints, and refuses the shipped ones
    edited_table = catalog_of("great-powers", data)
    assert cardcodes.identify(code, None, "great-powers", edited_table).name == "Gilded Era"
    with pytest.raises(cardcodes.OutdatedCardError):
        cardcodes.identify(shipped.faces()[0].code, None, "great-powers", edited_table)


def test_a_card_from_an_older_print_run_says_so(tmp_path):
    old = print_set("great-powers")
    data = _copy(tmp_path)
    _edit(data / "actions.toml", 'version = "gp-2026.11"', 'version = "gp-2026.12"')
    _edit(data / "actions.toml", 'id = "gilded-age"', 'id = "robber-barons"')
    newer_table = catalog_of("great-powers", data)
    gilded = [f for f in old.faces() if f.card_id == "gilded-age"][0]
    # its id is gone from the new data: still the version is named, not "unknown card"
    with pytest.raises(cardcodes.OutdatedCardError,
                       match=r"printed from an older version of the deck \(gp-2026.11\); this "
                             r"table plays gp-2026.12"):
        cardcodes.identify(gilded.code, None, "great-powers", newer_table)
    mass = [f for f in old.faces() if f.card_id == "mass-production"][0]
    with pytest.raises(cardcodes.OutdatedCardError, match="older version of the deck"):
        cardcodes.identify(mass.code, None, "great-powers", newer_table)


def test_the_cardcodes_examples_run():
    import doctest
    result = doctest.testmod(cardcodes)
    assert result.attempted > 0 and result.failed == 0


def test_the_rules_core_does_not_import_the_printing_service():
    import pathlib

    import companion
    root = pathlib.Path(companion.__file__).parent
    for folder in ("core", "games"):
        for path in (root / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert "companion.printing" not in text and "reportlab" not in text, path
