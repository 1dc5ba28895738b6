"""Trade Warz and Tariff Warz: one game, two editions (see DESIGN.md).

This package holds the card database (:mod:`companion.games.trade_warz.cards` and ``data/*.toml``).
The rules engine that defines ``GAME`` (and ``card_catalog()`` for the card reader) is built on
it in a later task; until then the package deliberately exposes no ``GAME``, so the game registry
does not list it.
"""
