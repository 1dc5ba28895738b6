"""Parsing one effect table (as written in TOML) into an :class:`~.model.Effect`, checked
against the vocabulary: every mistake names the file, the item and the field, with the word
the designer probably meant."""
from __future__ import annotations

from typing import Iterable

from companion.core.datafile import is_kind, kind_name as type_name, show, suggest
from companion.core.errors import DataFileError

from .model import Edition, Effect
from .vocabulary import (COMMON_KEYS, COMPUTES, CONDITIONS, EFFECT_KINDS, KIND_TITLES,
                         OWNERLESS_TARGETS)

def parse_effect(table: dict, *, owner: str = "tactic", tags: Iterable[str] | None = None,
                 partners: Iterable[str] | None = None, editions: Iterable[Edition] = (),
                 errors: list | None = None, path="<effect>", item=None,
                 field="effect") -> Effect | None:
    """Parse one effect table (as written in TOML) for an item of kind ``owner``.

    ``tags``/``partners`` are the known tag and Trade Partner ids (None: not checked);
    ``editions`` are the editions the card is in (kinds that need a rule, such as influence
    or Fast-Pass, are refused where it is off). Mistakes are appended to ``errors``; without an
    ``errors`` list the first one is raised as :class:`DataFileError`.

    >>> parse_effect({"kind": "gain_gdp", "amount": 2}).describe()
    'gain_gdp amount=2 (immediate, self)'
    """
    raising = errors is None
    errs = [] if raising else errors
    start = len(errs)
    ownerless = owner in ("event", "partner")

    def err(key, problem):
        errs.append(DataFileError(path, item, f"{field}.{key}" if key else field, problem))

    kind_name = table.get("kind")
    if "kind" not in table:
        err("kind", f"is missing; kinds: {', '.join(EFFECT_KINDS)}")
    elif not isinstance(kind_name, str) or kind_name not in EFFECT_KINDS:
        err("kind", f"{show(kind_name)} is not an effect kind{suggest(kind_name, EFFECT_KINDS)}; "
                    f"kinds: {', '.join(EFFECT_KINDS)}. Write kind = \"manual\" with text for "
                    f"what they cannot say")
    if len(errs) > start:
        return _done(errs, start, raising)
    kind = EFFECT_KINDS[kind_name]
    owner_word = KIND_TITLES.get(owner, owner)

    if ownerless and kind.needs_owner:
        err("kind", f"{kind.name} needs someone to receive what is taken, but "
                    f"{'an' if owner == 'event' else 'a'} {owner_word} has no owner")
        return _done(errs, start, raising)

    when = table.get("when", kind.whens[0])
    if not isinstance(when, str) or when not in kind.whens:
        err("when", f"must be one of {', '.join(kind.whens)} for {kind.name}, not {show(when)}"
                    f"{suggest(when, kind.whens)}")
    elif when == "activated" and owner != "leader":
        article = "an" if owner[0] in "aeiou" else "a"
        err("when", f"activated is for Leaders' abilities only, not on {article} {owner_word}")

    allowed = tuple(t for t in kind.targets if not ownerless or t in OWNERLESS_TARGETS)
    target = table.get("target", allowed[0] if ownerless and allowed else kind.targets[0])
    if not isinstance(target, str) or target not in allowed:
        why = (f" ({'an' if owner == 'event' else 'a'} {owner_word} has no owner)"
               if ownerless and target in kind.targets else "")
        err("target", f"must be one of {', '.join(allowed)} for {kind.name}{why}, not "
                      f"{show(target)}{suggest(target, allowed)}")

    condition = table.get("condition")
    if condition is not None:
        if ownerless:
            err("condition", f"needs an owner; {'an' if owner == 'event' else 'a'} "
                             f"{owner_word} has none")
        elif not isinstance(condition, str) or condition not in CONDITIONS:
            err("condition", f"must be one of {', '.join(CONDITIONS)}, not {show(condition)}"
                             f"{suggest(condition, CONDITIONS)}")
    optional = table.get("optional", False)
    if not isinstance(optional, bool):
        err("optional", f"must be true or false, not {show(optional)}")

    values = {}
    for key, v in table.items():
        if key in COMMON_KEYS:
            continue
        p = kind.param(key)
        if p is None:
            names = ", ".join(q.name for q in kind.params) or "none"
            err(key, f"is not a parameter of {kind.name} (its parameters: {names})"
                     f"{suggest(key, [q.name for q in kind.params] + list(COMMON_KEYS))}")
            continue
        if not is_kind(v, p.type):
            err(key, f"must be {type_name(p.type)}, not {show(v)}")
            continue
        if p.choices and v not in p.choices:
            err(key, f"must be one of {', '.join(p.choices)}, not {show(v)}"
                     f"{suggest(v, p.choices)}")
            continue
        if p.minimum is not None and v < p.minimum:
            err(key, f"must be {p.minimum} or more, not {v}")
            continue
        if p.nonzero and v == 0:
            err(key, "must not be 0")
            continue
        if p.type is str and not v.strip():
            err(key, "is empty")
            continue
        if p.ref == "tag" and tags is not None and v not in tags:
            err(key, f"{show(v)} is not a tag in [meta] tags{suggest(v, tags)}")
            continue
        if p.ref == "partner":
            if v == "this":
                if owner != "partner":
                    err(key, "\"this\" is only for a Trade Partner's own effects")
                    continue
            elif v == "chosen":
                if ownerless:
                    err(key, f"\"chosen\" needs an owner to choose; "
                             f"{'an' if owner == 'event' else 'a'} {owner_word} has none: "
                             f"name a partner id or leave it out")
                    continue
            elif partners is not None and v not in partners:
                err(key, f"{show(v)} is not a Trade Partner id (nor \"chosen\" or \"this\")"
                         f"{suggest(v, partners)}")
                continue
        values[key] = v
    for key in kind.required:
        if key not in table:
            err(key, f"is missing: {kind.name} needs {', '.join(kind.required)}")
    if kind.name == "manual":
        _check_compute(values, when, target, editions, err)
    if kind.needs:
        for ed in editions:
            if not getattr(ed.rules, kind.needs):
                word = {"influence_accumulates": "accumulated influence",
                        "fast_pass": "Fast-Pass tokens"}[kind.needs]
                err("kind", f"{kind.name} needs {word}, which {ed.title} does not have; "
                            f"keep this card out of {ed.name} (editions) or say it another way")
    if len(errs) > start:
        return _done(errs, start, raising)
    if kind.name == "draw":
        values.setdefault("deck", "any")
    return Effect(kind=kind.name, when=when, target=target, condition=condition,
                  optional=optional, **values)


def _check_compute(values, when, target, editions, err):
    """A manual effect's ``compute`` and the parameters only a computation reads."""
    name = values.get("compute")
    extra = [k for k in ("amount", "count", "seconds", "max_gap") if k in values]
    if name is None:
        if extra:
            err(extra[0], "is read only by a computation: add compute = \"...\" "
                          f"({', '.join(COMPUTES)}) or leave it out")
        return
    c = COMPUTES[name]
    if when not in c.whens:
        err("when", f"must be one of {', '.join(c.whens)} for compute {name}, not {when}")
    if target not in c.targets:
        err("target", f"must be one of {', '.join(c.targets)} for compute {name}, not {target}")
    for k in extra:
        if k not in c.params:
            err(k, f"is not read by compute {name} (it reads: "
                   f"{', '.join(c.params) or 'nothing'})")
    for k in c.required:
        if k not in values:
            err(k, f"is missing: compute {name} needs {', '.join(c.required)}")
    if c.needs:
        for ed in editions:
            if not getattr(ed.rules, c.needs):
                err("compute", f"{name} needs accumulated influence, which {ed.title} does "
                               f"not have; keep this card out of {ed.name} (editions)")


def _done(errs, start, raising):
    if raising and len(errs) > start:
        raise errs[start]
    return None
