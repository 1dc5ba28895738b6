"""Battle Builder (rules: shared/rules/battle-builder.md; rulings: docs/battle-builder.md)."""
import os

from .data import DATA as DATA_DIR, load_rules
from .game import BattleBuilder

__all__ = ["DATA_DIR", "GAME", "card_catalog", "from_data"]

GAME = BattleBuilder()


def from_data(directory):
    """Battle Builder built from an edited copy of ``data/`` (rules, monsters, cards and
    effects), checked by the same loader as the shipped files."""
    path = os.path.abspath(os.fspath(directory))
    return BattleBuilder(load_rules(path), data_dir=path)


def card_catalog(game=None):
    """The physical cards: attack and defence cards, monsters, environments, arenas and
    objectives, for the card reader."""
    r = (game or GAME).rules
    cards = {cid: c.name for cid, c in r.cards.items()}
    for table in (r.monsters, r.environments, r.arenas, r.objectives):
        cards.update({k: v.name for k, v in table.items()})
    return {"version": r.version, "cards": cards}
