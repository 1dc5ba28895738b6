"""Market Trading (rules: shared/rules/market-trading.md; rulings: docs/market-trading.md)."""
import os

from .data import DATA as DATA_DIR, load_rules
from .game import MarketTrading

__all__ = ["DATA_DIR", "GAME", "card_catalog", "from_data"]

GAME = MarketTrading()


def from_data(directory):
    """Market Trading built from an edited copy of ``data/`` (improvements, resources and
    rules.toml), checked by the same loader as the shipped files."""
    path = os.path.abspath(os.fspath(directory))
    return MarketTrading(load_rules(path), data_dir=path)


def card_catalog(game=None):
    """The physical improvement cards, for the card reader."""
    r = (game or GAME).rules
    return {"version": r.version, "cards": {k: i.name for k, i in r.improvements.items()}}
