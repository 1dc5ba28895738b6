"""Checking buzzer edges against their deadlines, from gpiozero MockPin histories.

``MockPin.states`` holds ``PinState(timestamp, state)`` where ``timestamp`` is the time since the
*previous* change (the first entry is the state at ``clear_states()``, timestamp 0). gpiozero's
own ``assert_states_and_times`` allows 50 ms and ignores extra states; this module rebuilds
absolute monotonic times and matches every edge to its deadline exactly:

    base = mark_and_clear(pin)              # monotonic time of clear_states()
    ... play patterns, wait ...
    errors = edge_errors(pin.states, base, planned)   # seconds, actual - deadline, per edge
"""
import math
import time

from hardware.errors import HardwareError


class EdgeMismatch(HardwareError, AssertionError):
    """The pin did not go through the planned states (missing, extra or wrong edges)."""


def mark_and_clear(pin) -> float:
    """Clear the pin's history and return the monotonic time it was cleared (within ~1 us)."""
    before = time.monotonic()
    pin.clear_states()
    after = time.monotonic()
    return (before + after) / 2


def absolute_edges(states, base):
    """``[(monotonic time, state)...]`` for every change after the initial entry."""
    t = base
    out = []
    for st in states[1:]:
        t += st.timestamp
        out.append((t, st.state))
    return out


def _on(state) -> bool:
    return bool(state)


def edge_errors(states, base, planned):
    """Errors (actual - planned, seconds) of each planned ``(time, on?)`` edge, in order.

    For patterns that do not overlap; a planned edge that repeats the current level is skipped.
    Raises :class:`EdgeMismatch` if the pin's changes are not exactly the planned ones.
    """
    actual = absolute_edges(states, base)
    expect = []
    level = _on(states[0].state) if states else False
    for t, on in sorted(planned):
        if on != level:
            expect.append((t, on))
            level = on
    if len(actual) != len(expect):
        raise EdgeMismatch(f"{len(actual)} edges on the pin, {len(expect)} planned")
    errors = []
    for i, ((ta, sa), (tp, sp)) in enumerate(zip(actual, expect)):
        if _on(sa) != sp:
            raise EdgeMismatch(f"edge {i} went {'on' if _on(sa) else 'off'}, planned "
                               f"{'on' if sp else 'off'}")
        errors.append(ta - tp)
    return errors


def percentile(values, q):
    """The q-th percentile (0-100) by nearest rank."""
    if not values:
        raise ValueError("no values")
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(q / 100 * len(s)) - 1))
    return s[k]
