"""Which data a game plays with: the shipped files or a designer's edited copy.

A game built from a data folder carries a :class:`DataRef`: the folder (``None`` for the
shipped data), the version the files declare and a fingerprint of the files themselves. A
session records it in its options (``config["data"]``, so it is in the log's first record), and
every replay checks it: a session played with an edited copy replays only with that copy, so a
report never mixes decks and a log never replays silently against other cards.

>>> ref = DataRef("gp-2026.11", "3fa8c2d1e0b4a977", "/home/ann/gp-copy")
>>> ref.label
'gp-2026.11, edited copy /home/ann/gp-copy (data 3fa8c2d1e0b4)'
>>> settle("Great Powers", ref, None) == ref.record()
True
>>> shipped = DataRef("gp-2026.11", "aaaa")
>>> settle("Great Powers", ref, shipped.record())
Traceback (most recent call last):
...
companion.core.datadir.DataMismatchError: This Great Powers session was played with the shipped \
data (gp-2026.11, data aaaa), not the edited copy /home/ann/gp-copy; leave out --data to replay \
or resume it.
"""
import dataclasses
import hashlib
import os
from pathlib import Path

from .errors import ConfigError

HASH_CHARS = 16          # of the SHA-256 hex digest: plenty to tell two edits apart
SHOWN_CHARS = 12


class DataMismatchError(ConfigError):
    """A session recorded other data than the game was built with."""


class DataMissingError(DataMismatchError):
    """The edited copy a session was played with is no longer where it was."""


def data_files(directory) -> list:
    """The data files of a folder: every ``*.toml`` in it, by name."""
    return sorted(p for p in Path(directory).glob("*.toml") if p.is_file())


def fingerprint(directory) -> str:
    """SHA-256 over the names and bytes of a folder's data files (not their dates), so a copy
    that was only moved or touched keeps its fingerprint and one changed byte changes it."""
    h = hashlib.sha256()
    for p in data_files(directory):
        data = p.read_bytes()
        h.update(p.name.encode() + b"\0" + str(len(data)).encode() + b"\0" + data)
    return h.hexdigest()[:HASH_CHARS]


@dataclasses.dataclass(frozen=True)
class DataRef:
    version: str                 # what the files declare (e.g. "gp-2026.11")
    hash: str                    # :func:`fingerprint` of the files
    dir: str | None = None       # the edited copy's folder; None: the shipped data

    @property
    def edited(self) -> bool:
        return self.dir is not None

    @property
    def label(self) -> str:
        where = f"edited copy {self.dir}" if self.edited else "shipped data"
        return f"{self.version}, {where} (data {self.hash[:SHOWN_CHARS]})"

    def record(self) -> dict:
        """What a session keeps: ``{"version", "hash"}`` and ``"dir"`` for an edited copy."""
        out = {"version": self.version, "hash": self.hash}
        if self.dir is not None:
            out["dir"] = self.dir
        return out

    @classmethod
    def of(cls, record):
        """The :class:`DataRef` a session recorded, or None (recorded before data tracking)."""
        if not isinstance(record, dict) or not isinstance(record.get("hash"), str):
            return None
        return cls(str(record.get("version", "")), record["hash"], record.get("dir"))


def ref_for(directory, version, shipped=False) -> DataRef:
    """The :class:`DataRef` of a folder (its absolute path kept unless it is the shipped one)."""
    path = os.path.abspath(os.fspath(directory))
    return DataRef(version, fingerprint(path), None if shipped else path)


def settle(title, mine: DataRef, recorded) -> dict:
    """The ``data`` entry of a session's options. A new session (nothing recorded) takes the
    game's own data. A recorded session must be replayed with the same data: an edited copy
    must be that copy (same fingerprint), and shipped data must not be replaced by an edited
    copy. A session recorded with older shipped data keeps its record (the shipped files of that
    day are gone; it replays as it always did, and reports keep it apart)."""
    theirs = DataRef.of(recorded)
    if theirs is None:
        return mine.record()
    if theirs.hash == mine.hash:
        return dict(recorded)
    if theirs.edited:
        shown = f"{theirs.version}, data {theirs.hash[:SHOWN_CHARS]}"
        if not os.path.isdir(theirs.dir):
            raise DataMissingError(
                f"This {title} session was played with the edited data in {theirs.dir} "
                f"({shown}), which is no longer there. Put the copy back (or give --data with "
                f"an identical copy) to replay or resume it.")
        now = "the shipped data" if not mine.edited else \
            f"{mine.dir} (data {mine.hash[:SHOWN_CHARS]})"
        if mine.edited and mine.dir == theirs.dir:
            raise DataMismatchError(
                f"This {title} session was played with the edited data in {theirs.dir} "
                f"({shown}), but the files there have changed since (now data "
                f"{mine.hash[:SHOWN_CHARS]}). Put back the files it was played with to replay "
                f"or resume it.")
        raise DataMismatchError(
            f"This {title} session was played with the edited data in {theirs.dir} ({shown}), "
            f"not {now}; give --data {theirs.dir} to replay or resume it.")
    if mine.edited:
        raise DataMismatchError(
            f"This {title} session was played with the shipped data ({theirs.version}, data "
            f"{theirs.hash[:SHOWN_CHARS]}), not the edited copy {mine.dir}; leave out --data to "
            f"replay or resume it.")
    return dict(recorded)


class DataBacked:
    """What every game built from data files shares (a mixin before :class:`~.game.Game`):
    its :class:`DataRef` (``data_ref``, fingerprinted once) and the ``data`` entry of its
    options (:func:`settle`). A game sets ``shipped_data`` (its shipped folder) and, in its
    constructor, ``data_dir`` (an edited copy, or None); its data's version is
    ``rules.version`` unless it says otherwise (:meth:`data_version`)."""
    shipped_data = None          # the shipped folder (a class attribute of the game)
    data_dir = None              # an edited copy of it; None: the shipped files
    _data_ref = None

    def data_version(self) -> str:
        return self.rules.version

    @property
    def data_ref(self) -> DataRef:
        """The data this game plays with."""
        if self._data_ref is None:
            self._data_ref = ref_for(self.data_dir or self.shipped_data, self.data_version(),
                                     shipped=self.data_dir is None)
        return self._data_ref

    def resolve_options(self, given):
        """The options, plus ``data``: the data the session is played with (a recorded
        session must be replayed with the same)."""
        given = dict(given or {})
        data = given.pop("data", None)
        out = super().resolve_options(given)
        out["data"] = settle(self.title, self.data_ref, data)
        return out
