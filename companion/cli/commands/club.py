"""`companion club`: the club side of many tables, in one step (docs/club.md).

    companion club --name "Thursday club"                   # PostgreSQL, mosquitto, the page
    companion club --record postgresql://user:pw@db.example/club   # an existing PostgreSQL

It prints the club page's address and the join address (with its QR) that each table types on
its Menu > Club, or holds to its card reader; the public page never shows the join address.
A table that asks to join waits until the organiser lets it in: here (type ``allow NAME``,
``refuse NAME``, ``remove NAME`` or ``tables``) or on the organiser's page (its address and
password are printed). Ctrl-C (or a service manager's stop) stops the page, the broker and the
PostgreSQL it started; the folder keeps everything for next time.
"""
import json
import os
import signal
import sys
import threading

from companion.core.errors import ConfigError


def default_folder() -> str:
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local",
                                                           "share")
    return os.path.join(base, "table-companion", "club")


def register(sub):
    p = sub.add_parser("club", help="the club side: one record (PostgreSQL) and one live page "
                                    "for many tables (docs/club.md)")
    p.add_argument("--name", default=None, help="the club's name, shown on its page and on "
                                                "each table that joins (kept for next time)")
    p.add_argument("--folder", default=None, help="where the club keeps its database, logins "
                   "and join code (default ~/.local/share/table-companion/club)")
    p.add_argument("--record", default=None, metavar="postgresql://...",
                   help="use this existing PostgreSQL database instead of starting one")
    p.add_argument("--bind", default="0.0.0.0", help="address to listen on (default: all)")
    p.add_argument("--host", default=None, help="the address tables use to reach the club "
                   "(default: this machine's LAN address)")
    for flag, what, default in (("--port", "the club page", 8100),
                                ("--mqtt-port", "MQTT for the tables' bridges", 1884),
                                ("--ws-port", "MQTT over WebSockets for the page", 9002),
                                ("--pg-port", "the PostgreSQL it starts", 5433)):
        p.add_argument(flag, type=int, default=None,
                       help=f"{what} (default {default}; a port given is kept for next time)")
    p.add_argument("--json", action="store_true", help="print one line of JSON (page, join "
                   "address, ports) instead of the QR")
    p.set_defaults(func=run_club)


def _console(club, out=sys.stdout):
    """The organiser's commands, typed where `companion club` runs (until stdin ends)."""
    for line in sys.stdin:
        word, _, name = line.strip().partition(" ")
        name = name.strip()
        server = club.server
        if server is None:
            break
        if word in ("allow", "refuse", "remove") and name:
            done = getattr(server, word)(name)
            print(f"{word}: {name}" if done else f"No table {name!r} to {word}.", file=out,
                  flush=True)
        elif word in ("tables", "list"):
            state = server.organiser_state()
            asking = ", ".join(r["table"] for r in state["asking"]) or "none"
            print(f"In the club: {', '.join(state['tables']) or 'none'}; asking: {asking}",
                  file=out, flush=True)
        elif word:
            print("Type allow NAME, refuse NAME, remove NAME or tables.", file=out, flush=True)


def run_club(args):
    from companion.club.run import Club
    if args.record and not args.record.startswith(("postgresql://", "postgres://")):
        raise ConfigError(f"--record takes a postgresql:// address, not {args.record!r}.")

    def asking(r):
        if args.json:
            print(json.dumps({"v": 1, "asking": r.public()}), flush=True)
        else:
            print(f"Table {r.name} asks to join (from {r.address}): type `allow {r.name}` or "
                  f"`refuse {r.name}`, or use the organiser's page.", flush=True)

    club = Club(args.folder or default_folder(), name=args.name, record=args.record,
                bind=args.bind, host=args.host, page_port=args.port, mqtt_port=args.mqtt_port,
                ws_port=args.ws_port, pg_port=args.pg_port, on_request=asking)
    stop = threading.Event()

    def on_term(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, on_term)
    with club.start():
        if args.json:
            print(json.dumps(club.describe()), flush=True)
        else:
            club.server.announce()
            print(f"Club page: {club.page_url}", flush=True)
            print(f"Reports over the club: companion report GAME --db '{club.admin_url}'",
                  flush=True)
            print("Tables wait until you let them in: type allow NAME, refuse NAME, "
                  "remove NAME or tables here. Ctrl-C stops the club (the tables play on and "
                  "send what they kept when it is back).", flush=True)
        threading.Thread(target=_console, args=(club,), daemon=True,
                         name="tc-club-console").start()
        try:
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
    return 0
