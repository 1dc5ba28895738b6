"""The trixie image's first boot (tests/box/build-image.sh): nobody types anything.

The image holds Debian 13 as Raspberry Pi OS trixie has it, with no user and no table; its
second disk is the Pi's boot partition (FAT, label ``bootfs``) with what docs/install-pi.md asks
a user to copy there after Imager wrote the card: ``user-data`` (hardware/box/cloud-init) and the
folder ``table-companion``. This boots it in QEMU and waits, hands off, until cloud-init has run
that user-data (README's ``./table.sh install`` as user ``pi``) and the table is up on the screen
by itself; it saves the first frame and the timings (``first-boot/report.json``), then powers the
guest off cleanly. tests/box then boots the installed image again for the whole proof and checks
what this boot recorded.

    python3 tests/box/first_boot.py OUT_DIR        (OUT_DIR of build-image.sh)
"""
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.box.vm import VM, VMError, wait_for  # noqa: E402

#: Debian packages, a Python environment and lgpio built from its source, all under QEMU's
#: emulated CPU: measured about 20-30 minutes here; a Pi 4 takes about 10.
TIMEOUT = 3600


def main(out: Path) -> int:
    work = out / "first-boot"
    work.mkdir(parents=True, exist_ok=True)
    vm = VM(work, out / "vmlinuz", out / "initrd.img", out / "root.img",
            drives=[out / "bootfs.img"], forwards=())
    report = {}

    def note(key, value):
        report[key] = value
        (work / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True))
        print(f"first boot: {key} = {value}", flush=True)

    vm.start()
    try:
        vm.wait_agent(900)
        note("agent_s", round(vm.seconds(), 1))

        def cloud_init_done():
            code, out_, _ = vm.exec(["cloud-init", "status", "--format", "json"], timeout=120)
            st = json.loads(out_ or "{}")
            return st if st.get("status") in ("done", "error") else None

        st = wait_for("cloud-init to finish the first boot", cloud_init_done, TIMEOUT, 15)
        note("cloud_init_done_s", round(vm.seconds(), 1))
        note("cloud_init_status", st.get("status"))
        log = vm.sh("cat /var/log/cloud-init-output.log", check=False)
        (work / "cloud-init-output.log").write_text(log)
        if st.get("status") != "done":
            print(log[-4000:], file=sys.stderr)
            raise VMError(f"cloud-init ended with {st.get('status')}: {st.get('errors')}")
        wait_for("table-companion.service active",
                 lambda: vm.sh("systemctl is-active table-companion || true").strip() == "active",
                 900, 3)
        note("table_ready_s", round(vm.seconds(), 1))
        time.sleep(5)
        vm.screendump(work / "first-frame.png")
        note("first_frame_png", str(work / "first-frame.png"))
        note("install_lines", [ln for ln in log.splitlines()
                               if ln.startswith(("install:", "lgpio:", "Table Companion:"))])
        vm.poweroff(300)
        note("powered_off_s", round(vm.seconds(), 1))
    finally:
        if vm.running():
            vm.power_cut()
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
