"""The items of the Trade Warz card database as values: an :class:`Effect`, a card, an Event, a
Trade Partner, a Leader, an edition (its rule switches and deck recipes) and the report on one
deck's composition. Frozen dataclasses, read by the rules engine and the screens."""
from __future__ import annotations

import dataclasses
from typing import ClassVar

from .vocabulary import CMYK, EFFECT_KINDS, KIND_TITLES, UpkeepCategory

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


class _Deckable(_Item):
    """A card of a deck: copies per edition and a C/M/Y/K Upkeep corner."""

    def copies_in(self, edition: str) -> int:
        return dict(self.copies).get(edition, 0)

    @property
    def upkeep(self) -> UpkeepCategory:
        return CMYK[self.cmyk]


@dataclasses.dataclass(frozen=True)
class Card(_Deckable):
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


@dataclasses.dataclass(frozen=True)
class EventCard(_Deckable):
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


