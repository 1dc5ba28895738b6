"""Time is a value. The core never reads a clock by itself: it is handed ``now``.

Session time is the monotonic time the table has been running, continued across restarts:
after a power cut, :class:`SessionClock` resumes from the last time in the log, so a running
timer keeps the remaining time it had (the table was not playing while the power was off).
"""
import math
import time


def fmt_clock(seconds: float) -> str:
    """A countdown as players read it: whole seconds rounded up, ``m:ss``. The one way every
    screen and sentence writes time left (the table, phones' feed, the console).

    >>> fmt_clock(180), fmt_clock(29.2), fmt_clock(0.0), fmt_clock(-3)
    ('3:00', '0:30', '0:00', '0:00')
    """
    s = max(0, math.ceil(round(float(seconds or 0), 3)))
    return f"{s // 60}:{s % 60:02d}"


class MonotonicClock:
    """The real clock: ``time.monotonic()`` in seconds."""

    def now(self) -> float:
        return time.monotonic()


class FakeClock:
    """A clock that only moves when a test says so.

    >>> c = FakeClock(10.0)
    >>> c.advance(2.5)
    >>> c.now()
    12.5
    """

    def __init__(self, start: float = 0.0):
        self._t = float(start)

    def now(self) -> float:
        return self._t

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("a clock cannot go backwards")
        self._t += seconds

    def set(self, t: float) -> None:
        if t < self._t:
            raise ValueError("a clock cannot go backwards")
        self._t = float(t)


class SessionClock:
    """Session time: ``start_at`` plus the base clock's progress since construction.

    >>> base = FakeClock(1000.0)
    >>> sc = SessionClock(base, start_at=42.0)
    >>> base.advance(3)
    >>> sc.now()
    45.0
    """

    def __init__(self, base=None, start_at: float = 0.0):
        self.base = base or MonotonicClock()
        self._origin = self.base.now()
        self._start = float(start_at)

    def now(self) -> float:
        return self._start + (self.base.now() - self._origin)
