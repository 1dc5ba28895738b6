"""Reading and checking game data files (TOML), shared by every game.

Every mistake is a :class:`DataFileError` naming the file, the item and the field, with a
sentence a designer can act on.

>>> field("cards.toml", "jazz", {"vp": 3}, "vp", int)
3
>>> field("cards.toml", "jazz", {"vp": "3"}, "vp", int)
Traceback (most recent call last):
...
companion.core.errors.DataFileError: cards.toml: jazz: field 'vp': must be a whole number, not '3'
"""
import dataclasses
import tomllib

from .errors import DataFileError

KIND_NAMES = {int: "a whole number", float: "a number", str: "text", bool: "true or false",
              list: "a list", dict: "a table"}


def read_toml(path) -> dict:
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise DataFileError(path, problem="is missing") from None
    except tomllib.TOMLDecodeError as e:
        raise DataFileError(path, problem=f"is not valid TOML ({e})") from None


def kind_name(kind) -> str:
    return KIND_NAMES.get(kind, kind.__name__)


def field(path, item, table, name, kind, default=dataclasses.MISSING, minimum=None):
    """``table[name]`` checked to be a ``kind`` (an int is accepted as a float; a bool is never
    a number), at least ``minimum``; ``default`` if absent, else an error."""
    if not isinstance(table, dict):
        raise DataFileError(path, item, problem="must be a table")
    if name not in table:
        if default is dataclasses.MISSING:
            raise DataFileError(path, item, name, "is missing")
        return default
    value = table[name]
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if (kind in (int, float) and isinstance(value, bool)) or not isinstance(value, kind):
        raise DataFileError(path, item, name, f"must be {kind_name(kind)}, not {value!r}")
    if minimum is not None and value < minimum:
        raise DataFileError(path, item, name, f"must be at least {minimum}, not {value!r}")
    return value


def items(path, doc, key):
    """``(id, table)`` for each ``[[key]]`` entry; ids must be present and unique."""
    entries = doc.get(key)
    if not isinstance(entries, list) or not entries:
        raise DataFileError(path, problem=f"has no [[{key}]] entries")
    seen = set()
    for i, it in enumerate(entries):
        ident = it.get("id") if isinstance(it, dict) and isinstance(it.get("id"), str) \
            and it.get("id") else None
        if ident is None:
            raise DataFileError(path, f"{key} #{i + 1}", "id", "is missing")
        if ident in seen:
            raise DataFileError(path, ident, "id", "is used twice")
        seen.add(ident)
        yield ident, it
