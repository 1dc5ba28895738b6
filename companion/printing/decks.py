"""Every physical card of a game, deck by deck, copy by copy: :func:`print_set`.

The data is the game's shipped data or a designer's copy (``data=DIR``, a whole copy of the
game's ``data/`` folder, loaded and checked by the game's own loader). The codes carry
:func:`companion.cardcodes.deck_version` of the catalog *of that data*, built exactly as the
game builds the catalog the table scans against (``tests/printing`` checks they agree), so a
card printed from an edited copy is refused by a table that plays other data, with a sentence
saying so.

What each game prints, and the copy counts (docs/printing.md has the same list):

* **Trade Warz / Tariff Warz** (one edition per run): each global deck with its copies per the
  edition; the Event deck; each Leader's own deck (Leader deck / Personal Policy pile); the
  Trade Partners and the Leader tiles. Tariff Warz shuffles a seated Leader's signature Export
  and Tactic into the global decks as a second copy, so each signature card is printed twice:
  once in its Leader's pile, once with the global deck's back.
* **Great Powers**: the Action deck and the Event deck (one copy each, as the data says).
  The bid cards are played on the phones and are not printed.
* **Battle Builder**: Attack and Defence cards (each starting deck once per player at the
  largest table, every shop card once per player there), Monsters, Environments, Arenas and
  Secret objectives (one each).
* **Market Trading**: the Improvements deck (copies as the data says) and a sheet of resource
  tokens (no codes: they are counted, not scanned).
"""
import dataclasses
from pathlib import Path

from companion import cardcodes

from .model import Back, Corner, Deck, Face, PrintError, PrintSet, Stat, Token

GAMES = ("battle-builder", "great-powers", "market-trading", "trade-warz")


def print_set(game: str, edition: str | None = None, data=None) -> PrintSet:
    """The :class:`PrintSet` of ``game`` (one ``edition`` where the game has several)."""
    builder = _BUILDERS.get(game)
    if builder is None:
        from companion import games
        games.get(game)                      # an unknown game: the registry's sentence
        raise PrintError(f"{game} has no physical cards to print. Games with cards: "
                         f"{', '.join(GAMES)}.")
    if data is not None:
        path = Path(data)
        if not path.is_dir():
            raise PrintError(f"--data {data}: not a directory. Give a copy of the game's whole "
                             f"data folder (every .toml file, edited as you like).")
    if edition is not None and game != "trade-warz":
        raise PrintError(f"{_GAME_TITLES[game]} has one edition; leave out --edition.")
    return builder(edition, None if data is None else Path(data))


_GAME_TITLES = {"battle-builder": "Battle Builder", "great-powers": "Great Powers",
                "market-trading": "Market Trading", "trade-warz": "Trade Warz"}


@dataclasses.dataclass
class _Slot:
    card_id: str
    fields: dict


class _Builder:
    """Collects decks of slots, then numbers the copies and makes the codes."""

    def __init__(self, game):
        self.game = game
        self.decks = []              # (key, title, back, [slot, ...])

    def deck(self, key, title, back):
        slots = []
        self.decks.append((key, title, back, slots))
        return slots

    def finish(self, *, title, edition, catalog, source, tokens=(), token_title="", notes=()):
        version = cardcodes.deck_version(catalog)
        totals = {}
        for _, _, _, slots in self.decks:
            for s in slots:
                totals[s.card_id] = totals.get(s.card_id, 0) + 1
        unknown = sorted(i for i in totals if i not in catalog["cards"])
        if unknown:                  # a bug here, never a designer's mistake
            raise AssertionError(f"printing cards outside the catalog: {unknown}")
        seen = {}
        decks = []
        for key, dtitle, back, slots in self.decks:
            if not slots:
                continue
            faces = []
            for s in slots:
                seen[s.card_id] = seen.get(s.card_id, 0) + 1
                copy = seen[s.card_id]
                code = cardcodes.format_code(self.game, s.card_id, copy, version)
                faces.append(Face(card_id=s.card_id, copy=copy, copies=totals[s.card_id],
                                  code=code, deck=dtitle, **s.fields))
            decks.append(Deck(key, dtitle, back, tuple(faces)))
        return PrintSet(self.game, title, edition, version, catalog, source, tuple(decks),
                        tuple(tokens), token_title, tuple(notes))


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?)" else text + "."


def _plural(n, word):
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# -- Trade Warz / Tariff Warz ----------------------------------------------------------------

TW_KIND_COLOURS = {"export": ("#1F5FA8", "blue"), "tactic": ("#B3261E", "red"),
                   "policy": ("#2E7D32", "green"), "event": ("#5D4037", "brown"),
                   "partner": ("#00695C", "teal"), "leader": ("#37474F", "slate grey")}
TW_LEADER_COLOURS = (("#3949AB", "indigo"), ("#AD1457", "crimson"), ("#546E7A", "steel grey"),
                     ("#00838F", "cyan"), ("#EF6C00", "orange"), ("#827717", "olive"),
                     ("#6A1B9A", "purple"), ("#4E342E", "dark brown"))
# The rulebook's cue colours: ring and fill (DESIGN.md); the letter in a colour that reads on
# the fill.
TW_CORNER_COLOURS = {"C": ("#00AEEF", "#FFD400", "#000000"),
                     "M": ("#EC008C", "#A8E6CF", "#000000"),
                     "Y": ("#FFD400", "#D6F0FF", "#000000"),
                     "K": ("#000000", "#4A148C", "#FFFFFF")}


def _tw_corner(cat) -> Corner:
    ring, fill, ink = TW_CORNER_COLOURS[cat.letter]
    return Corner(cat.letter, cat.name, ring, fill, ink)


def _load_tw(data):
    from companion.games.trade_warz import cards as tw
    return tw, (tw.load(data) if data is not None else tw.default_db())


def _build_trade_warz(edition, data):
    tw, db = _load_tw(data)
    ed = db.edition(edition) if edition else next(iter(db.editions.values()))
    b = _Builder("trade-warz")
    leaders = db.leaders(ed.name)
    leader_colour = {l.id: TW_LEADER_COLOURS[i % len(TW_LEADER_COLOURS)]
                     for i, l in enumerate(leaders)}

    def card_face(c, extra_notes=()):
        colour = TW_KIND_COLOURS[c.kind][0]
        stats = [Stat("Cost", f"{c.cost} GDP")]
        if c.kind == "export":
            stats += [Stat("Value", f"{c.value} GDP"), Stat("Influence", str(c.influence))]
        notes = []
        if c.tags:
            notes.append("Tags: " + ", ".join(t.title() for t in c.tags))
        if c.leader:
            leader = db[c.leader]
            notes.append(("Signature card of " if c.signature else "Card of ") + leader.name)
        notes += extra_notes
        return dict(name=c.name, kind=tw.KIND_TITLES[c.kind], accent=colour, stats=tuple(stats),
                    text=c.text, flavour=c.flavour,
                    rarity=c.rarity if c.rarity in tw.RARITIES else None,
                    corner=_tw_corner(c.upkeep), notes=tuple(notes), bolt=c.kind == "tactic")

    for spec in ed.decks:
        colour, cname = TW_KIND_COLOURS.get(spec.name, TW_KIND_COLOURS["event"])
        back = Back(spec.title, colour, cname)
        slots = b.deck(spec.name, spec.title, back)
        for cid in db.deck(ed.name, spec.name):
            item = db[cid]
            if spec.name == "event":
                slots.append(_Slot(cid, dict(
                    name=item.name, kind="Event", accent=colour, text=item.text,
                    flavour=item.flavour, corner=_tw_corner(item.upkeep))))
            else:
                slots.append(_Slot(cid, card_face(item)))
        if ed.rules.signature_to_global:
            for leader in leaders:
                for c in db.signature_cards(leader.id):
                    if c.kind == spec.name and c.in_edition(ed.name):
                        slots.append(_Slot(c.id, card_face(c, (
                            f"Shuffle in only when {leader.name} is at the table",))))
    for leader in leaders:
        colour, cname = leader_colour[leader.id]
        title = f"{leader.name} {ed.personal.title}"
        slots = b.deck(f"leader:{leader.id}", title,
                       Back(leader.name, colour, cname, ed.personal.title))
        for cid in db.leader_deck(ed.name, leader.id):
            slots.append(_Slot(cid, card_face(db[cid])))
    colour, cname = TW_KIND_COLOURS["partner"]
    slots = b.deck("partners", "Trade Partners", Back("Trade Partner", colour, cname))
    for p in db.partners(ed.name):
        slots.append(_Slot(p.id, dict(
            name=p.name, kind="Trade Partner", accent=colour, text=p.text, flavour=p.flavour,
            stats=(Stat("Route slots", str(p.slots)), Stat("Bonus", f"+{p.bonus} GDP a route")))))
    colour, cname = TW_KIND_COLOURS["leader"]
    slots = b.deck("leaders", "Leaders", Back("Leader", colour, cname, "Leader tile"))
    for leader in leaders:
        draw = (Stat("Hand size", str(leader.hand_size)) if ed.rules.draw == "up_to_hand_size"
                else Stat("Draw", f"{leader.draw} a round"))
        notes = ("Prototype Leader: needs playtesting",) if leader.prototype else ()
        slots.append(_Slot(leader.id, dict(
            name=leader.name, kind="Leader", accent=colour, subtitle=leader.ability,
            stats=(draw, Stat("Export slots", str(leader.export_slots))), text=leader.text,
            flavour=leader.flavour, notes=notes,
            corner=_tw_corner(tw.CMYK[leader.cmyk]) if leader.cmyk else None)))
    notes = [f"{ed.title}: GDP is kept with coins and the timer runs on the table, so neither "
             f"is printed."]
    if ed.rules.fast_pass:
        notes.append("Fast-Pass tokens (one per player) are not printed: use any marker.")
    return b.finish(title=ed.title, edition=ed.name, catalog=db.catalog(), source=db.source,
                    notes=notes)


# -- Great Powers ----------------------------------------------------------------------------

GP_TOKEN_COLOURS = {"vp": "#FFFFFF", "industry": "#212121", "population": "#2E7D32",
                    "nationalism": "#C62828", "navy": "#1565C0", "army": "#6D4C41",
                    "colony": "#FDD835"}          # the rulebook's token colours
GP_WARS = {"great": "Great War", "east": "War in East Europe", "west": "War in West Europe"}


def _gp_rules(data):
    from companion.games.great_powers import data as gp
    return gp, (gp.load_rules(data) if data is not None else gp.default_rules())


def gp_catalog(rules) -> dict:
    cards = {cid: a.name for cid, a in rules.actions.items()}
    cards.update({eid: e.name for eid, e in rules.events.items()})
    return {"version": rules.version, "cards": cards}


def _build_great_powers(edition, data):
    gp, rules = _gp_rules(data)
    b = _Builder("great-powers")
    names = gp.TOKEN_NAMES
    colour = "#1A237E"
    slots = b.deck("actions", "Action deck", Back("Action", colour, "navy blue", "Great Powers"))
    for a in rules.actions.values():
        stats = []
        for label, table in (("Gain", a.gain), ("Pay", a.cost), ("Target loses", a.target_loses),
                             ("Steal", a.steal), ("Others lose", a.others_lose)):
            for token, n in table.items():
                stats.append(Stat(label, f"{n} {names[token]}", GP_TOKEN_COLOURS[token]))
        if a.extra_bids:
            stats.append(Stat("Next turn", f"+{_plural(a.extra_bids, 'bid')}"))
        if a.target_fewer_bids:
            stats.append(Stat("Target next turn", f"-{_plural(a.target_fewer_bids, 'bid')}"))
        if a.peek_event:
            stats.append(Stat("Peek", "next Event"))
        slots.append(_Slot(a.id, dict(name=a.name, kind="Action", accent=colour,
                                      stats=tuple(stats), text=_sentence(a.text),
                                      notes=("Target: a player you choose",)
                                      if a.needs_target else ())))
    colour = "#8E0000"
    slots = b.deck("events", "Event deck", Back("Event", colour, "dark red", "Great Powers"))
    for e in rules.events.values():
        if e.war:
            stats = (Stat("War", GP_WARS[e.war]), Stat("Winner", f"{rules.war_vp} VP"))
        else:
            stats = (Stat("Highest", " + ".join(names[t] for t in e.award_traits),
                          GP_TOKEN_COLOURS[e.award_traits[0]] if len(e.award_traits) == 1
                          else None),
                     Stat("Award", f"{e.award_vp} VP", GP_TOKEN_COLOURS["vp"]))
        slots.append(_Slot(e.id, dict(name=e.name, kind="Event", accent=colour, stats=stats,
                                      text=_sentence(e.text))))
    return b.finish(title="Great Powers", edition=None, catalog=gp_catalog(rules),
                    source=str(data or gp.DATA),
                    notes=("The six bid cards per player are chosen on the phones and are not "
                           "printed; tokens are any counters.",))


# -- Battle Builder --------------------------------------------------------------------------

def _bb_rules(data):
    from companion.games.battle_builder import data as bb
    return bb, (bb.load_rules(data) if data is not None else bb.default_rules())


def bb_catalog(rules) -> dict:
    cards = {cid: c.name for cid, c in rules.cards.items()}
    for table in (rules.monsters, rules.environments, rules.arenas, rules.objectives):
        cards.update({k: v.name for k, v in table.items()})
    return {"version": rules.version, "cards": cards}


def _bb_abilities(rules, monster):
    bt = rules.battle
    words = {
        "aoe": "AoE: its attack hits every player.",
        "enrage": f"Enrage: +{bt['enrage_attack']} attack after turn {bt['enrage_after']}.",
        "regeneration": f"Regeneration: heals {bt['regeneration']} HP at the end of each turn.",
        "counter": f"Counter: deals {bt['counter']} damage to a player who hits it.",
        "armor_piercing": "Armor piercing: its attacks ignore defence cards.",
        "speed_drain": f"Speed drain: the faster player loses {bt['speed_drain']} stamina "
                       f"each turn.",
    }
    printed = [words[a] for a in monster.abilities if a in bt["printed_abilities"]]
    variant = [words[a] for a in monster.abilities if a not in bt["printed_abilities"]]
    lines = printed + (["Variant C: " + " ".join(variant)] if variant else [])
    return " ".join(lines)


def _build_battle_builder(edition, data):
    bb, rules = _bb_rules(data)
    from companion.games.battle_builder import GAME
    players = GAME.max_players
    b = _Builder("battle-builder")
    costs = rules.shop["tier_cost"]
    decks = {"attack": b.deck("attack", "Attack cards",
                              Back("Attack", "#B71C1C", "red", "Battle Builder")),
             "defense": b.deck("defense", "Defence cards",
                               Back("Defence", "#0D47A1", "blue", "Battle Builder"))}
    counts = {}
    for cid in rules.setup["attack_deck"] + rules.setup["defense_deck"]:
        counts[cid] = counts.get(cid, 0) + players
    for cid, c in rules.cards.items():
        if c.tier:
            counts[cid] = players
    for kind in ("attack", "defense"):
        colour = "#B71C1C" if kind == "attack" else "#0D47A1"
        for cid, c in rules.cards.items():
            if c.kind != kind or not counts.get(cid):
                continue
            if kind == "attack":
                stats = [Stat("Damage", str(c.damage))]
                if c.min_stamina:
                    stats.append(Stat("Min stamina", str(c.min_stamina)))
                if c.speed:
                    stats.append(Stat("Speed", f"+{c.speed}"))
                if c.heal:
                    stats.append(Stat("Heal", str(c.heal)))
            else:
                stats = [Stat("Block", str(c.block))]
                if c.counter:
                    stats.append(Stat("Counter", str(c.counter)))
            sub = ("Basic card: starting deck" if c.tier == 0
                   else f"Tier {c.tier}: {costs[c.tier - 1]} tokens in the shop")
            face = dict(name=c.name, kind="Attack" if kind == "attack" else "Defence",
                        accent=colour, subtitle=sub, stats=tuple(stats),
                        text=_sentence(c.text()))
            for _ in range(counts[cid]):
                decks[kind].append(_Slot(cid, face))
    colour = "#4E342E"
    slots = b.deck("monsters", "Monsters", Back("Monster", colour, "dark brown",
                                                "Battle Builder"))
    for m in rules.monsters.values():
        defence = " / ".join(map(str, m.defense)) if m.defense else "none"
        slots.append(_Slot(m.id, dict(
            name=m.name, kind="Monster", accent=colour,
            subtitle=f"{m.difficulty.title()} monster",
            stats=(Stat("HP", str(m.hp)), Stat("Attack", str(m.attack)),
                   Stat("Speed", str(m.speed)), Stat("Reward", f"{m.reward} tokens"),
                   Stat("Defence deck", defence)),
            text=_bb_abilities(rules, m))))
    for key, title, table, colour, cname, kind in (
            ("environments", "Environments", rules.environments, "#2E7D32", "green",
             "Environment"),
            ("arenas", "Arenas", rules.arenas, "#E65100", "orange", "Arena"),
            ("objectives", "Secret objectives", rules.objectives, "#4A148C", "purple",
             "Secret objective")):
        slots = b.deck(key, title, Back(kind, colour, cname, "Battle Builder"))
        for item in table.values():
            stats = (Stat("VP", str(item.vp)),) if kind == "Secret objective" else ()
            slots.append(_Slot(item.id, dict(name=item.name, kind=kind, accent=colour,
                                             stats=stats, text=_sentence(item.text))))
    return b.finish(title="Battle Builder", edition=None, catalog=bb_catalog(rules),
                    source=str(data or bb.DATA),
                    notes=(f"Attack and Defence cards: each starting deck {players} times and "
                           f"every shop card {players} times (one per player at a "
                           f"{players}-player table). HP, stamina and skill tokens are any "
                           f"counters.",))


# -- Market Trading --------------------------------------------------------------------------

MT_TERRAIN_COLOURS = {"field": "#F9E79F", "forest": "#A9DFBF", "mountain": "#D5D8DC",
                      "water": "#AED6F1", "desert": "#F5CBA7"}
MT_TIER_COLOURS = {2: "#D7BDE2", 3: "#F5B7B1"}


def _mt_rules(data):
    from companion.games.market_trading import data as mt
    return mt, (mt.load_rules(data) if data is not None else mt.default_rules())


def mt_catalog(rules) -> dict:
    return {"version": rules.version,
            "cards": {k: i.name for k, i in rules.improvements.items()}}


def _build_market_trading(edition, data):
    mt, rules = _mt_rules(data)
    from companion.games.market_trading import GAME
    names = {k: r.name for k, r in rules.resources.items()}

    def show(pairs):
        return " + ".join(f"{n} {names[r]}" for r, n in pairs)

    def effect(label, e):
        parts = []
        if e.gain:
            parts.append(f"gain {show(e.gain)}")
        if e.points:
            parts.append(f"take {_plural(e.points, 'point')} from your bowl")
        for terrain, n in e.extra:
            parts.append(f"put {n} more on the tile you foraged if it is {terrain}")
        return f"{label}: " + ", ".join(parts) + "."

    b = _Builder("market-trading")
    colour = "#5D4037"
    slots = b.deck("improvements", "Improvements deck",
                   Back("Improvement", colour, "brown", "Market Trading"))
    for imp in rules.improvements.values():
        lines = []
        if imp.convert_in:
            lines.append(f"Use: turn {show(imp.convert_in)} into {show(imp.convert_out)}.")
        if imp.on_build is not None:
            lines.append(effect("On Build (when you build another improvement)", imp.on_build))
        if imp.on_forage is not None:
            lines.append(effect("On Forage", imp.on_forage))
        face = dict(name=imp.name, kind="Improvement", accent=colour,
                    stats=(Stat("Cost", show(imp.cost)),), text=" ".join(lines))
        for _ in range(imp.copies):
            slots.append(_Slot(imp.id, face))
    per = rules.market_cap + 2 * GAME.max_players
    tokens = []
    for r in rules.resources.values():
        colour = MT_TERRAIN_COLOURS.get(r.terrain) or MT_TIER_COLOURS.get(r.tier, "#EEEEEE")
        tokens.append((Token(r.name, str(r.value), f"({r.first})", f"Tier {r.tier}", colour),
                       per))
    return b.finish(title="Market Trading", edition=None, catalog=mt_catalog(rules),
                    source=str(data or mt.DATA), tokens=tokens,
                    token_title="Market Trading resource tokens",
                    notes=(f"Resource tokens: {per} of each (the market's cap of "
                           f"{rules.market_cap} plus 2 per player at a {GAME.max_players}-player "
                           f"table); the big number is the market value, the one in parenthesis "
                           f"the points for the first one in an empty market. Point tokens and "
                           f"the terrain boards are not printed.",))


_BUILDERS = {"trade-warz": _build_trade_warz, "great-powers": _build_great_powers,
             "battle-builder": _build_battle_builder, "market-trading": _build_market_trading}


def catalog_of(game: str, data=None) -> dict:
    """The card catalog of ``data`` (or the shipped data), built as the game's own
    ``card_catalog()`` builds it for the shipped data."""
    if game == "trade-warz":
        return _load_tw(data)[1].catalog()
    loader, make = {"great-powers": (_gp_rules, gp_catalog),
                    "battle-builder": (_bb_rules, bb_catalog),
                    "market-trading": (_mt_rules, mt_catalog)}[game]
    return make(loader(data)[1])


def editions(game: str) -> tuple:
    """The edition names a game prints (empty for a game with one edition)."""
    if game != "trade-warz":
        return ()
    return tuple(_load_tw(None)[1].editions)

