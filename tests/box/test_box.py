"""The box, proven on arm64: a Debian arm64 system built from Debian's packages, the table
installed with README's command (`./table.sh install` as the Pi user), booted in QEMU. On Debian
13 "trixie" (today's Raspberry Pi OS) nobody types it: cloud-init runs it on the first boot from
the user-data docs/install-pi.md gives (tests/box/first_boot.py); on Debian 12 "bookworm" it is
run in the image as the Pi user. Trixie gets the whole proof below; bookworm the tests not
marked ``whole_proof`` (install, boot to the first frame, lgpio, a phone's sealed bid, one power
cut), chosen by BOX_OS (tests/box/conftest.py).

The tests run in order on one VM, as a box's evening goes: it comes up into the table by
itself over KMS/DRM; the first frame is on its screen; its GPIO parts run on lgpio and the one
its chip lacks is said on screen; a phone in the host's Chromium scans the join QR off the
screen, joins through the forwarded ports and locks in a sealed bid, and the game is started by
a tap on the touchscreen; a turned screen turns its touches; the plug is pulled five times in
the middle of a round and every acknowledged command is still there; the Menu shuts it down
and the file system is clean. Timings and memory go to report.json in the work folder
(tests/box/conftest.py) and the closing summary.

Positions on the screen are the 800x480 table screen's (the same layout the UI tests
screenshot): a change of layout that moves Start, Menu or Shut down must move them here too.
"""
import json
import os
import random
import re
import subprocess
import time

import pytest
from PIL import Image, ImageChops

from companion.net.seat_client import SeatClient, any_legal_move as next_move, post_join
from tests.box import radios
from tests.box.conftest import BOX_OS, WHOLE, WORK, wait_ready
from tests.box.vm import wait_for

BASE = "http://127.0.0.1:8000"            # the guest's phone page, forwarded
SHOTS = WORK / "shots"
CUTS = 5 if WHOLE else 1                   # the whole proof pulls the plug five times
START = (620, 422)                         # Lobby: "Start the game"
MENU = (744, 24)                           # the top bar's Menu
SHUT_DOWN = (657, 424)                     # Menu: "Shut down"
CONFIRM = (533, 332)                       # its confirmation: "Shut down"
# Menu > Network (ui/widgets/network.py) and Menu > Join, mid-game
MENU_NETWORK = (169, 263)
MENU_JOIN = (169, 151)
NET_SCAN = (564, 98)                       # "Find Wi-Fi networks"
NET_FIRST_ROW = (564, 209)                 # the first network in reach
NET_JOIN = (592, 436)                      # the password keyboard's "Join ..."
NET_OWN = (180, 208)                       # "Use the box's own Wi-Fi"
NET_CLOSE = (564, 438)
JOIN_CLOSE = (624, 426)
KEYS = {"v": (286, 314), "e": (210, 196), "n": (438, 314), "u": (514, 196), "-": (742, 255),
        "p": (742, 196), "a": (58, 255), "s": (134, 255), "1": (58, 136)}
STATE = {}                                 # what one test leaves for the next
PHONE_LOG = "/run/phone-play.log"          # the phone on the box's Wi-Fi (tests/box/radios.py)


# -- helpers ------------------------------------------------------------------------------------
def shot(vm, name) -> Image.Image:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = vm.screendump(SHOTS / f"{name}.png")
    return Image.open(path).convert("RGB")


def colours(img) -> int:
    return len(img.getcolors(maxcolors=1 << 20) or ())


def changed(a, b) -> float:
    """The share of pixels that differ between two screenshots."""
    diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 24 else 0)
    return sum(diff.histogram()[255:]) / (a.size[0] * a.size[1])


def journal(vm, unit="table-companion") -> str:
    return vm.sh(f"journalctl -b -u {unit} --no-pager -o cat", timeout=60)


def main_pid(vm) -> int:
    return int(vm.sh("systemctl show -p MainPID --value table-companion").strip())


def tap(vm, xy):
    """A finger on the box's touchscreen (a uinput device like the official display's)."""
    vm.sh(f"python3 /usr/local/bin/touch_inject.py tap {xy[0]} {xy[1]}")


def settled(vm, name, timeout=120, quiet=3, every=4.0) -> Image.Image:
    """The screen once it stops changing: ``quiet`` looks ``every`` seconds apart with nothing
    new (QEMU's emulated CPU builds a dialog in steps, seconds apart)."""
    last = shot(vm, name)
    still = 0
    deadline = time.monotonic() + timeout
    while still < quiet and time.monotonic() < deadline:
        time.sleep(every)
        now = shot(vm, name)
        still = still + 1 if changed(last, now) < 0.001 else 0
        last = now
    return last


def sql(vm, query) -> list:
    """Rows of the table's own store, read as the table's user (never leaving root-owned files
    beside it)."""
    out = vm.sh("runuser -u table-companion -- sqlite3 -json "
                f"/var/lib/table-companion/sessions.db \"{query}\"")
    return json.loads(out) if out.strip() else []




def memory(vm) -> dict:
    """The table's resident processes (the service's cgroup) and their memory: PSS (each shared
    page split among its users) and RSS, in MB. The table runs short-lived helpers too (nmcli
    for the Wi-Fi's state, every few seconds): one that exits between the cgroup's list and its
    /proc is skipped, and one caught running is named apart, not summed, as it is not part of
    what the table keeps in memory."""
    out = vm.sh("for p in $(cat /sys/fs/cgroup/system.slice/table-companion.service/cgroup.procs);"
                " do c=$(tr '\\0' ' ' 2>/dev/null < /proc/$p/cmdline | cut -c1-60) || continue;"
                " m=$(awk '/^Pss:/{p=$2} /^Rss:/{r=$2} END{if (p != \"\") print p, r}'"
                " /proc/$p/smaps_rollup 2>/dev/null);"
                " [ -n \"$m\" ] && [ -n \"$c\" ] && echo \"$p $c $m\"; done; true")
    procs, transient = [], []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 4:
            proc = {"pid": int(parts[0]), "cmd": " ".join(parts[1:-2]),
                    "pss_mb": round(int(parts[-2]) / 1024, 1),
                    "rss_mb": round(int(parts[-1]) / 1024, 1)}
            (transient if TRANSIENT.search(proc["cmd"]) else procs).append(proc)
    return {"pss_mb": round(sum(p["pss_mb"] for p in procs), 1), "processes": procs,
            "transient_helpers": transient}


TRANSIENT = re.compile(r"(^|/)nmcli\b")


# -- 0. Debian 13: installed on the first boot, by cloud-init, with nobody typing ---------------
@pytest.mark.whole_proof
def test_the_first_boot_installed_the_table_from_user_data(box, report):
    """tests/box/first_boot.py booted the fresh image with only hardware/box/cloud-init's
    user-data and the checkout on its boot partition, touched nothing, and saw the table come
    up on the screen; here, on the next boot, what that left behind."""
    first = json.loads((box.image_dir / "first-boot" / "report.json").read_text())
    report.add("first_boot", {k: v for k, v in first.items() if k.endswith("_s")})
    assert first["cloud_init_status"] == "done", first
    frame = Image.open(first["first_frame_png"]).convert("RGB")
    assert frame.size == (800, 480) and colours(frame) > 50, "the first boot's screen is blank"
    wait_ready(box)
    # (exit 2 with "done": it finished, noting a deprecation, as Debian 13's cloud-init does for
    # the NoCloud fs_label the Pi's boot partition needs)
    assert json.loads(box.sh("cloud-init status --format json", check=False))["status"] == "done"
    log = box.sh("cat /var/log/cloud-init-output.log")
    assert "install: 8/8" in log and "Table Companion: installed." in log, log[-3000:]
    # README's command ran as the Pi user, from the folder copied onto the boot partition
    assert box.sh("stat -c %U /home/pi/table-companion/table.sh").strip() == "pi"
    assert box.sh("ls /boot/firmware").split().count("user-data") == 1
    # nobody logged in, ever: no login session now and none recorded since the card was new
    assert box.sh("loginctl list-sessions --no-legend | wc -l").strip() == "0"
    assert box.sh("last -w 2>/dev/null | grep -c '^pi ' || true").strip() in ("", "0")
    # the install ran once, on the first boot: later boots' cloud-init did not run it again
    assert log.count("Table Companion: installing the table") == 1, log[-3000:]


# -- 1. it comes up by itself ------------------------------------------------------------------
def test_the_table_starts_at_boot_with_nobody_logged_in(box, report):
    report.add("boot_to_ready_s", wait_ready(box))
    assert box.sh("systemctl is-enabled table-companion").strip() == "enabled"
    assert box.sh("loginctl list-sessions --no-legend | wc -l").strip() == "0"
    pid = main_pid(box)
    assert box.sh(f"ps -o user= -p {pid}").strip() == "table-companion"
    # drawn over KMS/DRM by the table itself: no X, no Wayland
    assert "/dev/dri/card0" in box.sh(f"ls -l /proc/{pid}/fd")
    assert box.sh("pgrep -c -x 'Xorg|Xwayland|weston|labwc|wayfire' || true").strip() == "0"
    # Debian's own broker is off (the install said so); 1883 is the table's mosquitto's
    assert box.sh("systemctl is-enabled mosquitto || true").strip() == "disabled"
    holder = box.sh("ss -Htlnp 'sport = :1883'")
    assert "mosquitto" in holder, holder
    cgroup = box.sh("cat /sys/fs/cgroup/system.slice/table-companion.service/cgroup.procs")
    assert re.search(r"pid=(\d+)", holder).group(1) in cgroup.split()   # the table's child
    # the logs are in RAM; only the store is written to the card
    # (on trixie the first boot's journal, the cloud-init install's own log, was written to
    # /var/log/journal before the install switched journald to RAM; it stays there for whoever
    # debugs an install, and nothing is written to it since: not this boot, not the journal)
    assert box.sh("ls /run/log/journal/*/system.journal | wc -l").strip() == "1"
    since_boot = box.sh("find /var/log/journal -name '*.journal*' -newermt \"$(uptime -s)\" "
                        "2>/dev/null | wc -l")
    assert since_boot.strip() == "0"
    # one input path for the touchscreen: Kivy's mtdev provider (ui/display.py)
    assert re.search(r"\[Display +\] touch through mtdev", journal(box))


def test_the_first_frame_is_on_the_screen(box, report):
    img = settled(box, "1-first-frame")
    assert img.size == (800, 480)
    assert colours(img) > 50, "the screen is blank"
    mode = box.sh("grep -A12 'plane\\[' /sys/kernel/debug/dri/0/state 2>/dev/null | "
                  "grep -m1 'size=' || true")
    report.add("first_frame_png", str(SHOTS / "1-first-frame.png"))
    report.add("drm_plane", mode.strip())


# -- 2. its own network: no known network, so its own Wi-Fi (issue 33) -------------------------
@pytest.mark.whole_proof
def test_with_no_known_network_the_box_brings_its_own_wifi(box, report):
    """The VM's only network is its wired port (NetworkManager's "Wired connection 1"); no
    Wi-Fi network is known. About 30 s after the table started, the box's radio is its own
    Wi-Fi: WPA2 on 2.4 GHz, the name and password the install made."""
    wait_for("the box's own Wi-Fi", lambda: radios.own_wifi_up(box), 240, 2)
    line = wait_for("the table saying its own Wi-Fi is up", lambda: box.sh(
        "journalctl -b -u table-companion -o short-monotonic --no-pager "
        "| grep -m1 \"own Wi-Fi .* is up\" || true").strip(), 60, 2)
    m = re.match(r"\[\s*([\d.]+)\]", line)
    assert m, line
    report.add("boot_to_own_wifi_s", round(float(m[1]), 1))
    own = json.loads(box.sh("cat /var/lib/table-companion/wifi.json"))
    settings = box.sh("nmcli -s -g 802-11-wireless.ssid,802-11-wireless.mode,"
                      "802-11-wireless.band,802-11-wireless-security.key-mgmt,"
                      "ipv4.method connection show table-companion-own")
    assert settings.split() == [own["ssid"], "ap", "bg", "wpa-psk", "shared"]
    # its password kept by NetworkManager for the system (not by an agent that comes and goes)
    keyfile = "/etc/NetworkManager/system-connections/table-companion-own.nmconnection"
    assert f"psk={own['password']}" in box.sh(f"cat {keyfile}").split()
    assert re.fullmatch(r"Table-[A-Z2-9]{4}", own["ssid"]) and len(own["password"]) >= 8
    assert box.sh("stat -c %U:%a /var/lib/table-companion/wifi.json").strip() == \
        "table-companion:600"
    STATE["own"] = own


def test_the_join_qr_on_the_screen_shows_the_box_address(box):
    from pyzbar.pyzbar import decode

    def lobby():
        img = shot(box, "2-lobby")
        codes = [c.data.decode() for c in decode(img)]
        want = 2 if WHOLE else 1                 # the own Wi-Fi's code beside the join code
        return (img, codes) if len(codes) == want else None
    img, codes = wait_for("the lobby's QR codes on the screen", lobby, 180, 3)
    [url] = [c for c in codes if c.startswith("http")]
    m = re.fullmatch(r"http://([\d.]+):8000/\?room=([A-Z0-9]+)", url)
    assert m, url
    # the address phones on the table's network use: the VM's NIC, never loopback
    nic = box.sh("ip -4 -o addr show scope global | awk '{print $4}' | cut -d/ -f1").split()
    assert m.group(1) in nic, (url, nic)
    STATE["room"], STATE["join_url"] = m.group(2), url
    if WHOLE:      # on its own Wi-Fi: phones join the Wi-Fi by one code, the table by the other
        [wifi] = [c for c in codes if c.startswith("WIFI:")]
        own = STATE["own"]
        assert wifi == f"WIFI:T:WPA;S:{own['ssid']};P:{own['password']};;"
        assert m.group(1) == "10.42.0.1"
        STATE["wifi_qr"] = wifi


@pytest.mark.whole_proof
def test_a_phone_joins_the_own_wifi_by_its_qr_and_lands_on_the_table(box, report):
    """A phone (a simulated radio in its own network namespace) joins the box's Wi-Fi with the
    name and password decoded from the QR on the screen; its captive-portal probes land on the
    join page; it takes a seat (Cy) and waits for the sealed bid, which it makes when it opens
    (the next test). SSH on the box does not answer it."""
    fields = dict(re.findall(r"([TSP]):((?:\\.|[^;])*);", STATE["wifi_qr"][5:]))
    t0 = time.monotonic()
    lease = radios.phone_on(box, fields["S"], fields["P"])
    report.add("phone_wifi_associated_s", round(time.monotonic() - t0, 1))
    assert lease["ip"].startswith("10.42.0.") and lease["dns"] == "10.42.0.1", lease
    out = "/run/phone-probe.log"
    radios.phone_run(box, "probe", out)
    android, apple = radios.phone_log(box, out)
    for probe in (android, apple):               # every name is the box; port 80 is the table's
        assert probe["resolved"] == "10.42.0.1", probe
        assert probe["status"] == 302 and probe["location"] == STATE["join_url"], probe
    # the phone follows the sign-in sheet to the join page and takes a seat
    t1 = time.monotonic()
    radios.phone_run(box, "play", "http://10.42.0.1:8000", STATE["room"], "Cy", PHONE_LOG,
                     background=True)
    seated = wait_for("the phone seated", lambda: [x for x in radios.phone_log(box, PHONE_LOG)
                                                   if x["step"] == "seated"], 180, 2)
    report.add("phone_associated_to_seat_s", round(time.monotonic() - t1, 1))
    log = wait_for("its probes again", lambda: (lambda x: x if sum(
        1 for y in x if y["step"] == "probe") == 2 else None)(radios.phone_log(box, PHONE_LOG)),
        60, 2)
    page = next(x for x in log if x["step"] == "page")
    assert page["status"] == 200 and page["app"], page
    assert seated[0]["ws"].startswith("ws://10.42.0.1:9001/"), seated
    probes = [x for x in log if x["step"] == "probe"]
    assert [(p["status"], p["body"][:7]) for p in probes] == [(204, ""), (200, "<HTML><")], probes
    # on the own Wi-Fi only the table answers: SSH runs on the box, and the phone cannot reach it
    assert box.sh("ss -Htln 'sport = :22' | wc -l").strip() != "0"
    assert not radios.answers_tcp(box, "phone", "10.42.0.1", 22)
    assert radios.answers_tcp(box, "phone", "10.42.0.1", 8000)
    STATE["wifi_phone"] = True


def test_gpio_runs_on_lgpio_and_the_missing_part_is_said(box):
    log = journal(box)
    assert re.search(r"pin library: lgpio", log), log[-3000:]
    # the undo button's GPIO 13 is beyond QEMU's 8-line chip: left out, said, table running
    said = "The undo button on GPIO 13 could not be opened (/dev/gpiochip0 has only lines 0-7)"
    assert said in log, log[-3000:]
    claimed = box.sh("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug;"
                     " cat /sys/kernel/debug/gpio")
    lines = re.findall(r"gpio-\d+ +\([^|]*\|lg +\) (in|out)", claimed)
    assert sorted(lines) == ["in", "in", "out", "out", "out", "out"], claimed
    # ... and the screen says it (the Hardware banner)
    STATE["hardware_note"] = said


def test_lgpio_is_a_real_build_for_the_box_python(box, report):
    """Never the empty placeholder lgpio 0.0.0.2: the real module, built for the Python this
    Debian has (3.13 on trixie, which lgpio has no wheel for: built from its source at install;
    3.11 on bookworm: its wheel), and gpiozero's pin factory in the running table is lgpio."""
    py = "/opt/table-companion/venv/bin/python"
    out = box.sh(f"{py} -c 'import sys, importlib.metadata as m, lgpio, _lgpio; "
                 "print(sys.version_info[0], sys.version_info[1], m.version(\"lgpio\"), "
                 "_lgpio.__file__, hex(lgpio.LGPIO_PY_VERSION))'")
    major, minor, version, ext, okay = out.split()
    report.add("box_python", f"{major}.{minor}")
    report.add("lgpio", {"version": version, "module": ext})
    assert (int(major), int(minor)) == ((3, 13) if BOX_OS == "trixie" else (3, 11)), out
    assert tuple(int(x) for x in version.split(".")[:3]) >= (0, 2, 2), out
    assert f"cpython-{major}{minor}-aarch64" in ext and int(okay, 16) >= 0x20200, out
    pid = main_pid(box)
    libs = box.sh(f"grep -c _lgpio /proc/{pid}/maps || true").strip()
    kids = box.sh(f"for c in $(pgrep -P {pid}); do grep -l _lgpio /proc/$c/maps; done || true")
    assert libs != "0" or kids.strip(), "the table has not loaded lgpio"
    assert re.search(r"pin library: lgpio", journal(box))


# -- the phone --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    from tests.phone.conftest import CHROMIUM, FLAGS
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


def test_a_phone_joins_through_the_forwarded_port_and_locks_in_a_bid(box, browser, report):
    url = STATE["join_url"]
    phone_url = re.sub(r"^http://[\d.]+:", "http://127.0.0.1:", url)   # the forwarded port
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True,
                              has_touch=True)
    page = ctx.new_page()
    page.set_default_timeout(90_000)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    t0 = time.monotonic()
    page.goto(phone_url)
    assert page.input_value("#join-room") == STATE["room"]
    page.fill("#join-name", "Ann")
    page.click("#join-button")
    page.wait_for_selector("#me .name")
    report.add("phone_join_s", round(time.monotonic() - t0, 1))
    # two more players join from their phones (protocol clients, talking as the page does);
    # a join under emulation can take longer than the client's 10 s default (Ann's took 4 to
    # 10 s on the emulated CPU while the table redrew its lobby): a phone would wait too
    names = ("Bo",) if STATE.get("wifi_phone") else ("Bo", "Cy")     # Cy: on the box's Wi-Fi
    others = [SeatClient(BASE, post_join(BASE, {"name": n, "room": STATE["room"]}, timeout=90))
              for n in names]
    for s in others:
        s.connect()
    wait_for("three phones in the lobby", lambda: "3 of 3" in journal_status(box), 120, 3)
    shot(box, "3-lobby-joined")
    tap(box, START)                           # the table's host starts the game by touch
    others[0].wait_state(lambda st: st.get("phase") == "bid", timeout=120)
    game_on_screen(box, "3-game")
    page.wait_for_selector("[data-form=submit_bids]")
    values = page.eval_on_selector_all("[data-arg=traits]:not([disabled])",
                                       "bs => bs.map(b => b.dataset.value)")
    for value in values[:3]:
        page.click(f"[data-arg=traits][data-value='{value}']")
    page.click("#send")
    page.wait_for_selector(".locked[data-window=bids-t1]")
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")    # the sticky bar stays on top of the picture
    page.screenshot(path=str(SHOTS / "phone-locked.png"), full_page=True)
    # the others lock in: the reveal, each choice checked on the phone against its commitment
    rng = random.Random(3)
    for s in others:
        view = s.wait_view(lambda v: bool(v.get("legal")), timeout=60)
        assert s.send(*next_move(view, rng), timeout=60)["ok"]
    if STATE.get("wifi_phone"):         # Cy locked hers in from the box's own Wi-Fi
        [moved] = wait_for("Cy's bid from the own Wi-Fi", lambda: [
            x for x in radios.phone_log(box, PHONE_LOG) if x["step"] == "moved"], 180, 2)
        assert moved["ok"], moved
    page.wait_for_selector(".reveal[data-window='bids-t1']")
    page.wait_for_function(
        "() => { const c = [...document.querySelectorAll(\".reveal[data-window='bids-t1'] "
        ".check\")]; return c.length === 3 && c.every(x => x.textContent.includes('verified')); }")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / "phone-reveal.png"), full_page=True)
    token = json.loads(page.evaluate("() => localStorage.getItem('tc.seat.' + location.host)"))
    ctx.close()
    assert not errors, errors
    # Ann's seat goes on from a protocol client with her token (the seat moves, as a reload does)
    ann = SeatClient(BASE, {"token": token["token"]})
    ann.reclaim()
    ann.connect()
    if STATE.get("wifi_phone"):         # Cy's seat moves to the host too, for the power cuts
        cy_token = next(x["token"] for x in radios.phone_log(box, PHONE_LOG)
                        if x["step"] == "seated")
        STATE["cy_token"] = cy_token
        box.sh("pkill -f '[w]ifi_phone.py play' || true")
        cy = SeatClient(BASE, {"token": cy_token})
        cy.reclaim()
        cy.connect()
        others.append(cy)
    STATE["seats"] = [ann, *others]
    settled(box, "4-after-reveal")


def game_on_screen(vm, name, timeout=240) -> Image.Image:
    """The table's screen once it shows the game (no join QR any more) and is settled:
    building a game's screen takes QEMU's emulated CPU tens of seconds, during which the last
    frame (the lobby) stays up and looks settled."""
    from pyzbar.pyzbar import decode
    wait_for("the game on the table's screen", lambda: not decode(shot(vm, name)), timeout, 3)
    return settled(vm, name)


def journal_status(vm) -> str:
    return vm.sh("systemctl show -p StatusText --value table-companion")


# -- the touchscreen turned -------------------------------------------------------------------
@pytest.mark.whole_proof
def test_a_turned_screen_turns_its_touches(box, report):
    """[display] rotation = 180: the picture is upside down, and a tap lands on what is drawn
    under the finger: where the Menu button is drawn now (bottom-left) opens the Menu. Unturned,
    that spot is the Fix button, whose dialog looks nothing like the Menu."""
    wait_ready(box)
    upright = game_on_screen(box, "5-upright")
    tap(box, MENU)
    menu = changed_screen(box, upright, "5-upright-menu")
    box.sh("printf '\\n[display]\\nrotation = 180\\n' >> /etc/table-companion/hardware.toml")
    try:
        t0 = time.monotonic()
        box.sh("systemctl restart table-companion", timeout=300)
        report.add("restart_to_ready_s", round(time.monotonic() - t0, 1))
        turned = game_on_screen(box, "5-rotated")
        tap(box, (800 - MENU[0], 480 - MENU[1]))                  # where Menu is drawn now
        opened = changed_screen(box, turned, "5-rotated-menu")
        # the Menu, upside down (its seats may say "phone offline" now: a few lines of text)
        assert changed(menu.rotate(180), opened) < 0.1, "the tap did not open the Menu"
    finally:                                # the rest of the evening is upright, pass or fail
        box.sh("sed -i '/^\\[display\\]$/,$d' /etc/table-companion/hardware.toml")
        box.sh("systemctl restart table-companion", timeout=300)
    settled(box, "5-back-upright")


def changed_screen(vm, before, name, timeout=120) -> Image.Image:
    """The screen once a tap's answer is drawn (changed from ``before``) and settled."""
    wait_for(f"the screen to change ({name})",
             lambda: changed(before, shot(vm, name)) > 0.05, timeout, 2)
    return settled(vm, name)


# -- the table dies --------------------------------------------------------------------------------
@pytest.mark.whole_proof
def test_a_killed_table_comes_back_by_itself_with_its_children_gone(box, report):
    """SIGKILL the table: systemd starts it again (Restart=always), its old mosquitto died with
    it (no second broker on the port), and the game is resumed."""
    pid = main_pid(box)
    old_broker = box.sh("pgrep -u table-companion -x mosquitto").split()
    assert old_broker
    since = box.sh("date +%s").strip()
    t0 = time.monotonic()
    box.sh(f"kill -9 {pid}")
    wait_for("a new table process", lambda: main_pid(box) not in (0, pid), 120, 1)
    wait_for("the table ready again",
             lambda: box.sh("systemctl is-active table-companion || true").strip() == "active",
             300, 2)
    report.add("killed_to_ready_s", round(time.monotonic() - t0, 1))
    brokers = box.sh("pgrep -u table-companion -x mosquitto").split()
    assert len(brokers) == 1 and brokers[0] not in old_broker, (old_broker, brokers)
    after = box.sh(f"journalctl -u table-companion --since @{since} --no-pager -o cat")
    assert "resuming the game in progress (Great Powers" in after, after[-2000:]
    assert box.sh("systemctl show -p NRestarts --value table-companion").strip() != "0"


# -- power cuts ---------------------------------------------------------------------------------
def test_five_power_cuts_mid_round_lose_nothing_acknowledged(box, report):
    seats = STATE["seats"]
    rng = random.Random(11)
    acked, replies, pending = set(), {}, {s.seat: [] for s in seats}
    first = sql(box, "SELECT id FROM sessions WHERE status = 'open'")
    assert len(first) == 1
    session = first[0]["id"]
    restarts, cuts = [], 0
    phones_back(seats)                        # the table restarted since they last spoke

    def collect(s):
        for tx, *_ in list(pending[s.seat]):
            if tx in s.replies:
                r = s.replies.pop(tx)
                replies[tx] = r
                if r.get("ok"):
                    acked.add(tx)
                pending[s.seat] = [p for p in pending[s.seat] if p[0] != tx]

    while cuts < CUTS:
        # a few moves (a whole game is some 150 of them: five cuts must all fall inside it),
        # then the plug is pulled at a random moment, often with one in flight
        budget, sent = rng.randint(4, 9), 0
        while sent < budget:
            for s in seats:
                collect(s)
                view = s.latest.get("view")
                assert not (view or {}).get("outcome"), "the game ended before the cuts"
                mv = next_move(view, rng)
                if mv is not None and not pending[s.seat] and sent < budget:
                    pending[s.seat].append((s.publish_command(*mv), *mv))
                    sent += 1
            time.sleep(0.05)
        time.sleep(rng.uniform(0, 1.5))
        for s in seats:
            collect(s)
        state = seats[0].latest.get("state") or {}
        assert state.get("round") and not state.get("outcome"), "not mid-round"
        box.power_cut()
        cuts += 1
        box.start()
        restarts.append(wait_ready(box))
        # the file system came back by its journal, with no error
        kernel = box.sh("journalctl -k -b --no-pager -o cat")
        assert not re.search(r"EXT4-fs error|EXT4-fs warning", kernel), kernel[-2000:]
        assert "ok" in box.sh("runuser -u table-companion -- sqlite3 "
                              "/var/lib/table-companion/sessions.db 'PRAGMA integrity_check'")
        # the phones come back and resend what they were never answered, with the old tx
        phones_back(seats)
        for s in seats:
            for tx, move, args in list(pending[s.seat]):
                try:
                    r = s.send(move, args, tx=tx, timeout=60)
                except TimeoutError:
                    continue
                replies[tx] = r
                if r.get("ok"):
                    acked.add(tx)
                pending[s.seat] = [p for p in pending[s.seat] if p[0] != tx]
        for s in seats:
            s.wait_view(lambda v: True, timeout=60)
        shot(box, f"6-after-cut-{cuts}")
    # the same game, resumed five times, holds every acknowledged command exactly once
    assert [r["id"] for r in sql(box, "SELECT id FROM sessions WHERE status = 'open'")] == \
        [session]
    counts = {}
    for row in sql(box, f"SELECT data FROM events WHERE session_id = '{session}'"):
        tx = json.loads(row["data"]).get("tx")
        if tx:
            counts[tx] = counts.get(tx, 0) + 1
    lost = sorted(tx for tx in acked if tx not in counts)
    twice = sorted(tx for tx, n in counts.items() if n > 1)
    report.add("power_cuts", {"cuts": cuts, "acknowledged": len(acked), "lost": len(lost),
                              "applied_twice": len(twice), "restart_to_ready_s": restarts})
    assert acked and not lost and not twice, (lost, twice)
    assert "resuming the game in progress (Great Powers" in journal(box)
    STATE["session"] = session


def phones_back(seats):
    """Each phone reclaims its seat (a new password: the table restarted) and reconnects."""
    for s in seats:
        s.kill()
        s.reclaim()
        s.connect()


@pytest.mark.whole_proof
def test_the_table_fits_in_memory(box, report):
    mem = memory(box)
    report.add("table_memory", mem)
    assert mem["processes"], mem
    # The goal is 200 MB. On Debian 12 the table took 172 MB; on Debian 13 (Python 3.13, its
    # Mesa) it took 197.7 MB at the first run of this proof: inside the goal by less than the
    # spread between runs. The report says whether the goal is met; the proof fails only past
    # 220 MB, a table clearly grown rather than noise.
    report.add("table_memory_goal_200_mb_met", mem["pss_mb"] <= 200)
    assert mem["pss_mb"] <= 220, f"the table takes {mem['pss_mb']} MB (goal 200): {mem}"
    # and as README's benchmark measures it, run on the box with this arm64 build: a second
    # table (simulated hardware, offscreen) started cold beside the service, its Rss summed
    out = box.sh("cd /home/pi/table-companion && HOME=/tmp /opt/table-companion/venv/bin/python"
                 " -m benches run --quick --no-trace --no-before --frame-timeout=600 2>&1",
                 timeout=1500)
    m = re.search(r"whole table \(Rss, main \+ children\): median (\d+) MB", out)
    assert m, out[-3000:]
    lines = [ln.rstrip() for ln in out.splitlines()
             if ln.startswith(("companion run", "  ", "    "))]
    report.add("bench_run_memory", {"whole_table_rss_mb": int(m[1]), "lines": lines})


# -- the venue's Wi-Fi, chosen on the touchscreen, and back (issue 33) ---------------------------
VENUE, VENUE_PSK = "CafeNet", "venue-pass-1"


def tap_text(vm, text):
    """Type on the Network dialog's on-screen password keyboard, key by key."""
    for ch in text:
        tap(vm, KEYS[ch])
        time.sleep(0.3)


def menu_join_url(vm, want) -> str:
    """The join URL off the Menu's Join dialog (the QR the table shows mid-game), once it holds
    ``want`` (the dialog follows the join address as it moves)."""
    from pyzbar.pyzbar import decode
    base = settled(vm, "8-before-join")
    tap(vm, MENU)
    changed_screen(vm, base, "8-menu-join")           # the Menu is open (emulated: seconds)
    tap(vm, MENU_JOIN)

    def url():
        codes = [c.data.decode() for c in decode(shot(vm, "8-join-dialog"))]
        return next((c for c in codes if c.startswith("http") and want in c), None)
    found = wait_for(f"the join QR in the Menu with {want}", url, 300, 4)
    tap(vm, JOIN_CLOSE)
    return found


@pytest.mark.whole_proof
def test_the_touchscreen_moves_the_box_onto_the_venue_wifi_and_a_phone_plays_there(box, report):
    """A venue's access point (hostapd in its own namespace) is in reach. Menu > Network: find
    networks, tap CafeNet, type its password on the on-screen keyboard, Join. The box joins it,
    the join QR follows, and a phone on the venue's Wi-Fi takes Cy's seat and plays."""
    radios.venue_up(box, VENUE, VENUE_PSK)
    wait_ready(box)
    base = settled(box, "8-before-network")
    tap(box, MENU)
    menu = changed_screen(box, base, "8-menu")
    tap(box, MENU_NETWORK)
    changed_screen(box, menu, "8-network")
    tap(box, NET_SCAN)                        # the own Wi-Fi stops for the look, then is back
    wait_for("the look under way", lambda: not radios.own_wifi_up(box), 60, 1)
    wait_for("the look done", lambda: radios.own_wifi_up(box), 180, 2)
    settled(box, "8-networks")
    tap(box, NET_FIRST_ROW)                   # CafeNet: the only network in reach
    settled(box, "8-password")
    tap_text(box, VENUE_PSK)
    settled(box, "8-typed")
    t0 = time.monotonic()
    tap(box, NET_JOIN)
    wait_for("the box on CafeNet", lambda: VENUE in box.sh(
        "nmcli -t -f NAME,TYPE connection show --active || true") and not
        radios.own_wifi_up(box), 180, 2)
    address = wait_for("its address on CafeNet", lambda: box.sh(
        "ip -4 -o addr show dev wlan0 | awk '{print $4}' | cut -d/ -f1 || true").strip(), 60, 2)
    report.add("wifi_switch_s", round(time.monotonic() - t0, 1))
    assert address.startswith("192.168.50."), address
    settled(box, "8-joined")
    tap(box, NET_CLOSE)
    time.sleep(3)                             # the dialog gone before the Menu is tapped
    url = menu_join_url(box, f"//{address}:")
    # a phone on the venue's Wi-Fi (its DHCP, not the box's) takes Cy's seat there and plays
    lease = radios.phone_on(box, VENUE, VENUE_PSK)
    assert lease["ip"].startswith("192.168.50."), lease
    log = "/run/phone-venue.log"
    radios.phone_run(box, "reclaim", url.split("/?")[0], STATE["cy_token"], log,
                     background=True)
    seats = [s for s in STATE["seats"] if s.creds["token"] != STATE["cy_token"]]
    rng = random.Random(5)
    deadline = time.monotonic() + 900
    while not [x for x in radios.phone_log(box, log) if x["step"] == "moved"]:
        assert time.monotonic() < deadline, radios.phone_log(box, log)
        for s in seats:                       # the others play on until it is Cy's turn
            mv = next_move(s.latest.get("view"), rng)
            if mv is not None:
                s.send(*mv, timeout=60)
        time.sleep(2)
    moved = [x for x in radios.phone_log(box, log) if x["step"] == "moved"][0]
    seated = [x for x in radios.phone_log(box, log) if x["step"] == "seated"][0]
    assert moved["ok"] and seated["ws"].startswith(f"ws://{address}:9001/"), (seated, moved)
    box.sh("pkill -f '[w]ifi_phone.py reclaim' || true")
    # and back: Menu > Network > the box's own Wi-Fi
    base = settled(box, "8-back")
    tap(box, MENU)
    menu = changed_screen(box, base, "8-menu-again")
    tap(box, MENU_NETWORK)
    changed_screen(box, menu, "8-network-again")
    tap(box, NET_OWN)
    wait_for("the own Wi-Fi again", lambda: radios.own_wifi_up(box), 120, 2)
    settled(box, "8-own-again")
    tap(box, NET_CLOSE)
    # CafeNet is known and in reach, and it is not forced on the table mid-game
    time.sleep(45)
    assert radios.own_wifi_up(box), box.sh("nmcli connection show --active")


@pytest.mark.whole_proof
def test_with_the_venue_gone_a_reboot_falls_back_to_the_own_wifi(box, report):
    radios.venue_down(box)
    assert VENUE in box.sh("nmcli -t -f NAME connection show")          # remembered
    box.exec(["systemctl", "--no-block", "reboot"], timeout=30)
    box.proc.wait(300)                        # -no-reboot: a reboot ends QEMU; start it again
    box.start()
    wait_ready(box)
    wait_for("the own Wi-Fi after the reboot", lambda: radios.own_wifi_up(box), 240, 2)
    assert "no known network in 30 s" in journal(box)


# -- the end of the evening ---------------------------------------------------------------------
@pytest.mark.whole_proof
def test_the_menu_shuts_the_box_down_and_the_file_system_is_clean(box, report):
    for s in STATE.get("seats", ()):
        s.close()
    wait_ready(box)
    # one reader of the touchscreen at this start, never two (ui/display.py); that it reads it
    # at all, the taps below prove. (On the trixie box, after five power cuts, Kivy's
    # "device match" line was not in this boot's journal once, while every tap still landed.)
    assert len(re.findall(r"\[ProbeSysfs +\] device match", journal(box))) <= 1
    base = game_on_screen(box, "7-before-menu")
    tap(box, MENU)
    menu = changed_screen(box, base, "7-menu")
    tap(box, SHUT_DOWN)
    changed_screen(box, menu, "7-confirm")
    t0 = time.monotonic()
    tap(box, CONFIRM)
    try:
        box.proc.wait(300)                     # -no-reboot: the powered-off guest ends QEMU
    except subprocess.TimeoutExpired:
        raise AssertionError("the box did not power off from the Menu") from None
    report.add("menu_to_power_off_s", round(time.monotonic() - t0, 1))
    fsck = subprocess.run(["e2fsck", "-fn", str(box.image)], capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr


# -- after the evening: an update, then uninstall ------------------------------------------------
@pytest.mark.whole_proof
def test_install_again_keeps_the_box_and_uninstall_undoes_it(box, report):
    """On the powered-off box's own disk (mounted on the host, its commands run through
    qemu-user as in the image build): `./table.sh install` again, as an update does, keeps the
    sessions and the settings; `./table.sh uninstall` removes what install made and keeps the
    sessions; `--purge` removes those too."""
    assert not box.running()
    mnt = WORK / "mnt"
    mnt.mkdir(exist_ok=True)
    subprocess.run(["mount", "-o", "loop", str(box.image), str(mnt)], check=True)
    resolv = mnt / "etc/resolv.conf"                # trixie: NetworkManager's, a link into /run
    link = os.readlink(resolv) if resolv.is_symlink() else None
    binds = []
    try:
        for d, kind in (("dev", ["--bind", "/dev"]), ("dev/pts", ["--bind", "/dev/pts"]),
                        ("proc", ["-t", "proc", "proc"]), ("sys", ["-t", "sysfs", "sysfs"])):
            subprocess.run(["mount", *kind, str(mnt / d)], check=True)
            binds.append(mnt / d)
        resolv.unlink(missing_ok=True)
        subprocess.run(["cp", "-L", "/etc/resolv.conf", str(resolv)], check=True)

        def as_pi(cmd, timeout=900):
            return subprocess.run(
                ["chroot", str(mnt), "/usr/bin/env", "-i", "PATH=/usr/local/bin:/usr/bin:/bin:"
                 "/usr/sbin:/sbin", "LANG=C.UTF-8", "/usr/sbin/runuser", "-u", "pi", "--",
                 "/bin/bash", "-c", f"cd ~/table-companion && HOME=/home/pi {cmd}"],
                capture_output=True, text=True, timeout=timeout)

        store = mnt / "var/lib/table-companion/sessions.db"
        size = store.stat().st_size
        (mnt / "etc/table-companion/hardware.toml").write_text(
            (mnt / "etc/table-companion/hardware.toml").read_text() + "# edited by hand\n")
        t0 = time.monotonic()
        again = as_pi("./table.sh install")
        report.add("install_again_s", round(time.monotonic() - t0, 1))
        assert again.returncode == 0, again.stdout + again.stderr
        # an update needs no package and builds nothing again (Debian 13's renamed libraries
        # count as installed; lgpio is there)
        assert "install:     all there" in again.stderr, again.stderr
        assert "lgpio: no wheel" not in again.stderr, again.stderr
        assert "# edited by hand" in (mnt / "etc/table-companion/hardware.toml").read_text()
        assert store.stat().st_size == size
        assert (mnt / "etc/systemd/system/multi-user.target.wants/table-companion.service"
                ).is_symlink()

        gone = as_pi("./table.sh uninstall")
        assert gone.returncode == 0, gone.stdout + gone.stderr
        for path in ("etc/systemd/system/table-companion.service", "opt/table-companion",
                     "usr/local/bin/table-companion",
                     "etc/systemd/journald.conf.d/table-companion.conf",
                     "etc/polkit-1/rules.d/50-table-companion.rules",
                     "etc/NetworkManager/dispatcher.d/90-table-companion",
                     "etc/NetworkManager/dnsmasq-shared.d/table-companion.conf",
                     "etc/systemd/system/table-companion-net.path",
                     "usr/local/lib/table-companion"):
            assert not (mnt / path).exists(), path
        assert not (mnt / "etc/systemd/system/multi-user.target.wants/table-companion.service"
                    ).exists()
        assert store.exists() and "Kept the sessions" in gone.stderr
        purged = as_pi("./table.sh uninstall --purge")
        assert purged.returncode == 0, purged.stdout + purged.stderr
        assert not (mnt / "var/lib/table-companion").exists()
        assert "table-companion:" not in (mnt / "etc/passwd").read_text()
    finally:
        resolv.unlink(missing_ok=True)
        if link:
            os.symlink(link, resolv)
        for b in reversed(binds):
            subprocess.run(["umount", "-l", str(b)])
        subprocess.run(["umount", str(mnt)])
