"""The Trade Warz / Tariff Warz card database: model, loader, validation, effect vocabulary.

One set of TOML files in ``data/`` holds every card, Leader, Trade Partner and Event. The two
editions are data too (``[editions.*]`` in ``editions.toml``): which cards each one uses, its
deck sizes and rarity split, its rule settings. :func:`load` parses and validates everything and
returns a :class:`CardDB`; :func:`default_db` is the shipped database, loaded once per process.

Effects use a small closed vocabulary (:data:`EFFECT_KINDS`; docs/trade-warz-cards.md has every
kind with an example). What the vocabulary cannot say is written ``kind = "manual"`` with
``text``: the engine turns it into a prompt at its ``when``; it is never dropped. A card whose
rules text has no effects at all does not load.

Every mistake in a data file is a :class:`DataFileError` naming the file, the card and the field;
:func:`load` collects all of them and raises one :class:`CardDataError` (``.errors`` lists them).

>>> db = default_db()
>>> len(db.deck("trade", "export")), len(db.deck("tariff", "export"))
(15, 50)
>>> db["freedom-corn"].name, db["freedom-corn"].kind, db["freedom-corn"].leader
('Freedom Corn', 'export', 'usa')
>>> [leader.hand_size for leader in db.leaders("trade")[:3]]
[8, 7, 6]
>>> db.composition("tariff")[0].rarity
(24, 16, 10)
"""
from __future__ import annotations

import dataclasses
import difflib
import functools
import os
import re
import tomllib
from pathlib import Path
from typing import ClassVar, Iterable, Iterator

from companion.core.errors import ConfigError, DataFileError

GAME_NAME = "trade-warz"
DATA_DIR = Path(__file__).resolve().parent / "data"

PLAYABLE_KINDS = ("export", "policy", "tactic")
KIND_TITLES = {"export": "Export", "policy": "Policy", "tactic": "Tactic", "event": "Event",
               "partner": "Trade Partner", "leader": "Leader"}
RARITIES = ("common", "uncommon", "rare")
LEADER_RARITY = "leader"          # a Leader's own card: outside the rarity curve
TOP_LEVEL = ("meta", "editions", "card", "event", "partner", "leader")


@dataclasses.dataclass(frozen=True)
class UpkeepCategory:
    """One CMYK upkeep category. Always show the letter and the name with the colour."""
    letter: str
    name: str
    resolves: str
    ring: str
    fill: str

    @property
    def label(self) -> str:
        return f"{self.letter} {self.name}"


CMYK = {
    "C": UpkeepCategory("C", "Canary", "global effects", "cyan", "yellow"),
    "M": UpkeepCategory("M", "Mint", "personal effects", "magenta", "mint green"),
    "Y": UpkeepCategory("Y", "Yeti", "opponent-targeting effects", "yellow", "ice blue"),
    "K": UpkeepCategory("K", "Kraken", "trading-partner effects", "black", "dark purple"),
}
UPKEEP_ORDER = ("C", "M", "Y", "K")

# -- the effect vocabulary ----------------------------------------------------------------------

WHENS = {
    "immediate": "once, when the card resolves: a Tactic when played, a Policy when revealed, "
                 "an Event when flipped, an Export when its route is established (after "
                 "disputes), a Leader or Trade Partner when the game starts",
    "upkeep": "every Upkeep phase while the card is in play, in its CMYK slot",
    "income": "every Income phase while the card is in play",
    "dispute": "in every dispute the target is part of, while the card is in play",
    "ongoing": "continuously while the card is in play",
    "activated": "Leaders only: once per round, when the owner chooses (before Trade ends); "
                 "all activated effects of one card are one activation, resolved in order",
}
IN_PLAY = {
    "policy": "while it sits in its owner's Policy slot",
    "export": "while its route stands",
    "tactic": "until Cleanup of the round it was played",
    "event": "until Cleanup of the round it was flipped",
    "leader": "all game",
    "partner": "all game",
}
TARGETS = {
    "self": "the card's owner",
    "opponent": "one opponent the owner chooses",
    "each_opponent": "every opponent of the owner",
    "all": "every player",
    "richest": "the richest player (every player tied for richest)",
    "poorest": "the poorest player (every player tied for poorest)",
    "any": "any one player the owner chooses, the owner included",
}
OWNERLESS_TARGETS = ("all", "richest", "poorest")   # what an Event or a Trade Partner may say
CONDITIONS = {
    "poorest": "only if the owner is the poorest player (ties count)",
    "not_richest": "only if the owner is not the richest player (ties count as richest)",
    "richest": "only if the owner is the richest player (ties count)",
}
DRAW_DECKS = ("any", "export", "tactic", "policy", "personal")
PROTECTS = {
    "routes": "the target's routes cannot be destroyed or removed",
    "board": "no opponent's card may target the target (like a Fast-Pass)",
    "gdp": "opponents' cards cannot make the target lose or pay GDP",
}
PARTNER_WORDS = {"chosen": "a Trade Partner the owner chooses when it resolves",
                 "this": "this Trade Partner (Trade Partner cards only)"}
COMMON_KEYS = ("kind", "when", "target", "condition", "optional")


@dataclasses.dataclass(frozen=True)
class Computation:
    """What the companion computes for a ``manual`` effect whose inputs it tracks
    (``compute = "<name>"``); the effect's ``text`` is still what players read. The allowed
    ``whens``/``targets``, the parameters it reads (``params``, with ``required`` ones) and
    an edition rule it ``needs``."""
    name: str
    doc: str
    whens: tuple
    targets: tuple
    params: tuple = ()
    required: tuple = ()
    needs: str | None = None


COMPUTES = {c.name: c for c in (
    Computation("most_routes", "The player with the most routes at this Trade Partner gains "
                "`amount` GDP (default 1); a tie goes to the poorest of them (equal GDP: the "
                "first in turn order from the first player). Nobody with a route there: "
                "nothing happens (a notice says so).", ("upkeep", "income"), ("all",),
                ("amount",)),
    Computation("poorer_in_dispute", "In a dispute (at this Trade Partner, or one its owner is "
                "in), the poorest player in that dispute gets `amount` more dispute power "
                "(default 1); players tied for poorest each get it (GDP before bids are paid).",
                ("dispute",), ("all", "self"), ("amount",)),
    Computation("per_partner", "The owner gains `amount` GDP (default 1) for each different "
                "Trade Partner where it has a route.", ("income", "upkeep"), ("self",),
                ("amount",)),
    Computation("per_shared_route", "The owner gains `amount` GDP (default 1) for each "
                "opponent's route at a Trade Partner where the owner also has a route.",
                ("income", "upkeep"), ("self",), ("amount",)),
    Computation("influence_per_route", "The owner chooses a Trade Partner where it has routes "
                "(automatic with one; nothing without) and gains `amount` influence there "
                "(default 1) for each of its routes there.", ("upkeep", "income"), ("self",),
                ("amount",), needs="influence_accumulates"),
    Computation("trade_timer", "While the card is in play the Trade timer runs `seconds` "
                "instead of the usual 3:00 (the warning still sounds at 0:30); a timer already "
                "running loses the difference.", ("immediate",), ("all",), ("seconds",),
                ("seconds",)),
    Computation("no_tactics", "The target may not play Tactics while the card is in play "
                "(a Tactic or an Event: this round).", ("immediate",), ("opponent",)),
    Computation("new_event", "This round's Event goes back into the Event deck (its lasting "
                "effects end); another Event is flipped from the shuffled deck and its "
                "immediate effects resolve now.", ("immediate",), ("all",)),
    Computation("swap_gdp", "If the target has more GDP than the owner, by `max_gap` or "
                "less, the two swap GDP totals (a target whose GDP is protected is not "
                "touched).", ("immediate",), ("opponent",), ("max_gap",), ("max_gap",)),
    Computation("fewer_routes_gain", "The owner and the target each draw `count` cards "
                "(default 0: none; from the piles they choose), then whichever of the two has "
                "fewer routes gains `amount` GDP (default 1; a tie: nobody).", ("immediate",),
                ("opponent",), ("amount", "count")),
)}


@dataclasses.dataclass(frozen=True)
class Param:
    """A typed effect parameter. ``ref`` names a check against the data ("tag", "partner")."""
    name: str
    type: type
    doc: str
    choices: tuple = ()
    minimum: int | None = None
    nonzero: bool = False
    ref: str | None = None


_AMOUNT_UP = Param("amount", int, "how much (1 or more)", minimum=1)
_AMOUNT = Param("amount", int, "how much; negative means less (not 0)", nonzero=True)
_COUNT = Param("count", int, "how many (1 or more)", minimum=1)
_TAG = Param("tag", str, "only Exports with this tag (see [meta] tags)", ref="tag")
_PARTNER = Param("partner", str, "a Trade Partner id, \"chosen\" (the owner picks one when "
                 "it resolves) or \"this\" (on a Trade Partner: itself)", ref="partner")
_MAX_COST = Param("max_cost", int, "only routes whose Export costs at most this", minimum=0)


@dataclasses.dataclass(frozen=True)
class EffectKind:
    """One word of the vocabulary. The first of ``whens``/``targets`` is the default."""
    name: str
    doc: str
    whens: tuple
    targets: tuple
    params: tuple = ()
    required: tuple = ()
    needs: str | None = None        # an EditionRules flag that must be true where it is used
    needs_owner: bool = False       # someone must receive what is taken

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None


EFFECT_KINDS = {k.name: k for k in (
    EffectKind("gain_gdp", "The target gains `amount` GDP from the bank.",
               ("immediate", "upkeep", "income", "activated"),
               ("self", "all", "opponent", "each_opponent", "poorest", "richest"),
               (_AMOUNT_UP,), ("amount",)),
    EffectKind("lose_gdp", "The target pays `amount` GDP to the bank (as much as it has).",
               ("immediate", "upkeep", "income", "activated"),
               ("opponent", "each_opponent", "self", "all", "richest", "poorest"),
               (_AMOUNT_UP,), ("amount",)),
    EffectKind("steal_gdp", "The target pays `amount` GDP (as much as it has) to the owner.",
               ("immediate", "upkeep", "income", "activated"),
               ("opponent", "each_opponent", "richest"),
               (_AMOUNT_UP,), ("amount",), needs_owner=True),
    EffectKind("route_income", "Each of the target's active routes (only those with `tag`, or "
               "at `partner`, if given) earns `amount` more GDP at Income (less if negative, "
               "never below 0 for a route).",
               ("income",), ("self", "all", "opponent", "each_opponent"),
               (_AMOUNT, _TAG, _PARTNER), ("amount",)),
    EffectKind("cost_change", "The target's cards of `card_kind` (only those with `tag`, or "
               "Exports placed at `partner`, if given) cost `amount` more GDP (less if "
               "negative, never below 0).",
               ("ongoing",), ("self", "all", "opponent", "each_opponent"),
               (_AMOUNT, Param("card_kind", str, "export, policy or tactic",
                               choices=PLAYABLE_KINDS), _TAG, _PARTNER),
               ("amount", "card_kind")),
    EffectKind("draw", "The target draws `count` cards from `deck` (any: the target splits "
               "the draws among the piles it may draw from; personal: its Leader deck or "
               "Personal Policy pile).",
               ("immediate", "upkeep", "activated"), ("self", "all", "opponent",
                                                      "each_opponent"),
               (_COUNT, Param("deck", str, "any (default), export, tactic, policy, personal",
                              choices=DRAW_DECKS)), ("count",)),
    EffectKind("discard", "The target discards `count` cards of its choice (at random if "
               "`random = true`).",
               ("immediate", "upkeep", "activated"), ("opponent", "each_opponent", "all",
                                                      "self"),
               (_COUNT, Param("random", bool, "true: at random; default false")), ("count",)),
    EffectKind("gain_influence", "The target gains `amount` influence with `partner`.",
               ("immediate", "upkeep", "income", "activated"), ("self", "all"),
               (_AMOUNT_UP, _PARTNER), ("amount", "partner"), needs="influence_accumulates"),
    EffectKind("steal_influence", "Up to `amount` of the target's influence with `partner` "
               "moves to the owner.",
               ("immediate", "upkeep", "activated"), ("opponent", "richest"),
               (_AMOUNT_UP, _PARTNER), ("amount", "partner"), needs="influence_accumulates",
               needs_owner=True),
    EffectKind("destroy_route", "Destroy `count` of the target's routes (only those with `tag`, "
               "at `partner`, or costing at most `max_cost`, if given): the Export goes to its "
               "owner's discard pile and the slot opens.",
               ("immediate", "activated"), ("opponent", "any", "each_opponent"),
               (_COUNT, _TAG, _PARTNER, _MAX_COST), ("count",)),
    EffectKind("remove_route", "Remove `count` of the target's routes (filters as for "
               "destroy_route): the Export returns to its owner's hand and the slot opens.",
               ("immediate", "activated"), ("opponent", "any", "self", "each_opponent"),
               (_COUNT, _TAG, _PARTNER, _MAX_COST), ("count",)),
    EffectKind("protect", "The target is shielded: `what` = routes (its routes, or those at "
               "`partner`, cannot be destroyed or removed), board (no opponent's card may "
               "target it), gdp (opponents' cards cannot make it lose or pay GDP).",
               ("ongoing",), ("self", "all"),
               (Param("what", str, "routes, board or gdp", choices=tuple(PROTECTS)), _PARTNER),
               ("what",)),
    EffectKind("extra_policy", "The target may play `count` more Policy cards this round "
               "(when ongoing: in every Policy phase while the card is in play).",
               ("immediate", "ongoing"), ("self", "all"), (_COUNT,), ("count",)),
    EffectKind("refresh_fast_pass", "The target's spent Fast-Pass token is ready again.",
               ("immediate", "upkeep"), ("self", "all"), needs="fast_pass"),
    EffectKind("dispute_power", "The target has `amount` more dispute power (less if "
               "negative) in each of its disputes (only with `tag` Exports, or at `partner`, "
               "if given).",
               ("dispute",), ("self", "opponent", "each_opponent", "all"),
               (_AMOUNT, _TAG, _PARTNER), ("amount",)),
    EffectKind("slots", "`partner` (left out: every partner) has `amount` more route slots "
               "(fewer if negative; a standing route never loses its slot).",
               ("ongoing",), ("all",), (_AMOUNT, _PARTNER), ("amount",)),
    EffectKind("manual", "Anything the vocabulary cannot say: `text` becomes a prompt to the "
               "target at `when` (an ongoing one also stays on screen as a reminder), and the "
               "table resolves it by hand, unless `compute` names what the companion works "
               "out by itself (see the computations).",
               ("immediate", "upkeep", "income", "dispute", "ongoing", "activated"),
               tuple(TARGETS), (Param("text", str, "what the table must do"),
                                Param("compute", str, "a computation the companion does "
                                      "instead of asking the table", choices=tuple(COMPUTES)),
                                Param("amount", int, "for the computation: how much (1 or "
                                      "more)", minimum=1),
                                Param("count", int, "for the computation: how many cards "
                                      "(0 or more)", minimum=0),
                                Param("seconds", int, "for trade_timer: the Trade timer's "
                                      "length", minimum=10),
                                Param("max_gap", int, "for swap_gdp: the largest GDP gap "
                                      "that still swaps", minimum=1)), ("text",)),
)}

# -- the model -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Effect:
    """One structured effect. Parameters a kind does not use are None (``random`` False)."""
    kind: str
    when: str
    target: str
    amount: int | None = None
    count: int | None = None
    deck: str | None = None
    random: bool = False
    tag: str | None = None
    partner: str | None = None
    card_kind: str | None = None
    what: str | None = None
    max_cost: int | None = None
    text: str | None = None
    condition: str | None = None
    optional: bool = False
    compute: str | None = None
    seconds: int | None = None
    max_gap: int | None = None

    @property
    def is_manual(self) -> bool:
        """True for a ``manual`` effect: :attr:`text` is what players read. Unless it has a
        :attr:`compute` (and the session computes effects), the table resolves it by hand."""
        return self.kind == "manual"

    @property
    def by_hand(self) -> bool:
        """A manual effect the companion cannot compute: always the table's to resolve."""
        return self.kind == "manual" and self.compute is None

    @property
    def params(self) -> dict:
        """The kind's parameters that are set, e.g. ``{"amount": 2, "tag": "food"}``."""
        out = {}
        for p in EFFECT_KINDS[self.kind].params:
            v = getattr(self, p.name)
            if v is not None and not (p.type is bool and v is False):
                out[p.name] = v
        return out

    def describe(self) -> str:
        """A one-line summary for screens and logs, e.g. ``gain_gdp amount=2 (immediate, self)``."""
        if self.is_manual:
            head = f"manual: {self.text}"
            if self.compute:
                args = " ".join(f"{k}={v}" for k, v in self.params.items()
                                if k not in ("text", "compute"))
                head = f"computed {self.compute}{' ' + args if args else ''}: {self.text}"
        else:
            args = " ".join(f"{k}={v}" for k, v in self.params.items())
            head = f"{self.kind} {args}".rstrip()
        extra = [self.when, self.target]
        if self.condition:
            extra.append(f"if {self.condition}")
        if self.optional:
            extra.append("optional")
        return f"{head} ({', '.join(extra)})"


class _Item:
    """Shared helpers of every kind of item."""
    kind: ClassVar[str]

    @property
    def title(self) -> str:
        return KIND_TITLES[self.kind]

    @property
    def manual_effects(self) -> tuple:
        """The effects the table resolves by hand (manual ones the companion cannot compute)."""
        return tuple(e for e in self.effects if e.by_hand)

    @property
    def computed_effects(self) -> tuple:
        """Manual effects the companion computes (``compute``) when the session does."""
        return tuple(e for e in self.effects if e.is_manual and e.compute)

    def in_edition(self, edition: str) -> bool:
        return edition in self.editions


@dataclasses.dataclass(frozen=True)
class Card(_Item):
    """An Export, Policy or Tactic, from a global deck (``deck="global"``) or a Leader's own
    deck (``deck="leader"``, ``leader`` set). ``value``/``influence`` are None except on Exports.
    ``copies`` is ``((edition, n), ...)`` resolved for every edition the card is in."""
    id: str
    name: str
    kind: str
    deck: str
    rarity: str
    cmyk: str
    text: str
    version: int
    editions: tuple
    copies: tuple
    cost: int = 0
    value: int | None = None
    influence: int | None = None
    leader: str | None = None
    signature: bool = False
    tags: tuple = ()
    effects: tuple = ()
    flavour: str = ""
    source: str = ""

    def copies_in(self, edition: str) -> int:
        return dict(self.copies).get(edition, 0)

    @property
    def upkeep(self) -> UpkeepCategory:
        return CMYK[self.cmyk]



@dataclasses.dataclass(frozen=True)
class EventCard(_Item):
    """A global Event, flipped at the start of each round."""
    kind: ClassVar[str] = "event"
    id: str
    name: str
    cmyk: str
    text: str
    version: int
    editions: tuple
    copies: tuple
    effects: tuple = ()
    flavour: str = ""
    source: str = ""

    def copies_in(self, edition: str) -> int:
        return dict(self.copies).get(edition, 0)

    @property
    def upkeep(self) -> UpkeepCategory:
        return CMYK[self.cmyk]


@dataclasses.dataclass(frozen=True)
class Partner(_Item):
    """A Trade Partner: ``slots`` route slots; each route here earns ``bonus`` more GDP."""
    kind: ClassVar[str] = "partner"
    id: str
    name: str
    slots: int
    bonus: int
    text: str
    version: int
    editions: tuple
    effects: tuple = ()
    flavour: str = ""
    source: str = ""


@dataclasses.dataclass(frozen=True)
class Leader(_Item):
    """A Leader tile. ``hand_size`` is the Trade Warz draw-up-to limit, ``draw`` the Tariff
    Warz draw count; :meth:`Edition.draw_rule` says which one an edition uses."""
    kind: ClassVar[str] = "leader"
    id: str
    name: str
    hand_size: int
    draw: int
    export_slots: int
    ability: str
    text: str
    version: int
    editions: tuple
    effects: tuple = ()
    cmyk: str | None = None
    prototype: bool = False
    flavour: str = ""
    source: str = ""


@dataclasses.dataclass(frozen=True)
class EditionRules:
    """The rule settings of an edition that the data records (DESIGN.md's table)."""
    fast_pass: bool
    influence_accumulates: bool
    signature_to_global: bool
    draw: str                    # "up_to_hand_size" (Leader.hand_size) or "leader_draw"
    export_cost: str             # "after_disputes" or "on_placement"
    hand_limit: int              # discard down to this at Cleanup; 0 = no limit


@dataclasses.dataclass(frozen=True)
class DeckSpec:
    """A global deck of an edition. Rarity tuples are ``(common, uncommon, rare)``."""
    name: str                    # export / tactic / policy / event (= the kind it holds)
    title: str
    size: int
    rarity: tuple | None = None      # copies per rarity
    distinct: tuple | None = None    # different cards per rarity
    copies: tuple = (1, 1, 1)        # default copies of a card per rarity


@dataclasses.dataclass(frozen=True)
class PersonalDeckSpec:
    """Each Leader's own deck: ``size`` and ``kinds`` are ``(min, max)`` ranges; the kinds
    in ``signature`` may hold signature cards only."""
    title: str
    size: tuple
    kinds: tuple                 # ((kind, min, max), ...) for every playable kind
    signature: tuple = ()

    def kind_range(self, kind: str) -> tuple:
        for k, lo, hi in self.kinds:
            if k == kind:
                return lo, hi
        return 0, 0


@dataclasses.dataclass(frozen=True)
class Edition:
    name: str
    title: str
    players: tuple
    partners: tuple
    rules: EditionRules
    personal: PersonalDeckSpec
    decks: tuple                 # DeckSpec, in table order
    source: str = ""

    def deck_spec(self, name: str) -> DeckSpec | None:
        for d in self.decks:
            if d.name == name:
                return d
        return None

    def draw_rule(self, leader: Leader) -> int:
        """The number that governs this Leader's Draw phase in this edition."""
        return leader.hand_size if self.rules.draw == "up_to_hand_size" else leader.draw


@dataclasses.dataclass(frozen=True)
class DeckReport:
    """The composition of one deck in one edition, against what the edition needs."""
    edition: str
    deck: str                    # "export", ... or "leader:<id>"
    title: str
    size: int
    expected_size: tuple         # (min, max)
    kinds: tuple                 # ((kind, copies), ...)
    rarity: tuple | None         # copies per rarity
    expected_rarity: tuple | None
    distinct: tuple | None
    expected_distinct: tuple | None
    problems: tuple = ()

    @property
    def ok(self) -> bool:
        return not self.problems


class CardDataError(DataFileError):
    """One or more mistakes in the data files. ``errors`` holds every :class:`DataFileError`;
    the message is the first one and how many more there are."""

    def __init__(self, errors):
        self.errors = tuple(errors)
        first = self.errors[0]
        more = len(self.errors) - 1
        problem = first.problem
        if more:
            problem += f" (and {more} more problem{'s' if more > 1 else ''})"
        super().__init__(first.path, first.item, first.field, problem)


# -- the database --------------------------------------------------------------------------------


class CardDB:
    """Every item by id, the editions, and each edition's decks (built once, as tuples)."""

    def __init__(self, version, editions, tags, items, source):
        self.version = version
        self.editions = dict(editions)          # name -> Edition, in file order
        self.tags = tuple(tags)
        self.source = source
        self._items = dict(items)               # id -> Card | EventCard | Partner | Leader
        self._lists = {}                        # (class, edition, kind) -> tuple, on demand
        self._decks = {}
        self._leader_decks = {}
        self._signatures = {}
        for c in self._items.values():
            if isinstance(c, Card) and c.signature:
                self._signatures[c.leader] = self._signatures.get(c.leader, ()) + (c,)
        for ed in self.editions.values():
            for spec in ed.decks:
                kind_items = [i for i in self._items.values() if i.kind == spec.name
                              and i.in_edition(ed.name)
                              and getattr(i, "deck", "global") == "global"]
                self._decks[ed.name, spec.name] = tuple(
                    i.id for i in kind_items for _ in range(i.copies_in(ed.name)))
            for leader in self.leaders(ed.name):
                self._leader_decks[ed.name, leader.id] = tuple(
                    c.id for c in self._items.values() if isinstance(c, Card)
                    and c.leader == leader.id and c.in_edition(ed.name)
                    for _ in range(c.copies_in(ed.name)))

    # -- lookups ---------------------------------------------------------------------------
    def __getitem__(self, item_id: str):
        return self._items[item_id]

    def get(self, item_id: str, default=None):
        return self._items.get(item_id, default)

    def __contains__(self, item_id) -> bool:
        return item_id in self._items

    def __iter__(self) -> Iterator:
        return iter(self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def edition(self, name: str) -> Edition:
        try:
            return self.editions[name]
        except KeyError:
            raise ConfigError(f"Trade Warz has no edition {name!r}. Editions: "
                              f"{', '.join(self.editions)}.") from None

    def _of(self, cls, edition, kind=None):
        key = (cls, edition, kind)
        found = self._lists.get(key)
        if found is None:
            if edition is not None:
                self.edition(edition)
            found = tuple(i for i in self._items.values() if isinstance(i, cls)
                          and (edition is None or i.in_edition(edition))
                          and (kind is None or i.kind == kind))
            if cls is Leader:
                found = tuple(sorted(found, key=lambda l: l.prototype))
            self._lists[key] = found
        return found

    def cards(self, edition: str | None = None, kind: str | None = None) -> tuple:
        """Exports, Policies and Tactics (global and Leader cards), in file order."""
        return self._of(Card, edition, kind)

    def events(self, edition: str | None = None) -> tuple:
        return self._of(EventCard, edition)

    def partners(self, edition: str | None = None) -> tuple:
        return self._of(Partner, edition)

    def leaders(self, edition: str | None = None) -> tuple:
        """Leaders in file order, the non-prototype ones first."""
        return self._of(Leader, edition)

    def signature_cards(self, leader: str) -> tuple:
        """A Leader's signature cards (every edition), in file order."""
        return self._signatures.get(leader, ())

    # -- decks -----------------------------------------------------------------------------
    def deck(self, edition: str, deck: str, leaders: Iterable[str] = ()) -> tuple:
        """A global deck as card ids, one per copy, in file order (shuffle it yourself with
        the session's seeded rng). With the seated ``leaders`` and an edition whose rules say
        ``signature_to_global``, each of their signature cards of this kind is added once."""
        ed = self.edition(edition)
        try:
            base = self._decks[edition, deck]
        except KeyError:
            raise ConfigError(f"{ed.title} has no {deck!r} deck. Decks: "
                              f"{', '.join(d.name for d in ed.decks)}.") from None
        if not ed.rules.signature_to_global:
            return base
        extra = []
        for lid in leaders:
            self._leader(ed, lid)
            extra += [c.id for c in self.signature_cards(lid)
                      if c.kind == deck and c.in_edition(edition)]
        return base + tuple(extra)

    def leader_deck(self, edition: str, leader: str) -> tuple:
        """A Leader's own deck (Leader deck / Personal Policy pile) as card ids."""
        ed = self.edition(edition)
        self._leader(ed, leader)
        return self._leader_decks[edition, leader]

    def _leader(self, ed: Edition, leader_id: str) -> Leader:
        found = self._items.get(leader_id)
        if not isinstance(found, Leader) or not found.in_edition(ed.name):
            raise ConfigError(f"{ed.title} has no Leader {leader_id!r}. Leaders: "
                              f"{', '.join(l.id for l in self.leaders(ed.name))}.")
        return found

    def catalog(self, edition: str | None = None) -> dict:
        """``{"version": str, "cards": {id: name}}`` for the card reader: every physical
        item (cards, Events, Trade Partners, Leader tiles), sorted by id."""
        if edition is not None:
            self.edition(edition)
        cards = {i.id: i.name for i in self._items.values()
                 if edition is None or i.in_edition(edition)}
        return {"version": self.version, "cards": dict(sorted(cards.items()))}

    def manual_effects(self, edition: str | None = None) -> tuple:
        """``((item, effect), ...)`` for every manual effect the companion cannot compute:
        what the table resolves by hand."""
        return tuple((i, e) for i in self._items.values()
                     if edition is None or i.in_edition(edition) for e in i.manual_effects)

    def computed_effects(self, edition: str | None = None) -> tuple:
        """``((item, effect), ...)`` for every manual effect the companion computes."""
        return tuple((i, e) for i in self._items.values()
                     if edition is None or i.in_edition(edition) for e in i.computed_effects)

    # -- composition -----------------------------------------------------------------------
    def composition(self, edition: str) -> tuple:
        """A :class:`DeckReport` for every global deck, then every Leader's own deck."""
        ed = self.edition(edition)
        reports = []
        for spec in ed.decks:
            reports.append(self._deck_report(ed, spec))
        for leader in self.leaders(edition):
            reports.append(self._leader_report(ed, leader))
        return tuple(reports)

    def _deck_report(self, ed, spec):
        ids = self._decks[ed.name, spec.name]
        cards = [self._items[i] for i in dict.fromkeys(ids)]
        kinds = _count(self._items[i].kind for i in ids)
        problems = []
        if len(ids) != spec.size:
            problems.append(f"has {len(ids)} cards; {ed.title} needs {spec.size}")
        rarity = distinct = None
        if spec.rarity is not None or spec.distinct is not None:
            rarity = tuple(sum(c.copies_in(ed.name) for c in cards if c.rarity == r)
                           for r in RARITIES)
            distinct = tuple(sum(1 for c in cards if c.rarity == r) for r in RARITIES)
            for label, have, need in (("copies", rarity, spec.rarity),
                                      ("different cards", distinct, spec.distinct)):
                if need is not None and have != need:
                    over = [r for r, h, n in zip(RARITIES, have, need) if h > n]
                    named = "; ".join(
                        f"the {r} cards are " + ", ".join(c.id for c in cards if c.rarity == r)
                        for r in over)
                    problems.append(
                        f"rarity split is {_split(have)} {label} (common/uncommon/rare); "
                        f"{ed.title} needs {_split(need)}" + (f". Check 'rarity' and "
                                                              f"'copies': {named}" if named
                                                              else ""))
        return DeckReport(ed.name, spec.name, spec.title, len(ids), (spec.size, spec.size),
                          kinds, rarity, spec.rarity, distinct, spec.distinct, tuple(problems))

    def _leader_report(self, ed, leader):
        spec = ed.personal
        ids = self._leader_decks[ed.name, leader.id]
        kinds = _count(self._items[i].kind for i in ids)
        have = dict(kinds)
        problems = []
        lo, hi = spec.size
        if not lo <= len(ids) <= hi:
            problems.append(f"has {len(ids)} cards; {ed.title} needs {_range(lo, hi)}")
        for kind, klo, khi in spec.kinds:
            n = have.get(kind, 0)
            if not klo <= n <= khi:
                problems.append(f"has {n} {KIND_TITLES[kind]} card{'s' if n != 1 else ''}; "
                                f"{ed.title} needs {_range(klo, khi)}")
        for kind in spec.signature:
            plain = [i for i in dict.fromkeys(ids) if self._items[i].kind == kind
                     and not self._items[i].signature]
            if plain:
                problems.append(f"may hold only signature {KIND_TITLES[kind]} cards in "
                                f"{ed.title}, but {', '.join(plain)} "
                                f"{'is' if len(plain) == 1 else 'are'} not marked "
                                f"signature = true")
        return DeckReport(ed.name, f"leader:{leader.id}", f"{leader.name} {spec.title}",
                          len(ids), spec.size, kinds, None, None, None, None, tuple(problems))

    def problems(self, edition: str | None = None) -> tuple:
        """Every way an edition's decks, Leaders or Trade Partners differ from what it needs,
        as :class:`DataFileError` s (empty when all is well)."""
        out = []
        for ed in self.editions.values():
            if edition is not None and ed.name != edition:
                continue
            for rep in self.composition(ed.name):
                if rep.ok:
                    continue
                if rep.deck.startswith("leader:"):
                    lid = rep.deck.split(":", 1)[1]
                    files = [self._items[i].source for i in
                             self._leader_decks[ed.name, lid]] or [self._items[lid].source]
                    path = _most(files)
                    item = f"{lid} ({ed.title} {ed.personal.title})"
                else:
                    ids = self._decks[ed.name, rep.deck]
                    path = _most(self._items[i].source for i in ids) if ids else ed.source
                    item = f"{ed.title} {rep.title}"
                for p in rep.problems:
                    if rep.deck.startswith("leader:"):
                        field = "leader"
                    else:
                        field = "rarity" if p.startswith("rarity") else "size"
                    out.append(DataFileError(path, item, field, p))
            leaders = self.leaders(ed.name)
            need = ed.players[1]
            if len(leaders) < need:
                out.append(DataFileError(
                    _most([l.source for l in leaders]) or ed.source, ed.title, "leaders",
                    f"has {len(leaders)} Leaders but seats up to {need} players; every player "
                    f"needs a Leader"))
            partners = self.partners(ed.name)
            lo, hi = ed.partners
            if not lo <= len(partners) <= hi:
                out.append(DataFileError(
                    _most([p.source for p in partners]) or ed.source, ed.title, "partners",
                    f"has {len(partners)} Trade Partners; it needs {_range(lo, hi)}"))
        return tuple(out)


def _count(kinds) -> tuple:
    out = {}
    for k in kinds:
        out[k] = out.get(k, 0) + 1
    return tuple((k, out[k]) for k in (*PLAYABLE_KINDS, "event") if k in out)


def _split(t) -> str:
    return "/".join(map(str, t))


def _range(lo, hi) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _most(files):
    files = list(files)
    return max(set(files), key=lambda f: (files.count(f), f)) if files else ""


# -- loading -------------------------------------------------------------------------------------


def load(source: str | os.PathLike | Iterable | None = None, *, strict: bool = True) -> CardDB:
    """Parse and validate a card database.

    ``source``: None (the shipped ``data/``), a directory (every ``*.toml`` in it), one file,
    or a list of files. Raises :class:`CardDataError` listing every mistake. With
    ``strict=False`` only mistakes in the files themselves raise; deck sizes and rarity splits
    are left to :meth:`CardDB.problems` (the CLI lists a broken split before it fails).
    """
    files, label = _files(source)
    db = _Loader(files).run(label)
    if strict:
        problems = db.problems()
        if problems:
            raise CardDataError(problems)
    return db


@functools.cache
def default_db() -> CardDB:
    """The shipped database, loaded and validated once per process."""
    return load()


def card_catalog(edition: str | None = None) -> dict:
    """The card reader's catalog of the shipped database (see :meth:`CardDB.catalog`)."""
    return default_db().catalog(edition)


def _files(source):
    if source is None:
        source = DATA_DIR
    if isinstance(source, (str, os.PathLike)):
        p = Path(source)
        if p.is_dir():
            files = sorted(p.glob("*.toml"))
            if not files:
                raise DataFileError(p, problem="has no .toml files")
            return files, str(p)
        if not p.exists():
            raise DataFileError(p, problem="does not exist")
        return [p], str(p)
    files = [Path(f) for f in source]
    if not files:
        raise DataFileError("(no files)", problem="nothing to load")
    return files, ", ".join(map(str, files))


_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_TYPE_WORDS = {int: "a whole number", str: "text", bool: "true or false", list: "a list",
               dict: "a table"}


def _show(v) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "a table"
    if isinstance(v, list):
        return "a list"
    return str(v)


def _is(v, typ) -> bool:
    if typ is int:
        return isinstance(v, int) and not isinstance(v, bool)
    return isinstance(v, typ)


def _suggest(word, options) -> str:
    close = difflib.get_close_matches(str(word), list(options), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


class _Fields:
    """Reads one TOML table, recording each mistake with its file, item and field."""

    def __init__(self, errors, path, item, table):
        self.errors, self.path, self.item, self.t = errors, path, item, table
        self.ok = True
        self.seen = set()

    def err(self, field, problem):
        self.errors.append(DataFileError(self.path, self.item, field, problem))
        self.ok = False

    def get(self, key, typ, default=dataclasses.MISSING, *, choices=(), minimum=None,
            maximum=None, nonempty=False):
        self.seen.add(key)
        if key not in self.t:
            if default is dataclasses.MISSING:
                self.err(key, "is missing")
                return None
            return default
        v = self.t[key]
        if not _is(v, typ):
            self.err(key, f"must be {_TYPE_WORDS[typ]}, not {_show(v)}")
            return None
        if choices and v not in choices:
            self.err(key, f"must be one of {', '.join(map(str, choices))}, not {_show(v)}"
                          f"{_suggest(v, choices)}")
            return None
        if (minimum is not None and v < minimum) or (maximum is not None and v > maximum):
            if maximum is None:
                need = f"{minimum} or more"
            elif minimum is None:
                need = f"at most {maximum}"
            else:
                need = f"from {minimum} to {maximum}"
            self.err(key, f"must be {need}, not {v}")
            return None
        if nonempty and typ is str and not v.strip():
            self.err(key, "is empty")
            return None
        return v

    def strings(self, key, default=dataclasses.MISSING, choices=()):
        v = self.get(key, list, default)
        if v is None or v is default:
            return v
        out = []
        for x in v:
            if not isinstance(x, str):
                self.err(key, f"must be a list of text, but holds {_show(x)}")
                return None
            if choices and x not in choices:
                self.err(key, f"holds {_show(x)}, which is not one of "
                              f"{', '.join(choices)}{_suggest(x, choices)}")
                return None
            out.append(x)
        if len(set(out)) != len(out):
            self.err(key, "lists the same value twice")
            return None
        return tuple(out)

    def range_(self, key, default=dataclasses.MISSING, minimum=0):
        """A whole number (exact) or ``[min, max]``."""
        self.seen.add(key)
        if key not in self.t:
            if default is dataclasses.MISSING:
                self.err(key, "is missing")
                return None
            return default
        return _as_range(self, key, self.t[key], minimum)

    def finish(self, what):
        extra = [k for k in self.t if k not in self.seen]
        for k in extra:
            self.err(k, f"is not a field of {what}{_suggest(k, self.seen)}")


def _where(files):
    """One file, or the folder that holds several."""
    return files[0] if len(files) == 1 else os.path.commonpath([str(f) for f in files])


def _prefix(errors, start, prefix):
    """Errors found in a sub-table name their field from the item's top, e.g. rules.draw."""
    for i in range(start, len(errors)):
        e = errors[i]
        field = prefix + e.field if e.field else prefix.rstrip(".")
        errors[i] = DataFileError(e.path, e.item, field, e.problem)


def _as_range(f, field, v, minimum=0):
    if _is(v, int):
        lo = hi = v
    elif (isinstance(v, list) and len(v) == 2 and all(_is(x, int) for x in v)):
        lo, hi = v
    else:
        f.err(field, f"must be a whole number or [min, max], not {_show(v)}")
        return None
    if lo < minimum or hi < lo:
        f.err(field, f"must be a range from {minimum} up with min <= max, not {_show(v)}")
        return None
    return lo, hi


class _Loader:
    def __init__(self, files):
        self.files = files
        self.errors = []

    def run(self, label) -> CardDB:
        docs = []
        for path in self.files:
            try:
                with open(path, "rb") as fh:
                    docs.append((path, tomllib.load(fh)))
            except FileNotFoundError:
                self.errors.append(DataFileError(path, problem="does not exist"))
            except tomllib.TOMLDecodeError as e:
                self.errors.append(DataFileError(path, problem=f"is not valid TOML ({e})"))
        for path, doc in docs:
            for key in doc:
                if key not in TOP_LEVEL:
                    known = ", ".join(f"[{k}]" if k in ("meta", "editions") else f"[[{k}]]"
                                      for k in TOP_LEVEL)
                    self.errors.append(DataFileError(
                        path, None, key, f"is not a table this database knows; use {known}"
                        f"{_suggest(key, TOP_LEVEL)}"))
        self._meta(docs)
        self._editions(docs)
        # ids known before items are read, so references can be checked in one pass
        self.partner_ids = self._raw_ids(docs, "partner")
        self.leader_ids = self._raw_ids(docs, "leader")
        items, where = {}, {}
        for path, doc in docs:
            for table in ("leader", "partner", "event", "card"):
                rows = doc.get(table, [])
                if not isinstance(rows, list):
                    self.errors.append(DataFileError(path, None, table,
                                                     f"must be written [[{table}]]"))
                    continue
                for n, row in enumerate(rows, 1):
                    label_ = f"{table} #{n}"
                    if not isinstance(row, dict):
                        self.errors.append(DataFileError(path, label_, None,
                                                         "must be a table"))
                        continue
                    rid = row.get("id")
                    item = rid if isinstance(rid, str) and rid else label_
                    obj = getattr(self, f"_{table}")(_Fields(self.errors, path, item, row))
                    if obj is None:
                        continue
                    if obj.id in items:
                        prev_path, prev_n = where[obj.id]
                        self.errors.append(DataFileError(
                            path, obj.id, "id", f"is used twice: also by {prev_n} in "
                            f"{prev_path}; every card, Event, Trade Partner and Leader needs "
                            f"its own id"))
                        continue
                    items[obj.id] = obj
                    where[obj.id] = (path, label_)
        for obj in items.values():
            if isinstance(obj, Card) and isinstance(items.get(obj.leader), Leader):
                leader = items[obj.leader]
                outside = [e for e in obj.editions if not leader.in_edition(e)]
                if outside:
                    self.errors.append(DataFileError(
                        obj.source, obj.id, "editions", f"include {', '.join(outside)}, but "
                        f"its Leader {leader.name} is not in "
                        f"{'it' if len(outside) == 1 else 'them'}"))
        if self.errors:
            raise CardDataError(self.errors)
        return CardDB(self.version, self.editions, self.tags or (), items, label)

    @staticmethod
    def _raw_ids(docs, table):
        ids = set()
        for _, doc in docs:
            rows = doc.get(table, [])
            if isinstance(rows, list):
                ids.update(r["id"] for r in rows if isinstance(r, dict)
                           and isinstance(r.get("id"), str))
        return ids

    # -- meta and editions -----------------------------------------------------------------
    def _meta(self, docs):
        # tags stay None (unchecked) until [meta] gives them: one missing [meta] is one error
        self.version, self.tags, self.meta_path = "?", None, None
        metas = [(p, d["meta"]) for p, d in docs if "meta" in d]
        if not metas:
            self.errors.append(DataFileError(
                _where(self.files), "meta", None, "is missing: one file needs a [meta] table with game, version "
                              "and tags"))
            return
        for p, _ in metas[1:]:
            self.errors.append(DataFileError(p, "meta", None, f"is defined twice (also in "
                                                              f"{metas[0][0]})"))
        path, meta = metas[0]
        self.meta_path = path
        if not isinstance(meta, dict):
            self.errors.append(DataFileError(path, "meta", None, "must be a table"))
            return
        f = _Fields(self.errors, path, "meta", meta)
        game = f.get("game", str)
        if game is not None and game != GAME_NAME:
            f.err("game", f"is {_show(game)}, but this is the {GAME_NAME} card database")
        self.version = f.get("version", str, nonempty=True) or "?"
        tags = f.strings("tags")
        if tags is not None:
            bad = [t for t in tags if not _ID.match(t)]
            if bad:
                f.err("tags", f"holds {_show(bad[0])}; tags are lowercase words")
            self.tags = tags
        f.finish("[meta]")

    def _editions(self, docs):
        self.editions = {}
        self.edition_names = []     # every edition named, even one whose table has a mistake
        found = [(p, d["editions"]) for p, d in docs if "editions" in d]
        if not found:
            self.errors.append(DataFileError(self.meta_path or _where(self.files), "editions",
                                             None, "are missing: one file needs "
                                                   "[editions.<name>] tables"))
            return
        for path, table in found:
            if not isinstance(table, dict):
                self.errors.append(DataFileError(path, "editions", None, "must be a table"))
                continue
            for name, t in table.items():
                item = f"edition {name}"
                if name in self.edition_names:
                    self.errors.append(DataFileError(path, item, None, "is defined twice"))
                    continue
                if not _ID.match(name):
                    self.errors.append(DataFileError(path, item, None,
                                                     "needs a lowercase name"))
                    continue
                self.edition_names.append(name)
                if not isinstance(t, dict):
                    self.errors.append(DataFileError(path, item, None, "must be a table"))
                    continue
                ed = self._edition(path, name, t)
                if ed is not None:
                    self.editions[name] = ed

    def _edition(self, path, name, t):
        f = _Fields(self.errors, path, f"edition {name}", t)
        title = f.get("title", str, nonempty=True)
        players = f.range_("players", minimum=1)
        partners = f.range_("partners", minimum=1)
        rules = self._rules(f, f.get("rules", dict))
        personal = self._personal(f, f.get("personal", dict))
        decks_t = f.get("decks", dict)
        decks = []
        for dname, dt in (decks_t or {}).items():
            field = f"decks.{dname}"
            if dname not in (*PLAYABLE_KINDS, "event"):
                f.err(field, f"is not a deck kind; decks are named after the kind they hold: "
                             f"export, policy, tactic, event{_suggest(dname, PLAYABLE_KINDS)}")
                continue
            if not isinstance(dt, dict):
                f.err(field, "must be a table")
                continue
            decks.append(self._deck(path, name, dname, dt))
        if "event" not in (decks_t or {"event": 1}):
            f.err("decks", "needs an event deck ([editions.<name>.decks.event])")
        f.finish("an edition")
        if f.ok and None not in decks:
            return Edition(name, title, players, partners, rules, personal, tuple(decks),
                           str(path))
        return None

    def _rules(self, f, t):
        if t is None:
            return None
        before = len(self.errors)
        r = _Fields(self.errors, f.path, f.item, t)
        out = EditionRules(
            fast_pass=r.get("fast_pass", bool),
            influence_accumulates=r.get("influence_accumulates", bool),
            signature_to_global=r.get("signature_to_global", bool),
            draw=r.get("draw", str, choices=("up_to_hand_size", "leader_draw")),
            export_cost=r.get("export_cost", str, choices=("after_disputes", "on_placement")),
            hand_limit=r.get("hand_limit", int, minimum=0))
        r.finish("rules")
        _prefix(self.errors, before, "rules.")
        if not r.ok:
            f.ok = False
            return None
        return out

    def _personal(self, f, t):
        if t is None:
            return None
        before = len(self.errors)
        p = _Fields(self.errors, f.path, f.item, t)
        title = p.get("title", str, nonempty=True)
        size = p.range_("size", minimum=1)
        kinds_t = p.get("kinds", dict)
        kinds = []
        if kinds_t is not None:
            for k in kinds_t:
                if k not in PLAYABLE_KINDS:
                    p.err("kinds", f"names {_show(k)}, which is not export, policy or tactic")
            for k in PLAYABLE_KINDS:
                rng = _as_range(p, "kinds", kinds_t[k]) if k in kinds_t else (0, 0)
                if rng is not None:
                    kinds.append((k, *rng))
        signature = p.strings("signature", (), choices=PLAYABLE_KINDS)
        p.finish("personal")
        _prefix(self.errors, before, "personal.")
        if not p.ok:
            f.ok = False
            return None
        return PersonalDeckSpec(title, size, tuple(kinds), signature)

    def _deck(self, path, ed, name, t):
        d = _Fields(self.errors, path, f"edition {ed}", t)
        before = len(self.errors)
        title = d.get("title", str, nonempty=True)
        size = d.get("size", int, minimum=1)
        rarity = self._rarity(d, "rarity")
        distinct = self._rarity(d, "distinct")
        copies = self._rarity(d, "copies", minimum=1) or (1, 1, 1)
        if rarity is not None and size is not None and sum(rarity) != size:
            d.err("rarity", f"adds up to {sum(rarity)}, but the deck's size is {size}")
        if name == "event" and (rarity or distinct):
            d.err("rarity", "Events have no rarity")
        d.finish("a deck")
        _prefix(self.errors, before, f"decks.{name}.")
        if not d.ok:
            return None
        return DeckSpec(name, title, size, rarity, distinct, copies)

    @staticmethod
    def _rarity(d, key, minimum=0):
        t = d.get(key, dict, None)
        if t is None:
            return None
        out = []
        for k in t:
            if k not in RARITIES:
                d.err(key, f"names {_show(k)}; rarities are {', '.join(RARITIES)}"
                           f"{_suggest(k, RARITIES)}")
                return None
        for r in RARITIES:
            v = t.get(r)
            if not _is(v, int) or v < minimum:
                d.err(key, f"needs {r} = a whole number of {minimum} or more")
                return None
            out.append(v)
        return tuple(out)

    # -- items -----------------------------------------------------------------------------
    def _common(self, f):
        """id, name, text, flavour, version, editions: shared by every item."""
        iid = f.get("id", str)
        if iid is not None and not _ID.match(iid):
            f.err("id", f"{_show(iid)} must be lowercase letters, digits and single hyphens, "
                        f"e.g. \"freedom-corn\"")
        name = f.get("name", str, nonempty=True)
        text = f.get("text", str)
        flavour = f.get("flavour", str, "")
        version = f.get("version", int, minimum=1)
        names = tuple(self.edition_names)
        editions = f.strings("editions", names, choices=names)
        if editions == () and "editions" in f.t:
            f.err("editions", "is empty; leave it out for every edition")
        return iid, name, text, flavour, version, editions

    def _copies(self, f, editions, default):
        """``copies``: a number for every edition or ``{edition = n}``; else ``default(ed)``."""
        f.seen.add("copies")
        raw = f.t.get("copies")
        given = {}
        if raw is None:
            pass
        elif _is(raw, int):
            if raw < 1:
                f.err("copies", f"must be 1 or more, not {raw}; to leave a card out of an "
                                f"edition, use 'editions'")
                return None
            given = {e: raw for e in editions or ()}
        elif isinstance(raw, dict):
            for e, n in raw.items():
                if e not in (editions or ()):
                    f.err("copies", f"names edition {_show(e)}, which the card is not in "
                                    f"(editions: {', '.join(editions or ())})")
                    return None
                if not _is(n, int) or n < 1:
                    f.err("copies", f"must give each edition a whole number of 1 or more, "
                                    f"not {e} = {_show(n)}")
                    return None
                given[e] = n
        else:
            f.err("copies", f"must be a whole number or a table like {{ tariff = 3 }}, "
                            f"not {_show(raw)}")
            return None
        if editions is None:
            return None
        out = []
        for e in editions:
            n = given.get(e)
            if n is None:
                n = default(e)
            if n is None:
                return None
            out.append((e, n))
        return tuple(out)

    def _effects(self, f, owner, text, editions):
        """Parse ``effects``; ``owner`` is the item kind (events and partners have no owner)."""
        raw = f.get("effects", list, [])
        if raw is None:
            return None
        out = []
        for n, t in enumerate(raw, 1):
            field = f"effects[{n}]"
            if not isinstance(t, dict):
                f.err(field, f"must be a table like {{ kind = \"gain_gdp\", amount = 2 }}, "
                             f"not {_show(t)}")
                continue
            eff = parse_effect(t, owner=owner, tags=self.tags, partners=self.partner_ids,
                               editions=[self.editions[e] for e in editions or ()
                                         if e in self.editions],
                               errors=self.errors, path=f.path, item=f.item, field=field)
            if eff is None:
                f.ok = False
            else:
                out.append(eff)
        if text is not None:
            if text.strip() and not raw:
                f.err("effects", "are missing, but the rules text says something: write it "
                                 "as effects, or as { kind = \"manual\", text = \"...\" } so "
                                 "the table is prompted")
            if raw and not text.strip():
                f.err("text", "is empty, but the card has effects: write the rules text "
                              "players read")
        return tuple(out)

    def _cmyk(self, f, default=dataclasses.MISSING):
        v = f.get("cmyk", str, default)
        if v is not None and v not in CMYK:
            f.err("cmyk", f"must be one letter of C (Canary, global), M (Mint, personal), "
                          f"Y (Yeti, opponent-targeting) or K (Kraken, trading-partner), "
                          f"not {_show(v)}")
            return None
        return v

    def _card(self, f):
        iid, name, text, flavour, version, editions = self._common(f)
        kind = f.get("kind", str, choices=PLAYABLE_KINDS)
        deck = f.get("deck", str, choices=("global", "leader"))
        leader = f.get("leader", str, None)
        signature = f.get("signature", bool, False)
        rarity = f.get("rarity", str, None)
        cmyk = self._cmyk(f)
        cost = f.get("cost", int, None if kind == "export" else 0, minimum=0)
        if kind == "export" and "cost" not in f.t:
            f.err("cost", "is missing: every Export has a GDP cost")
        value = f.get("value", int, None, minimum=0)
        influence = f.get("influence", int, None, minimum=0)
        if kind == "export":
            for key, v in (("value", value), ("influence", influence)):
                if v is None and key not in f.t:
                    what = "an export value" if key == "value" else "a printed influence"
                    f.err(key, f"is missing: every Export has {what}")
        elif kind is not None:
            for key in ("value", "influence"):
                if key in f.t:
                    f.err(key, f"is only for Exports; this is a {KIND_TITLES[kind]}")
        tags = f.strings("tags", ())
        for tag in tags or ():
            if self.tags is not None and tag not in self.tags:
                f.err("tags", f"holds {_show(tag)}, which is not in [meta] tags "
                              f"({', '.join(self.tags)}){_suggest(tag, self.tags)}")
        if deck == "leader":
            if leader is None and "leader" not in f.t:
                f.err("leader", "is missing: a card in a Leader's deck names its Leader")
            elif leader is not None and leader not in self.leader_ids:
                f.err("leader", f"names {_show(leader)}, but no [[leader]] has that id"
                                f"{_suggest(leader, self.leader_ids)}")
            if rarity is not None and rarity != LEADER_RARITY:
                f.err("rarity", f"must be left out (or \"leader\") on a Leader's own card; "
                                f"the {'/'.join(RARITIES)} curve is for the global decks")
            rarity = LEADER_RARITY
        elif deck == "global":
            if leader is not None:
                f.err("leader", "is only for cards with deck = \"leader\"")
            if signature:
                f.err("signature", "is only for a Leader's own cards (deck = \"leader\")")
            if rarity is None and "rarity" not in f.t:
                f.err("rarity", f"is missing: a global card is {', '.join(RARITIES)}")
            elif rarity is not None and rarity not in RARITIES:
                f.err("rarity", f"must be one of {', '.join(RARITIES)}, not {_show(rarity)}"
                                f"{_suggest(rarity, RARITIES)}")
                rarity = None
            if kind is not None and editions:
                for e in editions:
                    ed = self.editions.get(e)
                    if ed is not None and ed.deck_spec(kind) is None:
                        f.err("editions", f"include {e}, but {ed.title} has no global "
                                          f"{KIND_TITLES[kind]} deck")
        if deck == "global" and rarity in RARITIES and kind is not None:
            def default(e):
                spec = self.editions[e].deck_spec(kind) if e in self.editions else None
                return spec.copies[RARITIES.index(rarity)] if spec else 1
        else:
            def default(e):
                return 1
        copies = self._copies(f, editions, default)
        effects = self._effects(f, kind or "card", text, editions)
        f.finish("a card ([[card]])")
        if not f.ok:
            return None
        return Card(id=iid, name=name, kind=kind, deck=deck, rarity=rarity, cmyk=cmyk,
                    text=text, version=version, editions=editions, copies=copies, cost=cost,
                    value=value, influence=influence, leader=leader, signature=signature,
                    tags=tags, effects=effects, flavour=flavour, source=str(f.path))

    def _event(self, f):
        iid, name, text, flavour, version, editions = self._common(f)
        cmyk = self._cmyk(f)
        copies = self._copies(f, editions, lambda e: 1)
        effects = self._effects(f, "event", text, editions)
        f.finish("an Event ([[event]])")
        if not f.ok:
            return None
        return EventCard(id=iid, name=name, cmyk=cmyk, text=text, version=version,
                         editions=editions, copies=copies, effects=effects, flavour=flavour,
                         source=str(f.path))

    def _partner(self, f):
        iid, name, text, flavour, version, editions = self._common(f)
        slots = f.get("slots", int, minimum=3, maximum=5)
        bonus = f.get("bonus", int, minimum=0)
        effects = self._effects(f, "partner", text, editions)
        f.finish("a Trade Partner ([[partner]])")
        if not f.ok:
            return None
        return Partner(id=iid, name=name, slots=slots, bonus=bonus, text=text,
                       version=version, editions=editions, effects=effects, flavour=flavour,
                       source=str(f.path))

    def _leader(self, f):
        iid, name, text, flavour, version, editions = self._common(f)
        hand_size = f.get("hand_size", int, minimum=1, maximum=12)
        draw = f.get("draw", int, minimum=1, maximum=12)
        slots = f.get("export_slots", int, minimum=3, maximum=5)
        ability = f.get("ability", str, nonempty=True)
        cmyk = self._cmyk(f, None)
        prototype = f.get("prototype", bool, False)
        effects = self._effects(f, "leader", text, editions)
        f.finish("a Leader ([[leader]])")
        if not f.ok:
            return None
        return Leader(id=iid, name=name, hand_size=hand_size, draw=draw, export_slots=slots,
                      ability=ability, text=text, version=version, editions=editions,
                      effects=effects, cmyk=cmyk, prototype=prototype, flavour=flavour,
                      source=str(f.path))


def parse_effect(table: dict, *, owner: str = "tactic", tags: Iterable[str] | None = None,
                 partners: Iterable[str] | None = None, editions: Iterable[Edition] = (),
                 errors: list | None = None, path="<effect>", item=None,
                 field="effect") -> Effect | None:
    """Parse one effect table (as written in TOML) for an item of kind ``owner``.

    ``tags``/``partners`` are the known tag and Trade Partner ids (None: not checked);
    ``editions`` are the editions the card is in (kinds that need a rule, such as influence
    or Fast-Pass, are refused where it is off). Mistakes are appended to ``errors``; without an
    ``errors`` list the first one is raised as :class:`DataFileError`.

    >>> parse_effect({"kind": "gain_gdp", "amount": 2}).describe()
    'gain_gdp amount=2 (immediate, self)'
    """
    raising = errors is None
    errs = [] if raising else errors
    start = len(errs)
    ownerless = owner in ("event", "partner")

    def err(key, problem):
        errs.append(DataFileError(path, item, f"{field}.{key}" if key else field, problem))

    kind_name = table.get("kind")
    if "kind" not in table:
        err("kind", f"is missing; kinds: {', '.join(EFFECT_KINDS)}")
    elif not isinstance(kind_name, str) or kind_name not in EFFECT_KINDS:
        err("kind", f"{_show(kind_name)} is not an effect kind{_suggest(kind_name, EFFECT_KINDS)}; "
                    f"kinds: {', '.join(EFFECT_KINDS)}. Write kind = \"manual\" with text for "
                    f"what they cannot say")
    if len(errs) > start:
        return _done(errs, start, raising)
    kind = EFFECT_KINDS[kind_name]
    owner_word = KIND_TITLES.get(owner, owner)

    if ownerless and kind.needs_owner:
        err("kind", f"{kind.name} needs someone to receive what is taken, but "
                    f"{'an' if owner == 'event' else 'a'} {owner_word} has no owner")
        return _done(errs, start, raising)

    when = table.get("when", kind.whens[0])
    if not isinstance(when, str) or when not in kind.whens:
        err("when", f"must be one of {', '.join(kind.whens)} for {kind.name}, not {_show(when)}"
                    f"{_suggest(when, kind.whens)}")
    elif when == "activated" and owner != "leader":
        article = "an" if owner[0] in "aeiou" else "a"
        err("when", f"activated is for Leaders' abilities only, not on {article} {owner_word}")

    allowed = tuple(t for t in kind.targets if not ownerless or t in OWNERLESS_TARGETS)
    target = table.get("target", allowed[0] if ownerless and allowed else kind.targets[0])
    if not isinstance(target, str) or target not in allowed:
        why = (f" ({'an' if owner == 'event' else 'a'} {owner_word} has no owner)"
               if ownerless and target in kind.targets else "")
        err("target", f"must be one of {', '.join(allowed)} for {kind.name}{why}, not "
                      f"{_show(target)}{_suggest(target, allowed)}")

    condition = table.get("condition")
    if condition is not None:
        if ownerless:
            err("condition", f"needs an owner; {'an' if owner == 'event' else 'a'} "
                             f"{owner_word} has none")
        elif not isinstance(condition, str) or condition not in CONDITIONS:
            err("condition", f"must be one of {', '.join(CONDITIONS)}, not {_show(condition)}"
                             f"{_suggest(condition, CONDITIONS)}")
    optional = table.get("optional", False)
    if not isinstance(optional, bool):
        err("optional", f"must be true or false, not {_show(optional)}")

    values = {}
    for key, v in table.items():
        if key in COMMON_KEYS:
            continue
        p = kind.param(key)
        if p is None:
            names = ", ".join(q.name for q in kind.params) or "none"
            err(key, f"is not a parameter of {kind.name} (its parameters: {names})"
                     f"{_suggest(key, [q.name for q in kind.params] + list(COMMON_KEYS))}")
            continue
        if not _is(v, p.type):
            err(key, f"must be {_TYPE_WORDS[p.type]}, not {_show(v)}")
            continue
        if p.choices and v not in p.choices:
            err(key, f"must be one of {', '.join(p.choices)}, not {_show(v)}"
                     f"{_suggest(v, p.choices)}")
            continue
        if p.minimum is not None and v < p.minimum:
            err(key, f"must be {p.minimum} or more, not {v}")
            continue
        if p.nonzero and v == 0:
            err(key, "must not be 0")
            continue
        if p.type is str and not v.strip():
            err(key, "is empty")
            continue
        if p.ref == "tag" and tags is not None and v not in tags:
            err(key, f"{_show(v)} is not a tag in [meta] tags{_suggest(v, tags)}")
            continue
        if p.ref == "partner":
            if v == "this":
                if owner != "partner":
                    err(key, "\"this\" is only for a Trade Partner's own effects")
                    continue
            elif v == "chosen":
                if ownerless:
                    err(key, f"\"chosen\" needs an owner to choose; "
                             f"{'an' if owner == 'event' else 'a'} {owner_word} has none: "
                             f"name a partner id or leave it out")
                    continue
            elif partners is not None and v not in partners:
                err(key, f"{_show(v)} is not a Trade Partner id (nor \"chosen\" or \"this\")"
                         f"{_suggest(v, partners)}")
                continue
        values[key] = v
    for key in kind.required:
        if key not in table:
            err(key, f"is missing: {kind.name} needs {', '.join(kind.required)}")
    if kind.name == "manual":
        _check_compute(values, when, target, editions, err)
    if kind.needs:
        for ed in editions:
            if not getattr(ed.rules, kind.needs):
                word = {"influence_accumulates": "accumulated influence",
                        "fast_pass": "Fast-Pass tokens"}[kind.needs]
                err("kind", f"{kind.name} needs {word}, which {ed.title} does not have; "
                            f"keep this card out of {ed.name} (editions) or say it another way")
    if len(errs) > start:
        return _done(errs, start, raising)
    if kind.name == "draw":
        values.setdefault("deck", "any")
    return Effect(kind=kind.name, when=when, target=target, condition=condition,
                  optional=optional, **values)


def _check_compute(values, when, target, editions, err):
    """A manual effect's ``compute`` and the parameters only a computation reads."""
    name = values.get("compute")
    extra = [k for k in ("amount", "count", "seconds", "max_gap") if k in values]
    if name is None:
        if extra:
            err(extra[0], "is read only by a computation: add compute = \"...\" "
                          f"({', '.join(COMPUTES)}) or leave it out")
        return
    c = COMPUTES[name]
    if when not in c.whens:
        err("when", f"must be one of {', '.join(c.whens)} for compute {name}, not {when}")
    if target not in c.targets:
        err("target", f"must be one of {', '.join(c.targets)} for compute {name}, not {target}")
    for k in extra:
        if k not in c.params:
            err(k, f"is not read by compute {name} (it reads: "
                   f"{', '.join(c.params) or 'nothing'})")
    for k in c.required:
        if k not in values:
            err(k, f"is missing: compute {name} needs {', '.join(c.required)}")
    if c.needs:
        for ed in editions:
            if not getattr(ed.rules, c.needs):
                err("compute", f"{name} needs accumulated influence, which {ed.title} does "
                               f"not have; keep this card out of {ed.name} (editions)")


def _done(errs, start, raising):
    if raising and len(errs) > start:
        raise errs[start]
    return None
