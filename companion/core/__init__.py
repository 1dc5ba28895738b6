"""The pure rules core: standard library only, no hardware, network or UI import.

Everything a table does goes through here: a :class:`~companion.core.game.Game` definition
(fixed rules and config), a mutable :class:`~companion.core.state.State`, sealed choices with
commitments, projections into views, and an append-only event log that replays to the same
state.
"""
from .errors import (  # noqa: F401
    CompanionError, IllegalMoveError, NotYourTurnError, UnknownMoveError, SealedChoiceError,
    UndoError, ConfigError, DataFileError, SessionFileError, SessionNotFoundError,
    ConcurrencyError,
)
