"""Trade Warz and Tariff Warz: one game, two editions (see DESIGN.md).

The card database: :mod:`companion.games.trade_warz.cards` and ``data/*.toml``
(docs/trade-warz-cards.md). The rules engine: :mod:`.game` (phases, moves, prompts),
:mod:`.effects` and :mod:`.modifiers` (effects), one module per phase, :mod:`.views`, :mod:`.bots`, :mod:`.report` (balance figures);
the numbers of play are in ``rules.toml``; rulings in docs/trade-warz.md.
"""
from .game import TradeWarz

GAME = TradeWarz()


def card_catalog():
    """Every physical item of both editions (cards, Events, Trade Partners, Leader tiles) for
    the card reader: ``{"version": ..., "cards": {id: name}}``."""
    from .cards import default_db
    return default_db().catalog()
