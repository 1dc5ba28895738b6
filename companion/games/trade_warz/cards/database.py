"""The loaded card database, :class:`CardDB`: items by id, each edition's cards, decks and
Leader decks, the card reader's catalog, and the deck reports (sizes, rarity split) that check a
designer's edited copy."""
from __future__ import annotations

from typing import Iterable, Iterator

from companion.core.errors import ConfigError, DataFileError, DataFileErrors

from .model import Card, DeckReport, Edition, EventCard, Leader, Partner
from .vocabulary import KIND_TITLES, PLAYABLE_KINDS, RARITIES

#: Every mistake in the data files at once (the core's :class:`DataFileErrors`).
CardDataError = DataFileErrors

# -- the database --------------------------------------------------------------------------------


class CardDB:
    """Every item by id, the editions, and each edition's decks (built once, as tuples)."""

    def __init__(self, version, editions, tags, items, source):
        self.version = version
        self.editions = dict(editions)          # name -> Edition, in file order
        self.tags = tuple(tags)
        self.source = source
        self._items = dict(items)               # id -> Card | EventCard | Partner | Leader
        self._lists = {}                        # (class, edition, kind) -> tuple, on demand
        self._decks = {}
        self._leader_decks = {}
        self._signatures = {}
        for c in self._items.values():
            if isinstance(c, Card) and c.signature:
                self._signatures[c.leader] = self._signatures.get(c.leader, ()) + (c,)
        for ed in self.editions.values():
            for spec in ed.decks:
                kind_items = [i for i in self._items.values() if i.kind == spec.name
                              and i.in_edition(ed.name)
                              and getattr(i, "deck", "global") == "global"]
                self._decks[ed.name, spec.name] = tuple(
                    i.id for i in kind_items for _ in range(i.copies_in(ed.name)))
            for leader in self.leaders(ed.name):
                self._leader_decks[ed.name, leader.id] = tuple(
                    c.id for c in self._items.values() if isinstance(c, Card)
                    and c.leader == leader.id and c.in_edition(ed.name)
                    for _ in range(c.copies_in(ed.name)))

    # -- lookups ---------------------------------------------------------------------------
    def __getitem__(self, item_id: str):
        return self._items[item_id]

    def get(self, item_id: str, default=None):
        return self._items.get(item_id, default)

    def __contains__(self, item_id) -> bool:
        return item_id in self._items

    def __iter__(self) -> Iterator:
        return iter(self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def edition(self, name: str) -> Edition:
        try:
            return self.editions[name]
        except KeyError:
            raise ConfigError(f"Trade Warz has no edition {name!r}. Editions: "
                              f"{', '.join(self.editions)}.") from None

    def _of(self, cls, edition, kind=None):
        key = (cls, edition, kind)
        found = self._lists.get(key)
        if found is None:
            if edition is not None:
                self.edition(edition)
            found = tuple(i for i in self._items.values() if isinstance(i, cls)
                          and (edition is None or i.in_edition(edition))
                          and (kind is None or i.kind == kind))
            if cls is Leader:
                found = tuple(sorted(found, key=lambda l: l.prototype))
            self._lists[key] = found
        return found

    def cards(self, edition: str | None = None, kind: str | None = None) -> tuple:
        """Exports, Policies and Tactics (global and Leader cards), in file order."""
        return self._of(Card, edition, kind)

    def events(self, edition: str | None = None) -> tuple:
        return self._of(EventCard, edition)

    def partners(self, edition: str | None = None) -> tuple:
        return self._of(Partner, edition)

    def leaders(self, edition: str | None = None) -> tuple:
        """Leaders in file order, the non-prototype ones first."""
        return self._of(Leader, edition)

    def signature_cards(self, leader: str) -> tuple:
        """A Leader's signature cards (every edition), in file order."""
        return self._signatures.get(leader, ())

    # -- decks -----------------------------------------------------------------------------
    def deck(self, edition: str, deck: str, leaders: Iterable[str] = ()) -> tuple:
        """A global deck as card ids, one per copy, in file order (shuffle it yourself with
        the session's seeded rng). With the seated ``leaders`` and an edition whose rules say
        ``signature_to_global``, each of their signature cards of this kind is added once."""
        ed = self.edition(edition)
        try:
            base = self._decks[edition, deck]
        except KeyError:
            raise ConfigError(f"{ed.title} has no {deck!r} deck. Decks: "
                              f"{', '.join(d.name for d in ed.decks)}.") from None
        if not ed.rules.signature_to_global:
            return base
        extra = []
        for lid in leaders:
            self._leader(ed, lid)
            extra += [c.id for c in self.signature_cards(lid)
                      if c.kind == deck and c.in_edition(edition)]
        return base + tuple(extra)

    def leader_deck(self, edition: str, leader: str) -> tuple:
        """A Leader's own deck (Leader deck / Personal Policy pile) as card ids."""
        ed = self.edition(edition)
        self._leader(ed, leader)
        return self._leader_decks[edition, leader]

    def _leader(self, ed: Edition, leader_id: str) -> Leader:
        found = self._items.get(leader_id)
        if not isinstance(found, Leader) or not found.in_edition(ed.name):
            raise ConfigError(f"{ed.title} has no Leader {leader_id!r}. Leaders: "
                              f"{', '.join(l.id for l in self.leaders(ed.name))}.")
        return found

    def catalog(self, edition: str | None = None) -> dict:
        """``{"version": str, "cards": {id: name}}`` for the card reader: every physical
        item (cards, Events, Trade Partners, Leader tiles), sorted by id."""
        if edition is not None:
            self.edition(edition)
        cards = {i.id: i.name for i in self._items.values()
                 if edition is None or i.in_edition(edition)}
        return {"version": self.version, "cards": dict(sorted(cards.items()))}

    def manual_effects(self, edition: str | None = None) -> tuple:
        """``((item, effect), ...)`` for every manual effect the companion cannot compute:
        what the table resolves by hand."""
        return tuple((i, e) for i in self._items.values()
                     if edition is None or i.in_edition(edition) for e in i.manual_effects)

    def computed_effects(self, edition: str | None = None) -> tuple:
        """``((item, effect), ...)`` for every manual effect the companion computes."""
        return tuple((i, e) for i in self._items.values()
                     if edition is None or i.in_edition(edition) for e in i.computed_effects)

    # -- composition -----------------------------------------------------------------------
    def composition(self, edition: str) -> tuple:
        """A :class:`DeckReport` for every global deck, then every Leader's own deck."""
        ed = self.edition(edition)
        reports = []
        for spec in ed.decks:
            reports.append(self._deck_report(ed, spec))
        for leader in self.leaders(edition):
            reports.append(self._leader_report(ed, leader))
        return tuple(reports)

    def _deck_report(self, ed, spec):
        ids = self._decks[ed.name, spec.name]
        cards = [self._items[i] for i in dict.fromkeys(ids)]
        kinds = _count(self._items[i].kind for i in ids)
        problems = []
        if len(ids) != spec.size:
            problems.append(f"has {len(ids)} cards; {ed.title} needs {spec.size}")
        rarity = distinct = None
        if spec.rarity is not None or spec.distinct is not None:
            rarity = tuple(sum(c.copies_in(ed.name) for c in cards if c.rarity == r)
                           for r in RARITIES)
            distinct = tuple(sum(1 for c in cards if c.rarity == r) for r in RARITIES)
            for label, have, need in (("copies", rarity, spec.rarity),
                                      ("different cards", distinct, spec.distinct)):
                if need is not None and have != need:
                    over = [r for r, h, n in zip(RARITIES, have, need) if h > n]
                    named = "; ".join(
                        f"the {r} cards are " + ", ".join(c.id for c in cards if c.rarity == r)
                        for r in over)
                    problems.append(
                        f"rarity split is {_split(have)} {label} (common/uncommon/rare); "
                        f"{ed.title} needs {_split(need)}" + (f". Check 'rarity' and "
                                                              f"'copies': {named}" if named
                                                              else ""))
        return DeckReport(ed.name, spec.name, spec.title, len(ids), (spec.size, spec.size),
                          kinds, rarity, spec.rarity, distinct, spec.distinct, tuple(problems))

    def _leader_report(self, ed, leader):
        spec = ed.personal
        ids = self._leader_decks[ed.name, leader.id]
        kinds = _count(self._items[i].kind for i in ids)
        have = dict(kinds)
        problems = []
        lo, hi = spec.size
        if not lo <= len(ids) <= hi:
            problems.append(f"has {len(ids)} cards; {ed.title} needs {_range(lo, hi)}")
        for kind, klo, khi in spec.kinds:
            n = have.get(kind, 0)
            if not klo <= n <= khi:
                problems.append(f"has {n} {KIND_TITLES[kind]} card{'s' if n != 1 else ''}; "
                                f"{ed.title} needs {_range(klo, khi)}")
        for kind in spec.signature:
            plain = [i for i in dict.fromkeys(ids) if self._items[i].kind == kind
                     and not self._items[i].signature]
            if plain:
                problems.append(f"may hold only signature {KIND_TITLES[kind]} cards in "
                                f"{ed.title}, but {', '.join(plain)} "
                                f"{'is' if len(plain) == 1 else 'are'} not marked "
                                f"signature = true")
        return DeckReport(ed.name, f"leader:{leader.id}", f"{leader.name} {spec.title}",
                          len(ids), spec.size, kinds, None, None, None, None, tuple(problems))

    def problems(self, edition: str | None = None) -> tuple:
        """Every way an edition's decks, Leaders or Trade Partners differ from what it needs,
        as :class:`DataFileError` s (empty when all is well)."""
        out = []
        for ed in self.editions.values():
            if edition is not None and ed.name != edition:
                continue
            for rep in self.composition(ed.name):
                if rep.ok:
                    continue
                if rep.deck.startswith("leader:"):
                    lid = rep.deck.split(":", 1)[1]
                    files = [self._items[i].source for i in
                             self._leader_decks[ed.name, lid]] or [self._items[lid].source]
                    path = _most(files)
                    item = f"{lid} ({ed.title} {ed.personal.title})"
                else:
                    ids = self._decks[ed.name, rep.deck]
                    path = _most(self._items[i].source for i in ids) if ids else ed.source
                    item = f"{ed.title} {rep.title}"
                for p in rep.problems:
                    if rep.deck.startswith("leader:"):
                        field = "leader"
                    else:
                        field = "rarity" if p.startswith("rarity") else "size"
                    out.append(DataFileError(path, item, field, p))
            leaders = self.leaders(ed.name)
            need = ed.players[1]
            if len(leaders) < need:
                out.append(DataFileError(
                    _most([l.source for l in leaders]) or ed.source, ed.title, "leaders",
                    f"has {len(leaders)} Leaders but seats up to {need} players; every player "
                    f"needs a Leader"))
            partners = self.partners(ed.name)
            lo, hi = ed.partners
            if not lo <= len(partners) <= hi:
                out.append(DataFileError(
                    _most([p.source for p in partners]) or ed.source, ed.title, "partners",
                    f"has {len(partners)} Trade Partners; it needs {_range(lo, hi)}"))
        return tuple(out)


def _count(kinds) -> tuple:
    out = {}
    for k in kinds:
        out[k] = out.get(k, 0) + 1
    return tuple((k, out[k]) for k in (*PLAYABLE_KINDS, "event") if k in out)


def _split(t) -> str:
    return "/".join(map(str, t))


def _range(lo, hi) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _most(files):
    files = list(files)
    return max(set(files), key=lambda f: (files.count(f), f)) if files else ""


