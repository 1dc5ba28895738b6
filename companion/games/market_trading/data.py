"""Loading and checking the Market Trading data files (``data/*.toml``).

Every mistake names the file, the item and the field (:class:`DataFileError`).
"""
import dataclasses
import functools
import pathlib

from companion.core.datafile import field as _field, items as _items, read_toml as _read
from companion.core.errors import DataFileError

DATA = pathlib.Path(__file__).with_name("data")
TERRAINS = ("field", "forest", "mountain", "water", "desert")


@dataclasses.dataclass(frozen=True)
class Resource:
    id: str
    name: str
    tier: int
    value: int
    first: int
    terrain: str | None


@dataclasses.dataclass(frozen=True)
class Effect:
    gain: tuple = ()              # ((resource, n), ...)
    points: int = 0
    extra: tuple = ()             # ((terrain, n), ...)


@dataclasses.dataclass(frozen=True)
class Improvement:
    id: str
    name: str
    copies: int
    cost: tuple                   # ((resource, n), ...)
    convert_in: tuple
    convert_out: tuple
    on_build: Effect | None
    on_forage: Effect | None

    def text(self, names) -> str:
        def show(pairs):
            return " + ".join(f"{n} {names[r]}" for r, n in pairs)
        bits = []
        if self.convert_in:
            bits.append(f"{show(self.convert_in)} -> {show(self.convert_out)}")
        for label, e in (("On Build", self.on_build), ("On Forage", self.on_forage)):
            if e is None:
                continue
            parts = []
            if e.gain:
                parts.append(f"gain {show(e.gain)}")
            if e.points:
                parts.append(f"{e.points} points")
            for terrain, n in e.extra:
                parts.append(f"+{n} on the {terrain} you foraged")
            bits.append(f"{label}: {', '.join(parts)}")
        return "; ".join(bits)


@dataclasses.dataclass(frozen=True)
class Rules:
    version: str
    bowl: int
    face_up: int
    market_cap: int
    forage: int
    start_piles: int
    start_pile_size: int
    stall_rounds: int
    max_rounds: int
    rows: int
    cols: int
    terrains: tuple               # terrain names in board order
    letters: dict                 # terrain -> letter
    weights: tuple                # weight per terrain, same order
    market_start: dict
    resources: dict               # id -> Resource, in data order
    improvements: dict            # id -> Improvement
    t1_of: dict                   # terrain -> T1 resource id


def _amounts(path, item, table, name, known, what="resource", prefix=""):
    value = _field(path, item, table, name, dict, {})
    out = []
    for k, v in value.items():
        if k not in known:
            raise DataFileError(path, item, f"{prefix}{name}.{k}", f"is not a {what}; use one "
                                f"of {', '.join(known)}")
        if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
            raise DataFileError(path, item, f"{prefix}{name}.{k}", f"must be a positive whole "
                                f"number, not {v!r}")
        out.append((k, v))
    return tuple(out)


def load_resources(path):
    doc = _read(path)
    out = {}
    for ident, it in _items(path, doc, "resource"):
        for k in it:
            if k not in ("id", "name", "tier", "value", "first", "terrain"):
                raise DataFileError(path, ident, k, "is not a field of a resource")
        tier = _field(path, ident, it, "tier", int, minimum=1)
        terrain = _field(path, ident, it, "terrain", str, None)
        if tier == 1 and terrain not in TERRAINS:
            raise DataFileError(path, ident, "terrain", f"a T1 resource needs a terrain: "
                                f"{', '.join(TERRAINS)}")
        if tier != 1 and terrain is not None:
            raise DataFileError(path, ident, "terrain", "only T1 resources have a terrain")
        value = _field(path, ident, it, "value", int, minimum=0)
        out[ident] = Resource(ident, _field(path, ident, it, "name", str), tier, value,
                              _field(path, ident, it, "first", int, minimum=value), terrain)
    t1 = {}
    for r in out.values():
        if r.tier == 1:
            if r.terrain in t1:
                raise DataFileError(path, r.id, "terrain", f"{r.terrain} already yields "
                                                           f"{t1[r.terrain]}")
            t1[r.terrain] = r.id
    for terrain in TERRAINS:
        if terrain not in t1:
            raise DataFileError(path, problem=f"has no T1 resource for {terrain}")
    return out, t1


def _effect(path, ident, it, name, resources):
    table = _field(path, ident, it, name, dict, None)
    if table is None:
        return None
    for k in table:
        if k not in ("gain", "points", "extra"):
            raise DataFileError(path, ident, f"{name}.{k}", "is not an effect; use gain, "
                                                            "points or extra")
    return Effect(gain=_amounts(path, ident, table, "gain", list(resources),
                                prefix=f"{name}."),
                  points=_field(path, ident, table, "points", int, 0, minimum=0),
                  extra=_amounts(path, ident, table, "extra", TERRAINS, "terrain",
                                 prefix=f"{name}."))


def load_improvements(path, resources):
    doc = _read(path)
    out = {}
    for ident, it in _items(path, doc, "improvement"):
        for k in it:
            if k not in ("id", "name", "copies", "cost", "convert", "on_build", "on_forage"):
                raise DataFileError(path, ident, k, "is not a field of an improvement")
        conv = _field(path, ident, it, "convert", dict, None)
        cin, cout = (), ()
        if conv is not None:
            cin = _amounts(path, ident, conv, "in", list(resources), prefix="convert.")
            cout = _amounts(path, ident, conv, "out", list(resources), prefix="convert.")
            if not cin or not cout:
                raise DataFileError(path, ident, "convert", "needs both in and out")
        imp = Improvement(ident, _field(path, ident, it, "name", str),
                          _field(path, ident, it, "copies", int, 1, minimum=1),
                          _amounts(path, ident, it, "cost", list(resources)), cin, cout,
                          _effect(path, ident, it, "on_build", resources),
                          _effect(path, ident, it, "on_forage", resources))
        if not imp.cost:
            raise DataFileError(path, ident, "cost", "is missing")
        if not (imp.convert_in or imp.on_build or imp.on_forage):
            raise DataFileError(path, ident, problem="does nothing: give it a convert, "
                                                     "on_build or on_forage")
        out[ident] = imp
    return out


def load_rules(directory=DATA) -> Rules:
    directory = pathlib.Path(directory)
    path = directory / "rules.toml"
    doc = _read(path)
    setup = _field(path, "setup", doc, "setup", dict)
    board = _field(path, "board", doc, "board", dict)
    terrain_t = _field(path, "board", board, "terrain", dict)
    letters, weights = {}, []
    for t in TERRAINS:
        entry = _field(path, "board.terrain", terrain_t, t, dict)
        letter = _field(path, f"board.terrain.{t}", entry, "letter", str)
        if len(letter) != 1 or letter in letters.values():
            raise DataFileError(path, f"board.terrain.{t}", "letter",
                                "must be one letter, different for every terrain")
        letters[t] = letter
        weights.append(_field(path, f"board.terrain.{t}", entry, "weight", int, minimum=0))
    if not any(weights):
        raise DataFileError(path, "board.terrain", "weight", "at least one must be above 0")
    for t in terrain_t:
        if t not in TERRAINS:
            raise DataFileError(path, "board.terrain", t, "is not a terrain")
    resources, t1 = load_resources(directory / "resources.toml")
    market_start = dict(_amounts(path, "market_start", doc, "market_start", list(resources)))
    rows = _field(path, "board", board, "rows", int, minimum=1)
    cols = _field(path, "board", board, "cols", int, minimum=1)
    start_piles = _field(path, "setup", setup, "start_piles", int, minimum=0)
    if start_piles > rows * cols:
        raise DataFileError(path, "setup", "start_piles", "is more than the board's tiles")
    cap = _field(path, "setup", setup, "market_cap", int, minimum=1)
    for r, n in market_start.items():
        if n > cap:
            raise DataFileError(path, "market_start", r, f"is more than the market cap {cap}")
    return Rules(
        version=_field(path, "meta", _field(path, "meta", doc, "meta", dict), "version", str),
        bowl=_field(path, "setup", setup, "bowl", int, minimum=1),
        face_up=_field(path, "setup", setup, "face_up", int, minimum=1),
        market_cap=cap, forage=_field(path, "setup", setup, "forage", int, minimum=0),
        start_piles=start_piles,
        start_pile_size=_field(path, "setup", setup, "start_pile_size", int, minimum=1),
        stall_rounds=_field(path, "setup", setup, "stall_rounds", int, minimum=1),
        max_rounds=_field(path, "setup", setup, "max_rounds", int, minimum=1),
        rows=rows, cols=cols, terrains=TERRAINS, letters=letters, weights=tuple(weights),
        market_start=market_start, resources=resources,
        improvements=load_improvements(directory / "improvements.toml", resources), t1_of=t1)


@functools.lru_cache(maxsize=1)
def default_rules() -> Rules:
    return load_rules(DATA)
