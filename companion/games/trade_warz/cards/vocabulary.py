"""The effect vocabulary of the Trade Warz card database (docs/trade-warz-cards.md): when an
effect resolves, whom it targets, its conditions, and every kind of effect with its parameters;
what the companion computes for a manual effect whose inputs it tracks; the CMYK upkeep
categories. Data about the words, no loading."""
from __future__ import annotations

import dataclasses


PLAYABLE_KINDS = ("export", "policy", "tactic")
KIND_TITLES = {"export": "Export", "policy": "Policy", "tactic": "Tactic", "event": "Event",
               "partner": "Trade Partner", "leader": "Leader"}
RARITIES = ("common", "uncommon", "rare")
LEADER_RARITY = "leader"          # a Leader's own card: outside the rarity curve


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

