"""``companion doctor``: what hardware is configured, what answers, and the reader's firmware.

Reads the hardware config (``--config``, else ``$TABLE_COMPANION_HARDWARE``, else
``/etc/table-companion/hardware.toml``, else the defaults), builds the GPIO parts (``--mock``
uses gpiozero's MockFactory: checks the config on any machine), and asks the card reader for its
hello. Exit code 0 when everything configured answered, 1 otherwise.
"""


def register(subparsers):
    p = subparsers.add_parser("doctor", help="check the buzzer, light, buttons and card reader",
                              description=__doc__.split("\n\n")[1])
    p.add_argument("--config", metavar="FILE", help="hardware config (TOML)")
    p.add_argument("--reader", metavar="URL",
                   help="reader port or URL (overrides the config; e.g. /dev/ttyACM0)")
    p.add_argument("--mock", action="store_true",
                   help="use gpiozero's mock pins instead of the real GPIO")
    p.add_argument("--timeout", type=float, default=2.0,
                   help="seconds to wait for the reader's hello (default 2)")
    p.set_defaults(func=run)


def run(args) -> int:
    from hardware import config as hwconfig
    from hardware.doctor import diagnose, mock_factory

    path = args.config or hwconfig.default_path()
    config = hwconfig.load_config(path)
    factory = mock_factory() if args.mock else None
    rows = diagnose(config, factory, args.reader, args.timeout)
    width = max(len(r.part) for r in rows)
    for r in rows:
        mark = {"ok": "ok  ", "off": "--  ", "missing": "MISS", "error": "FAIL"}[r.status]
        line = f"[{mark}] {r.part:<{width}}  {r.where}"
        if r.detail:
            line += f"  ({r.detail})"
        print(line)
    bad = [r for r in rows if not r.ok]
    print("all configured parts answer." if not bad else
          f"{len(bad)} part(s) need attention.")
    return 0 if not bad else 1
