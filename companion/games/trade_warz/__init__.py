"""Trade Warz and Tariff Warz: one game, two editions (see DESIGN.md).

The card database: :mod:`companion.games.trade_warz.cards` and ``data/*.toml``
(docs/trade-warz-cards.md). The rules engine: :mod:`.game` (phases, moves, prompts),
:mod:`.effects` and :mod:`.modifiers` (effects), one module per phase, :mod:`.views`, :mod:`.bots`, :mod:`.report` (balance figures);
the numbers of play are in ``rules.toml``; rulings in docs/trade-warz.md.
"""
import os

from .cards import DATA_DIR, load
from .game import TradeWarz

__all__ = ["DATA_DIR", "GAME", "card_catalog", "from_data"]

GAME = TradeWarz()


def from_data(directory):
    """Trade Warz built from an edited copy of ``data/`` (every card, Event, Trade Partner,
    Leader and edition file), checked by the loader ``companion cards list --check`` uses. The
    numbers of play (``rules.toml`` beside ``data/``) stay the shipped ones."""
    path = os.path.abspath(os.fspath(directory))
    return TradeWarz(db=load(path), data_dir=path)


def card_catalog(game=None):
    """Every physical item of both editions (cards, Events, Trade Partners, Leader tiles) for
    the card reader: ``{"version": ..., "cards": {id: name}}``."""
    from .cards import default_db
    return (game.db if game is not None else default_db()).catalog()
