"""Loading and checking the Battle Builder data files (``data/*.toml``).

Every mistake names the file, the item and the field (:class:`DataFileError`); one load lists
them all (the core's data-file checker, :mod:`companion.core.datafile`). The loaded
values are frozen dataclasses and plain tuples, read once (:func:`default_rules` is cached).
"""
import dataclasses
import functools
import pathlib

from companion.core.args import is_whole
from companion.core.datafile import MISSING, Checker, is_kind, suggest

DATA = pathlib.Path(__file__).with_name("data")
DIFFICULTIES = ("easy", "medium", "hard")
ABILITIES = ("aoe", "enrage", "regeneration", "counter", "armor_piercing", "speed_drain")
SYSTEMS = ("A", "B", "C", "D")
CATEGORIES = ("attack", "defense", "speed", "hp")
OBJECTIVE_KINDS = ("defeat_difficulty", "win_final_pvp", "tier_cards", "pvp_wins", "monsters")
ROLES = ("striker", "tank", "tactician", "survivor")


@dataclasses.dataclass(frozen=True)
class Card:
    id: str
    name: str
    kind: str                  # "attack" or "defense"
    tier: int                  # 0 basic, 1-3 shop tiers
    damage: int = 0
    block: int = 0
    min_stamina: int = 0
    speed: int = 0
    ignore_defense: bool = False
    recycle: bool = False
    heal: int = 0
    counter: int = 0
    negate_next: bool = False

    def text(self) -> str:
        if self.kind == "attack":
            bits = [f"{self.damage} damage"]
            if self.min_stamina:
                bits.append(f"needs {self.min_stamina}+ stamina")
            if self.speed:
                bits.append(f"+{self.speed} speed")
            if self.ignore_defense:
                bits.append("ignores defence")
            if self.recycle:
                bits.append("returns to your pile")
            if self.heal:
                bits.append(f"heals {self.heal}")
        else:
            bits = [f"blocks {self.block}"]
            if self.counter:
                bits.append(f"counter {self.counter}")
            if self.negate_next:
                bits.append("negates the next attack")
        return ", ".join(bits)


@dataclasses.dataclass(frozen=True)
class Monster:
    id: str
    name: str
    difficulty: str
    hp: int
    attack: int
    speed: int
    reward: int
    defense: tuple
    abilities: tuple


@dataclasses.dataclass(frozen=True)
class Effect:
    id: str
    name: str
    text: str
    speed_mod: int = 0
    damage_mod: int = 0
    heal_per_turn: int = 0
    max_hp_mod: int = 0
    only_fastest_attacks: bool = False


@dataclasses.dataclass(frozen=True)
class Objective:
    id: str
    name: str
    text: str
    kind: str
    vp: int
    difficulty: str | None = None
    tier: int = 0
    count: int = 0


@dataclasses.dataclass(frozen=True)
class TokenSystem:
    types: tuple
    attack_cards: str
    defense_cards: str
    hp: str
    stamina: str

    def category_type(self, category: str) -> str:
        """Which token type a performance category pays in."""
        if len(self.types) == 1:
            return self.types[0]
        if len(self.types) == 2:          # System C: combat / training
            return self.types[0] if category in ("attack", "defense") else self.types[1]
        return category


@dataclasses.dataclass(frozen=True)
class Rules:
    version: str
    setup: dict
    arcs: dict                  # name -> (battles, pvp_every)
    battle: dict
    select: dict
    rewards: dict
    unified: dict
    split: dict
    action: dict
    milestones: dict
    roles: dict                 # role -> {category: multiplier}
    same_role_penalty: int
    betting: dict
    systems: dict               # "A".. -> TokenSystem
    conversion: tuple           # (give, get)
    shop: dict
    pvp: dict
    victory: dict
    targets: dict               # difficulty -> design target win rate
    cards: dict                 # id -> Card (attack and defence)
    monsters: dict              # id -> Monster
    environments: dict
    arenas: dict
    objectives: dict


class _Loader:
    """The data files read with the core's checker: every mistake is recorded and loading goes
    on with a stand-in value, so one run lists them all (:meth:`Checker.done` raises them)."""

    STAND_IN = {int: 0, float: 0.0, str: "", bool: False, list: [], dict: {}}

    def __init__(self):
        self.c = Checker()

    def read(self, path):
        return self.c.read(path)

    def field(self, path, item, table, name, kind, default=MISSING, minimum=None):
        f = self.c.fields(path, item, table if isinstance(table, dict) else {})
        got = f.get(name, kind, default, minimum=minimum)
        if not f.ok:
            return default if default is not MISSING and default is not None else \
                type(self.STAND_IN.get(kind, 0))(self.STAND_IN.get(kind, 0))
        return got

    def error(self, path, item=None, field=None, problem="is invalid"):
        self.c.error(path, item, field, problem)

    def items(self, path, doc, key):
        for ident, f in self.c.items(path, doc, key):
            yield ident, f.t

    def ints(self, path, item, table, name, minimum=0, length=None):
        value = self.field(path, item, table, name, list)
        if not all(is_whole(v) and v >= minimum for v in value):
            self.error(path, item, name, f"must list whole numbers of at least {minimum}")
        elif length is not None and len(value) != length:
            self.error(path, item, name, f"must list exactly {length} numbers")
        return tuple(value)

    def section(self, path, doc, name, schema, label=None):
        """Read a [name] table whose keys and types are given by ``schema`` {key: (kind,
        min)}."""
        table = self.field(path, name, doc, name, dict) if "." not in name else \
            self.dig(path, doc, name)
        name = label or name
        self.no_unknown(path, name, table, schema, "a setting of [{}]".format(name))
        return {key: self.field(path, name, table, key, kind, minimum=minimum)
                for key, (kind, minimum) in schema.items()}

    def dig(self, path, doc, dotted):
        cur = doc
        for part in dotted.split("."):
            if not isinstance(cur, dict) or part not in cur:
                self.error(path, dotted, problem="is missing")
                return {}
            cur = cur[part]
        if not isinstance(cur, dict):
            self.error(path, dotted, problem="must be a table")
            return {}
        return cur

    def no_unknown(self, path, ident, it, known, what="a known field"):
        for k in it:
            if k not in known:
                self.error(path, ident, k, f"is not {what}{suggest(k, known)}")


I, F, S, B = int, float, str, bool


def load_cards(ld, path):
    doc = ld.read(path)
    out = {}
    for kind in ("attack", "defense"):
        for ident, it in ld.items(path, doc, kind):
            if ident in out:
                ld.error(path, ident, "id", "is used twice")
                continue
            if kind == "attack":
                ld.no_unknown(path, ident, it, {"id", "name", "tier", "damage", "min_stamina",
                                              "speed", "ignore_defense", "recycle", "heal"})
                card = Card(ident, ld.field(path, ident, it, "name", S), kind,
                            ld.field(path, ident, it, "tier", I, minimum=0),
                            damage=ld.field(path, ident, it, "damage", I, minimum=0),
                            min_stamina=ld.field(path, ident, it, "min_stamina", I, 0, 0),
                            speed=ld.field(path, ident, it, "speed", I, 0, 0),
                            ignore_defense=ld.field(path, ident, it, "ignore_defense", B, False),
                            recycle=ld.field(path, ident, it, "recycle", B, False),
                            heal=ld.field(path, ident, it, "heal", I, 0, 0))
            else:
                ld.no_unknown(path, ident, it, {"id", "name", "tier", "block", "counter",
                                              "negate_next"})
                card = Card(ident, ld.field(path, ident, it, "name", S), kind,
                            ld.field(path, ident, it, "tier", I, minimum=0),
                            block=ld.field(path, ident, it, "block", I, minimum=0),
                            counter=ld.field(path, ident, it, "counter", I, 0, 0),
                            negate_next=ld.field(path, ident, it, "negate_next", B, False))
            if card.tier > 3:
                ld.error(path, ident, "tier", "must be 0 (basic) to 3")
            out[ident] = card
    return out


def load_monsters(ld, path):
    doc = ld.read(path)
    out = {}
    for ident, it in ld.items(path, doc, "monster"):
        ld.no_unknown(path, ident, it, {"id", "name", "difficulty", "hp", "attack", "speed",
                                      "reward", "defense", "abilities"})
        diff = ld.field(path, ident, it, "difficulty", S)
        if diff not in DIFFICULTIES:
            ld.error(path, ident, "difficulty", f"must be one of "
                                f"{', '.join(DIFFICULTIES)}, not {diff!r}")
        abilities = ld.field(path, ident, it, "abilities", list, [])
        for a in abilities:
            if a not in ABILITIES:
                ld.error(path, ident, "abilities", f"{a!r} is not an ability; use "
                                    f"{', '.join(ABILITIES)}")
        out[ident] = Monster(ident, ld.field(path, ident, it, "name", S), diff,
                             ld.field(path, ident, it, "hp", I, minimum=1),
                             ld.field(path, ident, it, "attack", I, minimum=0),
                             ld.field(path, ident, it, "speed", I, minimum=0),
                             ld.field(path, ident, it, "reward", I, minimum=0),
                             ld.ints(path, ident, it, "defense") if "defense" in it else (),
                             tuple(abilities))
    for diff in DIFFICULTIES:
        if not any(m.difficulty == diff for m in out.values()):
            ld.error(path, problem=f"has no {diff} monster")
    return out


def load_effects(ld, path):
    doc = ld.read(path)
    effect_fields = {"id", "name", "text", "speed_mod", "damage_mod", "heal_per_turn",
                     "max_hp_mod", "only_fastest_attacks"}

    def effects(key):
        out = {}
        for ident, it in ld.items(path, doc, key):
            ld.no_unknown(path, ident, it, effect_fields)
            out[ident] = Effect(ident, ld.field(path, ident, it, "name", S),
                                ld.field(path, ident, it, "text", S),
                                speed_mod=ld.field(path, ident, it, "speed_mod", I, 0),
                                damage_mod=ld.field(path, ident, it, "damage_mod", I, 0),
                                heal_per_turn=ld.field(path, ident, it, "heal_per_turn", I, 0, 0),
                                max_hp_mod=ld.field(path, ident, it, "max_hp_mod", I, 0),
                                only_fastest_attacks=ld.field(path, ident, it,
                                                            "only_fastest_attacks", B, False))
        return out

    objectives = {}
    for ident, it in ld.items(path, doc, "objective"):
        ld.no_unknown(path, ident, it, {"id", "name", "text", "kind", "vp", "difficulty",
                                      "tier", "count"})
        kind = ld.field(path, ident, it, "kind", S)
        if kind not in OBJECTIVE_KINDS:
            ld.error(path, ident, "kind", f"must be one of "
                                f"{', '.join(OBJECTIVE_KINDS)}, not {kind!r}")
        diff = ld.field(path, ident, it, "difficulty", S, None)
        if kind == "defeat_difficulty" and diff not in DIFFICULTIES:
            ld.error(path, ident, "difficulty", "must be easy, medium or hard")
        objectives[ident] = Objective(ident, ld.field(path, ident, it, "name", S),
                                      ld.field(path, ident, it, "text", S), kind,
                                      ld.field(path, ident, it, "vp", I, minimum=0), diff,
                                      ld.field(path, ident, it, "tier", I, 0, 0),
                                      ld.field(path, ident, it, "count", I, 0, 0))
    return effects("environment"), effects("arena"), objectives


def load_rules(directory=DATA) -> Rules:
    """The rules, cards, monsters and effects of ``directory``; every mistake in them at once
    (:class:`DataFileErrors`)."""
    ld = _Loader()
    directory = pathlib.Path(directory)
    path = directory / "rules.toml"
    doc = ld.read(path)
    cards = load_cards(ld, directory / "cards.toml")
    setup = ld.section(path, doc, "setup", {"hp": (I, 1), "stamina": (I, 0),
                                          "start_tokens": (I, 0), "attack_deck": (list, None),
                                          "defense_deck": (list, None)})
    for key, kind in (("attack_deck", "attack"), ("defense_deck", "defense")):
        deck = setup[key]
        if not deck:
            ld.error(path, "setup", key, "must list at least one card")
        for cid in deck:
            c = cards.get(cid)
            if c is None or c.kind != kind or c.tier != 0:
                ld.error(path, "setup", key, f"{cid!r} is not a basic {kind} card "
                                                        f"in cards.toml")
        setup[key] = tuple(deck)
    arcs = {}
    for name, table in ld.field(path, "arcs", doc, "arcs", dict).items():
        a = ld.section(path, {"x": table}, "x", {"battles": (I, 1), "pvp_every": (I, 1)},
                     label=f"arcs.{name}")
        arcs[name] = (a["battles"], a["pvp_every"])
    battle = ld.section(path, doc, "battle", {
        "max_turns": (I, 1), "pvp_max_turns": (I, 1), "vp_monster": (I, 0), "vp_pvp": (I, 0),
        "enrage_after": (I, 0), "enrage_attack": (I, 0), "regeneration": (I, 0),
        "counter": (I, 0), "speed_drain": (I, 0), "printed_abilities": (list, None),
        "variant_abilities": (list, None)})
    for key in ("printed_abilities", "variant_abilities"):
        for a in battle[key]:
            if a not in ABILITIES:
                ld.error(path, "battle", key, f"{a!r} is not an ability")
        battle[key] = frozenset(battle[key])
    select = ld.section(path, doc, "select", {"draw": (I, 1), "dual_draw": (I, 1),
                                            "auction_extra": (I, 0)})
    rewards = ld.section(path, doc, "rewards", {"half_divisor": (I, 1)})
    unified_t = ld.dig(path, doc, "performance.unified")
    fast = ld.field(path, "performance.unified", unified_t, "fast_turns", dict)
    fast_turns = {}
    for k, v in fast.items():
        if not k.isdigit() or not is_whole(v) or v < 0:
            ld.error(path, "performance.unified", f"fast_turns.{k}",
                     "must map a number of turns to a whole number of tokens")
            continue
        fast_turns[int(k)] = v
    unified = {"fast_turns": fast_turns,
               "overkill_per": ld.field(path, "performance.unified", unified_t, "overkill_per",
                                      I, minimum=1),
               "perfect": ld.field(path, "performance.unified", unified_t, "perfect", I,
                                 minimum=0)}
    split = ld.section(path, doc, "performance.split", {"damage_per": (I, 1), "block_per": (I, 1),
                                                      "first_per": (I, 0), "hp_per": (I, 1)})
    action = ld.section(path, doc, "earning.action", {"before_monster": (I, 0),
                                                    "damage_action": (I, 0),
                                                    "hit_taken": (I, 0), "hp_per": (I, 1)})
    milestones = ld.section(path, doc, "earning.milestones", {
        "speedster_first": (I, 1), "speedster_tokens": (I, 0), "executioner_tokens": (I, 0),
        "tank_damage": (I, 1), "tank_tokens": (I, 0), "survivor_share": (F, 0.0),
        "survivor_tokens": (I, 0)})
    roles_t = ld.dig(path, doc, "earning.roles")
    roles = {}
    for role in ROLES:
        mult = ld.field(path, "earning.roles", roles_t, role, dict)
        for cat, m in list(mult.items()):
            if cat not in CATEGORIES or not is_kind(m, float):
                ld.error(path, "earning.roles", f"{role}.{cat}",
                         "must map attack/defense/speed/hp to a number")
                mult = {}
        roles[role] = {c: float(mult.get(c, 1.0)) for c in CATEGORIES}
    penalty = ld.field(path, "earning.roles", roles_t, "same_role_penalty", I, minimum=0)
    betting = ld.section(path, doc, "earning.betting", {"kinds": (list, None),
                                                      "no_fall_hp": (I, 0), "payout": (I, 1),
                                                      "max_stake": (I, 0)})
    if sorted(betting["kinds"]) != ["killing_blow", "no_fall"]:
        ld.error(path, "earning.betting", "kinds",
                            "must be killing_blow and no_fall")
    betting["kinds"] = tuple(betting["kinds"])
    systems = {}
    for sysname in SYSTEMS:
        t = ld.section(path, doc, f"tokens.{sysname}", {
            "types": (list, None), "attack_cards": (S, None), "defense_cards": (S, None),
            "hp": (S, None), "stamina": (S, None)})
        types = tuple(t["types"])
        if not types or len(types) not in (1, 2, 4):
            ld.error(path, f"tokens.{sysname}", "types", "must list 1, 2 or 4 types")
        for key in ("attack_cards", "defense_cards", "hp", "stamina"):
            if t[key] not in types:
                ld.error(path, f"tokens.{sysname}", key,
                                    f"{t[key]!r} is not one of its types")
        if len(types) == 4 and types != CATEGORIES:
            ld.error(path, f"tokens.{sysname}", "types",
                                "a 4-type system must be attack, defense, speed, hp")
        systems[sysname] = TokenSystem(types, t["attack_cards"], t["defense_cards"], t["hp"],
                                       t["stamina"])
    conv = ld.section(path, doc, "conversion", {"give": (I, 1), "get": (I, 0)})
    shop = ld.section(path, doc, "shop", {
        "tier_cost": (list, None), "card_value": (list, None), "hp_step": (I, 1),
        "hp_cost": (I, 0), "hp_cap": (I, 0), "stamina_step": (I, 1), "stamina_cost": (I, 0),
        "stamina_cap": (I, 0), "hp_costs_diminishing": (list, None),
        "stamina_costs_diminishing": (list, None), "limited_reveal": (I, 1),
        "scarce_copies": (I, 1), "tree_requires": (list, None)})
    t = {"shop": shop}
    shop["tier_cost"] = ld.ints(path, "shop", t["shop"], "tier_cost", 0, 3)
    shop["card_value"] = ld.ints(path, "shop", t["shop"], "card_value", 0, 4)
    shop["tree_requires"] = ld.ints(path, "shop", t["shop"], "tree_requires", 0, 3)
    for key, step, cap in (("hp_costs_diminishing", "hp_step", "hp_cap"),
                           ("stamina_costs_diminishing", "stamina_step", "stamina_cap")):
        shop[key] = ld.ints(path, "shop", t["shop"], key, 0)
        if shop[step] and len(shop[key]) < shop[cap] // shop[step]:
            ld.error(path, "shop", key, f"must give a price for each of the "
                                f"{shop[cap] // shop[step]} upgrades up to the cap")
    pvp_t = ld.field(path, "pvp", doc, "pvp", dict)
    pvp = ld.section(path, doc, "pvp", {
        "fixed_winner_tokens": (I, 0), "fixed_loser_tokens": (I, 0),
        "deck_value_divisor": (I, 1), "consolation": (I, 0), "wager_min": (I, 0),
        "pile_a": (dict, None), "pile_b": (dict, None), "opportunity_below": (I, 0),
        "best_of": (I, 1), "spectator_max_stake": (I, 0), "revenge_stamina": (I, 0),
        "revenge_defense_cards": (I, 0), "revenge_damage": (I, 0)})
    for pile in ("pile_a", "pile_b"):
        p = ld.section(path, {"x": pvp_t.get(pile, {})}, "x", {"tokens": (I, 0), "vp": (I, 0)},
                     label=f"pvp.{pile}")
        pvp[pile] = (p["tokens"], p["vp"])
    if pvp["best_of"] % 2 == 0:
        ld.error(path, "pvp", "best_of", "must be odd (1, 3, 5, ...)")
    victory = ld.section(path, doc, "victory", {
        "threshold": (I, 1), "most_monsters": (I, 0), "most_pvp_wins": (I, 0),
        "highest_deck_value": (I, 0), "most_hp": (I, 0), "objectives_dealt": (I, 1)})
    targets = ld.section(path, doc, "calibration", {k: (F, 0.0) for k in DIFFICULTIES})
    for k, v in targets.items():
        if v > 1:
            ld.error(path, "calibration", k, "must be a share from 0 to 1")
    environments, arenas, objectives = load_effects(ld, directory / "effects.toml")
    if len(objectives) < victory["objectives_dealt"] * 4:
        ld.error(directory / "effects.toml", problem=f"needs at least "
                 f"{victory['objectives_dealt'] * 4} objectives for 4 players")
    monsters = load_monsters(ld, directory / "monsters.toml")
    version = ld.field(path, "meta", ld.field(path, "meta", doc, "meta", dict), "version", S)
    ld.c.done()
    return Rules(
        version=version,
        setup=setup, arcs=arcs, battle=battle, select=select, rewards=rewards, unified=unified,
        split=split, action=action, milestones=milestones, roles=roles,
        same_role_penalty=penalty, betting=betting, systems=systems,
        conversion=(conv["give"], conv["get"]), shop=shop, pvp=pvp, victory=victory,
        targets=targets, cards=cards, monsters=monsters,
        environments=environments, arenas=arenas, objectives=objectives)


@functools.lru_cache(maxsize=1)
def default_rules() -> Rules:
    return load_rules(DATA)
