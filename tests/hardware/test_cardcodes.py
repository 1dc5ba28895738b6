"""Card codes (companion/cardcodes.py): the tc1 scheme, resolving, bindings, provisioning."""
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import cardcodes as cc
from companion.core.errors import CompanionError, DataFileError

CATALOG = {"version": "2024.11", "cards": {"export-014": "Soybean Surplus",
                                           "policy-003": "Tariff Shield"}}


def test_format_and_parse():
    code = cc.format_code("trade-warz", "export-014", 2, "2024.11")
    assert code == "tc1:trade-warz:export-014:2:2024.11:42E1"
    assert cc.parse_code(code) == cc.CardCode("trade-warz", "export-014", 2, "2024.11")
    assert cc.parse_code("  " + code + "\r\n").card_id == "export-014"   # scanner suffixes


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=20), st.text(min_size=1, max_size=30),
       st.integers(1, 10**6), st.text(min_size=1, max_size=10))
def test_round_trip_any_text(game, card, copy, version):
    code = cc.CardCode(game, card, copy, version)
    text = code.format()
    assert text.isascii() and text.count(":") == 5 and text == text.strip()
    assert cc.parse_code(text) == code


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_changed_character_never_gives_another_card(data):
    text = cc.format_code("trade-warz", "export-014", 2, "2024.11")
    i = data.draw(st.integers(0, len(text) - 1))
    ch = data.draw(st.characters(codec="ascii").filter(lambda c: c != text[i]))
    bad = text[:i] + ch + text[i + 1:]
    try:
        got = cc.parse_code(bad)
    except cc.CardCodeError:
        return
    # only a case change that the scheme ignores may still parse, to the same card
    assert bad.lower() == text.lower() and got == cc.parse_code(text)


@pytest.mark.parametrize("text, error, words", [
    ("https://example.com/card", cc.NotACardCodeError, "not a Table Companion card code"),
    ("", cc.NotACardCodeError, "not a Table Companion card code"),
    ("tc1:trade-warz:export-014:2:2024.11", cc.DamagedCodeError, "5 parts, not 6"),
    ("tc1:trade-warz:export-014:2:2024.11:0000", cc.DamagedCodeError, "check digits"),
    ("tc1:trade-warz:export-014:2:2024.11:42E", cc.DamagedCodeError, "check digits"),
    ("tc1:trade-warz:export-0\u00e9:2:2024.11:42E1", cc.DamagedCodeError, "unexpected characters"),
])
def test_bad_codes(text, error, words):
    with pytest.raises(error, match=words) as e:
        cc.parse_code(text)
    assert isinstance(e.value, CompanionError)


def test_bad_copy_and_escape_are_damage():
    for body in ("tc1:g:c:x:1", "tc1:g:c:0:1", "tc1:g:%zz:1:1"):
        text = "%s:%04X" % (body, cc.crc16(body.encode()))
        with pytest.raises(cc.DamagedCodeError):
            cc.parse_code(text)
    with pytest.raises(cc.NotACardCodeError):
        cc.parse_code(None)


def test_resolve():
    card = cc.resolve("tc1:trade-warz:export-014:2:2024.11:42E1", "trade-warz", CATALOG)
    assert (card.name, card.copy, card.outdated) == ("Soybean Surplus", 2, False)
    printed = cc.format_code("trade-warz", "policy-003", 3, cc.deck_version(CATALOG))
    card = cc.resolve(printed, "trade-warz", CATALOG)
    assert (card.card_id, card.copy, card.outdated) == ("policy-003", 3, False)
    assert card.catalog_version == cc.deck_version(CATALOG) == "2024.11~" + \
        cc.catalog_fingerprint(CATALOG)


@pytest.mark.parametrize("printed, words", [
    ("2023.1", "printed from an older version of the deck (2023.1); this table plays 2024.11"),
    ("2023.1~0a1b2c", "printed from an older version of the deck (2023.1)"),
    ("2024.12~0a1b2c", "printed from a newer version of the deck (2024.12) than this table "
                       "plays (2024.11)"),
    ("2024.11~0a1b2c", "printed from another edit of the deck (version 2024.11, but the cards "
                       "have changed since"),
])
def test_a_card_from_another_deck_version_is_refused_not_taken_for_another(printed, words):
    # export-099 is not in today's list: the version is named, not "unknown card"
    for card_id in ("policy-003", "export-099"):
        with pytest.raises(cc.OutdatedCardError, match=re.escape(words)) as e:
            cc.resolve(cc.format_code("trade-warz", card_id, 1, printed), "trade-warz", CATALOG)
        assert (e.value.card_id, e.value.printed) == (card_id, printed)
        assert e.value.current == cc.deck_version(CATALOG) and "Nothing was changed" in str(e.value)


def test_the_fingerprint_follows_every_id_and_name():
    renamed = {"version": "2024.11", "cards": dict(CATALOG["cards"], **{"policy-003": "Shield"})}
    added = {"version": "2024.11", "cards": dict(CATALOG["cards"], **{"x": "X"})}
    bumped = dict(CATALOG, version="2024.12")
    prints = {cc.deck_version(c) for c in (CATALOG, renamed, added, bumped)}
    assert len(prints) == 4
    assert cc.deck_version(dict(CATALOG, cards=dict(reversed(CATALOG["cards"].items())))) == \
        cc.deck_version(CATALOG)                        # the order of the list does not count


def test_resolve_refuses_other_games_and_unknown_cards():
    with pytest.raises(cc.WrongGameError, match="belongs to Great Powers, not Trade Warz") as e:
        cc.resolve(cc.format_code("great-powers", "x"), "trade-warz", CATALOG)
    assert (e.value.card_game, e.value.table_game) == ("great-powers", "trade-warz")
    with pytest.raises(cc.UnknownCardError, match="'export-999' is not in the Trade Warz"):
        cc.resolve(cc.format_code("trade-warz", "export-999", 1, "2024.11"), "trade-warz",
                   CATALOG)
    with pytest.raises(cc.UnknownCardError, match="has no card list yet"):
        cc.resolve(cc.format_code("trade-warz", "x"), "trade-warz", None)


def test_identify_a_scan(tmp_path):
    b = cc.UidBindings(tmp_path / "tags.json")
    b.bind("04:a1:b2:c3:d4:e5:f6", cc.format_code("trade-warz", "policy-003", 1, "2024.11"))
    card = cc.identify(None, "04A1B2C3D4E5F6", "trade-warz", CATALOG, b)
    assert card.name == "Tariff Shield" and card.via_uid == "04A1B2C3D4E5F6"
    code = cc.format_code("trade-warz", "export-014", 1, cc.deck_version(CATALOG))
    assert cc.identify(code, "04FFFFFFFFFFFF", "trade-warz", CATALOG, b).card_id == "export-014"
    with pytest.raises(cc.UnboundTagError, match="Tag 04000000000001 is blank") as e:
        cc.identify(None, "04000000000001", "trade-warz", CATALOG, b)
    assert e.value.uid == "04000000000001"
    with pytest.raises(cc.DamagedCodeError, match="could not be read cleanly: torn"):
        cc.identify(code, None, "trade-warz", CATALOG, b, problem="torn")
    with pytest.raises(cc.DamagedCodeError, match="neither a code nor a tag"):
        cc.identify(None, None, "trade-warz", CATALOG, b)


def test_bindings_persist_and_refuse_conflicts(tmp_path):
    path = tmp_path / "sub" / "tags.json"
    b = cc.UidBindings(path)
    code = cc.format_code("trade-warz", "export-014")
    b.bind("04a1", code)
    b.bind("04A1", code)                               # the same binding again is fine
    with pytest.raises(cc.BindingError, match="already bound to 'export-014'"):
        b.bind("04A1", cc.format_code("trade-warz", "policy-003"))
    b.bind("04A1", cc.format_code("trade-warz", "policy-003"), replace=True)
    again = cc.UidBindings(path)
    assert again.lookup("04a1").split(":")[2] == "policy-003" and len(again) == 1
    assert json.loads(path.read_text())["format"] == "tc-bindings-1"
    again.unbind("04A1")
    assert cc.UidBindings(path).lookup("04A1") is None
    with pytest.raises(cc.BindingError, match="is not bound"):
        again.unbind("04A1")
    with pytest.raises(cc.BindingError, match="not a tag id"):
        again.bind("zz", code)
    with pytest.raises(cc.DamagedCodeError):
        again.bind("04A2", "tc1:broken")
    assert list(tmp_path.joinpath("sub").iterdir()) == [path]      # no temp files left


def test_a_file_that_is_not_ours_is_named_and_kept(tmp_path):
    path = tmp_path / "tags.json"
    path.write_text('{"hello": 1}')
    with pytest.raises(DataFileError, match="tags.json: is not a tag bindings file"):
        cc.UidBindings(path)
    assert path.read_text() == '{"hello": 1}'
    path.write_text(json.dumps({"format": "tc-bindings-1", "tags": {"04A1": "tc1:x"}}))
    with pytest.raises(DataFileError, match="04A1"):
        cc.UidBindings(path)


def test_provisioning_flow():
    b = cc.UidBindings()
    flow = cc.Provisioning(b, "trade-warz", CATALOG)
    with pytest.raises(cc.BindingError, match="Tap a blank tag first"):
        flow.card_picked("export-014")
    assert flow.tag_tapped("04 a1 b2") == "04A1B2" and flow.state == "waiting-for-card"
    with pytest.raises(cc.UnknownCardError):
        flow.card_picked("export-999")
    assert flow.state == "waiting-for-card" and len(b) == 0          # nothing changed
    code = flow.card_picked("export-014", copy=3)
    assert cc.parse_code(code) == cc.CardCode("trade-warz", "export-014", 3,
                                              cc.deck_version(CATALOG))   # as a printed card
    assert b.lookup("04A1B2") == code and flow.state == "waiting-for-tag"
    with pytest.raises(cc.BindingError, match="already bound"):
        flow.tag_tapped("04A1B2")
    with pytest.raises(cc.BindingError, match="already carries a card code"):
        flow.tag_tapped("04A1B3", code=code)
    flow.tag_tapped("04A1B4")
    flow.cancel()
    assert flow.state == "waiting-for-tag" and b.lookup("04A1B4") is None
    with pytest.raises(cc.BindingError, match="no card list"):
        cc.Provisioning(b, "great-powers", None)


def test_cardcodes_is_standard_library_only():
    import ast
    import pathlib
    import sys
    tree = ast.parse(pathlib.Path(cc.__file__).read_text())
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
             for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree)
              if isinstance(n, ast.ImportFrom) and n.module}
    assert names <= set(sys.stdlib_module_names) | {"companion"}, names
