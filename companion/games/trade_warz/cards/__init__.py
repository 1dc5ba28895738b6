"""The Trade Warz / Tariff Warz card database, in four parts: :mod:`.vocabulary` (the effect
words), :mod:`.model` (cards, Leaders, editions as values), :mod:`.parser` (one effect table into
an :class:`Effect`), :mod:`.loader` (the TOML files, checked) and :mod:`.database`
(:class:`CardDB`, decks, deck reports). This package re-exports what the rest of the companion
uses.

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
from .database import CardDataError, CardDB
from .loader import DATA_DIR, GAME_NAME, TOP_LEVEL, card_catalog, default_db, load
from .model import (Card, DeckReport, DeckSpec, Edition, EditionRules, Effect, EventCard, Leader,
                    Partner, PersonalDeckSpec)
from .parser import parse_effect
from .vocabulary import (CMYK, KIND_TITLES, LEADER_RARITY, PLAYABLE_KINDS, RARITIES, COMMON_KEYS, COMPUTES, CONDITIONS, DRAW_DECKS, EFFECT_KINDS,
                         IN_PLAY, OWNERLESS_TARGETS, PARTNER_WORDS, PROTECTS, TARGETS,
                         UPKEEP_ORDER, WHENS, Computation, EffectKind, Param, UpkeepCategory)

__all__ = ["CardDataError", "CardDB", "card_catalog", "default_db", "load", "DATA_DIR",
           "GAME_NAME", "KIND_TITLES", "LEADER_RARITY", "PLAYABLE_KINDS", "RARITIES",
           "TOP_LEVEL", "Card", "DeckReport", "DeckSpec", "Edition", "EditionRules", "Effect",
           "EventCard", "Leader", "Partner", "PersonalDeckSpec", "parse_effect", "CMYK",
           "COMMON_KEYS", "COMPUTES", "CONDITIONS", "DRAW_DECKS", "EFFECT_KINDS", "IN_PLAY",
           "OWNERLESS_TARGETS", "PARTNER_WORDS", "PROTECTS", "TARGETS", "UPKEEP_ORDER", "WHENS",
           "Computation", "EffectKind", "Param", "UpkeepCategory"]
