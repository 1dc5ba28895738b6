"""Derived data, kept right by the core: a value computed from part of the game's data is cached
until that part changes, and the change is noticed by the data itself, never by a counter
someone must remember to bump.

A game puts the data that derived values read into a :class:`Tracked` record (a dataclass
inheriting it). Every change to the record, to a field or to any list or dict inside it, counts
as a change; :meth:`companion.core.state.State.derived` recomputes a value after its record
changed and serves the cached one otherwise.

>>> import dataclasses
>>> @dataclasses.dataclass
... class Board(Tracked):
...     routes: dict
>>> b = Board({"crypto": {}})
>>> v = b.version()
>>> b.routes["crypto"][1] = [0, "corn"]           # a change deep inside counts
>>> b.version() > v
True
>>> isinstance(b.routes["crypto"], dict)
True
"""


class Tracked:
    """Base of a dataclass whose every change is counted (:meth:`version`). Lists and dicts put
    into it (at any depth) become tracked copies: keep no other reference to change them by."""

    _changes = 0            # changes counted so far (the class's 0 until the first one)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, _track(value, self))
        object.__setattr__(self, "_changes", self._changes + 1)

    def version(self) -> int:
        return self._changes

    def _changed(self):
        object.__setattr__(self, "_changes", self._changes + 1)


def _track(value, owner):
    t = type(value)
    if t is list or t is TrackedList:
        return TrackedList(owner, value)
    if t is dict or t is TrackedDict:
        return TrackedDict(owner, value)
    return value


class TrackedList(list):
    __slots__ = ("_owner",)

    def __init__(self, owner, items=()):
        self._owner = owner
        super().__init__(_track(v, owner) for v in items)

    def __reduce__(self):
        return (list, (list(self),))

    def __setitem__(self, i, v):
        if isinstance(i, slice):
            v = [_track(x, self._owner) for x in v]
        else:
            v = _track(v, self._owner)
        super().__setitem__(i, v)
        self._owner._changed()

    def __delitem__(self, i):
        super().__delitem__(i)
        self._owner._changed()

    def __iadd__(self, other):
        self.extend(other)
        return self

    def __imul__(self, n):
        super().__imul__(n)
        self._owner._changed()
        return self

    def append(self, v):
        super().append(_track(v, self._owner))
        self._owner._changed()

    def extend(self, vs):
        super().extend([_track(v, self._owner) for v in vs])
        self._owner._changed()

    def insert(self, i, v):
        super().insert(i, _track(v, self._owner))
        self._owner._changed()

    def pop(self, *i):
        got = super().pop(*i)
        self._owner._changed()
        return got

    def remove(self, v):
        super().remove(v)
        self._owner._changed()

    def clear(self):
        super().clear()
        self._owner._changed()

    def sort(self, *a, **k):
        super().sort(*a, **k)
        self._owner._changed()

    def reverse(self):
        super().reverse()
        self._owner._changed()


class TrackedDict(dict):
    __slots__ = ("_owner",)

    def __init__(self, owner, items=()):
        self._owner = owner
        super().__init__((k, _track(v, owner)) for k, v in dict(items).items())

    def __reduce__(self):
        return (dict, (dict(self),))

    def __setitem__(self, k, v):
        super().__setitem__(k, _track(v, self._owner))
        self._owner._changed()

    def __delitem__(self, k):
        super().__delitem__(k)
        self._owner._changed()

    def __ior__(self, other):
        self.update(other)
        return self

    def pop(self, *a):
        got = super().pop(*a)
        self._owner._changed()
        return got

    def popitem(self):
        got = super().popitem()
        self._owner._changed()
        return got

    def clear(self):
        super().clear()
        self._owner._changed()

    def update(self, *a, **k):
        super().update({key: _track(v, self._owner) for key, v in dict(*a, **k).items()})
        self._owner._changed()

    def setdefault(self, k, default=None):
        if k not in self:
            self[k] = default
        return self[k]
