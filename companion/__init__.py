"""Table Companion: the box in the middle of a board-game table.

``companion.core`` and ``companion.games`` are the pure rules core (standard library only).
``companion.net`` and ``companion.cli`` are services that wire the core to the world.
"""

__version__ = "0.1.0"
