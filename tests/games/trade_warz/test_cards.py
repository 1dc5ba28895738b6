"""The Trade Warz / Tariff Warz card database: the shipped data, the editions' decks, the effect
vocabulary, errors that name file, card and field, and `companion cards list`."""
import doctest
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from companion.cli.main import main
from companion.core.errors import CompanionError, ConfigError, DataFileError
from companion.games.trade_warz import cards
from companion.games.trade_warz.cards import (
    CMYK, DATA_DIR, EFFECT_KINDS, RARITIES, Card, CardDataError, Effect, EventCard, Leader,
    Partner, default_db, load, parse_effect)

ROOT = Path(__file__).resolve().parents[3]
DOCS = ROOT / "docs" / "trade-warz-cards.md"


@pytest.fixture(scope="module")
def db():
    return default_db()


# -- the shipped data ---------------------------------------------------------------------------

def test_shipped_data_validates_and_is_loaded_once(db):
    fresh = load()                       # strict: raises on any problem
    assert fresh.problems() == ()
    assert default_db() is db            # cached per process
    assert len(fresh) == len(db) == 166
    assert fresh.version == db.version == "0.1.0-proto"


@pytest.mark.parametrize("deck", ["export", "tactic", "policy"])
def test_trade_warz_global_decks_are_15_at_6_6_3(db, deck):
    ids = db.deck("trade", deck)
    assert len(ids) == 15 and len(set(ids)) == 15            # one copy each
    assert {db[i].kind for i in ids} == {deck}
    split = [sum(1 for i in ids if db[i].rarity == r) for r in RARITIES]
    assert split == [6, 6, 3]                                 # 40/40/20
    assert all(db[i].deck == "global" and db[i].leader is None for i in ids)


@pytest.mark.parametrize("deck", ["export", "tactic"])
def test_tariff_warz_global_decks_are_50_at_24_16_10(db, deck):
    ids = db.deck("tariff", deck)
    assert len(ids) == 50
    copies = [sum(1 for i in ids if db[i].rarity == r) for r in RARITIES]
    distinct = [len({i for i in ids if db[i].rarity == r}) for r in RARITIES]
    assert copies == [24, 16, 10] and distinct == [8, 8, 10]  # 3 x 8, 2 x 8, 1 x 10
    for i in set(ids):
        assert ids.count(i) == {"common": 3, "uncommon": 2, "rare": 1}[db[i].rarity]


def test_tariff_warz_has_no_global_policy_deck(db):
    with pytest.raises(ConfigError, match="no 'policy' deck"):
        db.deck("tariff", "policy")
    assert not any(c.in_edition("tariff") and c.deck == "global" for c in db.cards(kind="policy"))


def test_composition_reports_match_the_tables(db):
    by = {r.deck: r for r in db.composition("trade")}
    assert by["export"].rarity == by["export"].expected_rarity == (6, 6, 3) and by["export"].ok
    assert by["event"].size == 15 and by["event"].rarity is None
    by = {r.deck: r for r in db.composition("tariff")}
    assert by["tactic"].rarity == (24, 16, 10) and by["tactic"].distinct == (8, 8, 10)
    assert by["leader:russia"].kinds == (("export", 1), ("policy", 6), ("tactic", 1))


def test_signature_cards_are_shuffled_into_tariff_global_decks(db):
    base = db.deck("tariff", "export")
    seated = db.deck("tariff", "export", leaders=["usa", "russia"])
    assert seated == base + ("freedom-corn", "russia-pipeline-gas")
    assert db.deck("tariff", "tactic", leaders=["russia"])[-1] == "troll-farm"
    assert len(db.deck("tariff", "export", leaders=["usa", "china", "russia", "eu"])) == 54
    assert db.deck("trade", "export", leaders=["usa"]) == db.deck("trade", "export")
    with pytest.raises(ConfigError, match="no Leader 'atlantis'"):
        db.deck("tariff", "export", leaders=["atlantis"])


def test_events_and_trade_partners(db):
    for ed in ("trade", "tariff"):
        assert len(db.deck(ed, "event")) == 15
        assert all(isinstance(db[i], EventCard) for i in db.deck(ed, "event"))
        partners = db.partners(ed)
        assert 8 <= len(partners) <= 10
        assert all(3 <= p.slots <= 5 and p.bonus >= 0 for p in partners)
    assert {e.cmyk for e in db.events()} <= set(CMYK)


def test_leaders_hand_sizes_and_prototypes(db):
    leaders = db.leaders("trade")
    assert [(l.id, l.hand_size) for l in leaders[:3]] == [("usa", 8), ("china", 7), ("russia", 6)]
    assert len(leaders) == 6                                   # six players can sit
    assert [l.name for l in leaders if l.prototype] == ["European Union", "India", "Brazil"]
    assert not any(l.prototype for l in leaders[:3])
    ed = db.edition("tariff")
    assert ed.draw_rule(db["usa"]) == db["usa"].draw and db.edition("trade").draw_rule(
        db["usa"]) == 8
    assert all(3 <= l.export_slots <= 5 and l.ability and l.effects for l in leaders)


def test_rulebook_signature_cards(db):
    assert (db["freedom-corn"].kind, db["freedom-corn"].leader) == ("export", "usa")
    assert (db["tweeto-diplomacy"].kind, db["tweeto-diplomacy"].leader) == ("policy", "usa")
    assert (db["great-firewall"].kind, db["great-firewall"].leader) == ("policy", "china")
    assert (db["troll-farm"].kind, db["troll-farm"].leader) == ("tactic", "russia")
    for cid in ("freedom-corn", "tweeto-diplomacy", "great-firewall", "troll-farm"):
        assert db[cid].signature and db[cid].in_edition("trade") and db[cid].in_edition("tariff")
    china_exports = [db[i] for i in db.leader_deck("trade", "china") if db[i].kind == "export"]
    russia_exports = [db[i] for i in db.leader_deck("trade", "russia") if db[i].kind == "export"]
    assert all("manufactured" in c.tags for c in china_exports)      # mass production
    assert all("energy" in c.tags for c in russia_exports)           # energy exports


@pytest.mark.parametrize("leader", ["usa", "china", "russia", "eu", "india", "brazil"])
def test_leader_decks_per_edition(db, leader):
    trade = [db[i] for i in db.leader_deck("trade", leader)]
    assert len(trade) == 8
    assert sorted(c.kind for c in trade) == ["export"] * 3 + ["policy"] * 3 + ["tactic"] * 2
    tariff = [db[i] for i in db.leader_deck("tariff", leader)]
    assert 8 <= len(tariff) <= 12
    assert sum(c.kind == "policy" for c in tariff) >= 6
    assert [c.kind for c in tariff if c.kind != "policy"] == ["export", "tactic"]
    assert all(c.signature for c in tariff if c.kind != "policy")
    assert all(c.leader == leader and c.rarity == cards.LEADER_RARITY for c in trade + tariff)


def test_edition_specific_effects_stay_in_their_edition(db):
    for card in db.cards("tariff"):
        assert not {e.kind for e in card.effects} & {"gain_influence", "steal_influence"}
    for card in db.cards("trade"):
        assert "refresh_fast_pass" not in {e.kind for e in card.effects}
    assert any(e.kind == "refresh_fast_pass" for c in db.cards("tariff") for e in c.effects)
    assert any(e.kind == "gain_influence" for c in db.cards("trade") for e in c.effects)


def test_catalog_for_the_card_reader(db):
    cat = db.catalog("trade")
    assert cat["version"] == db.version
    assert cat["cards"]["freedom-corn"] == "Freedom Corn"
    assert cat["cards"]["usa"] == "USA" and cat["cards"]["crypto-isle"] == "Crypto Isle"
    assert "express-lane" not in cat["cards"]            # a Tariff Warz card
    assert "photo-op" not in db.catalog("tariff")["cards"]
    assert list(cat["cards"]) == sorted(cat["cards"])
    assert len(db.catalog()["cards"]) == len(db)
    assert cards.card_catalog("tariff") == db.catalog("tariff")
    with pytest.raises(ConfigError):
        db.catalog("chill")


def test_every_rules_text_has_effects_and_manual_ones_are_exposed(db):
    for item in db:
        assert bool(item.text.strip()) == bool(item.effects), item.id
        assert item.version >= 1
    manual = db.manual_effects()
    assert [i.id for i, _ in manual] == ["leaked-cables"]      # the one left to the table
    for item, effect in manual:
        assert effect.by_hand and effect.text.strip() and effect in item.manual_effects
    computed = db.computed_effects()
    assert len(computed) == 10
    for item, effect in computed:
        assert effect.is_manual and effect.compute and effect.text.strip()
        assert effect in item.computed_effects and effect not in item.manual_effects
    assert {i.id for i, _ in db.computed_effects("trade")} < {i.id for i, _ in computed}


def test_shipped_data_uses_every_effect_kind(db):
    used = {e.kind for item in db for e in item.effects}
    assert used == set(EFFECT_KINDS)


def test_effects_are_typed(db):
    for item in db:
        for e in item.effects:
            kind = EFFECT_KINDS[e.kind]
            assert e.when in kind.whens and e.target in kind.targets
            for p in kind.params:
                v = getattr(e, p.name)
                if p.name in kind.required:
                    assert isinstance(v, p.type), (item.id, e)
            if isinstance(item, (EventCard, Partner)):
                assert e.target in cards.OWNERLESS_TARGETS and e.condition is None


def test_items_are_frozen(db):
    with pytest.raises(Exception):
        db["freedom-corn"].cost = 0
    assert isinstance(db["freedom-corn"], Card) and isinstance(db["usa"], Leader)
    assert db["freedom-corn"].upkeep.name == "Mint" and db["usa"].kind == "leader"


def test_module_doctests():
    assert doctest.testmod(cards).failed == 0


# -- the effect vocabulary -----------------------------------------------------------------------

def _doc_examples():
    text = DOCS.read_text()
    found = {}
    for m in re.finditer(r"^### `(\w+)`\n(.*?)(?=^### |^## )", text, re.S | re.M):
        blocks = re.findall(r"```toml\n(.*?)```", m.group(2), re.S)
        found[m.group(1)] = blocks
    return found


def test_docs_describe_every_kind_with_an_example():
    examples = _doc_examples()
    assert set(EFFECT_KINDS) <= set(examples)
    for kind in EFFECT_KINDS.values():
        assert examples[kind.name], kind.name
        section = DOCS.read_text().split(f"### `{kind.name}`", 1)[1].split("\n### ", 1)[0]
        assert f"(default `{kind.whens[0]}`)" in section
        for p in kind.params:
            assert f"| `{p.name}` |" in section, (kind.name, p.name)


@pytest.mark.parametrize("kind", sorted(EFFECT_KINDS))
def test_every_kind_parses_from_its_doc_example(db, kind):
    for block in _doc_examples()[kind]:
        for n, table in enumerate(tomllib.loads(block)["effects"], 1):
            eff = parse_effect(table, owner="leader", tags=db.tags,
                               partners={p.id for p in db.partners()}, field=f"effects[{n}]")
            assert isinstance(eff, Effect)
    first = tomllib.loads(_doc_examples()[kind][0])["effects"][0]
    assert parse_effect(first, owner="leader").kind == kind


@pytest.mark.parametrize("table, owner, field, words", [
    ({"kind": "gain_gdp"}, "tactic", "effect.amount", "is missing"),
    ({"kind": "gain_gdp", "amount": 0}, "tactic", "effect.amount", "1 or more"),
    ({"kind": "route_income", "amount": 0}, "policy", "effect.amount", "not be 0"),
    ({"kind": "route_income", "amount": 1, "when": "immediate"}, "policy", "effect.when",
     "must be one of income"),
    ({"kind": "draw", "count": 1, "when": "activated"}, "tactic", "effect.when",
     "Leaders' abilities only"),
    ({"kind": "gain_gdp", "amount": 2, "target": "self"}, "event", "effect.target", "no owner"),
    ({"kind": "steal_gdp", "amount": 2, "target": "richest"}, "event", "effect.kind",
     "no owner"),
    ({"kind": "gain_gdp", "amount": 2, "target": "all", "condition": "poorest"}, "event",
     "effect.condition", "needs an owner"),
    ({"kind": "route_income", "amount": 1, "partner": "this"}, "policy", "effect.partner",
     "Trade Partner's own"),
    ({"kind": "draw", "count": "two"}, "tactic", "effect.count", "whole number"),
    ({"kind": "draw", "count": 1, "deck": "hand"}, "tactic", "effect.deck", "must be one of"),
    ({"kind": "protect", "what": "route"}, "tactic", "effect.what", "did you mean 'routes'"),
    ({"kind": "manual"}, "tactic", "effect.text", "is missing"),
    ({"kind": "manual", "text": "  "}, "tactic", "effect.text", "is empty"),
    ({"amount": 2}, "tactic", "effect.kind", "is missing"),
    ({"kind": "discard", "count": 1, "optional": "yes"}, "tactic", "effect.optional",
     "true or false"),
])
def test_parse_effect_refuses_with_the_field(table, owner, field, words):
    with pytest.raises(DataFileError) as info:
        parse_effect(table, owner=owner, path="x.toml", item="some-card")
    assert info.value.field == field and words in info.value.problem
    assert str(info.value).startswith("x.toml: some-card: field ")


def test_effect_defaults_and_describe():
    e = parse_effect({"kind": "draw", "count": 2})
    assert (e.when, e.target, e.deck, e.optional) == ("immediate", "self", "any", False)
    assert e.params == {"count": 2, "deck": "any"}
    e = parse_effect({"kind": "lose_gdp", "amount": 1}, owner="event")
    assert e.target == "all"                       # ownerless default
    e = parse_effect({"kind": "gain_gdp", "when": "upkeep", "amount": 2,
                      "condition": "poorest", "optional": True})
    assert e.describe() == "gain_gdp amount=2 (upkeep, self, if poorest, optional)"
    m = parse_effect({"kind": "manual", "when": "income", "text": "Count your partners."})
    assert m.is_manual and m.describe() == "manual: Count your partners. (income, self)"


# -- broken data files: errors name file, card and field -----------------------------------------

@pytest.fixture
def data(tmp_path):
    """A writable copy of the shipped data."""
    dst = tmp_path / "data"
    shutil.copytree(DATA_DIR, dst)
    return dst


def edit(path, item_id, old, new):
    """Replace ``old`` (exactly once) inside one item's block of a data file."""
    text = path.read_text()
    start = text.index(f'id = "{item_id}"')
    end = text.find("\n[[", start)
    end = len(text) if end < 0 else end
    block = text[start:end]
    assert block.count(old) == 1, (item_id, old)
    path.write_text(text[:start] + block.replace(old, new) + text[end:])


def errors_of(source, strict=True):
    with pytest.raises(CardDataError) as info:
        load(source, strict=strict)
    return info.value.errors


def find(errors, file, item, field):
    hits = [e for e in errors if Path(e.path).name == file and e.item == item
            and e.field == field]
    assert hits, "\n".join(map(str, errors))
    return hits[0]


BROKEN = [
    # (what, file, item, old, new, error item, error field, words in the problem)
    ("unknown effect kind", "tactics.toml", "strongly-worded-tweet", 'kind = "lose_gdp"',
     'kind = "lose_gpd"', "strongly-worded-tweet", "effects[1].kind", "did you mean 'lose_gdp'"),
    ("missing field", "exports.toml", "soybean-surplus", "value = 1\n", "",
     "soybean-surplus", "value", "is missing"),
    ("wrong type", "exports.toml", "luxury-yachts", "cost = 3", 'cost = "three"',
     "luxury-yachts", "cost", 'whole number, not "three"'),
    ("duplicate id", "tactics.toml", "leaked-memo", 'id = "leaked-memo"',
     'id = "strongly-worded-tweet"', "strongly-worded-tweet", "id", "is used twice"),
    ("bad CMYK letter", "events.toml", "market-correction", 'cmyk = "C"', 'cmyk = "G"',
     "market-correction", "cmyk", "Kraken"),
    ("bad rarity word", "tactics.toml", "black-swan", 'rarity = "rare"', 'rarity = "mythic"',
     "black-swan", "rarity", "common, uncommon, rare"),
    ("unknown field", "partners.toml", "maple-dominion", "slots = 4", "slot = 4",
     "maple-dominion", "slot", "did you mean 'slots'"),
    ("slots out of range", "partners.toml", "neutralia", "slots = 3", "slots = 7",
     "neutralia", "slots", "from 3 to 5"),
    ("text without effects", "events.toml", "meme-economy",
     'effects = [{ kind = "draw", target = "all", count = 1 }]\n', "",
     "meme-economy", "effects", "manual"),
    ("effects without text", "exports.toml", "scrap-metal",
     'text = "When this route is established, gain 1 GDP."', 'text = ""',
     "scrap-metal", "text", "is empty"),
    ("influence card in Tariff Warz", "tactics.toml", "photo-op", 'editions = ["trade"]',
     'editions = ["trade", "tariff"]', "photo-op", "effects[1].kind",
     "Tariff Warz does not have"),
    ("unknown parameter", "tactics.toml", "lobbyist-lunch", "amount = 2", "amuont = 2",
     "lobbyist-lunch", "effects[1].amuont", "not a parameter of dispute_power"),
    ("unknown leader", "deck-usa.toml", "freedom-corn", 'leader = "usa"', 'leader = "usaa"',
     "freedom-corn", "leader", "did you mean 'usa'"),
    ("unknown partner", "tactics.toml", "bilateral-summit", 'partner = "chosen"',
     'partner = "atlantis"', "bilateral-summit", "effects[1].partner",
     "not a Trade Partner id"),
    ("unknown tag", "exports.toml", "bulk-coal", 'tags = ["energy"]', 'tags = ["enrgy"]',
     "bulk-coal", "tags", "did you mean 'energy'"),
    ("value on a Tactic", "tactics.toml", "leaked-memo", "cost = 1", "cost = 1\nvalue = 2",
     "leaked-memo", "value", "only for Exports"),
    ("rarity on a Leader card", "deck-china.toml", "great-firewall", "signature = true",
     'signature = true\nrarity = "rare"', "great-firewall", "rarity", "Leader's own card"),
    ("global Policy in Tariff Warz", "policies.toml", "austerity", 'editions = ["trade"]',
     'editions = ["trade", "tariff"]', "austerity", "editions", "no global Policy deck"),
    ("bad id", "events.toml", "tax-holiday", 'id = "tax-holiday"', 'id = "Tax Holiday"',
     "Tax Holiday", "id", "lowercase"),
    ("copies for an edition the card is not in", "exports.toml", "rare-earth-magnets",
     "cost = 3", "cost = 3\ncopies = { trade = 2 }", "rare-earth-magnets", "copies",
     "not in"),
]


@pytest.mark.parametrize("what, file, item, old, new, e_item, e_field, words", BROKEN,
                         ids=[b[0] for b in BROKEN])
def test_broken_file_names_file_card_and_field(data, what, file, item, old, new, e_item,
                                               e_field, words):
    edit(data / file, item, old, new)
    err = find(errors_of(data), file, e_item, e_field)
    assert words in err.problem
    assert str(err).startswith(f"{data / file}: {e_item}: field '{e_field}': ")


def test_bad_rarity_split(data):
    edit(data / "exports.toml", "bulk-coal", 'rarity = "common"', 'rarity = "uncommon"')
    errors = errors_of(data)                                   # strict load refuses
    trade = find(errors, "exports.toml", "Trade Warz Global Export deck", "rarity")
    assert "5/7/3 copies" in trade.problem and "needs 6/6/3" in trade.problem
    assert "bulk-coal" in trade.problem                        # the card to look at
    tariff = [e for e in errors if e.item == "Tariff Warz Global Export deck"]
    assert {e.field for e in tariff} == {"size", "rarity"}
    assert any("7/9/10 different cards" in e.problem for e in tariff)
    db = load(data, strict=False)                              # lenient: a report to show
    rep = db.composition("trade")[0]
    assert not rep.ok and rep.rarity == (5, 7, 3) and rep.expected_rarity == (6, 6, 3)


def test_bad_leader_deck(data):
    edit(data / "deck-russia.toml", "troll-farm", 'editions = ["trade", "tariff"]',
         'editions = ["trade"]')
    errors = errors_of(data)
    find(errors, "deck-russia.toml", "russia (Tariff Warz Personal Policy pile)", "leader")
    problems = [e.problem for e in errors if e.item.startswith("russia (Tariff")]
    assert problems == ["has 7 cards; Tariff Warz needs 8-12",
                        "has 0 Tactic cards; Tariff Warz needs 1"]


def test_plain_card_in_a_signature_only_pile(data):
    edit(data / "deck-usa.toml", "freedom-corn", "signature = true\n", "")
    errors = errors_of(data)
    err = find(errors, "deck-usa.toml", "usa (Tariff Warz Personal Policy pile)", "leader")
    assert "freedom-corn is not marked signature = true" in err.problem


def test_too_few_leaders_for_six_players(data):
    text = (data / "leaders.toml").read_text()
    (data / "leaders.toml").write_text(text[:text.index('[[leader]]\nid = "brazil"')])
    (data / "deck-brazil.toml").unlink()
    err = find(errors_of(data), "leaders.toml", "Trade Warz", "leaders")
    assert "has 5 Leaders but seats up to 6 players" in err.problem


def test_leader_card_outside_its_leaders_editions(data):
    edit(data / "leaders.toml", "brazil", "prototype = true",
         'prototype = true\neditions = ["trade"]')
    err = find(errors_of(data), "deck-brazil.toml", "brazil-soy-armada", "editions")
    assert "its Leader Brazil is not in it" in err.problem


def test_edition_table_that_does_not_add_up(data):
    text = (data / "editions.toml").read_text()
    text = text.replace("rarity = { common = 24, uncommon = 16, rare = 10 }   # 48/32/20",
                        "rarity = { common = 25, uncommon = 16, rare = 10 }", 1)
    (data / "editions.toml").write_text(text)
    err = find(errors_of(data), "editions.toml", "edition tariff", "decks.export.rarity")
    assert "adds up to 51, but the deck's size is 50" in err.problem


def test_edition_rules_typo(data):
    text = (data / "editions.toml").read_text()
    (data / "editions.toml").write_text(text.replace("fast_pass = true ", "fastpass = true ", 1))
    errors = errors_of(data)
    assert len(errors) == 2              # the cards of that edition do not cascade into errors
    assert find(errors, "editions.toml", "edition tariff", "rules.fast_pass").problem == \
        "is missing"
    assert "did you mean 'fast_pass'" in find(errors, "editions.toml", "edition tariff",
                                              "rules.fastpass").problem


def test_missing_meta_is_one_problem_not_one_per_tag(data):
    text = (data / "editions.toml").read_text()
    (data / "editions.toml").write_text(text.replace("[meta]", "[metadata]", 1))
    errors = errors_of(data)
    assert len(errors) == 2
    assert "did you mean 'meta'" in find(errors, "editions.toml", None, "metadata").problem
    assert find(errors, "data", "meta", None).problem.startswith("is missing")


def test_invalid_toml_names_the_file(data):
    with open(data / "events.toml", "a") as f:
        f.write("\n[[event]\nid = 3\n")
    err = find(errors_of(data), "events.toml", None, None)
    assert err.problem.startswith("is not valid TOML")


def test_unknown_top_level_table(data):
    text = (data / "policies.toml").read_text()
    (data / "policies.toml").write_text(text.replace("[[card]]", "[[cards]]", 1))
    err = find(errors_of(data), "policies.toml", None, "cards")
    assert "did you mean 'card'" in err.problem


def test_all_mistakes_are_collected(data):
    edit(data / "exports.toml", "luxury-yachts", "cost = 3", 'cost = "three"')
    edit(data / "events.toml", "market-correction", 'cmyk = "C"', 'cmyk = "G"')
    with pytest.raises(CardDataError) as info:
        load(data)
    assert len(info.value.errors) == 2
    assert str(info.value).endswith("(and 1 more problem)")
    assert isinstance(info.value, DataFileError) and isinstance(info.value, CompanionError)


def test_missing_directory_and_empty_directory(tmp_path):
    with pytest.raises(DataFileError, match="does not exist"):
        load(tmp_path / "nope")
    with pytest.raises(DataFileError, match="has no .toml files"):
        load(tmp_path)


# -- companion cards list -------------------------------------------------------------------------

def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_lists_both_editions(capsys, db):
    code, out, err = run(capsys, "cards", "list", "trade-warz")
    assert code == 0 and err == ""
    assert "== Trade Warz (edition trade) ==" in out and "== Tariff Warz (edition tariff) ==" in out
    assert out.count("OK 6/6/3 (40/40/20 %)") == 3
    assert out.count("OK 24/16/10 (48/32/20 %); 8/8/10 different cards") == 2
    assert "Global Policy deck" in out.split("== Tariff")[0]
    assert "Global Policy deck" not in out.split("== Tariff")[1]
    assert "Leader decks (each needs 8: 3 Export, 3 Policy, 2 Tactic)" in out
    assert "Personal Policy piles (each needs 8-12: 1 Export, 6-10 Policy, 1 Tactic" in out
    assert "European Union [PROTOTYPE]" in out and "hand 8" in out and "draw 5" in out
    assert "The Polite Maple Dominion" in out and "signature: Freedom Corn" in out
    assert "MISMATCH" not in out


def test_cli_one_edition(capsys):
    code, out, _ = run(capsys, "cards", "list", "trade-warz", "--edition", "tariff")
    assert code == 0 and "Tariff Warz (edition tariff)" in out and "edition trade" not in out


@pytest.mark.parametrize("argv, words", [
    (["cards", "list", "trade-warz", "--edition", "chill"], "has no edition 'chill'"),
    (["cards", "list", "great-powers"], "No card database for 'great-powers'"),
    (["cards", "list", "trade-warz", "--check", "/nonexistent/dir"], "does not exist"),
])
def test_cli_user_errors_are_one_line(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and words in err and err.startswith("companion: ")


def test_cli_check_lists_a_rarity_mismatch(capsys, data):
    edit(data / "exports.toml", "bulk-coal", 'rarity = "common"', 'rarity = "uncommon"')
    code, out, err = run(capsys, "cards", "list", "trade-warz", "--check", str(data))
    assert code == 1
    assert "MISMATCH: 5/7/3, needs 6/6/3 (40/40/20 %)" in out      # the report still prints
    assert "MISMATCH: 21/18/10, needs 24/16/10" in out
    lines = err.strip().splitlines()
    assert lines[-1] == f"companion: {data}: 4 problems to fix."
    assert f"{data / 'exports.toml'}: Trade Warz Global Export deck: field 'rarity'" in lines[0]


def test_cli_check_reports_every_structural_problem(capsys, data):
    edit(data / "exports.toml", "luxury-yachts", "cost = 3", 'cost = "three"')
    edit(data / "tactics.toml", "strongly-worded-tweet", 'kind = "lose_gdp"', 'kind = "nope"')
    code, out, err = run(capsys, "cards", "list", "trade-warz", "--check", str(data))
    assert code == 1 and out == ""
    assert f"{data / 'exports.toml'}: luxury-yachts: field 'cost'" in err
    assert f"{data / 'tactics.toml'}: strongly-worded-tweet: field 'effects[1].kind'" in err
    assert err.strip().splitlines()[-1].endswith("2 problems to fix.")


def test_cli_check_one_file_in_place_of_the_shipped_one(capsys, tmp_path, data):
    edited = tmp_path / "events.toml"
    shutil.copy(data / "events.toml", edited)
    code, out, _ = run(capsys, "cards", "list", "trade-warz", "--check", str(edited))
    assert code == 0 and "OK: " in out and "with the other shipped files" in out
    edit(edited, "port-strike", 'cmyk = "C"', 'cmyk = "c"')
    code, _, err = run(capsys, "cards", "list", "trade-warz", "--check", str(edited))
    assert code == 1 and f"{edited}: port-strike: field 'cmyk'" in err


def test_cli_check_a_good_copy(capsys, data):
    code, out, err = run(capsys, "cards", "list", "trade-warz", "--check", str(data),
                         "--edition", "trade")
    assert code == 0 and out.rstrip().endswith(f"OK: {data} validates (trade).")


def test_cli_broken_shipped_data_is_one_line(capsys, data, monkeypatch):
    edit(data / "events.toml", "market-correction", 'cmyk = "C"', 'cmyk = "G"')
    edit(data / "exports.toml", "luxury-yachts", "cost = 3", 'cost = "three"')
    monkeypatch.setattr(cards, "DATA_DIR", data)
    code, out, err = run(capsys, "cards", "list", "trade-warz")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert "field 'cmyk'" in err or "field 'cost'" in err
    assert "(and 1 more problem)" in err


def test_cli_broken_split_in_shipped_data_prints_then_fails(capsys, data, monkeypatch):
    edit(data / "exports.toml", "bulk-coal", 'rarity = "common"', 'rarity = "uncommon"')
    monkeypatch.setattr(cards, "DATA_DIR", data)
    code, out, err = run(capsys, "cards", "list", "trade-warz", "--edition", "trade")
    assert code == 1 and "MISMATCH: 5/7/3" in out
    assert err.count("\n") == 1 and "field 'rarity'" in err


def test_cli_runs_as_a_real_process():
    proc = subprocess.run([sys.executable, "-m", "companion.cli.main", "cards", "list",
                           "trade-warz", "--edition", "trade"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "OK 6/6/3 (40/40/20 %)" in proc.stdout and proc.stderr == ""
