"""Great Powers (rules: shared/rules/great-powers.md; rulings: docs/great-powers.md)."""
from .game import GreatPowers

GAME = GreatPowers()


def card_catalog():
    rules = GAME.rules
    cards = {cid: a.name for cid, a in rules.actions.items()}
    cards.update({eid: e.name for eid, e in rules.events.items()})
    return {"version": rules.version, "cards": cards}
