"""The firmware cases under CPython, with fake buses (the same cases run under MicroPython in
test_firmware_micropython.py)."""
import pytest

from tests.firmware import fw_cases

CASES = sorted(n for n in dir(fw_cases) if n.startswith("case_"))


@pytest.mark.parametrize("name", CASES)
def test_firmware_case(name):
    getattr(fw_cases, name)()


def test_there_are_cases():
    assert len(CASES) >= 20
