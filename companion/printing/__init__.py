"""Printable, scannable cards: the physical half of the table (docs/printing.md).

A service, not part of the rules core: it reads the games' data through their loaders and
draws with reportlab and qrcode; nothing in ``companion.core`` or ``companion.games`` imports it.

* :func:`print_set` (:mod:`.decks`): every physical card of a game, deck by deck, each copy
  with its own ``tc1`` code carrying the db-version of the data it was printed from;
* :func:`render_cards` / :func:`render_stickers` (:mod:`.sheets`): the PDF, poker cards nine
  to an A4 or Letter page with backs for double-sided printing, or QR labels on a label sheet;
* :class:`~.tags.TagWriter` (:mod:`.tags`): the same codes written to NFC tags, card by card.
"""
from . import qr
from .decks import GAMES, catalog_of, print_set
from .model import Back, Corner, Deck, Face, PrintError, PrintSet, Stat, Token
from .sheets import (CARD_H, CARD_W, LABEL_SHEETS, PAPERS, QR_BOX, Report, max_bleed,
                     render_cards, render_stickers)

__all__ = ["GAMES", "catalog_of", "print_set", "qr", "Back", "Corner", "Deck", "Face",
           "PrintError", "PrintSet", "Stat", "Token", "CARD_H", "CARD_W", "LABEL_SHEETS",
           "PAPERS", "QR_BOX", "Report", "max_bleed", "render_cards", "render_stickers"]
