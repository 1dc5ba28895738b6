"""The rulesets. Each sub-package of ``companion.games`` is one game and exposes:

* ``GAME``: a :class:`companion.core.game.Game` instance, built from the shipped data;
* ``from_data(directory)``: the same game built from a designer's edited copy of its data
  folder (the game's own loader checks every file; the game records the copy it plays with, see
  :mod:`companion.core.datadir`);
* optionally ``card_catalog(game=None)``: ``{"version": str, "cards": {card_id: name}}`` for the
  card reader (card codes name the game, the card id, the copy and this version).

Discovery is by package, so adding a game never edits a shared list.

``get(name, data=DIR)`` is the edited game (built once per folder and content); ``use_data(name,
DIR)`` makes a whole process play that copy (``companion run --data DIR``, ``serve --data``): the
hub, the card reader's catalog and every screen then see the same game.
"""
import importlib
import os
import pkgutil

from companion.core.errors import ConfigError

_cache = None
_packages = {}           # game name -> its package module
_edited = {}             # (name, folder, fingerprint) -> Game built from that copy
_override = {}           # name -> Game: this process plays that copy (use_data)


def registry() -> dict:
    """``{name: Game}`` for every installed game, sorted by name (the shipped data, or the copy
    :func:`use_data` chose for this process)."""
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
                _packages[game.name] = mod
        _cache = dict(sorted(found.items()))
    if _override:
        return {name: _override.get(name, g) for name, g in _cache.items()}
    return _cache


def shipped(name: str):
    """The game built from its shipped data, whatever this process plays."""
    registry()
    try:
        return _cache[name]
    except KeyError:
        raise ConfigError(f"No game called {name!r}. Games: {', '.join(_cache)}.") from None


def get(name: str, data=None):
    """The game ``name``: built from the edited copy in folder ``data`` if given, else from the
    copy :func:`use_data` chose for this process, else from the shipped data."""
    game = shipped(name)
    if data is not None:
        return edited(name, data)
    return _override.get(name, game)


def edited(name: str, directory):
    """The game built from a designer's copy of its data folder (cached per folder and content:
    a copy edited since gives a new game)."""
    from companion.core.datadir import fingerprint
    shipped(name)
    path = os.path.abspath(os.fspath(directory))
    if not os.path.isdir(path):
        raise ConfigError(f"--data {directory}: not a folder. Give a copy of the game's whole "
                          f"data folder (every .toml file, edited as you like).")
    key = (name, path, fingerprint(path))
    game = _edited.get(key)
    if game is None:
        build = getattr(_packages[name], "from_data", None)
        if build is None:
            raise ConfigError(f"{_cache[name].title} cannot play an edited copy of its data.")
        game = _edited[key] = build(path)
    return game


def use_data(name: str, directory):
    """From now on this process plays ``name`` with the edited copy in ``directory`` (built and
    checked at once, so a mistake in the files stops the start with its sentence)."""
    game = _override[name] = edited(name, directory)
    return game


def clear_data(name: str | None = None):
    """Back to the shipped data (for one game, or all)."""
    if name is None:
        _override.clear()
    else:
        _override.pop(name, None)


def shipped_data_dir(name: str):
    """The folder of a game's shipped data files."""
    shipped(name)
    return getattr(_packages[name], "DATA_DIR")


def detect(directory) -> str:
    """The game whose data folder ``directory`` is a copy of (by its files' names)."""
    names = {p.name for p in _toml(directory)}
    if not names:
        raise ConfigError(f"--data {directory}: no .toml data files in it. Copy the game's "
                          f"whole data folder (for example {shipped_data_dir('great-powers')}).")
    best, scores = None, []
    for name in registry():
        ship = {p.name for p in _toml(shipped_data_dir(name))}
        score = len(names & ship) / len(names | ship)
        scores.append((score, name))
    scores.sort(reverse=True)
    best = scores[0]
    if best[0] < 0.5 or (len(scores) > 1 and scores[1][0] == best[0]):
        raise ConfigError(f"--data {directory}: cannot tell which game these files are for; "
                          f"give --game too.")
    return best[1]


def _toml(directory):
    from pathlib import Path
    p = Path(directory)
    return sorted(x for x in p.glob("*.toml") if x.is_file()) if p.is_dir() else []


def card_catalog(name: str) -> dict | None:
    """The card catalog of one game (of the data this process plays), or None if it has no
    physical cards to scan."""
    game = get(name)
    fn = getattr(_packages[name], "card_catalog", None)
    if fn is None:
        return None
    return fn(game) if game is not shipped(name) else fn()
