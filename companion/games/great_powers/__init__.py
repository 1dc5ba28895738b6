"""Great Powers (rules: shared/rules/great-powers.md; rulings: docs/great-powers.md)."""
import os

from .data import DATA as DATA_DIR, load_rules
from .game import GreatPowers

__all__ = ["DATA_DIR", "GAME", "card_catalog", "from_data"]

GAME = GreatPowers()


def from_data(directory):
    """Great Powers built from an edited copy of ``data/`` (actions, events and rules.toml),
    checked by the same loader as the shipped files."""
    path = os.path.abspath(os.fspath(directory))
    return GreatPowers(load_rules(path), data_dir=path)


def card_catalog(game=None):
    rules = (game or GAME).rules
    cards = {cid: a.name for cid, a in rules.actions.items()}
    cards.update({eid: e.name for eid, e in rules.events.items()})
    return {"version": rules.version, "cards": cards}
