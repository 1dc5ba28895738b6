"""Printable, scannable cards: the physical half of the table (docs/printing.md).

A service, not part of the rules core: it reads the games' data through their loaders and
draws with reportlab and qrcode; nothing in ``companion.core`` or ``companion.games`` imports it.

* :func:`print_set` (:mod:`.decks`): every physical card of a game, deck by deck, each copy
  with its own ``tc1`` code carrying the db-version of the data it was printed from;
* :func:`render_cards` / :func:`render_stickers` (:mod:`.sheets`): the PDF, poker cards nine
  to an A4 or Letter page with backs for double-sided printing, or QR labels on a label sheet;
* :class:`~.tags.TagWriter` (:mod:`.tags`): the same codes written to NFC tags, card by card.
"""
import importlib

# What each public name is imported from, on first use (PEP 562): `companion` commands that
# never print (run, serve) do not load reportlab and qrcode.
_FROM = {"qr": None, "layouts": None,
         **{n: "decks" for n in ("GAMES", "catalog_of", "print_set")},
         **{n: "model" for n in ("Back", "Corner", "Deck", "Face", "PrintError", "PrintSet",
                                 "Stat", "Token")},
         **{n: "layouts" for n in ("LABEL_SHEETS", "PAPERS", "LabelSheet")},
         **{n: "sheets" for n in ("CARD_H", "CARD_W", "QR_BOX", "Report", "max_bleed",
                                  "render_cards", "render_stickers")}}

__all__ = ["GAMES", "catalog_of", "print_set", "qr", "Back", "Corner", "Deck", "Face",
           "PrintError", "PrintSet", "Stat", "Token", "CARD_H", "CARD_W", "LABEL_SHEETS",
           "PAPERS", "QR_BOX", "Report", "max_bleed", "render_cards", "render_stickers"]


def __getattr__(name):
    if name not in _FROM:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    where = _FROM[name]
    if where is None:                       # a submodule
        return importlib.import_module(f"{__name__}.{name}")
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_FROM))
