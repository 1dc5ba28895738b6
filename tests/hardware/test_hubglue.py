"""The hub and the device process together: a real Hub (MemoryLog, a session clock that is
*not* the monotonic clock), a real spawned device process on MockFactory pins, and for scans the
reader simulator on a pty. Timers are short test-only timers; every wait is bounded.
"""
import os
import queue
import signal
import time

import pytest

from companion.cardcodes import format_code
from companion.core.clock import SessionClock
from companion.core.game import Game, Move, Phase
from companion.core.log import MemoryLog
from companion.games import card_catalog, get
from companion.service.hub import Hub
from hardware.config import NEUTRAL, ButtonsConfig, HardwareConfig
from hardware.cues import PATTERNS
from hardware.events import PowerRequested, ReaderConnected
from hardware.hubglue import READER_ALERT, CardResolver, attach, start_devices
from hardware.sim import ReaderSim
from hardware.worker import DeviceLink, WorkerStarted, is_raspberry_pi

from ..core.toy import Toy
from ..waiting import wait_until
from .test_worker import BUZZER, LATE_BOUND, Events, buzzer_plan, check_edges

GP = "great-powers"
GP_VERSION = card_catalog(GP)["version"]


class QuickToy(Toy):
    """The core's toy game (a 60 s timer, warning at 0:30) with a test-sized timer."""
    name = "toy"

    def __init__(self, seconds, warn):
        super().__init__()
        self.seconds, self.warn = seconds, warn

    def _begin(self, state):
        super()._begin(state)
        state.start_timer("bid", self.seconds, warn_before=self.warn)


class Clockwork(Game):
    """A table-only game: Next starts a timer; the table can show an upkeep step or ask for a
    3-2-1 count. Its one phase has no configured colour."""
    name = "clockwork"
    title = "Clockwork"
    start_phase = "wait"

    def __init__(self, seconds=1.0, warn=0.5):
        self.seconds, self.warn = seconds, warn
        self.phases = {"wait": Phase("wait", "wait", on_begin=self._begin,
                                     end_if=lambda s: False, label="Wait")}
        self.moves = {m.name: m for m in (
            Move("start_clock", self._start, "ClockStarted", table=True),
            Move("upkeep", self._upkeep, "UpkeepShown", table=True),
            Move("count", self._count, "CountAsked", table=True))}

    def setup(self, state):
        state.data = {"upkeep": None}

    def _begin(self, state):
        state.prompt(None, ("start_clock", "upkeep", "count"))

    def _start(self, state, seat):
        state.start_timer("clock", self.seconds, warn_before=self.warn)

    def _upkeep(self, state, seat, letter=None):
        state.data["upkeep"] = letter

    def _count(self, state, seat, lead=4.0):
        state.note("RevealCount", at=state.now + lead)

    def public_view(self, state):
        return {"upkeep": {"current": state.data["upkeep"]}}

    def cue(self, state):
        letter = state.data["upkeep"]
        return {"upkeep": letter} if letter else None


def scanned_cards(hub):
    """The cards the hub was given, as the glue resolved them. The public scan event names no
    card that nothing asked for (it may be in someone's hand), so this listens one step
    before: it wraps the hub's own ``scan`` (the glue calls ``hub.scan`` for every scan)."""
    cards = queue.Queue()
    real = hub.scan

    def scan(code, resolve=None):
        try:
            cards.put(resolve(code) if resolve else code)
        except Exception as e:                  # an unknown code: the hub says so itself
            cards.put(e)
        return real(code, resolve)
    hub.scan = scan
    return lambda: cards.get(timeout=10)


def make_hub(game=None):
    def games(name):
        if game is not None and name == game.name:
            return game
        return get(name)
    return Hub(MemoryLog(), games=games, clock=SessionClock(start_at=5000.0))


class HubEvents:
    def __init__(self, hub):
        self.q = queue.Queue()
        hub.subscribe(self.q.put)

    def wait(self, where, timeout=10.0):
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            assert left > 0, "the hub did not get there in time"
            try:
                e = self.q.get(timeout=left)
            except queue.Empty:
                continue
            if where(e):
                return e


def to_monotonic(hub, session_time):
    return time.monotonic() + (session_time - hub.session.clock.now())


def alert(hub, key):
    return next((a for a in hub.alerts if a["key"] == key), None)


@pytest.fixture
def events():
    return Events()


@pytest.fixture
def link(events):
    with DeviceLink(HardwareConfig(), mock=True, reader=False, on_event=events) as lk:
        events.wait(WorkerStarted)
        lk.mark_pins()
        yield lk


# --- timers -> buzzer ----------------------------------------------------------------------------

def test_a_running_timer_buzzes_at_its_deadline_converted_to_the_monotonic_clock(link):
    hub = make_hub(QuickToy(0.8, 0.4))
    hub.configure("toy", players=2)
    since = len(link.plans())
    glue = attach(hub, link)
    hub.start(seed=1)
    assert glue.flush()
    t = hub.public_view()["timers"]["bid"]
    assert t["deadline"] > 4000                    # session time, far from the monotonic clock
    expected = to_monotonic(hub, t["deadline"])
    (warn, w_at, _), (buzz, b_at, _) = link.plans(since)
    assert (warn, buzz) == ("warning", "timeout")
    assert abs(b_at - expected) < 0.005 and abs(w_at - (expected - 0.4)) < 0.005
    assert link.status()["countdowns"] == {"bid": b_at}
    wait_until(lambda: len(link.pin_edges(BUZZER)[1]) >= 6, timeout=5)
    check_edges(link, buzzer_plan(link, since))
    assert link.status()["light"] == ("phase", "bid")


def test_expiry_lets_the_buzzer_finish_then_counts_the_reveal_and_shows_game_over(link):
    hub = make_hub(QuickToy(0.6, 0.0))
    hub.configure("toy", players=2, options={"rounds": 1})
    since = len(link.plans())
    glue = attach(hub, link)
    hub.start_timers()
    try:
        hub.start(seed=2)
        wait_until(lambda: hub.session.state.is_over(), timeout=5)
    finally:
        hub.stop()
    assert glue.flush()
    plans = link.plans(since)
    assert [p for p, _, _ in plans] == ["timeout", "reveal"]
    (_, buzz_at, buzz_edges), (_, reveal_at, _) = plans
    buzz_end = buzz_at + PATTERNS["timeout"].beeps[0][1]
    assert reveal_at - PATTERNS["reveal"].anchor >= buzz_end + 0.29   # no overlap
    assert link.status()["light"] == ("phase", "game-over")
    # the whole 1.2 s buzzer sounded: the expiry did not cancel it
    wait_until(lambda: len(link.pin_edges(BUZZER)[1]) >= 2, timeout=5)
    _, edges, _ = link.pin_edges(BUZZER)
    for (t, state), (planned, on) in zip(edges[:2], buzz_edges):
        assert bool(state) == on and -0.0005 < t - planned < LATE_BOUND
    link.cancel_all()


def test_the_pause_button_cancels_the_countdown_and_resume_schedules_a_new_one(link):
    hub = make_hub(QuickToy(0.6, 0.3))
    hub.configure("toy", players=2)
    glue = attach(hub, link)
    hub.start(seed=3)
    assert glue.flush()
    assert "bid" in link.status()["countdowns"]
    link.press("pause")                                        # a finger on the pause button
    wait_until(lambda: hub.public_view()["timers"]["bid"]["paused"])
    assert glue.flush()
    st = link.status()
    assert st["countdowns"] == {} and st["pending_edges"] == 0
    assert st["light"] == ("phase", "paused")
    assert link.pin_edges(BUZZER)[1] == []
    since = len(link.plans())
    time.sleep(0.05)                                           # let the button settle (debounce)
    link.press("pause")
    wait_until(lambda: not hub.public_view()["timers"]["bid"]["paused"])
    assert glue.flush()
    t = hub.public_view()["timers"]["bid"]
    expected = to_monotonic(hub, t["deadline"])
    plans = link.plans(since)
    assert [p for p, _, _ in plans] == ["warning", "timeout"]
    assert abs(plans[1][1] - expected) < 0.005
    assert link.status()["light"] == ("phase", "bid")
    wait_until(lambda: len(link.pin_edges(BUZZER)[1]) >= 6, timeout=5)
    check_edges(link, buzzer_plan(link, since))


def test_next_starts_a_timer_undo_cancels_it_and_a_refused_undo_blips(link):
    hub = make_hub(Clockwork(1.0, 0.5))
    hub.configure("clockwork", players=2)
    glue = attach(hub, link)
    hub.start(seed=4)
    link.press("next")
    wait_until(lambda: "clock" in hub.public_view()["timers"])
    assert glue.flush()
    assert set(link.status()["countdowns"]) == {"clock"}
    link.press("undo")
    wait_until(lambda: not hub.public_view()["timers"])
    assert glue.flush()
    st = link.status()
    assert st["countdowns"] == {} and st["pending_edges"] == 0
    since = len(link.plans())
    time.sleep(0.05)                                           # debounce
    link.press("undo")                                         # nothing left to undo
    wait_until(lambda: alert(hub, "button"))
    assert "nothing to undo" in alert(hub, "button")["message"]
    assert glue.flush()
    assert [p for p, _, _ in link.plans(since)] == ["error"]


def test_a_worker_crash_raises_an_alert_and_the_restart_gets_the_countdown_again(events):
    hub = make_hub(QuickToy(30.0, 10.0))
    hub.configure("toy", players=2)
    with DeviceLink(mock=True, reader=False, on_event=events, auto_restart=True) as lk:
        glue = attach(hub, lk)
        hub.start(seed=5)
        assert glue.flush()
        before = lk.status()["countdowns"]["bid"]
        first = lk.pid
        events.wait(WorkerStarted)
        os.kill(first, signal.SIGKILL)
        wait_until(lambda: alert(hub, "devices"))
        assert "stopped working" in alert(hub, "devices")["message"]
        events.wait(WorkerStarted)
        wait_until(lambda: alert(hub, "devices") is None)
        assert glue.flush()
        st = lk.status()
        assert st["pid"] != first
        assert abs(st["countdowns"]["bid"] - before) < 0.005
        assert st["light"] == ("phase", "bid")


# --- reveal counts and the light -----------------------------------------------------------------

def test_sealed_bids_revealed_get_a_3_2_1_count_and_the_phase_light_follows(link):
    hub = make_hub()
    hub.configure(GP, players=3)
    glue = attach(hub, link)
    hub.start(seed=1)
    assert glue.flush()
    assert link.status()["light"] == ("phase", "bid")
    since = len(link.plans())
    for seat in range(3):
        before = time.monotonic()
        hub.submit(seat, "submit_bids", {"traits": ["navy", "army", "colony"]})
    assert glue.flush()
    after = time.monotonic()
    plans = link.plans(since)
    assert [p for p, _, _ in plans] == ["reveal"]               # one count for the reveal
    assert before + 3.0 <= plans[0][1] <= after + 3.0
    phase = hub.public_view()["phase"]
    colours = HardwareConfig().light.phases
    assert link.status()["light"] == (("phase", phase) if phase in colours else
                                      ("colour", NEUTRAL))
    link.cancel_all()


def test_a_game_can_ask_for_the_count_or_turn_it_off(link):
    game = Clockwork()
    hub = make_hub(game)
    hub.configure("clockwork", players=2)
    glue = attach(hub, link)
    hub.start(seed=6)
    since = len(link.plans())
    hub.table_move("count", {"lead": 5.0})
    assert glue.flush()
    (name, at, _), = link.plans(since)
    assert name == "reveal" and abs(at - (time.monotonic() + 5.0)) < 0.1
    game.reveal_count = "off"
    since = len(link.plans())
    hub.table_move("count")
    assert glue.flush()
    assert link.plans(since) == []
    link.cancel_all()


def test_the_light_shows_the_upkeep_cue_the_game_gives(link):
    hub = make_hub(Clockwork())
    hub.configure("clockwork", players=2)
    glue = attach(hub, link)
    hub.start(seed=7)
    assert glue.flush()
    assert link.status()["light"] == ("colour", NEUTRAL)       # "wait" has no colour
    for letter in "CMYK":
        hub.table_move("upkeep", {"letter": letter})
        assert glue.flush()
        assert link.status()["light"] == ("upkeep", letter)
    hub.table_move("upkeep", {"letter": None})
    assert glue.flush()
    assert link.status()["light"] == ("colour", NEUTRAL)
    # the glue reads the cue from the hub's public view, never the game's own view
    assert hub.public_view()["hub"]["devices"] == {"cue": None, "reveal_count": "auto"}
    # Trade Warz gives its current Upkeep step as the cue (none before the first Upkeep)
    tw = make_hub()
    tw.configure("trade-warz", players=3)
    tw.start(seed=1)
    assert tw.public_view()["hub"]["devices"]["cue"] is None


# --- the card reader -----------------------------------------------------------------------------

@pytest.fixture
def table(tmp_path, events):
    """A Great Powers hub, a device process whose reader reads the simulator, the glue."""
    sim = ReaderSim(transport="pty", link=str(tmp_path / "reader")).start()
    lk = DeviceLink(mock=True, reader_url=sim.url, simulator=sim, on_event=events).start()
    hub = make_hub()
    hub.configure(GP, players=3)
    hub.start(seed=1)
    glue = attach(hub, lk, card_resolver=CardResolver())
    assert glue.flush()                                       # the simulator has the card list
    wait_until(lambda: glue.reader is not None)
    yield hub, lk, sim, glue
    lk.close()


def test_a_scanned_card_reaches_the_hub_and_chirps(table):
    hub, lk, sim, glue = table
    seen = HubEvents(hub)
    card = scanned_cards(hub)
    since = len(lk.plans())
    sim.show_qr(format_code(GP, "gilded-age", 1, GP_VERSION))
    assert card() == "gilded-age"
    assert seen.wait(lambda e: e["kind"] == "scan")["result"] == "read"
    assert glue.flush()
    assert [p for p, _, _ in lk.plans(since)] == ["ok"]
    out = lk.type_card("Militarism")                          # typed into the simulator
    assert "militarism" in out
    assert card() == "militarism"
    uid = "04C0FFEE000001"
    glue.resolver.bindings.bind(uid, format_code(GP, "mass-production", 1, GP_VERSION))
    sim.tap(uid=uid)                                          # a blank tag bound to a card
    assert card() == "mass-production"


@pytest.mark.parametrize("show, words", [
    (("qr", format_code(GP, "no-such-card", 1, GP_VERSION)),
     "'no-such-card' is not in the Great Powers card list"),
    (("qr", format_code("trade-warz", "export-014", 1, "0.1.0-proto")),
     "belongs to Trade Warz, not Great Powers"),
    (("qr", format_code(GP, "gilded-age", 1, GP_VERSION)[:-4] + "0000"),
     "damaged (its check digits do not match)"),
    (("qr", "https://example.com/menu"), "not a Table Companion card code"),
    (("tag", "04ABCDEF000002"), "blank and not bound"),
])
def test_a_bad_scan_is_an_alert_and_changes_nothing(table, show, words):
    hub, lk, sim, glue = table
    version, fp = hub.session.version, hub.session.state.fingerprint()
    seen = HubEvents(hub)
    since = len(lk.plans())
    how, what = show
    sim.show_qr(what) if how == "qr" else sim.tap(uid=what)
    got = seen.wait(lambda e: e["kind"] == "alert" and e["alert"] == "scan")
    assert words in got["message"]
    assert hub.session.version == version and hub.session.state.fingerprint() == fp
    assert glue.flush()
    assert [p for p, _, _ in lk.plans(since)] == ["error"]


def test_unplugging_the_reader_raises_the_reader_alert_and_replugging_clears_it(table, events):
    hub, lk, sim, glue = table
    sim.unplug()
    wait_until(lambda: alert(hub, "reader"))
    assert alert(hub, "reader")["message"] == READER_ALERT
    assert glue.reader is None
    sim.replug()
    events.wait(ReaderConnected, where=lambda e: e.port == sim.url)
    wait_until(lambda: alert(hub, "reader") is None)
    assert glue.reader is not None


# --- the composition root ------------------------------------------------------------------------

def test_start_devices_picks_simulated_hardware_off_a_pi_and_wires_everything(tmp_path):
    conf = tmp_path / "hardware.toml"
    conf.write_text("[buzzer]\npin = 12\n")
    hub = make_hub()
    hub.configure(GP, players=3)
    hub.start(seed=1)
    seen = HubEvents(hub)
    link, text = start_devices(hub, config_path=conf, simulate=None)
    try:
        assert link.config.buzzer.pin == 12
        if is_raspberry_pi():
            assert text.startswith("Buzzer on GPIO 12")
            return
        assert text == f"Simulated hardware: mock pins and reader simulator on {link.simulator.url}"
        assert link.simulator.url.startswith("/dev/pts/")
        wait_until(lambda: link.glue.reader is not None)
        card = scanned_cards(hub)
        link.type_card("Gilded Age")
        assert card() == "gilded-age"
        assert seen.wait(lambda e: e["kind"] == "scan")["result"] == "read"
        subs = len(hub._subs)
    finally:
        link.close()
    assert len(hub._subs) == subs - 1                         # the glue let go of the hub
    assert not link.alive and link.simulator.stream.closed


def test_description_of_real_hardware():
    link = DeviceLink(HardwareConfig(), reader_url="/dev/ttyACM0")
    assert link.description() == "Buzzer on GPIO 18, reader on /dev/ttyACM0"
    auto = DeviceLink(HardwareConfig())
    assert auto.description() == ("Buzzer on GPIO 18, reader on USB 2E8A:0005 "
                                  "(found when plugged in)")


# --- parts that cannot start: the table runs without them ----------------------------------------

def test_with_no_pin_library_the_child_runs_without_gpio_and_the_hub_runs(monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-library")    # the child inherits it
    hub = make_hub(Clockwork(1.0, 0.5))
    hub.configure("clockwork", players=2)
    link, text = start_devices(hub, simulate=False, reader=False)
    try:
        no_gpio = ("No buzzer, light or buttons: GPIOZERO_PIN_FACTORY=no-such-library names no "
                   "pin library gpiozero has (lgpio, rpigpio, pigpio, native, mock). The rest "
                   "of the table works.")
        assert link.alive and link.problems == [no_gpio]
        assert text == f"No card reader. {no_gpio}"
        st = link.status()
        assert st["pin_factory"] is None and st["pin_library"]["problem"] == no_gpio
        hub.start(seed=4)
        link.press("next")                       # the on-screen buttons reach the hub as ever
        wait_until(lambda: "clock" in hub.public_view()["timers"])
    finally:
        link.close()


def test_when_the_device_process_cannot_start_the_table_runs_on_touch_and_phones():
    hub = make_hub(Clockwork(1.0, 0.5))
    hub.configure("clockwork", players=2)
    link, text = start_devices(hub, simulate=True, reader=False, start_timeout=0)
    try:
        assert text == ("No buzzer, light, buttons or card reader: the device process could not "
                        "start (the device process did not start within 0 s). The table runs "
                        "with touch and phones only.")
        assert not link.alive and link.glue is not None
        assert link.play("error") is False       # commands are dropped, never raised
        hub.start(seed=4)
        hub.press("next")
        assert "clock" in hub.public_view()["timers"]
    finally:
        link.close()


def test_holding_the_shutdown_button_in_the_child_calls_on_power_once(events):
    cfg = HardwareConfig(buttons=ButtonsConfig(shutdown=26, shutdown_hold_s=0.5))
    calls = []
    with DeviceLink(cfg, mock=True, reader=False, on_event=events) as lk:
        hub = make_hub()
        attach(hub, lk, on_power=calls.append)
        lk.drive_pin(26, False)                  # held down (the pull-up makes pressed low)
        got = events.wait(PowerRequested)
        assert (got.action, got.source) == ("poweroff", "button")
        wait_until(lambda: calls)
        lk.drive_pin(26, True)
        assert lk.status()["pid"] == lk.pid      # a round trip: nothing else was on its way
        assert calls == ["poweroff"]


def test_a_power_request_without_a_callback_is_logged(events, caplog):
    cfg = HardwareConfig(buttons=ButtonsConfig(shutdown=26, shutdown_hold_s=0.5))
    with DeviceLink(cfg, mock=True, reader=False, on_event=events) as lk:
        attach(make_hub(), lk)
        lk.drive_pin(26, False)
        events.wait(PowerRequested)
        wait_until(lambda: "has no power callback" in caplog.text)


def test_the_club_pages_qr_held_to_the_reader_joins_that_club(table):
    """A table joins a club by scanning the organiser's QR (docs/club.md): the scan is not a
    card, it goes to the table's club link, which asks until the organiser lets it in; the
    reader chirps ok and the game is untouched."""
    from types import SimpleNamespace

    from companion.club.broker import ClubBroker
    from companion.club.membership import ClubLink
    from companion.club.server import ClubServer
    from companion.net.brokers import free_port, mosquitto_available
    if not mosquitto_available():
        pytest.skip("mosquitto is not installed")
    hub, lk, sim, glue = table
    hub.club = ClubLink(SimpleNamespace(hub=hub, table=hub.table, store_path=None,
                                        broker=None)).start()
    broker = ClubBroker("127.0.0.1", 0, 0, persistence=False).start()
    page = ClubServer("Thursday club", f"postgresql://x:y@127.0.0.1:{free_port()}/club",
                      "127.0.0.1", broker.tcp_port, f"ws://{{host}}:{broker.ws_port}/mqtt",
                      broker.viewer.password, broker.claim, host="127.0.0.1", port=0,
                      public_host="127.0.0.1", known=broker.tables,
                      proven=broker.proven).start()
    try:
        version = hub.session.version
        since = len(lk.plans())
        sim.show_qr(page.join_url())
        wait_until(lambda: page.organiser_state()["asking"], 30)
        assert page.allow(hub.table)                    # the organiser lets it in
        wait_until(lambda: hub.kept("club") is not None, 30)
        assert hub.kept("club")["club"] == "Thursday club"
        assert broker.tables() == [hub.table]
        assert hub.session.version == version                  # not a card: nothing played
        assert not alert(hub, "scan")
        assert glue.flush()
        assert [p for p, _, _ in lk.plans(since)] == ["ok"]
    finally:
        hub.club.stop()
        page.stop()
        broker.stop()
