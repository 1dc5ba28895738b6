"""Loading the card database from TOML files: every item read with the core's data-file
checker (:mod:`companion.core.datafile`: every mistake at once, suggestions, unknown fields
refused), references between items checked, then each edition's decks (:meth:`CardDB.problems`).
"""
from __future__ import annotations

import dataclasses
import functools
import os
import re
import tomllib
from pathlib import Path
from typing import Iterable

from companion.core.datafile import Fields as _Fields, as_range as _as_range, is_kind, \
    show as _show, suggest as _suggest
from companion.core.errors import DataFileError

from .database import CardDataError, CardDB
from .model import (Card, DeckSpec, Edition, EditionRules, EventCard, Leader, Partner,
                    PersonalDeckSpec)
from .parser import parse_effect
from .vocabulary import CMYK, KIND_TITLES, LEADER_RARITY, PLAYABLE_KINDS, RARITIES

GAME_NAME = "trade-warz"
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
TOP_LEVEL = ("meta", "editions", "card", "event", "partner", "leader")

# -- loading -------------------------------------------------------------------------------------


def load(source: str | os.PathLike | Iterable | None = None, *, strict: bool = True) -> CardDB:
    """Parse and validate a card database.

    ``source``: None (the shipped ``data/``), a directory (every ``*.toml`` in it), one file,
    or a list of files. Raises :class:`CardDataError` listing every mistake. With
    ``strict=False`` only mistakes in the files themselves raise; deck sizes and rarity splits
    are left to :meth:`CardDB.problems` (the CLI lists a broken split before it fails).
    """
    files, label = _files(source)
    db = _Loader(files).run(label)
    if strict:
        problems = db.problems()
        if problems:
            raise CardDataError(problems)
    return db


@functools.cache
def default_db() -> CardDB:
    """The shipped database, loaded and validated once per process."""
    return load()


def card_catalog(edition: str | None = None) -> dict:
    """The card reader's catalog of the shipped database (see :meth:`CardDB.catalog`)."""
    return default_db().catalog(edition)


def _files(source):
    if source is None:
        source = DATA_DIR
    if isinstance(source, (str, os.PathLike)):
        p = Path(source)
        if p.is_dir():
            files = sorted(p.glob("*.toml"))
            if not files:
                raise DataFileError(p, problem="has no .toml files")
            return files, str(p)
        if not p.exists():
            raise DataFileError(p, problem="does not exist")
        return [p], str(p)
    files = [Path(f) for f in source]
    if not files:
        raise DataFileError("(no files)", problem="nothing to load")
    return files, ", ".join(map(str, files))


_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
def _where(files):
    """One file, or the folder that holds several."""
    return files[0] if len(files) == 1 else os.path.commonpath([str(f) for f in files])


def _prefix(errors, start, prefix):
    """Errors found in a sub-table name their field from the item's top, e.g. rules.draw."""
    for i in range(start, len(errors)):
        e = errors[i]
        field = prefix + e.field if e.field else prefix.rstrip(".")
        errors[i] = DataFileError(e.path, e.item, field, e.problem)


class _Loader:
    def __init__(self, files):
        self.files = files
        self.errors = []

    def run(self, label) -> CardDB:
        docs = []
        for path in self.files:
            try:
                with open(path, "rb") as fh:
                    docs.append((path, tomllib.load(fh)))
            except FileNotFoundError:
                self.errors.append(DataFileError(path, problem="does not exist"))
            except tomllib.TOMLDecodeError as e:
                self.errors.append(DataFileError(path, problem=f"is not valid TOML ({e})"))
        for path, doc in docs:
            for key in doc:
                if key not in TOP_LEVEL:
                    known = ", ".join(f"[{k}]" if k in ("meta", "editions") else f"[[{k}]]"
                                      for k in TOP_LEVEL)
                    self.errors.append(DataFileError(
                        path, None, key, f"is not a table this database knows; use {known}"
                        f"{_suggest(key, TOP_LEVEL)}"))
        self._meta(docs)
        self._editions(docs)
        # ids known before items are read, so references can be checked in one pass
        self.partner_ids = self._raw_ids(docs, "partner")
        self.leader_ids = self._raw_ids(docs, "leader")
        items, where = {}, {}
        for path, doc in docs:
            for table in ("leader", "partner", "event", "card"):
                rows = doc.get(table, [])
                if not isinstance(rows, list):
                    self.errors.append(DataFileError(path, None, table,
                                                     f"must be written [[{table}]]"))
                    continue
                for n, row in enumerate(rows, 1):
                    label_ = f"{table} #{n}"
                    if not isinstance(row, dict):
                        self.errors.append(DataFileError(path, label_, None,
                                                         "must be a table"))
                        continue
                    rid = row.get("id")
                    item = rid if isinstance(rid, str) and rid else label_
                    obj = getattr(self, f"_{table}")(_Fields(self.errors, path, item, row))
                    if obj is None:
                        continue
                    if obj.id in items:
                        prev_path, prev_n = where[obj.id]
                        self.errors.append(DataFileError(
                            path, obj.id, "id", f"is used twice: also by {prev_n} in "
                            f"{prev_path}; every card, Event, Trade Partner and Leader needs "
                            f"its own id"))
                        continue
                    items[obj.id] = obj
                    where[obj.id] = (path, label_)
        for obj in items.values():
            if isinstance(obj, Card) and isinstance(items.get(obj.leader), Leader):
                leader = items[obj.leader]
                outside = [e for e in obj.editions if not leader.in_edition(e)]
                if outside:
                    self.errors.append(DataFileError(
                        obj.source, obj.id, "editions", f"include {', '.join(outside)}, but "
                        f"its Leader {leader.name} is not in "
                        f"{'it' if len(outside) == 1 else 'them'}"))
        if self.errors:
            raise CardDataError(self.errors)
        return CardDB(self.version, self.editions, self.tags or (), items, label)

    @staticmethod
    def _raw_ids(docs, table):
        ids = set()
        for _, doc in docs:
            rows = doc.get(table, [])
            if isinstance(rows, list):
                ids.update(r["id"] for r in rows if isinstance(r, dict)
                           and isinstance(r.get("id"), str))
        return ids

    # -- meta and editions -----------------------------------------------------------------
    def _meta(self, docs):
        # tags stay None (unchecked) until [meta] gives them: one missing [meta] is one error
        self.version, self.tags, self.meta_path = "?", None, None
        metas = [(p, d["meta"]) for p, d in docs if "meta" in d]
        if not metas:
            self.errors.append(DataFileError(
                _where(self.files), "meta", None, "is missing: one file needs a [meta] table with game, version "
                              "and tags"))
            return
        for p, _ in metas[1:]:
            self.errors.append(DataFileError(p, "meta", None, f"is defined twice (also in "
                                                              f"{metas[0][0]})"))
        path, meta = metas[0]
        self.meta_path = path
        if not isinstance(meta, dict):
            self.errors.append(DataFileError(path, "meta", None, "must be a table"))
            return
        f = _Fields(self.errors, path, "meta", meta)
        game = f.get("game", str)
        if game is not None and game != GAME_NAME:
            f.err("game", f"is {_show(game)}, but this is the {GAME_NAME} card database")
        self.version = f.get("version", str, nonempty=True) or "?"
        tags = f.strings("tags")
        if tags is not None:
            bad = [t for t in tags if not _ID.match(t)]
            if bad:
                f.err("tags", f"holds {_show(bad[0])}; tags are lowercase words")
            self.tags = tags
        f.finish("[meta]")

    def _editions(self, docs):
        self.editions = {}
        self.edition_names = []     # every edition named, even one whose table has a mistake
        found = [(p, d["editions"]) for p, d in docs if "editions" in d]
        if not found:
            self.errors.append(DataFileError(self.meta_path or _where(self.files), "editions",
                                             None, "are missing: one file needs "
                                                   "[editions.<name>] tables"))
            return
        for path, table in found:
            if not isinstance(table, dict):
                self.errors.append(DataFileError(path, "editions", None, "must be a table"))
                continue
            for name, t in table.items():
                item = f"edition {name}"
                if name in self.edition_names:
                    self.errors.append(DataFileError(path, item, None, "is defined twice"))
                    continue
                if not _ID.match(name):
                    self.errors.append(DataFileError(path, item, None,
                                                     "needs a lowercase name"))
                    continue
                self.edition_names.append(name)
                if not isinstance(t, dict):
                    self.errors.append(DataFileError(path, item, None, "must be a table"))
                    continue
                ed = self._edition(path, name, t)
                if ed is not None:
                    self.editions[name] = ed

    def _edition(self, path, name, t):
        f = _Fields(self.errors, path, f"edition {name}", t)
        title = f.get("title", str, nonempty=True)
        players = f.range_("players", minimum=1)
        partners = f.range_("partners", minimum=1)
        rules = self._rules(f, f.get("rules", dict))
        personal = self._personal(f, f.get("personal", dict))
        decks_t = f.get("decks", dict)
        decks = []
        for dname, dt in (decks_t or {}).items():
            field = f"decks.{dname}"
            if dname not in (*PLAYABLE_KINDS, "event"):
                f.err(field, f"is not a deck kind; decks are named after the kind they hold: "
                             f"export, policy, tactic, event{_suggest(dname, PLAYABLE_KINDS)}")
                continue
            if not isinstance(dt, dict):
                f.err(field, "must be a table")
                continue
            decks.append(self._deck(path, name, dname, dt))
        if "event" not in (decks_t or {"event": 1}):
            f.err("decks", "needs an event deck ([editions.<name>.decks.event])")
        f.finish("an edition")
        if f.ok and None not in decks:
            return Edition(name, title, players, partners, rules, personal, tuple(decks),
                           str(path))
        return None

    def _rules(self, f, t):
        if t is None:
            return None
        before = len(self.errors)
        r = _Fields(self.errors, f.path, f.item, t)
        out = EditionRules(
            fast_pass=r.get("fast_pass", bool),
            influence_accumulates=r.get("influence_accumulates", bool),
            signature_to_global=r.get("signature_to_global", bool),
            draw=r.get("draw", str, choices=("up_to_hand_size", "leader_draw")),
            export_cost=r.get("export_cost", str, choices=("after_disputes", "on_placement")),
            hand_limit=r.get("hand_limit", int, minimum=0))
        r.finish("rules")
        _prefix(self.errors, before, "rules.")
        if not r.ok:
            f.ok = False
            return None
        return out

    def _personal(self, f, t):
        if t is None:
            return None
        before = len(self.errors)
        p = _Fields(self.errors, f.path, f.item, t)
        title = p.get("title", str, nonempty=True)
        size = p.range_("size", minimum=1)
        kinds_t = p.get("kinds", dict)
        kinds = []
        if kinds_t is not None:
            for k in kinds_t:
                if k not in PLAYABLE_KINDS:
                    p.err("kinds", f"names {_show(k)}, which is not export, policy or tactic")
            for k in PLAYABLE_KINDS:
                rng = _as_range(p, "kinds", kinds_t[k]) if k in kinds_t else (0, 0)
                if rng is not None:
                    kinds.append((k, *rng))
        signature = p.strings("signature", (), choices=PLAYABLE_KINDS)
        p.finish("personal")
        _prefix(self.errors, before, "personal.")
        if not p.ok:
            f.ok = False
            return None
        return PersonalDeckSpec(title, size, tuple(kinds), signature)

    def _deck(self, path, ed, name, t):
        d = _Fields(self.errors, path, f"edition {ed}", t)
        before = len(self.errors)
        title = d.get("title", str, nonempty=True)
        size = d.get("size", int, minimum=1)
        rarity = self._rarity(d, "rarity")
        distinct = self._rarity(d, "distinct")
        copies = self._rarity(d, "copies", minimum=1) or (1, 1, 1)
        if rarity is not None and size is not None and sum(rarity) != size:
            d.err("rarity", f"adds up to {sum(rarity)}, but the deck's size is {size}")
        if name == "event" and (rarity or distinct):
            d.err("rarity", "Events have no rarity")
        d.finish("a deck")
        _prefix(self.errors, before, f"decks.{name}.")
        if not d.ok:
            return None
        return DeckSpec(name, title, size, rarity, distinct, copies)

    @staticmethod
    def _rarity(d, key, minimum=0):
        t = d.get(key, dict, None)
        if t is None:
            return None
        out = []
        for k in t:
            if k not in RARITIES:
                d.err(key, f"names {_show(k)}; rarities are {', '.join(RARITIES)}"
                           f"{_suggest(k, RARITIES)}")
                return None
        for r in RARITIES:
            v = t.get(r)
            if not is_kind(v, int) or v < minimum:
                d.err(key, f"needs {r} = a whole number of {minimum} or more")
                return None
            out.append(v)
        return tuple(out)

    # -- items -----------------------------------------------------------------------------
    def _common(self, f):
        """id, name, text, flavour, version, editions: shared by every item."""
        iid = f.get("id", str)
        if iid is not None and not _ID.match(iid):
            f.err("id", f"{_show(iid)} must be lowercase letters, digits and single hyphens, "
                        f"e.g. \"freedom-corn\"")
        name = f.get("name", str, nonempty=True)
        text = f.get("text", str)
        flavour = f.get("flavour", str, "")
        version = f.get("version", int, minimum=1)
        names = tuple(self.edition_names)
        editions = f.strings("editions", names, choices=names)
        if editions == () and "editions" in f.t:
            f.err("editions", "is empty; leave it out for every edition")
        return iid, name, text, flavour, version, editions

    def _copies(self, f, editions, default):
        """``copies``: a number for every edition or ``{edition = n}``; else ``default(ed)``."""
        f.seen.add("copies")
        raw = f.t.get("copies")
        given = {}
        if raw is None:
            pass
        elif is_kind(raw, int):
            if raw < 1:
                f.err("copies", f"must be 1 or more, not {raw}; to leave a card out of an "
                                f"edition, use 'editions'")
                return None
            given = {e: raw for e in editions or ()}
        elif isinstance(raw, dict):
            for e, n in raw.items():
                if e not in (editions or ()):
                    f.err("copies", f"names edition {_show(e)}, which the card is not in "
                                    f"(editions: {', '.join(editions or ())})")
                    return None
                if not is_kind(n, int) or n < 1:
                    f.err("copies", f"must give each edition a whole number of 1 or more, "
                                    f"not {e} = {_show(n)}")
                    return None
                given[e] = n
        else:
            f.err("copies", f"must be a whole number or a table like {{ tariff = 3 }}, "
                            f"not {_show(raw)}")
            return None
        if editions is None:
            return None
        out = []
        for e in editions:
            n = given.get(e)
            if n is None:
                n = default(e)
            if n is None:
                return None
            out.append((e, n))
        return tuple(out)

    def _effects(self, f, owner, text, editions):
        """Parse ``effects``; ``owner`` is the item kind (events and partners have no owner)."""
        raw = f.get("effects", list, [])
        if raw is None:
            return None
        out = []
        for n, t in enumerate(raw, 1):
            field = f"effects[{n}]"
            if not isinstance(t, dict):
                f.err(field, f"must be a table like {{ kind = \"gain_gdp\", amount = 2 }}, "
                             f"not {_show(t)}")
                continue
            eff = parse_effect(t, owner=owner, tags=self.tags, partners=self.partner_ids,
                               editions=[self.editions[e] for e in editions or ()
                                         if e in self.editions],
                               errors=self.errors, path=f.path, item=f.item, field=field)
            if eff is None:
                f.ok = False
            else:
                out.append(eff)
        if text is not None:
            if text.strip() and not raw:
                f.err("effects", "are missing, but the rules text says something: write it "
                                 "as effects, or as { kind = \"manual\", text = \"...\" } so "
                                 "the table is prompted")
            if raw and not text.strip():
                f.err("text", "is empty, but the card has effects: write the rules text "
                              "players read")
        return tuple(out)

    def _cmyk(self, f, default=dataclasses.MISSING):
        v = f.get("cmyk", str, default)
        if v is not None and v not in CMYK:
            f.err("cmyk", f"must be one letter of C (Canary, global), M (Mint, personal), "
                          f"Y (Yeti, opponent-targeting) or K (Kraken, trading-partner), "
                          f"not {_show(v)}")
            return None
        return v

    def _card(self, f):
        iid, name, text, flavour, version, editions = self._common(f)
        kind = f.get("kind", str, choices=PLAYABLE_KINDS)
        deck = f.get("deck", str, choices=("global", "leader"))
        leader = f.get("leader", str, None)
        signature = f.get("signature", bool, False)
        rarity = f.get("rarity", str, None)
        cmyk = self._cmyk(f)
        cost = f.get("cost", int, None if kind == "export" else 0, minimum=0)
        if kind == "export" and "cost" not in f.t:
            f.err("cost", "is missing: every Export has a GDP cost")
        value = f.get("value", int, None, minimum=0)
        influence = f.get("influence", int, None, minimum=0)
        if kind == "export":
            for key, v in (("value", value), ("influence", influence)):
                if v is None and key not in f.t:
                    what = "an export value" if key == "value" else "a printed influence"
                    f.err(key, f"is missing: every Export has {what}")
        elif kind is not None:
            for key in ("value", "influence"):
                if key in f.t:
                    f.err(key, f"is only for Exports; this is a {KIND_TITLES[kind]}")
        tags = f.strings("tags", ())
        for tag in tags or ():
            if self.tags is not None and tag not in self.tags:
                f.err("tags", f"holds {_show(tag)}, which is not in [meta] tags "
                              f"({', '.join(self.tags)}){_suggest(tag, self.tags)}")
        if deck == "leader":
            if leader is None and "leader" not in f.t:
                f.err("leader", "is missing: a card in a Leader's deck names its Leader")
            elif leader is not None and leader not in self.leader_ids:
                f.err("leader", f"names {_show(leader)}, but no [[leader]] has that id"
                                f"{_suggest(leader, self.leader_ids)}")
            if rarity is not None and rarity != LEADER_RARITY:
                f.err("rarity", f"must be left out (or \"leader\") on a Leader's own card; "
                                f"the {'/'.join(RARITIES)} curve is for the global decks")
            rarity = LEADER_RARITY
        elif deck == "global":
            if leader is not None:
                f.err("leader", "is only for cards with deck = \"leader\"")
            if signature:
                f.err("signature", "is only for a Leader's own cards (deck = \"leader\")")
            if rarity is None and "rarity" not in f.t:
                f.err("rarity", f"is missing: a global card is {', '.join(RARITIES)}")
            elif rarity is not None and rarity not in RARITIES:
                f.err("rarity", f"must be one of {', '.join(RARITIES)}, not {_show(rarity)}"
                                f"{_suggest(rarity, RARITIES)}")
                rarity = None
            if kind is not None and editions:
                for e in editions:
                    ed = self.editions.get(e)
                    if ed is not None and ed.deck_spec(kind) is None:
                        f.err("editions", f"include {e}, but {ed.title} has no global "
                                          f"{KIND_TITLES[kind]} deck")
        if deck == "global" and rarity in RARITIES and kind is not None:
            def default(e):
                spec = self.editions[e].deck_spec(kind) if e in self.editions else None
                return spec.copies[RARITIES.index(rarity)] if spec else 1
        else:
            def default(e):
                return 1
        copies = self._copies(f, editions, default)
        effects = self._effects(f, kind or "card", text, editions)
        f.finish("a card ([[card]])")
        if not f.ok:
            return None
        return Card(id=iid, name=name, kind=kind, deck=deck, rarity=rarity, cmyk=cmyk,
                    text=text, version=version, editions=editions, copies=copies, cost=cost,
                    value=value, influence=influence, leader=leader, signature=signature,
                    tags=tags, effects=effects, flavour=flavour, source=str(f.path))

    def _event(self, f):
        iid, name, text, flavour, version, editions = self._common(f)
        cmyk = self._cmyk(f)
        copies = self._copies(f, editions, lambda e: 1)
        effects = self._effects(f, "event", text, editions)
        f.finish("an Event ([[event]])")
        if not f.ok:
            return None
        return EventCard(id=iid, name=name, cmyk=cmyk, text=text, version=version,
                         editions=editions, copies=copies, effects=effects, flavour=flavour,
                         source=str(f.path))

    def _partner(self, f):
        iid, name, text, flavour, version, editions = self._common(f)
        slots = f.get("slots", int, minimum=3, maximum=5)
        bonus = f.get("bonus", int, minimum=0)
        effects = self._effects(f, "partner", text, editions)
        f.finish("a Trade Partner ([[partner]])")
        if not f.ok:
            return None
        return Partner(id=iid, name=name, slots=slots, bonus=bonus, text=text,
                       version=version, editions=editions, effects=effects, flavour=flavour,
                       source=str(f.path))

    def _leader(self, f):
        iid, name, text, flavour, version, editions = self._common(f)
        hand_size = f.get("hand_size", int, minimum=1, maximum=12)
        draw = f.get("draw", int, minimum=1, maximum=12)
        slots = f.get("export_slots", int, minimum=3, maximum=5)
        ability = f.get("ability", str, nonempty=True)
        cmyk = self._cmyk(f, None)
        prototype = f.get("prototype", bool, False)
        effects = self._effects(f, "leader", text, editions)
        f.finish("a Leader ([[leader]])")
        if not f.ok:
            return None
        return Leader(id=iid, name=name, hand_size=hand_size, draw=draw, export_slots=slots,
                      ability=ability, text=text, version=version, editions=editions,
                      effects=effects, cmyk=cmyk, prototype=prototype, flavour=flavour,
                      source=str(f.path))


