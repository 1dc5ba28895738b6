"""Loading and checking the Market Trading data files (``data/*.toml``).

Every mistake names the file, the item and the field (:class:`DataFileError`); one load lists
them all (the core's data-file checker, :mod:`companion.core.datafile`).
"""
import dataclasses
import functools
import pathlib

from companion.core.datafile import Checker, suggest

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


def _pairs(f, key, names, what="resource"):
    return tuple(f.amounts(key, list(names), what).items())


def load_resources(c, path):
    doc = c.read(path)
    out = {}
    for ident, f in c.items(path, doc, "resource"):
        tier = f.get("tier", int, minimum=1)
        terrain = f.get("terrain", str, None)
        if tier == 1 and terrain not in TERRAINS:
            f.err("terrain", f"a T1 resource needs a terrain: {', '.join(TERRAINS)}"
                             f"{suggest(terrain, TERRAINS) if terrain else ''}")
        if tier is not None and tier != 1 and terrain is not None:
            f.err("terrain", "only T1 resources have a terrain")
        value = f.get("value", int, minimum=0)
        name = f.get("name", str)
        first = f.get("first", int, minimum=value or 0)
        f.finish("a resource")
        if f.ok:
            out[ident] = Resource(ident, name, tier, value, first, terrain)
    t1 = {}
    for r in out.values():
        if r.tier == 1:
            if r.terrain in t1:
                c.error(path, r.id, "terrain", f"{r.terrain} already yields {t1[r.terrain]}")
            t1[r.terrain] = r.id
    for terrain in TERRAINS:
        if terrain not in t1 and c.ok:
            c.error(path, problem=f"has no T1 resource for {terrain}")
    return out, t1


def _effect(f, key, resources):
    e = f.table(key, required=False)
    if e is None:
        return None
    got = Effect(gain=_pairs(e, "gain", resources), points=e.get("points", int, 0, minimum=0),
                 extra=_pairs(e, "extra", TERRAINS, "terrain"))
    e.finish("an effect (gain, points or extra)")
    if not e.ok:
        f.ok = False
    return got


def load_improvements(c, path, resources):
    doc = c.read(path)
    out = {}
    for ident, f in c.items(path, doc, "improvement"):
        conv = f.table("convert", required=False)
        cin, cout = (), ()
        if conv is not None:
            cin, cout = _pairs(conv, "in", resources), _pairs(conv, "out", resources)
            conv.finish("a conversion (in and out)")
            if conv.ok and (not cin or not cout):
                f.err("convert", "needs both in and out")
        name = f.get("name", str)
        copies = f.get("copies", int, 1, minimum=1)
        cost = _pairs(f, "cost", resources)
        on_build, on_forage = _effect(f, "on_build", resources), _effect(f, "on_forage", resources)
        f.finish("an improvement")
        if not f.ok:
            continue
        imp = Improvement(ident, name, copies, cost, cin, cout, on_build, on_forage)
        if not imp.cost:
            c.error(path, ident, "cost", "is missing")
        elif not (imp.convert_in or imp.on_build or imp.on_forage):
            c.error(path, ident, problem="does nothing: give it a convert, on_build or "
                                         "on_forage")
        else:
            out[ident] = imp
    return out


def load_rules(directory=DATA) -> Rules:
    """The rules, resources and improvements of ``directory``; every mistake in them at once
    (:class:`DataFileErrors`)."""
    directory = pathlib.Path(directory)
    c = Checker()
    path = directory / "rules.toml"
    doc = c.fields(path, "rules", c.read(path))
    setup = doc.table("setup", "setup") or c.fields(path, "setup", {})
    board = doc.table("board", "board") or c.fields(path, "board", {})
    meta = doc.table("meta", "meta") or c.fields(path, "meta", {})
    terrain_t = board.table("terrain", "board.terrain") or c.fields(path, "board.terrain", {})
    letters, weights = {}, []
    for t in TERRAINS:
        entry = terrain_t.table(t, f"board.terrain.{t}")
        if entry is None:
            continue
        letter = entry.get("letter", str)
        if letter is not None and (len(letter) != 1 or letter in letters.values()):
            entry.err("letter", "must be one letter, different for every terrain")
        letters[t] = letter
        weights.append(entry.get("weight", int, minimum=0) or 0)
        entry.finish("a terrain")
    if len(weights) == len(TERRAINS) and not any(weights):
        terrain_t.err("weight", "at least one must be above 0")
    for t in terrain_t.t:
        if t not in TERRAINS:
            terrain_t.err(t, f"is not a terrain{suggest(t, TERRAINS)}")
    resources, t1 = load_resources(c, directory / "resources.toml")
    market = c.fields(path, "market_start", doc.get("market_start", dict, {}))
    market_start = dict(_pairs(doc, "market_start", resources))
    rows = board.get("rows", int, minimum=1)
    cols = board.get("cols", int, minimum=1)
    board.finish("the board")
    numbers = {k: setup.get(k, int, minimum=low) for k, low in (
        ("bowl", 1), ("face_up", 1), ("market_cap", 1), ("forage", 0), ("start_piles", 0),
        ("start_pile_size", 1), ("stall_rounds", 1), ("max_rounds", 1))}
    setup.finish("the set-up")
    if None not in (numbers["start_piles"], rows, cols) and \
            numbers["start_piles"] > rows * cols:
        setup.err("start_piles", "is more than the board's tiles")
    cap = numbers["market_cap"]
    for r, n in market_start.items():
        if cap is not None and n > cap:
            market.err(r, f"is more than the market cap {cap}")
    version = meta.get("version", str)
    meta.finish("[meta]")
    doc.finish("Market Trading's rules")
    improvements = load_improvements(c, directory / "improvements.toml", resources)
    c.done()
    return Rules(version=version, rows=rows, cols=cols, terrains=TERRAINS, letters=letters,
                 weights=tuple(weights), market_start=market_start, resources=resources,
                 improvements=improvements, t1_of=t1, **numbers)


@functools.lru_cache(maxsize=1)
def default_rules() -> Rules:
    return load_rules(DATA)
