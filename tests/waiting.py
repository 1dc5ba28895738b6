"""One way to wait in a test for something another thread or process does."""
import time


def wait_until(predicate, timeout=15.0, step=0.02, what="the condition"):
    """Poll ``predicate()`` until it is truthy and return its value. The limit is generous (the
    machine is shared): it only turns a hang into a clear failure, never times anything."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= end:
            raise AssertionError(f"{what} was not reached in {timeout} s")
        time.sleep(step)
