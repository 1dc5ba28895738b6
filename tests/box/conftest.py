"""The box test's fixtures: build the arm64 image once per run, boot it once, share the VM.

``./table.sh test-box`` runs these (``pytest tests/box --box``; README). Work files go to
``/var/tmp/table-companion-box/run`` (``$BOX_WORK``; outside the checkout, whose packaging
would otherwise walk the arm64 root): the image, QEMU's logs, the serial consoles, the
screenshots and ``report.json`` with the timings the closing summary prints. ``BOX_REUSE_IMAGE=1`` boots the
image a previous run built instead of building one (for working on the tests themselves).
"""
import json
import os
import platform
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.box.vm import VM, wait_for

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORK = Path(os.environ.get("BOX_WORK", "/var/tmp/table-companion-box/run"))
REPORT = WORK / "report.json"
#: Under QEMU's emulation (TCG: no arm64 acceleration on an x86 host) a boot to the table's
#: first frame took 2-4 minutes here; on a Pi 4 it is seconds.
BOOT_TIMEOUT = float(os.environ.get("BOX_BOOT_TIMEOUT", 600))


class Report(dict):
    def add(self, key, value):
        self[key] = value
        WORK.mkdir(parents=True, exist_ok=True)
        REPORT.write_text(json.dumps(self, indent=1, sort_keys=True))


_report = Report()


@pytest.fixture(scope="session")
def report():
    return _report


def _build_image(report):
    image = WORK / "image"
    pristine = image / "root-pristine.img"
    if os.environ.get("BOX_REUSE_IMAGE") == "1" and pristine.exists():
        report.add("image_build_s", None)
        return image
    if os.geteuid() != 0:
        pytest.fail("tests/box needs root (debootstrap, chroot, mount): run ./table.sh test-box "
                    "as root, or with sudo")
    t0 = time.monotonic()
    subprocess.run([str(HERE / "build-image.sh"), str(ROOT), str(image)], check=True)
    (image / "root.img").rename(pristine)
    report.add("image_build_s", round(time.monotonic() - t0, 1))
    timings = dict(line.split() for line in (image / "timings").read_text().splitlines())
    report.add("image_build_steps_s", {k: int(v) for k, v in timings.items()})
    return image


@pytest.fixture(scope="session")
def box(report):
    """The booted VM, with the table service up (a session-wide fixture: one boot for all)."""
    if platform.machine() not in ("x86_64", "aarch64"):
        pytest.fail(f"tests/box runs on an x86-64 or arm64 host, not {platform.machine()}")
    image = _build_image(report)
    disk = image / "root.img"
    shutil.copyfile(image / "root-pristine.img", disk)    # every run boots a fresh box
    vm = VM(WORK / "vm", image / "vmlinuz", image / "initrd.img", disk)
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


def pytest_terminal_summary(terminalreporter):
    if REPORT.exists():
        terminalreporter.section(f"the box on arm64 ({REPORT})")
        for k, v in sorted(json.loads(REPORT.read_text()).items()):
            terminalreporter.write_line(f"{k}: {v}")
