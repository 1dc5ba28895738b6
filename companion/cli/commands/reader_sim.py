"""``companion reader-sim``: a card reader for people without one.

Opens a pseudo-terminal (default) or a TCP port that speaks the reader protocol, running the
reader's real firmware logic on simulated parts (:mod:`hardware.sim`). Point the table at the
printed port (``--reader /dev/pts/N`` or ``socket://127.0.0.1:PORT``), then type a card's name
or code and it is "scanned". ``help`` lists what else can be typed.
"""
import sys


def register(subparsers):
    p = subparsers.add_parser(
        "reader-sim", help="simulate the card reader on a pty or TCP port",
        description=__doc__.split("\n\n")[1])
    p.add_argument("--game", help="game whose card list to use (card names become codes)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--link", metavar="PATH",
                       help="also make PATH a symlink to the pty (a stable name across replugs)")
    where.add_argument("--tcp", metavar="PORT", type=int,
                       help="serve socket://127.0.0.1:PORT instead of a pty (0 = any free port)")
    p.set_defaults(func=run)


def _catalog(game):
    """The game's card catalog, or None (with a note) when it has none yet."""
    if not game:
        return None, "no --game given: type tc1:... codes, 'qr <text>' or 'tag'."
    from companion import games
    from companion.core.errors import CompanionError
    try:
        games.get(game)
    except CompanionError:
        raise
    try:
        catalog = games.card_catalog(game)
    except CompanionError as e:
        return None, f"{game} has no card list yet ({e}); type tc1:... codes instead."
    if not catalog:
        return None, f"{game} has no card list yet; type tc1:... codes instead."
    return catalog, f"{game}: {len(catalog.get('cards', {}))} cards (version {catalog.get('version')})."


def run(args) -> int:
    from hardware.sim import ReaderSim

    catalog, note = _catalog(args.game)

    def say(text):
        print(text, flush=True)

    transport = "tcp" if args.tcp is not None else "pty"
    sim = ReaderSim(transport=transport, link=args.link, port=args.tcp or 0, game=args.game,
                    catalog=catalog, say=say)
    with sim:
        say(f"reader-sim: listening on {sim.url}")
        say(f"reader-sim: {note}")
        say("reader-sim: type a card name or code, 'help' for more, 'quit' to stop.")
        for line in sys.stdin:
            if line.strip().lower() in ("quit", "exit"):
                break
            try:
                out = sim.handle_line(line)
            except Exception as e:   # a typed line must never kill the simulator
                out = f"could not do that: {e}"
            if out:
                say(out)
    return 0
