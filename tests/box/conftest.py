"""The box test's fixtures: build the arm64 image once per run, boot it once, share the VM.

``./table.sh test-box`` runs these for each release (``BOX_OS=trixie|bookworm pytest tests/box
--box``; README): Debian 13 "trixie", today's Raspberry Pi OS, gets the whole proof; Debian 12
"bookworm" a shorter one (the tests marked ``whole_proof`` are deselected for it: install, boot
to the first frame, lgpio, a phone's sealed bid, one power cut). Work files go to
``/var/tmp/table-companion-box/run/<release>`` (``$BOX_WORK``; outside the checkout, whose
packaging would otherwise walk the arm64 root): the image, QEMU's logs, the serial consoles, the
screenshots and ``report.json`` with the timings the closing summary prints. An image is built
once per checkout (its commit and uncommitted changes): ``./table.sh box-image`` builds them in
the background (CI, while the suite runs), and the tests boot a copy.
"""
import json
import os
import platform
import subprocess
from pathlib import Path

import pytest

from tests.box.vm import VM, wait_for

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: the release under test: "trixie" (Debian 13, today's Raspberry Pi OS) or "bookworm" (12)
BOX_OS = os.environ.get("BOX_OS", "trixie")
if BOX_OS not in ("trixie", "bookworm"):
    raise SystemExit(f"BOX_OS={BOX_OS}: tests/box knows trixie and bookworm")
WHOLE = BOX_OS == "trixie"
WORK = Path(os.environ.get("BOX_WORK", "/var/tmp/table-companion-box/run")) / BOX_OS
REPORT = WORK / "report.json"
#: Under QEMU's emulation (TCG: no arm64 acceleration on an x86 host) a boot to the table's
#: first frame took 2-4 minutes here; on a Pi 4 it is seconds.
BOOT_TIMEOUT = float(os.environ.get("BOX_BOOT_TIMEOUT", 900))


class Report(dict):
    def add(self, key, value):
        self[key] = value
        WORK.mkdir(parents=True, exist_ok=True)
        REPORT.write_text(json.dumps(self, indent=1, sort_keys=True))


_report = Report()


@pytest.fixture(scope="session")
def report():
    return _report


def checkout_id() -> str:
    """This checkout's commit and uncommitted changes, as build-image.sh records them."""
    return subprocess.run([str(HERE / "build-image.sh"), "--id", str(ROOT)], check=True,
                          capture_output=True, text=True).stdout.strip()


def _build_image(report):
    """The image of this checkout: the one `./table.sh box-image` built in the background
    (CI: while the suite ran) when it is of this very checkout, else a new one."""
    image = WORK / "image"
    pid = WORK / "build.pid"
    if pid.exists() and _alive(pid):       # a build in the background: wait for it
        wait_for("the background image build", lambda: not _alive(pid), 3600, 5)
    built = image / "checkout-id"
    # BOX_REUSE_IMAGE=1: boot the image there is, of whatever checkout (while working on the
    # tests themselves; never in CI)
    if (image / "root.img").exists() and built.exists() and (
            os.environ.get("BOX_REUSE_IMAGE") == "1"
            or built.read_text().strip() == checkout_id()):
        timings = image / "timings"
        report.add("image_build_steps_s", dict(
            (k, int(v)) for k, v in (ln.split() for ln in timings.read_text().splitlines())))
        return image
    if os.geteuid() != 0:
        pytest.fail("tests/box needs root (debootstrap, chroot, mount): run ./table.sh test-box "
                    "as root, or with sudo")
    subprocess.run([str(HERE / "build-image.sh"), str(ROOT), str(image), BOX_OS], check=True)
    timings = image / "timings"
    report.add("image_build_steps_s", dict(
        (k, int(v)) for k, v in (ln.split() for ln in timings.read_text().splitlines())))
    return image


def _alive(pid_file) -> bool:
    try:
        os.kill(int(pid_file.read_text()), 0)
        return True
    except (OSError, ValueError):
        return False


@pytest.fixture(scope="session")
def box(report):
    """The booted VM, with the table service up (a session-wide fixture: one boot for all)."""
    if platform.machine() not in ("x86_64", "aarch64"):
        pytest.fail(f"tests/box runs on an x86-64 or arm64 host, not {platform.machine()}")
    image = _build_image(report)
    (WORK / "vm").mkdir(parents=True, exist_ok=True)
    disk = WORK / "vm" / "root.img"
    subprocess.run(["cp", "--sparse=always", str(image / "root.img"), str(disk)], check=True)
    drives = []
    if (image / "bootfs.img").exists():          # trixie: the Pi's boot partition, user-data
        drives.append(WORK / "vm" / "bootfs.img")
        subprocess.run(["cp", "--sparse=always", str(image / "bootfs.img"), str(drives[0])],
                       check=True)
    vm = VM(WORK / "vm", image / "vmlinuz", image / "initrd.img", disk, drives=drives)
    vm.image_dir = image
    vm.start()
    try:
        vm.wait_agent(BOOT_TIMEOUT)
        report.add("first_boot_agent_s", round(vm.seconds(), 1))
        yield vm
    finally:
        if vm.running():
            vm.power_cut()


def service_state(vm) -> str:
    return vm.sh("systemctl is-active table-companion.service || true").strip()


def wait_ready(vm, timeout=BOOT_TIMEOUT) -> float:
    """Seconds from QEMU's start until the table service is active (it says READY=1 when its
    first frame is drawn: Type=notify)."""
    vm.wait_agent(timeout)
    wait_for("table-companion.service active", lambda: service_state(vm) == "active",
             timeout - vm.seconds(), 2)
    return round(vm.seconds(), 1)


def pytest_configure(config):
    config.addinivalue_line("markers", "whole_proof: only in the whole proof (Debian 13); "
                                       "Debian 12's shorter proof leaves it out")


def pytest_collection_modifyitems(config, items):
    """Debian 12 gets the shorter proof: the whole_proof tests are deselected (not skipped)."""
    if WHOLE:
        return
    keep = [i for i in items if i.get_closest_marker("whole_proof") is None]
    dropped = [i for i in items if i.get_closest_marker("whole_proof") is not None]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_terminal_summary(terminalreporter):
    if REPORT.exists():
        terminalreporter.section(f"the box on arm64, {BOX_OS} ({REPORT})")
        for k, v in sorted(json.loads(REPORT.read_text()).items()):
            terminalreporter.write_line(f"{k}: {v}")
