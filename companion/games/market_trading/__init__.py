"""Market Trading (rules: shared/rules/market-trading.md; rulings: docs/market-trading.md)."""
from .game import MarketTrading

GAME = MarketTrading()


def card_catalog():
    """The physical improvement cards, for the card reader."""
    r = GAME.rules
    return {"version": r.version, "cards": {k: i.name for k, i in r.improvements.items()}}
