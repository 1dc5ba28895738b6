"""`companion cards`: a game's card database, printed cards and NFC tags.

``companion cards list trade-warz [--edition trade|tariff] [--check FILE_OR_DIR]`` prints each
edition's decks with their counts per rarity and per kind, checks the rarity split and the
Leader decks against what the edition needs, and lists the Leaders and Trade Partners. It exits
non-zero when the data is wrong. ``--check`` validates a designer's edited copy instead of the
shipped data: a directory stands for the whole data set; a single file replaces the shipped file
of the same name (a new name is added to them). With ``--check`` every problem is listed.

``companion cards print GAME [--edition E] [--data DIR] [--out FILE.pdf] [--paper a4|letter]
[--bleed MM] [--duplex long|short] [--deck KEY ...] [--stickers LAYOUT]`` writes a print-ready
PDF of every physical card (docs/printing.md); ``companion cards write-tags GAME ...`` writes
each card's code to a blank NFC tag through the card reader, card by card.
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

    from companion.printing.layouts import LABEL_SHEETS, PAPERS     # no reportlab yet
    pp = actions.add_parser(
        "print", help="a print-ready PDF of every card, each copy with its own QR code",
        description="Write a PDF of every physical card of a game: poker size (63 x 88 mm), "
                    "nine to a page with cut marks, each sheet of faces followed by its backs "
                    "for double-sided printing. Or, with --stickers, QR labels only.")
    _walk_args(pp)
    pp.add_argument("--out", metavar="FILE.pdf",
                    help="where to write (default: GAME[-EDITION]-cards.pdf, or "
                         "GAME[-EDITION]-stickers-LAYOUT.pdf, in the current directory)")
    pp.add_argument("--paper", choices=sorted(PAPERS), default=None,
                    help="a4 (default) or letter; a label sheet has its own paper")
    pp.add_argument("--bleed", type=float, default=0.0, metavar="MM",
                    help="extra colour around each card, cut away (default 0; at most 1.8 on "
                         "A4, 0.9 on Letter)")
    pp.add_argument("--duplex", choices=("long", "short"), default="long",
                    help="how your printer turns the sheet for the back: long edge (default) "
                         "or short edge")
    pp.add_argument("--stickers", metavar="LAYOUT", choices=sorted(LABEL_SHEETS),
                    help="QR labels only, on a label sheet: " + "; ".join(
                        f"{k} = {v.title} ({v.products})" for k, v in LABEL_SHEETS.items()))
    pp.set_defaults(func=run_print)

    wp = actions.add_parser(
        "write-tags", help="write each card's code to a blank NFC tag through the card reader",
        description="Walk the deck card by card: tap a blank NFC tag for each card; its code "
                    "is written, read back and checked. Stops and goes on where it stopped; "
                    "refuses a tag that holds another card's code unless --overwrite.")
    _walk_args(wp)
    wp.add_argument("--reader", metavar="URL",
                    help="reader port or URL (a pty from `companion reader-sim`, "
                         "socket://HOST:PORT, /dev/ttyACM0); default: the hardware config's, "
                         "else the first Pico on USB")
    wp.add_argument("--overwrite", action="store_true",
                    help="rewrite tags that already hold another card's code (or other data)")
    wp.add_argument("--progress", metavar="FILE",
                    help="where the walk keeps what was written (default: next to the "
                         "session store, one file per game, edition and deck version)")
    wp.add_argument("--restart", action="store_true",
                    help="forget the progress so far and start the walk from the first card")
    wp.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                    help="stop when no tag comes for this long (default: wait)")
    wp.set_defaults(func=run_write_tags)


def _walk_args(p):
    p.add_argument("game", help="the game: battle-builder, great-powers, market-trading, "
                                "trade-warz")
    p.add_argument("--edition", help="trade-warz: trade (default) or tariff")
    p.add_argument("--data", metavar="DIR",
                   help="an edited copy of the game's whole data folder instead of the "
                        "shipped data (its cards carry its own db-version)")
    p.add_argument("--deck", action="append", metavar="KEY",
                   help="only this deck (repeatable; the copies keep their numbers): "
                        "e.g. export, leader:usa, actions, monsters")


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
        return mod.DATA_DIR, str(mod.DATA_DIR)
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


# -- print / write-tags ---------------------------------------------------------------------------

def _selected(ps, decks):
    if not decks:
        return ps.faces(), [d.title for d in ps.decks]
    chosen = [ps.deck(k) for k in decks]
    return [f for d in chosen for f in d.faces], [d.title for d in chosen]


def run_print(args):
    import dataclasses
    import os
    import tempfile

    from companion.printing import (LABEL_SHEETS, PAPERS, PrintError, print_set,
                                    render_cards, render_stickers)
    ps = print_set(args.game, args.edition, args.data)
    if args.deck:
        ps = dataclasses.replace(ps, decks=tuple(ps.deck(k) for k in args.deck),
                                 tokens=() if "tokens" not in args.deck else ps.tokens)
    stem = args.game + (f"-{ps.edition}" if ps.edition else "")
    if args.stickers:
        sheet = LABEL_SHEETS[args.stickers]
        if args.paper and args.paper != sheet.paper:
            raise PrintError(f"The {args.stickers} label sheet is {PAPERS[sheet.paper][0]}, "
                             f"not {PAPERS[args.paper][0]}; leave out --paper.")
        out = args.out or f"{stem}-stickers-{args.stickers}.pdf"
    else:
        out = args.out or f"{stem}-cards.pdf"
    folder = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(folder):
        raise PrintError(f"--out {out}: the folder {folder} does not exist.")
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".cards-", suffix=".pdf")
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)              # an ordinary file, not mkstemp's 0600
    try:
        if args.stickers:
            report = render_stickers(ps, tmp, args.stickers)
        else:
            report = render_cards(ps, tmp, args.paper or "a4", args.bleed, args.duplex)
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    _print_summary(ps, report, out, args)
    return 0


def _print_summary(ps, report, out, args):
    from companion.printing import LABEL_SHEETS, PAPERS, QR_BOX, qr
    n_decks = len(ps.decks)
    print(f"Wrote {out}: {report.faces} cards of {ps.title} in {n_decks} "
          f"deck{'s' if n_decks != 1 else ''}, {report.pages} pages.")
    print(f"  Every card's code carries db-version {ps.version} (the data in {ps.source}).")
    if args.stickers:
        sheet = LABEL_SHEETS[args.stickers]
        print(f"  Labels: {sheet.title}, for {sheet.products}; print at 100 % (actual size).")
        print(f"  QR: version {report.qr_version}, error correction {qr.ECC_NAME}, "
              f"{report.module_mm:.2f} mm modules.")
        return
    paper = PAPERS[args.paper or "a4"][0]
    fronts = len(report.front_pages)
    print(f"  {paper}, nine poker cards (63 x 88 mm) a sheet, bleed {args.bleed:g} mm: "
          f"{fronts} sheets of faces, each followed by its backs.")
    print(f"  Print double-sided, flip on the {args.duplex} edge, at 100 % (actual size); "
          f"cut along the marks.")
    print(f"  QR: version {report.qr_version}, error correction {qr.ECC_NAME}, "
          f"{report.module_mm:.2f} mm modules in a {QR_BOX:g} mm square.")
    for title, sheets in report.sheets:
        print(f"    {title}: {sheets} sheet{'s' if sheets != 1 else ''}")
    for note in ps.notes:
        print(f"  Note: {note}")
    if report.dropped_flavour:
        print(f"  Flavour text left off for lack of room: "
              f"{', '.join(dict.fromkeys(report.dropped_flavour))}.")


def run_write_tags(args):
    import queue

    from companion.printing import print_set
    from companion.printing.tags import (Progress, TagWalkStopped, TagWriter,
                                         default_progress_path)
    from hardware.reader import CardReader

    ps = print_set(args.game, args.edition, args.data)
    faces, titles = _selected(ps, args.deck)
    path = args.progress or default_progress_path(ps.game, ps.edition, ps.version)
    if args.restart and Path(path).exists():
        Path(path).unlink()
    progress = Progress(path, ps.game, ps.edition, ps.version)
    url, vid_pid = _reader_settings(args.reader)
    if url and "://" not in url and not Path(url).exists():
        raise TagWalkStopped(f"No card reader at {url}: there is no such port. Is it plugged "
                             f"in? (`companion doctor` lists what answers.)")
    events = queue.Queue()
    reader = CardReader(url, events.put, vid_pid=vid_pid)
    with reader:
        print(f"Waiting for the card reader at {url or 'USB %04X:%04X' % vid_pid} ...",
              flush=True)
        hello = _wait_hello(events, 15.0)
        if hello is None:
            raise TagWalkStopped(f"No card reader answered at {url or 'USB'} within 15 s. Is "
                                 f"it plugged in, and is the table (companion run) stopped? "
                                 f"`companion doctor` checks it.")
        if "ndef-write" not in hello.capabilities:
            raise TagWalkStopped(f"The card reader at {hello.port} (firmware {hello.firmware}) "
                                 f"cannot write tags (no ndef-write).")
        print(f"Card reader at {hello.port}, firmware {hello.firmware}. "
              f"Decks: {', '.join(titles)}.", flush=True)
        writer = TagWriter(ps, faces, reader, events, progress,
                           say=lambda text: print(text, flush=True),
                           overwrite=args.overwrite, timeout=args.timeout)
        try:
            writer.run()
        except KeyboardInterrupt:
            print(f"Stopped. {writer.summary()}", flush=True)
            return 130
    return 0


def _reader_settings(url):
    from hardware.config import default_path, load_config
    from hardware.reader import PICO_MICROPYTHON
    if url:
        return url, PICO_MICROPYTHON
    cfg = load_config(default_path()).reader
    return (cfg.port or None), tuple(cfg.vid_pid)


def _wait_hello(events, timeout):
    import queue
    import time

    from hardware.events import ReaderConnected
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            e = events.get(timeout=max(0.01, end - time.monotonic()))
        except queue.Empty:
            break
        if isinstance(e, ReaderConnected):
            return e
    return None
