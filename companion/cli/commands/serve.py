"""`companion serve --table NAME`: one table, headless (no screen): the session, the broker and
the phone page. Ctrl-C stops it cleanly; the same command again resumes the session from the
log (phones reclaim their seats by themselves).

    companion serve --table kitchen --game great-powers --players 4
    companion serve --table kitchen                       # resume after a restart
    companion serve --table kitchen --broker mosquitto --http-port 8080
    companion serve --table club --broker mqtt://10.0.0.5:1883 --ws-url ws://10.0.0.5:9001/mqtt \\
        --hub-password-file hub.pw --seat-logins seats.txt

With a terminal, Enter presses the table's Next button (games that wait for the table, e.g.
Trade Warz's "scan the Policies, then Next"), `p` Enter pauses or resumes the timers.
"""
import json
import os
import signal
import sys
import threading

from companion.cli.commands.play import _options, add_data_arg, use_table_data
from companion.cli.common import add_db_arg, default_db
from companion.core.errors import CompanionError, ConfigError


def register(sub):
    p = sub.add_parser("serve", help="run one table headless: session, MQTT broker and the "
                                     "phone page (join by QR code)")
    p.add_argument("--table", required=True, help="table id: a-z, 0-9 and '-' (the MQTT topic "
                   "base tc/v1/<table>); the same id resumes its session")
    p.add_argument("--broker", default="auto", help="auto (default: mosquitto if installed, "
                   "else embedded), embedded (in this process), "
                   "mosquitto (a child process) or mqtt://host:port (someone else's)")
    p.add_argument("--http-port", type=int, default=8000, help="the phone page (default 8000)")
    p.add_argument("--mqtt-port", type=int, default=1883, help="MQTT over TCP (default 1883)")
    p.add_argument("--ws-port", type=int, default=9001, help="MQTT over WebSockets for the "
                   "phones (default 9001)")
    p.add_argument("--bind", default="0.0.0.0", help="address to listen on (default: all)")
    p.add_argument("--host", default=None, help="the address phones use to reach this box "
                   "(default: its LAN address)")
    p.add_argument("--game", default=None, help="set up this game if there is none to resume")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--option", action="append", help="rule setting key=value (repeatable)")
    p.add_argument("--names", default=None, help="comma-separated seat names (phones rename "
                   "their seat when they join before the start)")
    p.add_argument("--start-now", action="store_true", help="start the game at once (phones "
                   "take the free seats) instead of when every seat has a phone")
    p.add_argument("--no-autostart", action="store_true", help="never start by itself (the "
                   "table screen starts the game)")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--ws-url", default=None, help="external broker: the phones' ws:// URL")
    p.add_argument("--hub-password-file", default=None, help="external broker: a file with "
                   "the password of its 'hub' login")
    p.add_argument("--seat-logins", default=None, help="external broker: a file of seat "
                   "logins, one 'username:password' a line, in seat order")
    p.add_argument("--club", default=None, metavar="http://CLUB:PORT/join/CODE",
                   help="join this club: the table's games go to its record and its page "
                        "(docs/club.md); a club joined before is kept")
    p.add_argument("--quiet", action="store_true", help="print only the join details")
    add_data_arg(p, "play")
    add_db_arg(p)
    p.set_defaults(func=run_serve)


def _read_secret(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError as e:
        raise ConfigError(f"Cannot read {what} from {path}: {e.strerror}.") from None


def _seat_logins(path):
    if not path:
        return None
    out = []
    for i, line in enumerate(_read_secret(path, "the seat logins").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if ":" not in line:
            raise ConfigError(f"{path} line {i}: write username:password.")
        user, pw = line.split(":", 1)
        out.append((user.strip(), pw.strip()))
    return out


def _names(text, players):
    if not text:
        return None
    names = [n.strip() for n in text.split(",")]
    if players is not None and len(names) != players:
        raise ConfigError(f"--names gives {len(names)} names for {players} players.")
    return names


class _Printer:
    """What the operator sees: joins, presence, phases; one line each."""

    def __init__(self, server, quiet):
        self.server, self.quiet = server, quiet
        self.lock = threading.Lock()
        self.said = {}                  # alert kind -> the last message printed for it

    def __call__(self, event):
        if self.quiet:
            return
        hub = self.server.hub
        kind = event.get("kind")
        line = None
        if kind == "presence":
            s = hub.seats[event["seat"]]
            line = f"{s.name} {'is connected' if event['online'] else 'is DISCONNECTED'}"
        elif kind == "lobby":
            taken = [s.name for s in hub.seats if s.token_hash is not None]
            line = f"Seats taken: {len(taken)} of {len(hub.seats)} ({', '.join(taken) or '-'})"
        elif kind == "alert" and event.get("message"):
            if self.said.get(event.get("alert")) != event["message"]:   # once per kind of
                self.said[event.get("alert")] = event["message"]        # failure, not per move
                line = f"! {event['message']}"
        elif kind == "changed":
            for n in event.get("notices") or ():
                if n.get("kind") == "PhaseBegan":
                    line = f"Phase: {n.get('phase')} (round {n.get('round')})"
                elif n.get("kind") == "ChoicesRevealed":
                    line = f"Revealed: {n.get('window')}"
            s = hub.session
            if s is not None and s.state.outcome is not None:
                o = s.state.outcome
                line = f"Game over: {', '.join(s.state.players[w] for w in o.winners)} won."
            tp = s.state.prompts.get(None) if s is not None else None
            if tp:
                line = (line + "\n" if line else "") + \
                    f"The table must confirm: {tp.get('text') or tp['moves'][0]} (press Enter)"
        if line:
            with self.lock:
                print(line, flush=True)


def _console(server, stop):
    """Enter = the table's Next button; p = pause/resume; q = stop."""
    for line in sys.stdin:
        cmd = line.strip().lower()
        hub = server.hub
        if cmd in ("q", "quit", "exit"):
            stop.set()
            return
        try:
            if cmd in ("", "n", "next"):
                hub.next()
            elif cmd in ("p", "pause"):
                hub.toggle_pause()
            elif cmd in ("u", "undo"):
                hub.undo()
            else:
                print("Enter = Next, p = pause/resume, u = undo, q = stop", flush=True)
        except CompanionError as e:
            print(f"  {e}", flush=True)


def run_serve(args):
    from companion.club.table import ClubTable
    from companion.net.web import qr_ascii

    def on_term(signum, frame):                     # a service manager's stop = Ctrl-C
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, on_term)
    hub_password = (_read_secret(args.hub_password_file, "the hub's password")
                    if args.hub_password_file else os.environ.get("TC_HUB_PASSWORD"))
    external = args.broker not in ("auto", "embedded", "mosquitto")
    if external and not args.ws_url:
        raise ConfigError("An external broker needs --ws-url ws://host:port/mqtt for the "
                          "phones.")
    start = "now" if args.start_now else "manual" if args.no_autostart else "full"
    data_note = use_table_data(args)
    if data_note and not args.quiet:
        print(data_note, flush=True)
    server = ClubTable(
        args.table, db=args.db or default_db(), game=args.game, players=args.players,
        options=_options(args.option), names=_names(args.names, args.players), start=start,
        seed=args.seed, broker=args.broker, bind=args.bind, http_port=args.http_port,
        mqtt_port=args.mqtt_port, ws_port=args.ws_port, public_host=args.host,
        ws_url=args.ws_url, hub_password=hub_password if external else None,
        seat_logins=_seat_logins(args.seat_logins), club=args.club)
    stop = threading.Event()
    try:
        server.start()
        hub = server.hub
        if hub.game_name is None:           # headless: nobody could choose a game later
            raise ConfigError(f"Table {hub.table} has no game to resume; give --game and "
                              f"--players to set one up.")
        url = server.join_url
        if not args.quiet:
            print(qr_ascii(url), flush=True)
        s = hub.session
        what = (f"{s.game.title}, resumed session {s.id}" if server.resumed is not None else
                f"{hub.games(hub.game_name).title}, {len(hub.seats)} seats" +
                (", started" if s is not None else ", waiting for phones"))
        print(f"Table {hub.table}: {what}", flush=True)
        print(f"Join: {url}", flush=True)
        print(f"Room code: {hub.room_code}   (phones must be on the same Wi-Fi as this box)",
              flush=True)
        b = server.broker
        print(f"MQTT: {b.url}  WebSockets: {b.ws_url_for(server.web.public_host)}  "
              f"({b.mode} broker)", flush=True)
        print(json.dumps({"ready": True, "http_port": server.web.port, "mqtt_port": b.tcp_port,
                          "ws_port": b.ws_port, "room": hub.room_code, "join_url": url}),
              flush=True)
        hub.subscribe(_Printer(server, args.quiet))
        if sys.stdin is not None and sys.stdin.isatty():
            print("Enter = the table's Next button, p = pause, q = stop, Ctrl-C = stop.",
                  flush=True)
            threading.Thread(target=_console, args=(server, stop), daemon=True).start()
        server.wait(stop)
    except (KeyboardInterrupt, SystemExit):         # Ctrl-C, or SIGTERM: stop cleanly
        pass
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)    # a second Ctrl-C must not cut the stop
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        was_started = server.hub is not None and server.hub.session is not None
        sid = server.hub.session.id if was_started else None
        server.stop()
    if sid:
        print(f"Stopped. Session {sid} is saved; run the same command to resume it.",
              flush=True)
    else:
        print("Stopped.", flush=True)
    return 0
