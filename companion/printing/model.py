"""What gets printed, as plain values: a :class:`PrintSet` holds a game's physical decks, each
deck its back and its :class:`Face` s (one per physical copy, each with its own card code), and
any tokens that carry no code. Built by :mod:`companion.printing.decks`, drawn by
:mod:`companion.printing.sheets`.
"""
import dataclasses

from companion.core.errors import CompanionError


class PrintError(CompanionError):
    """Something cannot be printed as asked (a text too long for its card, a paper the bleed
    does not fit, an unknown label sheet). Nothing was written."""


@dataclasses.dataclass(frozen=True)
class Corner:
    """Trade Warz's C/M/Y/K upkeep badge: always the letter and the name with the colours."""
    letter: str
    name: str
    ring: str                   # "#RRGGBB"
    fill: str
    ink: str                    # the letter's colour on the fill


@dataclasses.dataclass(frozen=True)
class Stat:
    """A labelled number on a face ("Cost" "2 GDP"). ``swatch``: a token colour shown beside
    it (Great Powers' token colours)."""
    label: str
    value: str
    swatch: str | None = None


@dataclasses.dataclass(frozen=True)
class Back:
    """A deck's back: its colour (named, for colour-blind sorting), its title and subtitle."""
    title: str
    colour: str
    colour_name: str
    subtitle: str = ""


@dataclasses.dataclass(frozen=True)
class Face:
    """One physical copy of a card: everything its front shows, and its code."""
    card_id: str
    copy: int
    copies: int                 # copies of this card in the whole print run
    name: str
    kind: str                   # "Export", "Action", "Monster", ...
    accent: str                 # the header colour (usually the deck's back colour)
    code: str                   # the tc1 code in the QR and on the NFC tag
    deck: str                   # the deck's title
    subtitle: str = ""          # a line under the name (a Leader's ability, a difficulty)
    stats: tuple = ()           # Stat, ...
    text: str = ""              # rules text
    flavour: str = ""
    rarity: str | None = None   # "common" / "uncommon" / "rare" (drawn as a shape and a word)
    corner: Corner | None = None
    notes: tuple = ()           # small lines by the QR code ("Signature card: USA", tags)
    bolt: bool = False          # Trade Warz Tactics carry a lightning bolt


@dataclasses.dataclass(frozen=True)
class Deck:
    key: str                    # "export", "leader:usa", "actions", ...
    title: str
    back: Back
    faces: tuple                # Face, ... in print order


@dataclasses.dataclass(frozen=True)
class Token:
    """A small cut-out token without a code (Market Trading's resources)."""
    name: str
    big: str                    # the large number
    small: str                  # the number in parenthesis
    line: str                   # a short line under the name ("Tier 1")
    colour: str


@dataclasses.dataclass(frozen=True)
class PrintSet:
    game: str                   # registry name ("trade-warz")
    title: str                  # "Trade Warz"
    edition: str | None
    version: str                # the db-version every code carries (cardcodes.deck_version)
    catalog: dict               # the catalog the codes resolve against
    source: str                 # where the data came from (the shipped data or a directory)
    decks: tuple                # Deck, ...
    tokens: tuple = ()          # (Token, count), ...
    token_title: str = ""
    notes: tuple = ()           # sentences for the designer (what is not printed and why)

    def faces(self):
        return [f for d in self.decks for f in d.faces]

    def deck(self, key):
        for d in self.decks:
            if d.key == key:
                return d
        raise PrintError(f"{self.title} has no deck {key!r}. Decks: "
                         f"{', '.join(d.key for d in self.decks)}.")
