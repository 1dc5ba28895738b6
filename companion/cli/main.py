"""Entry point of the `companion` console script.

Every error the companion raises on purpose (:class:`CompanionError`) becomes one clear line on
stderr and a non-zero exit; never a traceback.
"""
import argparse
import importlib
import pkgutil
import sys

from companion import __version__
from companion.core.errors import CompanionError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Table Companion: runs a board game's clock, sealed bids, scans and score.")
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from companion.cli import commands
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        mod = importlib.import_module(f"companion.cli.commands.{info.name}")
        register = getattr(mod, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        code = args.func(args)
    except CompanionError as e:
        print(f"companion: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("companion: stopped.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
