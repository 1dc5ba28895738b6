"""`companion run`: the whole table in one command.

Starts, in order: the session store and the hub (resuming this table's interrupted session if
there is one), the MQTT broker (mosquitto if installed, else the embedded one), the bridge and
the phone web server, the devices (real GPIO and card reader on a Raspberry Pi; elsewhere
gpiozero's mock pins and the reader simulator, said so on screen), and the Kivy table screen,
full screen. Closing the
window (or Ctrl-C, or SIGTERM) stops everything in reverse order; running it again resumes.

On the box (``COMPANION_APPLIANCE=1``, set by the systemd unit) the Menu also offers Shut down
and Restart: the table stops the same way and exits with ``power.POWEROFF`` (70) or
``power.REBOOT`` (71), which the unit turns into ``systemctl poweroff`` / ``reboot``; so does
``power.request`` from the GPIO shutdown button. Under systemd (``$NOTIFY_SOCKET``) it says
READY=1 when the table's first frame is drawn, its status as it changes, STOPPING=1 when it
stops, and pets the watchdog while the hub answers. Without ``--host`` the join address follows
the network (a box switched on before its Wi-Fi is up gets its address when it comes).

This module is the composition root: the only place that imports the network, the hardware and
the screen together.
"""
import logging
import os
import re
import signal
import sys

from companion.cli.commands.play import _options, add_data_arg, use_table_data
from companion.cli.common import add_db_arg, default_db
from companion.core.errors import ConfigError

SIMULATOR = "sim"           # hardware.hubglue.SIMULATOR (not imported: no hardware here)


def register(sub):
    p = sub.add_parser("run", help="run the table: hub, broker, phone page, devices and the "
                                   "touchscreen, in one command")
    p.add_argument("--table", default="table", help="table id (a-z, 0-9, '-'); the same id "
                   "resumes its interrupted session")
    p.add_argument("--game", default=None, help="preselect a game (else choose on the screen); "
                   "a game in progress at this table is resumed instead, unless --new")
    p.add_argument("--new", action="store_true", help="with --game: set it up even if a game "
                   "is in progress (that one stays resumable from the Home screen)")
    p.add_argument("--host", default=None, help="the address phones use to reach this box, "
                   "shown in the join QR (default: its LAN address; choose one on a box with "
                   "both Ethernet and Wi-Fi)")
    p.add_argument("--players", type=int, default=None)
    p.add_argument("--option", action="append", help="rule setting key=value (repeatable)")
    p.add_argument("--broker", default="auto", help="auto (default: mosquitto if installed, "
                   "else embedded), embedded (in this process, nothing to install), "
                   "mosquitto, or mqtt://host:port")
    p.add_argument("--http-port", type=int, default=8000, help="the phone page (default 8000)")
    p.add_argument("--mqtt-port", type=int, default=1883)
    p.add_argument("--ws-port", type=int, default=9001)
    p.add_argument("--hardware", choices=("auto", "real", "simulated", "none"), default="auto",
                   help="auto: real on a Raspberry Pi, simulated elsewhere")
    p.add_argument("--hardware-config", default=None, help="pins and parts (TOML)")
    p.add_argument("--reader", default=None, metavar="DEVICE",
                   help="the card reader: a serial port (/dev/ttyACM0), the pty or "
                   "socket://127.0.0.1:PORT of `companion reader-sim`, 'sim' for the reader "
                   "simulator (type a card's name on this terminal and press Enter to scan "
                   "it), or 'none'. Default: the hardware config's, else a reader found on "
                   "USB, else the simulator when the hardware is simulated")
    p.add_argument("--club", default=None, metavar="http://CLUB:PORT/join/CODE",
                   help="join this club (the Menu's Club does the same by touch; docs/club.md)")
    p.add_argument("--wifi", choices=("auto", "off", "simulated"), default="auto",
                   help="the box's own Wi-Fi and the venue's, on the Menu (docs/network.md). "
                   "auto: on the box (the systemd unit) when NetworkManager runs; off: leave "
                   "this machine's network alone (a laptop, always without the unit); "
                   "simulated: pretend networks, to try the Menu's Network dialog")
    p.add_argument("--windowed", action="store_true", help="a window instead of full screen")
    p.add_argument("--size", default=None, help="window size, e.g. 800x480 (with --windowed)")
    add_data_arg(p, "play")
    add_db_arg(p)
    p.set_defaults(func=run)


def _size(text):
    if not text:
        return None
    m = re.fullmatch(r"(\d{3,4})x(\d{3,4})", text.strip())
    if not m:
        raise ConfigError(f"--size wants WIDTHxHEIGHT such as 800x480, not {text!r}.")
    return int(m.group(1)), int(m.group(2))


def device_options(args, appliance=False) -> dict:
    """``start_devices`` keywords for ``--hardware`` and ``--reader``. Lines typed on this
    terminal (stdin) go to the reader simulator when it runs, except on the box (there stdin
    is the screen's console; the systemd unit runs it)."""
    reader = (args.reader or "").strip() or None
    if reader is not None and args.hardware == "none":
        raise ConfigError("--reader needs the devices: leave out --hardware none.")
    simulate = {"auto": None, "real": False, "simulated": True}[args.hardware]
    return {"simulate": simulate, "config_path": args.hardware_config,
            "reader": reader is None or reader.lower() != "none",
            "reader_url": None if reader is None or reader.lower() == "none" else
            (SIMULATOR if reader.lower() == SIMULATOR else reader),
            "console": not appliance}


#: What ``--reader sim`` and a simulated table say on the terminal.
TYPE_CARDS = ("companion: the reader simulator reads this terminal: type a card's name (or "
              "'help') and press Enter to scan it.")


def resume_note(server, wanted) -> str:
    """What the table does at start, in words (never silently ignore --game)."""
    s = server.resumed
    hub = server.hub
    if s is None:
        if hub.game_name:
            return f"set up {hub.games(hub.game_name).title} for {len(hub.seats)} players."
        return "choose a game on the screen."
    where = f"{s.game.title}, round {s.state.round}, session {s.id}"
    if wanted and wanted != s.game.name:
        title = hub.games(wanted).title
        return (f"resuming the game in progress ({where}); {title} was not set up. To play "
                f"{title}, tap Menu > Home on the screen (this game stays resumable), or start "
                f"again with --game {wanted} --new.")
    return f"resuming the game in progress ({where})."


APPLIANCE_ENV = "COMPANION_APPLIANCE"


def appliance_mode(env=None) -> bool:
    """Is this the box (the systemd unit sets ``COMPANION_APPLIANCE=1``)? Only there may a tap
    power the machine off."""
    value = (os.environ if env is None else env).get(APPLIANCE_ENV, "").strip().lower()
    return value not in ("", "0", "no", "false", "off")


def make_network(choice: str, db: str, appliance: bool):
    """The box's network (companion.net.wifi.Network) for ``--wifi``, or None: only the box
    (the systemd unit) with NetworkManager running manages Wi-Fi by itself; a laptop's own
    network is never touched."""
    if choice == "off":
        return None
    from companion.net.wifi import Network, SimulatedWifi
    from companion.net.wifi.nm import NetworkManager
    state = os.path.dirname(os.path.abspath(db)) if db and db != ":memory:" else None
    if choice == "simulated":
        import tempfile
        return Network(SimulatedWifi(), state or tempfile.mkdtemp(prefix="tc-wifi-"))
    if not appliance or state is None:
        return None
    if not NetworkManager.present():
        print("companion: NetworkManager is not running here: the box's own Wi-Fi and the "
              "Menu's Network are off (docs/network.md).", file=sys.stderr)
        return None
    return Network(NetworkManager(), state)


def _terminate(signum, frame):
    """SIGTERM: a running table screen is asked to stop on its own clock (run_app returns
    128 + signum, and the ``finally`` below stops the server); before it runs, or on a second
    SIGTERM, the exit is raised here."""
    app = sys.modules.get("ui.app")
    if app is not None and app.request_stop(signum):
        return
    raise SystemExit(128 + signum)


QUIET_LOGGERS = ("amqtt", "transitions", "websockets", "asyncio", "paho")
#: Mesa's software rasteriser (llvmpipe, used where there is no GPU driver) starts a drawing
#: thread per core, each with its own buffers and malloc arena: about 50 MB more for the
#: table (benches/bench_run.py) for no visible gain on an 800x480 screen that redraws on
#: change. 0 draws on the calling thread. A real GPU (a Pi's V3D) ignores it; set the variable
#: yourself to override.
SOFTWARE_GL_ENV = {"LP_NUM_THREADS": "0"}


def run(args):
    for key, value in SOFTWARE_GL_ENV.items():      # before SDL and GL are loaded
        os.environ.setdefault(key, value)
    size = _size(args.size)
    for name in QUIET_LOGGERS:              # their debug chatter is not for the table
        logging.getLogger(name).setLevel(logging.WARNING)
    from companion.club.table import ClubTable
    from companion.service import notify
    if args.new and not args.game:
        raise ConfigError("--new sets up the game named by --game; give --game too.")
    devices = device_options(args, appliance_mode()) \
        if args.hardware != "none" or args.reader else None
    data_note = use_table_data(args)
    if data_note:
        print(f"companion: {data_note}", file=sys.stderr)
    db = args.db or default_db()
    network = make_network(args.wifi, db, appliance_mode())
    extra = {}
    if network is not None:             # the join QR follows the box's own Wi-Fi too
        from companion.net.web import lan_ip
        network._lan_ip = lan_ip
        extra["address_source"] = network.address
    server = ClubTable(args.table, db=db, game=args.game,
                         players=args.players, options=_options(args.option), start="manual",
                         broker=args.broker, http_port=args.http_port,
                         mqtt_port=args.mqtt_port, ws_port=args.ws_port,
                         public_host=args.host, fresh=args.new,
                         phones="optional",    # a broker that cannot start: touch play only
                         club=args.club, **extra)
    signal.signal(signal.SIGTERM, _terminate)
    link = None
    try:
        server.start()
        if network is not None:
            network.on_change(lambda _n: server.check_address())
            network.start()
        print(f"companion: {resume_note(server, args.game)}", file=sys.stderr)
        note = None
        if devices is not None:
            from companion.core.errors import CompanionError
            from companion.service import power
            from hardware.hubglue import start_devices
            try:        # parts that fail are left out (said in the description), never fatal
                link, description = start_devices(server.hub, on_power=power.request,
                                                  **devices)
            except CompanionError as e:         # a bad hardware config file
                description = (f"No buzzer, light, buttons or card reader: {e} The table runs "
                               f"with touch and phones only.")
            if link is None or link.mock or not link.alive:
                note = description              # simulated, or no devices at all
            elif link.problems:                 # real parts missing: the screen says which
                note = " ".join(link.problems)  # (where the rest is wired: the log, doctor)
            print(f"companion: {description}", file=sys.stderr)
            if link is not None and link.simulator is not None and devices["console"]:
                print(TYPE_CARDS, file=sys.stderr)
        else:
            note = "No hardware: touch and phones only."
        if server.phones_error is not None:     # the screen shows it too (a banner)
            print(f"companion: table {args.table}. {server.phones_message}", file=sys.stderr)
        else:
            print(f"companion: table {args.table}; phones join at {server.join_url} "
                  f"(room {server.hub.room_code})", file=sys.stderr)
        server.on_address(lambda url: print(f"companion: the box's address changed; phones "
                                            f"join at {url}", file=sys.stderr))
        from ui.app import run_app
        return run_app(server.hub, fullscreen=not args.windowed, size=size,
                       simulated_hardware_note=note, appliance=appliance_mode(),
                       address_feed=server.on_address, network=network)
    finally:
        notify.stopping()
        if network is not None:
            network.stop()
        if link is not None:
            link.close()
        server.stop()
