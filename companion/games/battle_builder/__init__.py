"""Battle Builder (rules: shared/rules/battle-builder.md; rulings: docs/battle-builder.md)."""
from .game import BattleBuilder

GAME = BattleBuilder()


def card_catalog():
    """The physical cards: attack and defence cards, monsters, environments, arenas and
    objectives, for the card reader."""
    r = GAME.rules
    cards = {cid: c.name for cid, c in r.cards.items()}
    for table in (r.monsters, r.environments, r.arenas, r.objectives):
        cards.update({k: v.name for k, v in table.items()})
    return {"version": r.version, "cards": cards}
