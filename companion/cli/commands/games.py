"""`companion games`: list the rulesets."""
from companion.games import registry


def register(sub):
    p = sub.add_parser("games", help="list the games this companion can run")
    p.set_defaults(func=run)


def run(args):
    for name, game in registry().items():
        opts = ", ".join(o.name for o in game.options) or "none"
        print(f"{name:16} {game.title} ({game.min_players}-{game.max_players} players); "
              f"options: {opts}; bots: {', '.join(game.bots)}")
