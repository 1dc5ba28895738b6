"""`companion games`: list the rulesets, each edition by its own name, with their options, bots
and the data each plays (`--data DIR` plays an edited copy; docs/reports.md)."""
from companion.games import registry
from companion.lab.games import edition_titles


def register(sub):
    p = sub.add_parser("games", help="list the games this companion can run, and their "
                                     "editions")
    p.set_defaults(func=run)


def run(args):
    for name, game in registry().items():
        print(f"{name:16} {game.title} ({game.min_players}-{game.max_players} players)")
        eds = edition_titles(game)
        if eds:
            default = next(o.default for o in game.options if o.name == "edition")
            print(f"{'':16} editions: " + "; ".join(
                f"{title} (--option edition={ed}{', the default' if ed == default else ''})"
                for ed, title in eds))
        opts = ", ".join(o.name for o in game.options if o.name != "edition") or "none"
        print(f"{'':16} options: {opts}")
        print(f"{'':16} bots: {', '.join(game.bots)}")
        ref = getattr(game, "data_ref", None)
        if ref is not None:
            print(f"{'':16} data: {ref.label}")
