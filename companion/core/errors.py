"""One exception tree. Every message is a sentence a player (or designer) can read."""


class CompanionError(Exception):
    """Base of every error the companion raises on purpose."""


class IllegalMoveError(CompanionError, ValueError):
    """A move the rules do not allow right now. The state is unchanged."""


class NotYourTurnError(IllegalMoveError):
    """A seat tried to act when it is not expected to."""


class UnknownMoveError(IllegalMoveError):
    """The game has no such move."""


class BadArgumentsError(IllegalMoveError):
    """A move was sent with arguments it does not take, or without one it needs."""


class SealedChoiceError(IllegalMoveError):
    """A sealed choice was submitted twice, late, or into a window the seat is not in."""


class UndoError(CompanionError):
    """There is nothing to undo, or the undo would cross a reveal."""


class ConfigError(CompanionError, ValueError):
    """A game cannot be set up with these options (player count, unknown variant, ...)."""


class DataFileError(CompanionError):
    """A data file (cards, monsters, ...) has a mistake. Names the file, the item and the field."""

    def __init__(self, path, item=None, field=None, problem="is invalid"):
        self.path, self.item, self.field, self.problem = str(path), item, field, problem
        where = self.path
        if item is not None:
            where += f": {item}"
        if field is not None:
            where += f": field '{field}'"
        super().__init__(f"{where}: {problem}")


class DataFileErrors(DataFileError):
    """Every mistake found in a set of data files at once. ``errors`` holds each
    :class:`DataFileError`; the message is the first one and how many more there are."""

    def __init__(self, errors):
        self.errors = tuple(errors)
        first = self.errors[0]
        more = len(self.errors) - 1
        problem = first.problem
        if more:
            problem += f" (and {more} more problem{'s' if more > 1 else ''})"
        super().__init__(first.path, first.item, first.field, problem)


class SessionFileError(CompanionError):
    """A session store is corrupt or not ours. Names the file; nothing is deleted."""


class SessionNotFoundError(CompanionError):
    """No session with that id in the store."""


class ConcurrencyError(CompanionError):
    """Two writers tried to append the same version of a session."""


class StorageError(CompanionError):
    """The session store cannot save right now (disk full, file too large, I/O error, read-only).
    The command was not applied; ``kind`` names the failure for one console line per kind."""

    def __init__(self, message, kind="io"):
        super().__init__(message)
        self.kind = kind
