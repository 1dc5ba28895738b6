"""The numbers of play (``rules.toml``) and the card index the rules engine reads.

:class:`Rules` holds what is not a card: starting GDP, rounds, the win line, the Trade timer,
each edition's instant-win and tiebreak rule. :class:`Index` is one edition of the card
database indexed once (cards, Leaders, Trade Partners, Events by id, effects grouped by when and
kind) so the hot path never scans the database.

>>> r = default_rules()
>>> r.start_gdp, r.rounds, r.win_gdp, r.trade_seconds, r.warn_seconds
(10, 5, 50, 180, 30)
>>> r.edition("tariff").boom, r.edition("trade").tiebreak[0]
('highest', 'partners_influenced')
"""
import dataclasses
import functools
import pathlib

from companion.core.datafile import MISSING, Checker

from .cards import default_db

RULES_FILE = pathlib.Path(__file__).with_name("rules.toml")
TIEBREAKS = ("partners_influenced", "active_routes", "gdp_in_hand")
BOOMS = ("first", "highest")
VARIANTS = ("chill", "quick_start", "diplomatic")
# Effect kinds that act continuously while their card is in play (read where they matter:
# a cost, a route's income, a dispute, a slot count, a shield); the rest resolve as steps.
MODIFIER_KINDS = ("cost_change", "route_income", "dispute_power", "slots", "protect")


@dataclasses.dataclass(frozen=True)
class EditionPlay:
    boom: str
    tiebreak: tuple
    variants: tuple
    extra_rounds: int


@dataclasses.dataclass(frozen=True)
class Rules:
    version: str
    start_gdp: int
    rounds: int
    win_gdp: int
    trade_seconds: int
    warn_seconds: int
    opening_hand: int
    quick_start_gdp: int
    quick_start_rounds: int
    quick_start_skip_event: bool
    editions: dict

    def edition(self, name) -> EditionPlay:
        return self.editions[name]


def load_rules(path=RULES_FILE) -> Rules:
    """``rules.toml``; every mistake in it at once (:class:`DataFileErrors`)."""
    c = Checker()
    doc = c.fields(path, "rules", c.read(path))
    meta, common = doc.table("meta", "meta"), doc.table("common", "common")
    quick, editions = doc.table("quick_start", "quick_start"), doc.get("editions", dict)
    eds = {}
    for name, t in (editions or {}).items():
        f = c.fields(path, f"editions.{name}", t)
        eds[name] = EditionPlay(f.get("boom", str, choices=BOOMS),
                                f.strings("tiebreak", choices=TIEBREAKS),
                                f.strings("variants", choices=VARIANTS),
                                f.get("extra_rounds", int, minimum=0))
        f.finish("an edition's play")

    def numbers(f, what, **spec):
        if f is None:
            return {k: None for k in spec}
        got = {k: f.get(k, *kind) for k, kind in spec.items()}
        f.finish(what)
        return got
    whole = (int, MISSING)
    common_n = numbers(common, "[common]", start_gdp=whole, rounds=whole, win_gdp=whole,
                       trade_seconds=whole, warn_seconds=whole, opening_hand=whole)
    for k, low in (("start_gdp", 0), ("rounds", 1), ("win_gdp", 1), ("trade_seconds", 1),
                   ("warn_seconds", 0), ("opening_hand", 0)):
        if common_n[k] is not None and common_n[k] < low:
            common.err(k, f"must be {low} or more, not {common_n[k]}")
    quick_n = numbers(quick, "[quick_start]", start_gdp=whole, rounds=whole,
                      skip_first_event=(bool, MISSING))
    version = numbers(meta, "[meta]", version=(str, MISSING))["version"]
    doc.finish("the rules of play")
    c.done()
    return Rules(version=version, editions=eds, quick_start_gdp=quick_n["start_gdp"],
                 quick_start_rounds=quick_n["rounds"],
                 quick_start_skip_event=quick_n["skip_first_event"], **common_n)


@functools.cache
def default_rules() -> Rules:
    return load_rules()


class Index:
    """One edition of the card database, indexed for the rules engine.

    ``steps[id][when]``: ``((i, effect), ...)`` of the effects that resolve as steps at that
    moment; ``mods[kind]``: ``{id: ((i, effect), ...)}`` of the continuous effects of that kind.
    """

    def __init__(self, db, edition):
        self.db = db
        self.edition = db.edition(edition)
        self.name = edition
        self.rules = self.edition.rules
        self.items = {}
        for it in (*db.cards(edition), *db.leaders(edition), *db.partners(edition),
                   *db.events(edition)):
            self.items[it.id] = it
        self.partners = tuple(p.id for p in db.partners(edition))
        self.partner_order = {p: i for i, p in enumerate(self.partners)}
        self.partner_bonus = tuple((p.id, p.bonus) for p in db.partners(edition))
        self.leaders = tuple(lead.id for lead in db.leaders(edition))
        self.steps = {}
        self.mods = {k: {} for k in MODIFIER_KINDS}
        self.reminders = {}             # id -> (effect, ...) manual "ongoing" reminders
        self.manual_dispute = {}        # id -> (effect, ...) manual "dispute" effects
        self.has_extra_policy = {}      # id -> ((i, effect), ...) ongoing extra_policy
        self.computed = {}              # compute name -> {id: (effect, ...)} (computed.py)
        for iid, it in self.items.items():
            by = {}
            for i, e in enumerate(it.effects):
                if e.kind == "manual" and e.compute:
                    self.computed.setdefault(e.compute, {}).setdefault(iid, []).append(e)
                if e.kind in MODIFIER_KINDS:
                    self.mods[e.kind].setdefault(iid, []).append((i, e))
                elif e.kind == "manual" and e.when == "ongoing":
                    self.reminders.setdefault(iid, []).append(e)
                elif e.kind == "manual" and e.when == "dispute":
                    self.manual_dispute.setdefault(iid, []).append(e)
                elif e.kind == "extra_policy" and e.when == "ongoing":
                    self.has_extra_policy.setdefault(iid, []).append((i, e))
                else:
                    by.setdefault(e.when, []).append(i)
            self.steps[iid] = {w: tuple(v) for w, v in by.items()}
        for k in self.mods:
            self.mods[k] = {i: tuple(v) for i, v in self.mods[k].items()}
        self.computed = {k: {i: tuple(v) for i, v in t.items()}
                         for k, t in self.computed.items()}
        # which in-play items have any modifier at all (skip the rest quickly)
        self.modded = {i for k in self.mods.values() for i in k}
        # id -> (effect, ...): its modifiers of every kind, in the card's order
        self.mods_of = {iid: tuple(e for e in it.effects if e.kind in MODIFIER_KINDS)
                        for iid, it in self.items.items() if iid in self.modded}
        self.draw_piles = tuple(d.name for d in self.edition.decks if d.name != "event") + (
            "personal",)
        self.exports = frozenset(c.id for c in db.cards(edition, "export"))
        self.policies = frozenset(c.id for c in db.cards(edition, "policy"))
        self.tactics = frozenset(c.id for c in db.cards(edition, "tactic"))
        self.card_names = {i: it.name for i, it in self.items.items()}
        # what a card needs chosen when it is played: (target mode or None, partner?)
        self.needs = {}
        self.slotted = {}               # Policies that stay in the Policy slot
        for iid, it in self.items.items():
            mode, partner = None, False
            for e in it.effects:
                at_play = e.when in ("immediate", "activated") or e.kind in MODIFIER_KINDS
                if not at_play:
                    continue
                if e.target in ("opponent", "any") and mode != "opponent":
                    mode = e.target
                if e.partner == "chosen":
                    partner = True
            self.needs[iid] = (mode, partner)
            if getattr(it, "kind", None) == "policy":
                self.slotted[iid] = any(e.when != "immediate" for e in it.effects)
        self.info = {}
        for c in db.cards(edition):
            self.info[c.id] = {"id": c.id, "name": c.name, "kind": c.kind, "cost": c.cost,
                               "value": c.value, "influence": c.influence,
                               "tags": list(c.tags), "cmyk": c.cmyk, "text": c.text,
                               "leader": c.leader, "signature": c.signature}

    def __getitem__(self, iid):
        return self.items[iid]

    def name_of(self, iid) -> str:
        return self.card_names.get(iid, str(iid))

    def steps_of(self, iid, when) -> tuple:
        return self.steps.get(iid, {}).get(when, ())


@functools.cache
def index(edition: str) -> Index:
    return Index(default_db(), edition)
