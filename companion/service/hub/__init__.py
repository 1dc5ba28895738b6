"""The table hub: one authority per table.

Every input (a phone's move, a touch, a card scan, a button, a timer deadline) becomes a call on
the :class:`Hub`; the hub checks it through the session (rules, sealed choices, durable log) and
then tells its subscribers that something changed. Views are pulled from the hub: the public
view for the screen and spectators, one seat view per phone. Nothing else holds game truth.

Threads: any thread may call the hub; the session's lock serialises commands. Subscribers are
called on the caller's thread (the MQTT bridge and the Kivy app marshal to their own). The
timer thread sleeps until the next deadline (or 0:30 warning) and ticks the session.

:class:`Hub` is one object made of one part a concern, each in its own module (the parts share
the hub's attributes, set in ``Hub.__init__`` below, and call each other through ``self``, so
no part imports another's class):

* ``seats``: who sits where: joining, renaming, reclaiming, handing a seat over, presence;
* ``keeping``: what the table keeps between runs (room code, lobby, the club) and with a session;
* ``lifecycle``: choosing, starting, resuming and leaving a game;
* ``commands``: moves, undo, corrections, pause, the buttons, group commit;
* ``scans``: a card on the reader;
* ``alerts``: subscribers and the alerts every screen shows;
* ``views``: the public view and each seat's view;
* ``timers``: the timer thread and the watchdog's question.

The names other packages use (``Hub``, the join errors, ``clean_name``, ``GOOD_NEWS``...) are
importable from here, as ever.
"""
from __future__ import annotations

import os
import threading

from .alerts import CLUB_JOINED, GOOD_NEWS, Alerts
from .commands import Commands
from .keeping import Keeping
from .lifecycle import Lifecycle
from .scans import Scans
from .seats import (CLAIM_GRACE, HANDOVER_ALPHABET, HANDOVER_LENGTH, HANDOVER_SECONDS, MAX_NAME,
                    ROOM_ALPHABET, ROOM_LENGTH, BadNameError, JoinError, NameTakenError, Seat,
                    Seating, SeatMovedError, SeatTakenError, TableFullError, clean_name)
from .timers import Timers
from .views import Views

__all__ = ["Hub", "Seat", "clean_name", "JoinError", "SeatMovedError", "BadNameError",
           "NameTakenError", "TableFullError", "SeatTakenError", "CLUB_JOINED", "GOOD_NEWS",
           "ROOM_ALPHABET", "ROOM_LENGTH", "HANDOVER_ALPHABET", "HANDOVER_LENGTH",
           "HANDOVER_SECONDS", "MAX_NAME", "CLAIM_GRACE"]


class Hub(Seating, Keeping, Lifecycle, Commands, Scans, Alerts, Views, Timers):
    """The table's one authority: see the module's docstring, and each part's own."""

    def __init__(self, log, table="table", games=None, clock=None, room_code=None,
                 entropy=os.urandom):
        if games is None:
            from companion.games import get as games
        self.log = log
        self.table = table
        self.games = games
        self.entropy = entropy
        self.clock = clock
        kept = self._table_meta()
        #: what else the table keeps between runs (the club it joined), rewritten with the room
        self._kept = {k: v for k, v in kept.items() if k not in ("room", "lobby")}
        self.room_code = room_code or kept.get("room") or "".join(
            ROOM_ALPHABET[b % len(ROOM_ALPHABET)] for b in entropy(ROOM_LENGTH))
        self.session = None
        self.game_name = None
        self.options = {}
        self.seats = []
        self.alerts = []
        self.join_url = None
        #: the join address is only this machine's loopback because the box has no network
        #: yet (set by the server, which knows whether the address was found or given)
        self.join_offline = False
        self.last_scan = None
        self._handovers = {}                # code -> (seat, monotonic expiry)
        self._moved = {}                    # token hash of a handed-over seat -> seat
        self._left = {}                     # token hash of a phone offline at a new game -> name
        self._subs = []
        self._lock = threading.RLock()
        self._wake = threading.Condition(self._lock)
        self._marked = 0.0                  # monotonic time of the last clock heartbeat
        self._timer_thread = None
        self._stopping = False
        self.next_seed = None               # the seed of the next start, once (serve --seed)
        self._restore_lobby(kept.get("lobby"))
