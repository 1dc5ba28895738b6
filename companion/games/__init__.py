"""The rulesets. Each sub-package of ``companion.games`` is one game and exposes:

* ``GAME``: a :class:`companion.core.game.Game` instance;
* optionally ``card_catalog()``: ``{"version": str, "cards": {card_id: name}}`` for the card
  reader (card codes name the game, the card id, the copy and this version).

Discovery is by package, so adding a game never edits a shared list.
"""
import importlib
import pkgutil

from companion.core.errors import ConfigError

_cache = None


def registry() -> dict:
    """``{name: Game}`` for every installed game, sorted by name."""
    global _cache
    if _cache is None:
        found = {}
        for info in pkgutil.iter_modules(__path__):
            if not info.ispkg:
                continue
            mod = importlib.import_module(f"{__name__}.{info.name}")
            game = getattr(mod, "GAME", None)
            if game is not None:
                found[game.name] = game
        _cache = dict(sorted(found.items()))
    return _cache


def get(name: str):
    games = registry()
    try:
        return games[name]
    except KeyError:
        raise ConfigError(f"No game called {name!r}. Games: {', '.join(games)}.") from None


def card_catalog(name: str) -> dict | None:
    """The card catalog of one game, or None if it has no physical cards to scan."""
    get(name)
    for info in pkgutil.iter_modules(__path__):
        mod = importlib.import_module(f"{__name__}.{info.name}")
        if getattr(mod, "GAME", None) is not None and mod.GAME.name == name:
            fn = getattr(mod, "card_catalog", None)
            return fn() if fn else None
    return None
