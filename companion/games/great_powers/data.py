"""Loading and checking the Great Powers data files (``data/*.toml``).

Every mistake names the file, the card and the field (:class:`DataFileError`); one load lists
them all (the core's data-file checker, :mod:`companion.core.datafile`).
"""
import dataclasses
import functools
import pathlib

from companion.core.args import is_whole
from companion.core.datafile import Checker

DATA = pathlib.Path(__file__).with_name("data")
TOKENS = ("vp", "industry", "population", "nationalism", "navy", "army", "colony")
TRAITS = ("industry", "population", "nationalism", "navy", "army", "colony")
TOKEN_NAMES = {"vp": "VP", "industry": "Industry", "population": "Population",
               "nationalism": "Nationalism", "navy": "Navy", "army": "Army",
               "colony": "Colony"}
EFFECT_TABLES = ("gain", "cost", "target_loses", "steal", "others_lose")
BONUSES = ("steal_colony", "extra_bid", "peek_event", "draw_three", None)


@dataclasses.dataclass(frozen=True)
class Action:
    id: str
    name: str
    text: str
    gain: dict
    cost: dict
    target_loses: dict
    steal: dict
    others_lose: dict
    extra_bids: int = 0
    target_fewer_bids: int = 0
    peek_event: bool = False

    @functools.cached_property
    def needs_target(self) -> bool:
        """Does resolving it name another player (read on every take; worked out once)?"""
        return bool(self.target_loses or self.steal or self.target_fewer_bids)


@dataclasses.dataclass(frozen=True)
class Event:
    id: str
    name: str
    text: str
    award_traits: tuple = ()
    award_vp: int = 0
    war: str | None = None


@dataclasses.dataclass(frozen=True)
class Rules:
    version: str
    start_tokens: int
    turns: int
    bids_per_turn: int
    gains: tuple
    beyond: int
    third_loses: dict          # trait -> (token, why)
    score: tuple               # (trait, vp, gain dict, bonus)
    war_vp: int
    actions: dict              # id -> Action, in deck order
    events: dict               # id -> Event


def load_actions(c, path):
    doc = c.read(path)
    out = {}
    for ident, f in c.items(path, doc, "action"):
        a = dict(id=ident, name=f.get("name", str), text=f.get("text", str),
                 **{t: f.amounts(t, TOKENS) for t in EFFECT_TABLES},
                 extra_bids=f.get("extra_bids", int, 0),
                 target_fewer_bids=f.get("target_fewer_bids", int, 0),
                 peek_event=f.get("peek_event", bool, False))
        f.finish("an action card")
        if f.ok:
            out[ident] = Action(**a)
    meta = c.fields(path, "meta", doc.get("meta", {}))
    return meta.get("version", str), out


def load_events(c, path):
    doc = c.read(path)
    out = {}
    for ident, f in c.items(path, doc, "event"):
        name, text = f.get("name", str), f.get("text", str)
        war = f.get("war", str, None, choices=("great", "east", "west"))
        traits, vp = (), 0
        if "award" in f.t:
            award = f.table("award")
            if award is not None:
                traits = award.strings("traits", choices=TRAITS) or ()
                vp = award.get("vp", int)
                award.finish("an event's award")
                if not award.ok:
                    f.ok = False
        if ("award" in f.t) == ("war" in f.t):
            f.err("award", "an event needs exactly one of award or war")
        f.finish("an event")
        if f.ok:
            out[ident] = Event(ident, name, text, tuple(traits), vp, war)
    return out


def load_rules(directory=DATA) -> Rules:
    """The rules, actions and events of ``directory``; every mistake in them at once
    (:class:`DataFileErrors`)."""
    directory = pathlib.Path(directory)
    c = Checker()
    path = directory / "rules.toml"
    doc = c.fields(path, "rules", c.read(path))
    setup = doc.table("setup", "setup")
    chart = doc.table("chart", "chart")
    meta = doc.table("meta", "meta", required=False)
    gains, beyond, third = (), 0, {}
    if chart is not None:
        gains = chart.get("gains", list)
        if gains is not None and (len(gains) != 4 or not all(is_whole(g) for g in gains)):
            chart.err("gains", "must list 4 whole numbers (1st-4th)")
        beyond = chart.get("beyond", int)
        table = chart.table("third_loses", "chart.third_loses")
        for trait in TRAITS if table is not None else ():
            entry = table.table(trait, f"chart.third_loses.{trait}")
            if entry is not None:
                third[trait] = (entry.get("token", str, choices=TOKENS), entry.get("why", str))
                entry.finish("a third bidder's loss")
        if table is not None:
            table.finish("the third bidders' losses")
        chart.finish("the chart")
    score = []
    rows = doc.get("score", list)
    for i, row in enumerate(rows or ()):
        f = c.fields(path, f"score #{i + 1}", row)
        score.append((f.get("trait", str, choices=TRAITS), f.get("vp", int),
                      f.amounts("gain", TOKENS), f.get("bonus", str, None, choices=BONUSES)))
        f.finish("a score row")
    war = doc.table("war", "war")
    war_vp = war.get("winner_vp", int) if war is not None else 0
    if war is not None:
        war.finish("the war")
    numbers = {k: setup.get(k, int) if setup is not None else 0
               for k in ("start_tokens", "turns", "bids_per_turn")}
    if setup is not None:
        setup.finish("the set-up")
    if meta is not None:
        meta.get("version", str, None)
        meta.finish("[meta]")
    doc.finish("Great Powers' rules")
    version, actions = load_actions(c, directory / "actions.toml")
    events = load_events(c, directory / "events.toml")
    c.done()
    return Rules(version=version, gains=tuple(gains), beyond=beyond, third_loses=third,
                 score=tuple(score), war_vp=war_vp, actions=actions, events=events, **numbers)


@functools.lru_cache(maxsize=1)
def default_rules() -> Rules:
    return load_rules(DATA)
