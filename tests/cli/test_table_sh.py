"""table.sh on a system it cannot serve: one sentence, before it installs or changes anything.

The machine's answers (`uname -m`, whether apt exists) come from stand-in commands first on
PATH; apt-get, dpkg and sudo are stand-ins that record any call, so a refusal that still
touched the system would show.
"""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def fake_bin(tmp_path, machine, apt=True):
    b = tmp_path / "bin"
    b.mkdir()
    calls = tmp_path / "calls"
    (b / "uname").write_text(f"#!/bin/sh\n[ \"$1\" = -m ] && echo {machine} || /bin/uname \"$@\"\n")
    names = ["apt-get", "dpkg", "sudo", "python3"] if apt else ["sudo", "python3"]
    for name in names:
        (b / name).write_text(f"#!/bin/sh\necho {name} \"$@\" >> {calls}\nexit 1\n")
    for f in b.iterdir():
        f.chmod(0o755)
    # the rest of a shell's tools (no apt-get/dpkg from the host when apt=False)
    keep = tmp_path / "sys"
    keep.mkdir()
    for tool in ("bash", "sh", "cat", "echo", "id", "dirname", "env"):
        found = shutil.which(tool)
        if found:
            (keep / tool).symlink_to(found)
    return f"{b}:{keep}", calls


@pytest.mark.parametrize("machine", ["armv7l", "armv6l"])
def test_32_bit_arm_is_refused_in_one_sentence_before_anything(tmp_path, machine):
    path, calls = fake_bin(tmp_path, machine)
    for mode in ("run", "test", "install"):
        r = subprocess.run(["/bin/bash", str(ROOT / "table.sh"), mode], cwd=tmp_path,
                           env={"PATH": path, "HOME": str(tmp_path)}, capture_output=True,
                           text=True, timeout=30)
        assert r.returncode == 2
        assert r.stdout == ""
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "32-bit" in lines[0] and "64-bit Raspberry Pi OS" in lines[0]
        assert not calls.exists(), calls.read_text()


def test_an_unknown_machine_or_no_apt_is_refused(tmp_path):
    path, calls = fake_bin(tmp_path, "riscv64")
    r = subprocess.run(["/bin/bash", str(ROOT / "table.sh"), "run"], cwd=tmp_path,
                       env={"PATH": path}, capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "riscv64 is not supported" in r.stderr
    assert not calls.exists()
    other = tmp_path / "other"
    other.mkdir()
    path, calls = fake_bin(other, "aarch64", apt=False)
    r = subprocess.run(["/bin/bash", str(ROOT / "table.sh"), "run"], cwd=other,
                       env={"PATH": path}, capture_output=True, text=True, timeout=30)
    assert r.returncode == 2 and "no apt here" in r.stderr, r.stderr
    assert not calls.exists()


def test_usage_names_every_mode(tmp_path):
    r = subprocess.run(["/bin/bash", str(ROOT / "table.sh"), "frobnicate"],
                       capture_output=True, text=True, timeout=30, env=dict(os.environ))
    assert r.returncode == 2
    for mode in ("run", "test", "install", "uninstall", "test-box"):
        assert mode in r.stderr
