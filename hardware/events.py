"""Neutral input events from the table's hardware, for the hub.

Frozen dataclasses with no behaviour: the hub turns them into commands. ``at`` is the
monotonic time (seconds, the clock the device was given) when the fact was observed.

* :class:`CardScanned`: a card was read. ``source`` is ``"nfc"`` or ``"qr"``; ``code`` is the text
  the card carries (an NDEF Text/URI record or the QR payload) or None (a blank tag, or a read
  that failed); ``uid`` is the tag's UID in upper-case hex (NFC only); ``seq`` is the reader's
  frame number; ``problem`` is a sentence when the read was damaged (then ``code`` is None).
  Resolve it with :func:`companion.cardcodes.identify`.
* :class:`ButtonPressed`: ``name`` is ``"next"``, ``"pause"`` or ``"undo"``.
* :class:`ReaderConnected`, :class:`ReaderLost`: the reader said hello / went away (unplugged,
  silent, or failed). The game goes on either way; the hub shows a banner.
* :class:`ReaderFault`: something bad arrived and was dropped; ``kind`` is a protocol error kind
  (``garbage``, ``checksum``, ``gap``, ...) or one the firmware reported (``nfc``, ...); ``count``
  is how many of that kind so far on this connection.
* :class:`PowerRequested`: the shutdown button was held (``action`` is ``"poweroff"``;
  ``source`` is ``"button"``). The hub glue hands it to the ``on_power`` callback.
* :class:`CommandAnswered`: the reader's ``ack`` to a command (``beep``, ``led``, ``write``);
  ``command_seq`` is what :meth:`hardware.reader.CardReader.send` returned.
"""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class CardScanned:
    source: str
    code: str | None
    uid: str | None
    seq: int
    at: float
    problem: str | None = None


@dataclass(frozen=True)
class ButtonPressed:
    name: str
    at: float


@dataclass(frozen=True)
class PowerRequested:
    action: str
    source: str
    at: float


@dataclass(frozen=True)
class ReaderConnected:
    port: str
    firmware: str
    capabilities: tuple = field(default_factory=tuple)
    reader_id: str = ""


@dataclass(frozen=True)
class ReaderLost:
    port: str
    reason: str


@dataclass(frozen=True)
class ReaderFault:
    kind: str
    detail: str
    count: int


@dataclass(frozen=True)
class CommandAnswered:
    command_seq: int
    ok: bool
    detail: str
    uid: str | None = None
