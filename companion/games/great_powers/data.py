"""Loading and checking the Great Powers data files (``data/*.toml``).

Every mistake names the file, the card and the field (:class:`DataFileError`).
"""
import dataclasses
import functools
import pathlib

from companion.core.datafile import field as _field, items as _items, read_toml as _read
from companion.core.errors import DataFileError

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

    @property
    def needs_target(self) -> bool:
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


def _tokens(path, item, table, name, allowed=TOKENS):
    value = _field(path, item, table, name, dict, {})
    for k, v in value.items():
        if k not in allowed:
            raise DataFileError(path, item, f"{name}.{k}",
                                f"is not a token; use one of {', '.join(allowed)}")
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise DataFileError(path, item, f"{name}.{k}", f"must be a positive whole number, "
                                                          f"not {v!r}")
    return dict(value)


def load_actions(path):
    doc = _read(path)
    known = {"id", "name", "text", "extra_bids", "target_fewer_bids", "peek_event",
             *EFFECT_TABLES}
    out = {}
    for ident, it in _items(path, doc, "action"):
        for k in it:
            if k not in known:
                raise DataFileError(path, ident, k, "is not a field of an action card")
        out[ident] = Action(
            id=ident, name=_field(path, ident, it, "name", str),
            text=_field(path, ident, it, "text", str),
            gain=_tokens(path, ident, it, "gain"), cost=_tokens(path, ident, it, "cost"),
            target_loses=_tokens(path, ident, it, "target_loses"),
            steal=_tokens(path, ident, it, "steal"),
            others_lose=_tokens(path, ident, it, "others_lose"),
            extra_bids=_field(path, ident, it, "extra_bids", int, 0),
            target_fewer_bids=_field(path, ident, it, "target_fewer_bids", int, 0),
            peek_event=_field(path, ident, it, "peek_event", bool, False))
    return _field(path, "meta", doc.get("meta", {}), "version", str), out


def load_events(path):
    doc = _read(path)
    out = {}
    for ident, it in _items(path, doc, "event"):
        war = _field(path, ident, it, "war", str, None)
        if war is not None and war not in ("great", "east", "west"):
            raise DataFileError(path, ident, "war", "must be great, east or west")
        award = _field(path, ident, it, "award", dict, None)
        if (award is None) == (war is None):
            raise DataFileError(path, ident, "award", "an event needs exactly one of award "
                                                      "or war")
        traits, vp = (), 0
        if award is not None:
            traits = _field(path, ident, award, "traits", list)
            for t in traits:
                if t not in TRAITS:
                    raise DataFileError(path, ident, "award.traits", f"{t!r} is not a trait")
            vp = _field(path, ident, award, "vp", int)
        out[ident] = Event(ident, _field(path, ident, it, "name", str),
                           _field(path, ident, it, "text", str), tuple(traits), vp, war)
    return out


def load_rules(directory=DATA) -> Rules:
    directory = pathlib.Path(directory)
    path = directory / "rules.toml"
    doc = _read(path)
    setup = _field(path, "setup", doc, "setup", dict)
    chart = _field(path, "chart", doc, "chart", dict)
    gains = _field(path, "chart", chart, "gains", list)
    if len(gains) != 4 or not all(isinstance(g, int) for g in gains):
        raise DataFileError(path, "chart", "gains", "must list 4 whole numbers (1st-4th)")
    third = {}
    for trait in TRAITS:
        entry = _field(path, "chart.third_loses", _field(path, "chart", chart, "third_loses",
                                                          dict), trait, dict)
        token = _field(path, f"chart.third_loses.{trait}", entry, "token", str)
        if token not in TOKENS:
            raise DataFileError(path, f"chart.third_loses.{trait}", "token",
                                f"{token!r} is not a token")
        third[trait] = (token, _field(path, f"chart.third_loses.{trait}", entry, "why", str))
    score = []
    for i, s in enumerate(_field(path, "score", doc, "score", list)):
        item = f"score #{i + 1}"
        trait = _field(path, item, s, "trait", str)
        if trait not in TRAITS:
            raise DataFileError(path, item, "trait", f"{trait!r} is not a trait")
        bonus = _field(path, item, s, "bonus", str, None)
        if bonus not in BONUSES:
            raise DataFileError(path, item, "bonus", f"{bonus!r} is not one of "
                                                     f"{', '.join(b for b in BONUSES if b)}")
        score.append((trait, _field(path, item, s, "vp", int), _tokens(path, item, s, "gain"),
                      bonus))
    version, actions = load_actions(directory / "actions.toml")
    return Rules(
        version=version,
        start_tokens=_field(path, "setup", setup, "start_tokens", int),
        turns=_field(path, "setup", setup, "turns", int),
        bids_per_turn=_field(path, "setup", setup, "bids_per_turn", int),
        gains=tuple(gains), beyond=_field(path, "chart", chart, "beyond", int),
        third_loses=third, score=tuple(score),
        war_vp=_field(path, "war", _field(path, "war", doc, "war", dict), "winner_vp", int),
        actions=actions, events=load_events(directory / "events.toml"))


@functools.lru_cache(maxsize=1)
def default_rules() -> Rules:
    return load_rules(DATA)
