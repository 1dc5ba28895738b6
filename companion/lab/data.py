"""Sessions and the data they were played with.

Every session records its data in its options (:mod:`companion.core.datadir`); here a stored
session is matched with the game built from that same data, so a replay, a report or an export
always reads a session with the cards it was played with. An edited copy that has gone away is
said in one sentence, with what to do.
"""
import os

from companion import games as registry
from companion.core.datadir import DataMissingError, DataRef, SHOWN_CHARS
from companion.core.session import Session


def recorded(records):
    """The :class:`DataRef` a session's first record names, or None (before data tracking)."""
    return DataRef.of(((records[0] if records else {}).get("options") or {}).get("data"))


def game_for_records(records, games=None, data=None):
    """The game to replay a session's records with: ``games(name)`` if given; the copy in
    ``data`` if given (it must hold the same files, which the game checks); else the edited copy
    the session names, or the shipped data."""
    name = records[0]["game"]
    if games is not None:
        return games(name)
    if data is not None:
        return registry.get(name, data=data)
    ref = recorded(records)
    if ref is not None and ref.edited:
        if not os.path.isdir(ref.dir):
            title = registry.shipped(name).title
            raise DataMissingError(
                f"This {title} session was played with the edited data in {ref.dir} "
                f"({ref.version}, data {ref.hash[:SHOWN_CHARS]}), which is no longer there. "
                f"Put the copy back (or give --data with an identical copy) to replay it.")
        return registry.get(name, data=ref.dir)
    return registry.shipped(name)


def load_session(log, session_id, data=None):
    """``Session.load`` with the game built from the data the session was played with."""
    records = log.read(session_id)
    if not records:
        return Session.load(log, session_id, games=registry.get)    # its own sentence: empty
    game = game_for_records(records, data=data)
    return Session.load(log, session_id, games=lambda _name: game)


def label(record) -> str:
    """A session's data in words: ``gp-2026.11, shipped data (data 3fa8c2d1e0b4)``."""
    ref = DataRef.of(record)
    return ref.label if ref is not None else "data not recorded (played before data tracking)"
