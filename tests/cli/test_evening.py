"""`--evening YYYY-MM-DD` (companion/cli/common.py): one club night, past midnight included."""
import time

import pytest

from companion.cli.common import ConfigError, _evening


@pytest.fixture
def berlin(monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    yield
    monkeypatch.delenv("TZ")
    time.tzset()


def _at(text):
    return time.mktime(time.strptime(text, "%Y-%m-%d %H:%M"))


def test_an_evening_runs_from_six_to_six_so_a_night_past_midnight_is_one(berlin):
    start, end = _evening("2026-11-28")
    assert start == _at("2026-11-28 06:00") and end == _at("2026-11-29 06:00")
    for t in ("2026-11-28 19:00", "2026-11-28 23:59", "2026-11-29 01:30"):
        assert start <= _at(t) < end, t
    for t in ("2026-11-28 05:59", "2026-11-29 06:00"):
        assert not start <= _at(t) < end, t


def test_the_evening_a_clock_change_falls_in_is_25_hours(berlin):
    start, end = _evening("2026-10-24")      # clocks go back at 03:00 on the 25th
    assert end - start == 25 * 3600


def test_a_date_that_is_not_one_is_a_sentence():
    with pytest.raises(ConfigError, match="YYYY-MM-DD"):
        _evening("28/11/2026")
