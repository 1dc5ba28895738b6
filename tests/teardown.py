"""One way to clean up after a test: close everything, and say what could not be closed.

A close that fails in a teardown must not hide the test's own result (so it does not raise),
and must not be silent either (a phone left connected or a broker left running changes the next
test): it warns, naming what was left behind and why. pytest lists the warning under the test.
"""
import warnings


class TeardownWarning(UserWarning):
    """Something a test started was not closed; the message names it."""


def close_all(things, what="a client", close=lambda t: t.close()):
    """``close`` each of ``things``; each failure is a :class:`TeardownWarning` naming ``what``
    and the thing; the others are still closed."""
    for thing in list(things):
        try:
            close(thing)
        except Exception as e:      # noqa: BLE001  (any failure: said, never raised)
            warnings.warn(TeardownWarning(
                f"teardown left {what} behind: {thing!r} did not close "
                f"({type(e).__name__}: {e})"), stacklevel=2)
