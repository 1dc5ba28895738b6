"""What the lab needs to know about each game beyond the rules: the word for its score, who
plays first, and the names of the things its notices mention.

Everything here reads the games' public views (never their internals); nothing changes the
state.
"""

UNITS = {"great-powers": "VP", "trade-warz": "GDP", "battle-builder": "VP",
         "market-trading": "points"}


def unit(game) -> str:
    return UNITS.get(game.name, "points")


def first_player(game, state):
    """The seat that plays first in round 1 (read once round 1 has begun), or None if the game
    has not said yet. Great Powers: the Baton; Trade Warz and Market Trading: the first-player
    marker; Battle Builder has no start player, so seat 1 stands in for it."""
    if state.data is None:
        return None
    view = game.public_view(state)
    if game.name == "great-powers":
        return view["baton"]
    if game.name == "trade-warz":
        if not all(x is not None for x in view["leaders"]):
            return None
        return view["first_player"]
    if game.name == "market-trading":
        return view["first"]
    return 0


def curve(state) -> list:
    """The score of every seat after each round, as the game keeps it (``vp_curve``)."""
    d = state.data
    rows = getattr(d, "vp_curve", None) or []
    return [list(r) for r in rows]


def edition_titles(game) -> list:
    """``[(name, title)]`` of a game's editions (Trade Warz: trade and tariff), or []."""
    opt = next((o for o in game.options if o.name == "edition"), None)
    if opt is None:
        return []
    db = getattr(game, "db", None)
    out = []
    for name in opt.choices or (opt.default,):
        title = name
        if db is not None:
            try:
                title = db.edition(name).title
            except Exception:              # an edition the data does not describe
                title = name
        out.append((name, title))
    return out


def edition_of(game, config) -> str | None:
    """The title of the edition a session was played in (None for one-edition games)."""
    name = (config or {}).get("edition")
    if name is None:
        return None
    return dict(edition_titles(game)).get(name, name)


def namer(game, state):
    """``name(id) -> str``: the printed name of a card, Leader, partner, monster, improvement or
    resource id of this game (the id itself when it is none of those)."""
    names = {}
    rules = getattr(game, "rules", None)
    if game.name == "trade-warz":
        try:
            ix = game.ix(state)
            return lambda i: ix.name_of(i) if isinstance(i, str) else str(i)
        except Exception:
            return str
    if game.name == "great-powers" and rules is not None:
        names.update({k: a.name for k, a in rules.actions.items()})
        names.update({k: e.name for k, e in rules.events.items()})
    elif game.name == "battle-builder" and rules is not None:
        for table in ("cards", "monsters", "environments", "arenas", "objectives"):
            names.update({k: v.name for k, v in getattr(rules, table, {}).items()})
    elif game.name == "market-trading" and rules is not None:
        names.update({k: v.name for k, v in rules.improvements.items()})
        names.update({k: v.name for k, v in rules.resources.items()})
    return lambda i: names.get(i, str(i)) if isinstance(i, str) else str(i)
