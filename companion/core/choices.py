"""What each argument of a move may be: the legal choices a client draws as pickers.

A game gives each :class:`~companion.core.game.Move` a ``choices(state, seat)`` function that
returns a list of *argument specs*, one per argument, in the order a player answers them. The
core puts them in the views (``legal`` in a seat view, ``table_legal`` in the public view), so
the phone page, the table screen and the bots all read the same list and nobody types an id,
a number they could pick, or JSON. The spec format is documented in ``docs/protocol.md``
(section 4.7); this module builds specs and answers questions about them.

Kinds (``spec["kind"]``) and the value each gives its argument:

======== =================================================== ==============================
kind     fields                                              value
======== =================================================== ==============================
one      ``options``                                         one option's ``value``
number   ``min``, ``max``, ``step``                          an int in [min, max]
order    ``options``, ``min``, ``max``                       a list of distinct values, in order
subset   ``options``, ``min``, ``max``                       a list of distinct values
counts   ``options`` (each with ``max``), ``total`` or       ``{value: n}``; zeros may be left out
         ``min``/``max`` of the sum
flag     ``default``                                         true or false
text     ``max_len``                                         a short free note (never an id)
======== =================================================== ==============================

Every spec has ``name`` (the argument), ``label`` (the question, in words), and may have
``optional`` (the argument may be left out), ``default`` and ``when``. An *option* is
``{"value": v, "label": "shown name"}`` with optional ``detail`` (cost, text) and ``when``.

``when`` is ``{other_arg: [values...]}``: the spec (or option) applies only if each named
argument, answered earlier in the list, has one of those values. The same argument may appear
in several specs with disjoint ``when`` (say, a range that depends on the card chosen); a
client uses the first spec whose ``when`` holds and skips an argument none applies to.

>>> specs = [one("card", [option("a", "Apple"), option("b", "Bread")], "Which card?"),
...          number("stamina", 0, 3, "Stamina", when={"card": ["a"]})]
>>> import random
>>> sorted(sample(specs, random.Random(1)))
['card', 'stamina']
>>> check(specs, {"card": "b"})
>>> check(specs, {"card": "c"})
Traceback (most recent call last):
...
companion.core.errors.IllegalMoveError: 'c' is not one of the choices (Which card?).
"""
import json

from .args import is_whole
from .errors import IllegalMoveError

KINDS = ("one", "number", "order", "subset", "counts", "flag", "text")


def _spec(kind, name, label, when=None, optional=False, default=None, **fields):
    s = {"name": name, "kind": kind, "label": label or name.replace("_", " ").capitalize()}
    s.update(fields)
    if optional:
        s["optional"] = True
    if default is not None:
        s["default"] = default
    if when:
        s["when"] = {k: list(v) for k, v in when.items()}
    return s


def option(value, label, detail=None, when=None, **extra) -> dict:
    """One choice: the ``value`` sent, the ``label`` a player reads, an optional ``detail``
    (cost, effect) and ``when`` (see the module doc). ``extra`` fields (``kind``, ``max``...)
    are carried for clients that draw richer pickers."""
    o = {"value": value, "label": str(label)}
    if detail:
        o["detail"] = str(detail)
    if when:
        o["when"] = {k: list(v) for k, v in when.items()}
    o.update(extra)
    return o


def seat_options(state, seats) -> list:
    """Seats as options labelled with the players' names."""
    return [option(s, state.players[s]) for s in seats]


def one(name, options, label="", **kw) -> dict:
    return _spec("one", name, label, options=list(options), **kw)


def number(name, lo, hi, label="", step=1, **kw) -> dict:
    return _spec("number", name, label, min=int(lo), max=int(hi), step=int(step), **kw)


def order(name, options, lo, hi, label="", **kw) -> dict:
    """An ordered pick of ``lo``..``hi`` distinct options (first choice first)."""
    return _spec("order", name, label, options=list(options), min=int(lo), max=int(hi), **kw)


def subset(name, options, lo, hi, label="", **kw) -> dict:
    return _spec("subset", name, label, options=list(options), min=int(lo), max=int(hi), **kw)


def counts(name, options, label="", total=None, lo=None, hi=None, **kw) -> dict:
    """How many of each option (each option carries its own ``max``), with the sum either
    exactly ``total`` or between ``lo`` and ``hi``."""
    fields = {"options": list(options)}
    if total is not None:
        fields["total"] = int(total)
    else:
        fields["min"], fields["max"] = int(lo or 0), int(hi if hi is not None else 10**6)
    return _spec("counts", name, label, **fields, **kw)


def flag(name, label="", default=False, **kw) -> dict:
    return _spec("flag", name, label, default=bool(default), **kw)


def text(name, label="", max_len=80, **kw) -> dict:
    return _spec("text", name, label, max_len=int(max_len), **kw)


# -- questions about specs ------------------------------------------------------------------------

def _key(v):
    return json.dumps(v, sort_keys=True)


def _holds(when, args) -> bool:
    for k, vals in (when or {}).items():
        if k not in args or _key(args[k]) not in {_key(v) for v in vals}:
            return False
    return True


def active(specs, args) -> list:
    """The specs that apply given the arguments answered so far (first per name wins)."""
    out, seen = [], set()
    for s in specs:
        if s["name"] in seen or not _holds(s.get("when"), args):
            continue
        seen.add(s["name"])
        out.append(s)
    return out


def options_now(spec, args) -> list:
    """A spec's options whose ``when`` holds for the arguments answered so far."""
    return [o for o in spec.get("options", ()) if _holds(o.get("when"), args)]


def check(specs, args) -> None:
    """Raise :class:`IllegalMoveError` unless ``args`` answers ``specs`` (names, kinds,
    ranges, options). Arguments no spec asks for are refused too."""
    if not isinstance(args, dict):
        raise IllegalMoveError("A move's arguments must be an object.")
    asked, got = set(), {}
    for s in specs:
        name = s["name"]
        if name in asked or not _holds(s.get("when"), got):
            continue
        asked.add(name)
        if name not in args:
            if s.get("optional"):
                continue
            what = str(s["label"]).rstrip("?:. ")
            raise IllegalMoveError(f"Still to answer: {what}.")
        _check_one(s, args[name], got)
        got[name] = args[name]
    extra = sorted(set(args) - asked)
    if extra:
        raise IllegalMoveError(f"Nothing asks for {', '.join(extra)} now.")


def _check_one(s, v, got):
    kind, label = s["kind"], s["label"]
    vals = {_key(o["value"]) for o in options_now(s, got)}
    if kind == "one":
        if _key(v) not in vals:
            raise IllegalMoveError(f"{v!r} is not one of the choices ({label}).")
    elif kind == "number":
        if not is_whole(v) or not s["min"] <= v <= s["max"]:
            raise IllegalMoveError(f"{label}: a whole number from {s['min']} to {s['max']}.")
    elif kind in ("order", "subset"):
        if not isinstance(v, list) or len({_key(x) for x in v}) != len(v):
            raise IllegalMoveError(f"{label}: a list of different choices.")
        if not s["min"] <= len(v) <= s["max"] or any(_key(x) not in vals for x in v):
            raise IllegalMoveError(f"{label}: {s['min']} to {s['max']} of the choices.")
    elif kind == "counts":
        if not isinstance(v, dict):
            raise IllegalMoveError(f"{label}: how many of each.")
        caps = {str(o["value"]): o.get("max", 10**6) for o in options_now(s, got)}
        for k, n in v.items():
            if (k not in caps or not is_whole(n)
                    or not 0 <= n <= caps[k]):
                raise IllegalMoveError(f"{label}: {k!r} {n!r} is not allowed.")
        total = sum(v.values())
        lo, hi = (s["total"], s["total"]) if "total" in s else (s["min"], s["max"])
        if not lo <= total <= hi:
            raise IllegalMoveError(f"{label}: {total} in all; "
                                   f"{lo if lo == hi else f'{lo} to {hi}'} wanted.")
    elif kind == "flag":
        if not isinstance(v, bool):
            raise IllegalMoveError(f"{label}: yes or no.")
    elif kind == "text":
        if not isinstance(v, str) or len(v) > s["max_len"]:
            raise IllegalMoveError(f"{label}: up to {s['max_len']} characters of text.")
    else:
        raise IllegalMoveError(f"{label}: unknown kind {kind!r}.")


def sample(specs, rng, skip_optional=0.3):
    """Random arguments that answer ``specs`` (for bots and the conformance tests), or None
    when some required argument has nothing to choose from."""
    args = {}
    seen = set()
    for s in specs:
        name = s["name"]
        if name in seen or not _holds(s.get("when"), args):
            continue
        seen.add(name)
        if s.get("optional") and rng.random() < skip_optional:
            continue
        v = _sample_one(s, args, rng)
        if v is _NONE:
            if s.get("optional"):
                continue
            return None
        args[name] = v
    return args


_NONE = object()


def _sample_one(s, args, rng):
    kind = s["kind"]
    opts = [o for o in options_now(s, args) if not o.get("disabled")]
    if kind == "one":
        return rng.choice(opts)["value"] if opts else _NONE
    if kind == "number":
        return rng.randint(s["min"], s["max"]) if s["min"] <= s["max"] else _NONE
    if kind in ("order", "subset"):
        if len(opts) < s["min"]:
            return _NONE
        k = rng.randint(s["min"], min(s["max"], len(opts)))
        return [o["value"] for o in rng.sample(opts, k)]
    if kind == "counts":
        caps = {str(o["value"]): int(o.get("max", 0)) for o in opts}
        lo, hi = (s["total"], s["total"]) if "total" in s else (s["min"], s["max"])
        hi = min(hi, sum(caps.values()))
        if lo > hi:
            return _NONE
        want = rng.randint(lo, hi)
        got = dict.fromkeys(caps, 0)
        for _ in range(want):
            room = [k for k in caps if got[k] < caps[k]]
            got[rng.choice(room)] += 1
        return {k: n for k, n in got.items() if n}
    if kind == "flag":
        return rng.random() < 0.5
    if kind == "text":
        return "note"
    return _NONE
