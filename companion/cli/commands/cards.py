"""`companion cards`: a game's card database.

``companion cards list trade-warz [--edition trade|tariff] [--check FILE_OR_DIR]`` prints each
edition's decks with their counts per rarity and per kind, checks the rarity split and the
Leader decks against what the edition needs, and lists the Leaders and Trade Partners. It exits
non-zero when the data is wrong. ``--check`` validates a designer's edited copy instead of the
shipped data: a directory stands for the whole data set; a single file replaces the shipped file
of the same name (a new name is added to them). With ``--check`` every problem is listed.
"""
import importlib
import sys
from pathlib import Path

from companion.core.errors import ConfigError

CARD_GAMES = {"trade-warz": "companion.games.trade_warz.cards"}


def register(sub):
    p = sub.add_parser("cards", help="card databases: deck composition, rarity split, checks")
    p.set_defaults(func=lambda args: _usage(p))
    actions = p.add_subparsers(dest="cards_action", metavar="ACTION")
    lp = actions.add_parser(
        "list", help="each edition's decks, rarity split, Leaders and Trade Partners",
        description="Show and check a game's card database, edition by edition.")
    lp.add_argument("game", help=f"the game: {', '.join(CARD_GAMES)}")
    lp.add_argument("--edition", help="only this edition (trade-warz: trade or tariff)")
    lp.add_argument("--check", metavar="FILE_OR_DIR",
                    help="validate an edited copy: a directory replaces the shipped data, "
                         "a file replaces the shipped file of the same name")
    lp.set_defaults(func=run_list)


def _usage(parser):
    parser.print_help()
    return 2


def _module(game):
    name = CARD_GAMES.get(game)
    if name is None:
        raise ConfigError(f"No card database for {game!r}. Games with cards: "
                          f"{', '.join(CARD_GAMES)}.")
    return importlib.import_module(name)


def _source(mod, check):
    """What to load: the shipped data, a designer's directory, or the shipped files with one
    replaced by the designer's copy of the same name."""
    if check is None:
        return None, str(mod.DATA_DIR)
    path = Path(check)
    if path.is_dir() or not path.exists() or path.suffix != ".toml":
        return path, str(path)
    shipped = [f for f in sorted(mod.DATA_DIR.glob("*.toml")) if f.name != path.name]
    return shipped + [path], f"{path} (with the other shipped files)"


def run_list(args):
    mod = _module(args.game)
    source, label = _source(mod, args.check)
    try:
        db = mod.load(source, strict=False)
    except mod.CardDataError as e:
        if args.check is None:
            raise
        _print_errors(e.errors, label)
        return 1
    editions = [db.edition(args.edition).name] if args.edition else list(db.editions)
    _print_db(mod, db, editions)
    problems = [p for ed in editions for p in db.problems(ed)]
    if problems:
        if args.check is None:
            raise mod.CardDataError(problems)
        _print_errors(problems, label)
        return 1
    if args.check is not None:
        print(f"\nOK: {label} validates ({', '.join(editions)}).")
    return 0


def _print_errors(errors, label):
    for err in errors:
        print(f"companion: {err}", file=sys.stderr)
    n = len(errors)
    print(f"companion: {label}: {n} problem{'s' if n != 1 else ''} to fix.", file=sys.stderr)


def _pct(t):
    total = sum(t)
    return "/".join(str(round(100 * x / total)) for x in t) if total else "-"


def _print_db(mod, db, editions):
    items = list(db)
    n_cards = sum(1 for i in items if isinstance(i, mod.Card))
    print(f"Trade Warz card database {db.version}: {n_cards} cards, {len(db.events())} Events, "
          f"{len(db.partners())} Trade Partners, {len(db.leaders())} Leaders")
    print(f"  from {db.source}")
    for name in editions:
        _print_edition(mod, db, db.edition(name))


def _print_edition(mod, db, ed):
    r = ed.rules
    print(f"\n== {ed.title} (edition {ed.name}) ==")
    print("Rules: " + "; ".join([
        "draw up to the Leader's hand size" if r.draw == "up_to_hand_size"
        else "draw the Leader tile's number, split among the piles",
        "Export cost paid after disputes" if r.export_cost == "after_disputes"
        else "Export cost paid on placement",
        "influence accumulates" if r.influence_accumulates else "printed influence only",
        "Fast-Pass tokens" if r.fast_pass else "no Fast-Pass",
        f"discard to {r.hand_limit} at Cleanup" if r.hand_limit else "no Cleanup discard",
    ]))
    reports = db.composition(ed.name)
    print(f"\n{'Global decks':24} {'cards':>5} {'common':>7} {'uncommon':>9} {'rare':>5}  "
          f"{'kinds':18} rarity split")
    for rep in reports:
        if rep.deck.startswith("leader:"):
            continue
        kinds = ", ".join(f"{n} {mod.KIND_TITLES[k]}" for k, n in rep.kinds)
        if rep.rarity is None:
            cols = f"{'-':>7} {'-':>9} {'-':>5}"
            verdict = "(no rarity)"
        else:
            cols = f"{rep.rarity[0]:>7} {rep.rarity[1]:>9} {rep.rarity[2]:>5}"
            need = rep.expected_rarity
            ok = not any(p.startswith("rarity") for p in rep.problems)
            verdict = (f"OK {'/'.join(map(str, need))} ({_pct(need)} %)" if ok else
                       f"MISMATCH: {'/'.join(map(str, rep.rarity))}, needs "
                       f"{'/'.join(map(str, need))} ({_pct(need)} %)")
            if rep.distinct is not None and rep.expected_distinct is not None:
                verdict += (f"; {'/'.join(map(str, rep.distinct))} different cards"
                            + ("" if rep.distinct == rep.expected_distinct else
                               f" (needs {'/'.join(map(str, rep.expected_distinct))})"))
        size = f"{rep.size:>5}" + ("" if rep.size == rep.expected_size[0]
                                   else f" (needs {rep.expected_size[0]})")
        print(f"  {rep.title:22} {size} {cols}  {kinds:18} {verdict}")
    if r.signature_to_global:
        print("  + each seated Leader's signature Export and Tactic, shuffled into those decks")

    spec = ed.personal
    need = ", ".join(f"{_rng(lo, hi)} {mod.KIND_TITLES[k]}" for k, lo, hi in spec.kinds if hi)
    sig = (f"; the {' and '.join(mod.KIND_TITLES[k] for k in spec.signature)} must be "
           f"signature cards" if spec.signature else "")
    print(f"\n{spec.title}s (each needs {_rng(*spec.size)}: {need}{sig})")
    for rep in reports:
        if not rep.deck.startswith("leader:"):
            continue
        leader = db[rep.deck.split(":", 1)[1]]
        kinds = ", ".join(f"{n} {mod.KIND_TITLES[k]}" for k, n in rep.kinds)
        verdict = "OK" if rep.ok else "MISMATCH: " + "; ".join(rep.problems)
        print(f"  {leader.name:22} {rep.size:>5}  {kinds:32} {verdict}")

    print(f"\nLeaders ({len(db.leaders(ed.name))})")
    for leader in db.leaders(ed.name):
        proto = " [PROTOTYPE]" if leader.prototype else ""
        number = (f"hand {leader.hand_size}" if r.draw == "up_to_hand_size"
                  else f"draw {leader.draw}")
        sigs = ", ".join(c.name for c in db.signature_cards(leader.id) if c.in_edition(ed.name))
        print(f"  {leader.name + proto:30} {number:8} {leader.export_slots} Export slots  "
              f"{leader.ability}: {leader.text}")
        if sigs:
            print(f"  {'':30} signature: {sigs}")

    print(f"\nTrade Partners ({len(db.partners(ed.name))})")
    for p in db.partners(ed.name):
        print(f"  {p.name:36} {p.slots} slots  bonus +{p.bonus}  {p.text}".rstrip())

    manual = db.manual_effects(ed.name)
    print(f"\nManual prompts: {len(manual)} effect{'s' if len(manual) != 1 else ''} the table "
          f"resolves by hand" + (": " + ", ".join(dict.fromkeys(i.name for i, _ in manual))
                                 if manual else ""))


def _rng(lo, hi):
    return str(lo) if lo == hi else f"{lo}-{hi}"
