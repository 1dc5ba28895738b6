"""Reading and checking game data files (TOML), one checker for every game.

A :class:`Checker` reads the files and a :class:`Fields` per table checks each value; every
mistake is recorded (a :class:`DataFileError` naming the file, the item and the field, with a
sentence a designer can act on, and the name they probably meant) and loading goes on, so one
run lists them all; :meth:`Checker.done` then raises one :class:`DataFileErrors` holding them.
A field a table does not know is refused (:meth:`Fields.finish`).

>>> c = Checker()
>>> f = c.fields("cards.toml", "jazz", {"vp": "3", "colour": "red"})
>>> f.get("vp", int), f.get("name", str)
(None, None)
>>> f.finish("a card")
>>> print(*c.errors, sep="\\n")
cards.toml: jazz: field 'vp': must be a whole number, not "3"
cards.toml: jazz: field 'name': is missing
cards.toml: jazz: field 'colour': is not a field of a card
>>> c.done()
Traceback (most recent call last):
...
companion.core.errors.DataFileErrors: cards.toml: jazz: field 'vp': must be a whole number, not "3" (and 2 more problems)
"""
import dataclasses
import difflib
import tomllib

from .args import is_whole, out_of_bounds
from .errors import DataFileError, DataFileErrors

MISSING = dataclasses.MISSING
KIND_NAMES = {int: "a whole number", float: "a number", str: "text", bool: "true or false",
              list: "a list", dict: "a table"}


def read_toml(path) -> dict:
    """One TOML file; a missing or broken file is a :class:`DataFileError` at once."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise DataFileError(path, problem="is missing") from None
    except tomllib.TOMLDecodeError as e:
        raise DataFileError(path, problem=f"is not valid TOML ({e})") from None


def kind_name(kind) -> str:
    return KIND_NAMES.get(kind, kind.__name__)


def show(v) -> str:
    """A value as a designer wrote it in TOML."""
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "a table"
    if isinstance(v, list):
        return "a list"
    return str(v)


def is_kind(v, kind) -> bool:
    """``v`` is a ``kind`` (a bool is never a number; a whole number is also a number)."""
    if kind is int:
        return is_whole(v)
    if kind is float:
        return is_whole(v) or isinstance(v, float)
    return isinstance(v, kind)


def suggest(word, options) -> str:
    """" (did you mean 'x'?)" when ``word`` is close to one of ``options``."""
    close = difflib.get_close_matches(str(word), [str(o) for o in options], n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


class Fields:
    """Reads one TOML table (``item`` in ``path``), recording each mistake in ``errors`` and
    returning None for a value that is wrong or missing. ``ok`` is False once any is."""

    def __init__(self, errors, path, item, table, prefix=""):
        self.errors, self.path, self.item, self.t = errors, path, item, table
        self.prefix = prefix            # a sub-table's fields are named "award.vp"
        self.ok = True
        self.seen = set()
        if not isinstance(table, dict):
            self.err(None, "must be a table")
            self.t = {}

    def err(self, field, problem):
        field = self.prefix + field if field else (self.prefix.rstrip(".") or None)
        self.errors.append(DataFileError(self.path, self.item, field, problem))
        self.ok = False

    def get(self, key, typ, default=MISSING, *, choices=(), minimum=None, maximum=None,
            nonempty=False):
        """``table[key]`` checked to be a ``typ`` (an int is taken as a float), one of
        ``choices``, from ``minimum`` to ``maximum``; ``default`` if absent (else missing)."""
        if key not in self.t:
            return self._absent(key, default)
        self.seen.add(key)
        v = self.t[key]
        if not is_kind(v, typ):
            self.err(key, f"must be {kind_name(typ)}, not {show(v)}")
            return None
        if typ is float:
            v = float(v)
        if choices and v not in choices:
            self.err(key, f"must be one of {', '.join(map(str, choices))}, not {show(v)}"
                          f"{suggest(v, choices)}")
            return None
        need = out_of_bounds(v, minimum, maximum)
        if need:
            self.err(key, f"must be {need}, not {v}")
            return None
        if nonempty and typ is str and not v.strip():
            self.err(key, "is empty")
            return None
        return v

    def strings(self, key, default=MISSING, choices=()):
        """A list of distinct texts (each one of ``choices``, if given), as a tuple."""
        v = self.get(key, list, default)
        if v is None or v is default:
            return v
        out = []
        for x in v:
            if not isinstance(x, str):
                self.err(key, f"must be a list of text, but holds {show(x)}")
                return None
            if choices and x not in choices:
                self.err(key, f"holds {show(x)}, which is not one of "
                              f"{', '.join(choices)}{suggest(x, choices)}")
                return None
            out.append(x)
        if len(set(out)) != len(out):
            self.err(key, "lists the same value twice")
            return None
        return tuple(out)

    def amounts(self, key, names, what="token", minimum=1, default=MISSING):
        """A table ``{name: whole number}`` whose names are ``names`` (``what`` they are)."""
        v = self.get(key, dict, {} if default is MISSING else default)
        if not isinstance(v, dict):
            return v
        out = {}
        for k, n in v.items():
            if k not in names:
                self.err(f"{key}.{k}", f"is not a {what}; use one of {', '.join(names)}"
                                       f"{suggest(k, names)}")
            elif not is_whole(n) or n < minimum:
                need = "a positive whole number" if minimum == 1 else \
                    f"a whole number, {minimum} or more"
                self.err(f"{key}.{k}", f"must be {need}, not {show(n)}")
            else:
                out[k] = n
        return out

    def range_(self, key, default=MISSING, minimum=0):
        """A whole number (exact) or ``[min, max]``."""
        if key not in self.t:
            return self._absent(key, default)
        self.seen.add(key)
        return as_range(self, key, self.t[key], minimum)

    def _absent(self, key, default):
        self.seen.add(key)
        if default is MISSING:
            self.err(key, "is missing")
            return None
        return default

    def table(self, key, item=None, required=True):
        """The sub-table ``key`` as its own :class:`Fields`: its mistakes name the field
        ``key.name`` of this item, or (given ``item``) the field ``name`` of ``item``. None if
        it is wrong, or absent and not ``required``."""
        v = self.get(key, dict, MISSING if required else None)
        if v is None:
            return None
        if item is not None:
            return Fields(self.errors, self.path, item, v)
        return Fields(self.errors, self.path, self.item, v, f"{self.prefix}{key}.")

    def finish(self, what):
        """Refuse every field this table holds that was never asked for."""
        for k in self.t:
            if k not in self.seen:
                self.err(k, f"is not a field of {what}{suggest(k, self.seen)}")


def as_range(f, field, v, minimum=0):
    if is_whole(v):
        lo = hi = v
    elif isinstance(v, list) and len(v) == 2 and all(is_whole(x) for x in v):
        lo, hi = v
    else:
        f.err(field, f"must be a whole number or [min, max], not {show(v)}")
        return None
    if lo < minimum or hi < lo:
        f.err(field, f"must be a range from {minimum} up with min <= max, not {show(v)}")
        return None
    return lo, hi


class Checker:
    """Collects every mistake in a set of data files; :meth:`done` raises them together."""

    def __init__(self):
        self.errors = []

    def read(self, path) -> dict:
        """A file's tables ({} if it is missing or broken: the mistake is recorded)."""
        try:
            return read_toml(path)
        except DataFileError as e:
            self.errors.append(e)
            return {}

    def fields(self, path, item, table) -> Fields:
        return Fields(self.errors, path, item, table)

    def error(self, path, item=None, field=None, problem="is invalid"):
        self.errors.append(DataFileError(path, item, field, problem))

    def items(self, path, doc, key, what=None):
        """``(id, Fields)`` for each ``[[key]]`` entry; ids must be present and unique."""
        entries = doc.get(key)
        if not isinstance(entries, list) or not entries:
            self.error(path, problem=f"has no [[{key}]] entries")
            return
        seen = set()
        for i, it in enumerate(entries):
            ident = it.get("id") if isinstance(it, dict) and isinstance(it.get("id"), str) \
                and it.get("id") else None
            if ident is None:
                self.error(path, f"{key} #{i + 1}", "id", "is missing")
                continue
            if ident in seen:
                self.error(path, ident, "id", "is used twice")
                continue
            seen.add(ident)
            f = self.fields(path, ident, it)
            f.seen.add("id")
            yield ident, f

    @property
    def ok(self) -> bool:
        return not self.errors

    def done(self):
        """Raise every recorded mistake at once (one :class:`DataFileErrors`), if any."""
        if self.errors:
            raise DataFileErrors(self.errors)
