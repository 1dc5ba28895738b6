"""Checking a move's arguments (JSON values), once for every game: each check returns the value
or raises :class:`IllegalMoveError` with a sentence a player can read.

>>> is_whole(3), is_whole(True), is_whole(3.0)
(True, False, False)
>>> whole(2, "slot")
2
>>> whole(True, "A bid")
Traceback (most recent call last):
...
companion.core.errors.IllegalMoveError: A bid must be a whole number, not True.
"""
from .errors import IllegalMoveError


def is_whole(value) -> bool:
    """A whole number, and not a bool (JSON's ``true`` is no number)."""
    return isinstance(value, int) and not isinstance(value, bool)


def out_of_bounds(value, minimum=None, maximum=None):
    """None if ``value`` is from ``minimum`` to ``maximum`` (either may be None), else what it
    must be, in words ("3 or more", "at most 9", "from 1 to 4")."""
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        if maximum is None:
            return f"{minimum} or more"
        if minimum is None:
            return f"at most {maximum}"
        return f"from {minimum} to {maximum}"
    return None


def whole(value, what, minimum=None, maximum=None):
    """``value`` as a whole number from ``minimum`` to ``maximum`` (either may be None)."""
    if not is_whole(value):
        raise IllegalMoveError(f"{what} must be a whole number, not {value!r}.")
    need = out_of_bounds(value, minimum, maximum)
    if need:
        raise IllegalMoveError(f"{what} must be {need}, not {value}.")
    return value


def seat(state, value, what="target"):
    """``value`` as a seat at this table."""
    if not is_whole(value) or not 0 <= value < state.n:
        raise IllegalMoveError(f"Choose a player as the {what} (a seat from 0 to "
                               f"{state.n - 1}), not {value!r}.")
    return value


def flag(value, what):
    """``value`` as true or false."""
    if not isinstance(value, bool):
        raise IllegalMoveError(f"{what} must be true or false.")
    return value
