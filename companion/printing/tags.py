"""Writing card codes to NFC tags, card by card, through the card reader.

:class:`TagWriter` walks the same faces that ``companion cards print`` prints, in the same
order and with the same codes: "Tap a blank tag for Freedom Corn copy 1". For each card it
waits for a tag; reads what the tag holds (the reader reports every tag it sees); writes the
code as an NDEF Text record through the reader's ``write`` command (the ``ndef-write``
capability); checks the message the reader read back from the tag (or, with a reader whose
firmware does not send it, asks for the tag once more) against the card; records the tag in
the progress file and moves on.

* A blank tag is written. A tag that already holds *this* card's code counts as written.
* A tag that holds another card's code, or anything else, is refused (nothing is written)
  unless ``overwrite``.
* The progress file (:class:`Progress`) is saved after every tag, so a walk that stopped
  (Ctrl-C, a timeout, a lost reader) goes on where it stopped when it is run again.

Nothing here is specific to a transport: ``reader`` is a :class:`hardware.reader.CardReader`
(or anything with ``write_ndef``), ``events`` the queue its ``on_event`` fills.
"""
import json
import os
import queue
import tempfile
import time
from pathlib import Path

from companion import cardcodes
from companion.core.errors import CompanionError, DataFileError

from .model import PrintError

FORMAT = "tc-tags-1"
WRITE_MS = 10000


class TagWalkStopped(CompanionError):
    """The walk stopped before every tag was written (a timeout, a reader that is gone).
    What was written is kept in the progress file."""


class Progress:
    """``code -> tag UID`` for the tags written so far, kept in a JSON file (written atomically
    after every tag). A file for another game or another version of the deck is refused."""

    def __init__(self, path, game, edition, version):
        self.path = Path(path) if path else None
        self.game, self.edition, self.version = game, edition, version
        self.written = {}
        if self.path and self.path.exists():
            self._load()

    def _load(self):
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise DataFileError(self.path, problem=f"is not a tag progress file ({e})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT or \
                not isinstance(data.get("written"), dict):
            raise DataFileError(self.path, problem=f"is not a tag progress file (expected "
                                                   f"format {FORMAT})")
        mine = (self.game, self.edition, self.version)
        theirs = (data.get("game"), data.get("edition"), data.get("version"))
        if theirs != mine:
            raise PrintError(
                f"{self.path} records tags written for {theirs[0]} {theirs[1] or ''} "
                f"db-version {theirs[2]}, but these cards are {self.game} "
                f"{self.edition or ''} db-version {self.version}: the tags written then carry "
                f"other codes. Use another --progress file (or --restart to start this one "
                f"over).".replace("  ", " "))
        self.written = {str(k): str(v) for k, v in data["written"].items()}

    def save(self):
        if not self.path:
            return
        data = {"format": FORMAT, "game": self.game, "edition": self.edition,
                "version": self.version, "written": self.written}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tags-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def mark(self, code, uid):
        self.written[code] = uid
        self.save()

    def __contains__(self, code):
        return code in self.written


def default_progress_path(game, edition, version) -> Path:
    """Next to the session store (``$COMPANION_DB`` or ~/.local/share/table-companion)."""
    from companion.core.log import default_db
    safe = "".join(ch if ch.isalnum() or ch in "-._" else "_" for ch in version)
    name = f"{game}{'-' + edition if edition else ''}-{safe}.json"
    return Path(default_db()).parent / "tags" / name


class TagWriter:
    """One walk over ``faces`` (from a :class:`~companion.printing.model.PrintSet`).

    ``say(text)`` tells the person what to do; ``timeout`` (seconds, None = no limit) is how
    long to wait for a tag before stopping with :class:`TagWalkStopped`."""

    def __init__(self, ps, faces, reader, events, progress, say=print, overwrite=False,
                 timeout=None, clock=time.monotonic):
        self.ps, self.faces, self.reader, self.events = ps, list(faces), reader, events
        self.progress, self.say, self.overwrite = progress, say, overwrite
        self.timeout, self.clock = timeout, clock
        self.names = {c: n for c, n in ps.catalog["cards"].items()}
        self.written_now = 0

    # -- the walk ---------------------------------------------------------------------------
    def run(self) -> int:
        """Write every face not written yet; returns how many were written this time."""
        todo = [f for f in self.faces if f.code not in self.progress]
        total = len(self.faces)
        done = total - len(todo)
        where = f" (progress in {self.progress.path})" if self.progress.path else ""
        if not todo:
            self.say(f"All {total} tags are already written{where}.")
            return 0
        self.say(f"{total} tags for {self.ps.title}, db-version {self.ps.version}: "
                 f"{len(todo)} to write" + (f", {done} written before" if done else "")
                 + f"{where}.")
        for face in todo:
            done += 1
            self._one(face, done, total)
        self.say(f"All {total} tags are written and checked ({self.written_now} this time).")
        return self.written_now

    def _one(self, face, n, total):
        label = f"{face.name} copy {face.copy}"
        self.say(f"[{n}/{total}] Tap a blank tag for {label} ({face.deck}) and leave it on the "
                 f"reader until it is written.")
        while True:
            scan = self._next_scan()
            verdict = self._judge(scan, face)
            if verdict == "done":
                self.progress.mark(face.code, scan.uid)
                self.say(f"Tag {scan.uid} already holds {label}: counted as written. Lift it.")
                return
            if verdict == "refuse":
                continue
            uid = self._write(face, force=verdict == "force")
            if uid is None:
                self.say(f"Tap a blank tag for {label} again.")
                continue
            self.progress.mark(face.code, uid)
            self.written_now += 1
            self.say(f"Written and checked: {label} on tag {uid}. Lift it.")
            return

    def _judge(self, scan, face):
        """What to do with the tag just tapped: "write", "force", "done" or "refuse"."""
        label = f"{face.name} copy {face.copy}"
        if scan.problem:
            held = f"data the reader cannot read as a card ({scan.problem})"
        elif scan.code is None:
            return "write"
        elif scan.code.strip() == face.code:
            return "done"
        else:
            held = self._describe(scan.code)
        if self.overwrite:
            self.say(f"Tag {scan.uid} holds {held}; overwriting it with {label}.")
            return "force"
        self.say(f"Refused: tag {scan.uid} already holds {held}. Nothing was written. Take a "
                 f"blank tag, or run again with --overwrite to rewrite tags like this one.")
        return "refuse"

    def _describe(self, text):
        try:
            cc = cardcodes.parse_code(text)
        except cardcodes.CardCodeError:
            shown = text if len(text) <= 40 else text[:37] + "..."
            return f"other data ({shown!r})"
        if cc.game != self.ps.game:
            return f"a card of another game ({cc.game}: {cc.card_id} copy {cc.copy})"
        name = self.names.get(cc.card_id, cc.card_id)
        other = "" if cc.db_version == self.ps.version else \
            f", from db-version {cc.db_version}"
        return f"the code of {name} copy {cc.copy}{other}"

    def _write(self, face, force):
        """Arm the write, wait for its answer, check the tag; the UID, or None (said why)."""
        from hardware.events import CommandAnswered
        from hardware.reader import ReaderNotConnected, TagWritten
        try:
            seq = self.reader.write_ndef(face.code, timeout_ms=WRITE_MS, force=force)
        except ReaderNotConnected as e:
            self.say(f"{e} Waiting for it.")
            return None
        ack = self._next(lambda e: isinstance(e, CommandAnswered) and e.command_seq == seq,
                         WRITE_MS / 1000 + 5, "the reader to answer the write")
        if not ack.ok:
            self.say(f"The tag was not written: {ack.detail}.")
            return None
        if isinstance(ack, TagWritten):
            text = ack.text()
        else:
            self.say("Lift the tag and tap it again, so it can be checked.")
            again = self._next_scan(uid=ack.uid)
            text = again.code
        problem = self._check(text, face, ack.uid)
        if problem:
            self.say(f"Tag {ack.uid} does not check out: {problem}. It was not counted; tap "
                     f"it again with --overwrite, or use another tag.")
            return None
        return ack.uid

    def _check(self, text, face, uid):
        """None when ``text`` (read back from the tag) is exactly this face's card and copy."""
        if text is None:
            return "it reads back blank or unreadable"
        try:
            card = cardcodes.identify(text, uid, self.ps.game, self.ps.catalog)
        except cardcodes.CardCodeError as e:
            return str(e)
        if (card.card_id, card.copy, card.db_version) != (face.card_id, face.copy,
                                                          self.ps.version):
            return f"it reads back as {card.name} copy {card.copy}"
        return None

    # -- events ------------------------------------------------------------------------------
    def _next_scan(self, uid=None):
        from hardware.events import CardScanned

        def wanted(e):
            if not isinstance(e, CardScanned):
                return False
            if e.source != "nfc":
                self.say("That was a QR code; tap an NFC tag.")
                return False
            return uid is None or e.uid == uid
        return self._next(wanted, self.timeout, "a tag")

    def _next(self, wanted, timeout, what):
        from hardware.events import ReaderConnected, ReaderLost
        deadline = None if timeout is None else self.clock() + timeout
        while True:
            left = None if deadline is None else deadline - self.clock()
            if left is not None and left <= 0:
                raise TagWalkStopped(f"Stopped: waited {timeout:g} s for {what}. "
                                     + self.summary())
            try:
                event = self.events.get(timeout=left if left is not None else 1.0)
            except queue.Empty:
                continue
            if isinstance(event, ReaderLost):
                self.say(f"The card reader went away ({event.reason}); waiting for it.")
            elif isinstance(event, ReaderConnected):
                self.say("The card reader is back.")
            elif wanted(event):
                return event

    def summary(self) -> str:
        left = sum(1 for f in self.faces if f.code not in self.progress)
        where = f" in {self.progress.path}" if self.progress.path else ""
        return (f"{len(self.faces) - left} of {len(self.faces)} tags are written (kept{where}); "
                f"run the same command again to go on.")
