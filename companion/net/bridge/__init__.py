"""The hub's side of protocol v1: the one link between the table :class:`~companion.service.hub.Hub`
and the MQTT broker (docs/protocol.md, sections 4-7 and 9).

* **Commands in.** The bridge logs in as ``hub`` and subscribes to every seat's ``cmd`` and
  ``presence``. Each command is parsed (:func:`companion.net.protocol.parse_command`), checked
  against the seat registry, de-duplicated by ``tx`` and handed to :meth:`Hub.submit`. Commands
  flagged *retained* are never applied (the broker replays those on subscribe; the bridge
  clears them).
* **Acknowledge first, then draw.** After a command that came over MQTT the bridge publishes,
  in this order: one ``events`` message per *public* notice, the commanding seat's own ``view``
  (retained, on that seat's private topic only), its ``reply``; then, once the commands already
  waiting have had theirs, every other ``view`` that changed and the public ``state`` (the
  *fan-out*, one for all the commands it covers). Any other change (a timer, a touch on the
  screen, a join) publishes its events and then the fan-out. A retained document is published
  only when it changed apart from ``rev``, ``now`` and the timers' ``left``.
  ``Bridge(order="legacy")`` keeps protocol v1's first order (events, every view, the state,
  then the reply, per command) for the benchmark's before/after comparison.
* **Commands that arrive together are saved together** (group commit): the worker takes every
  command already waiting in its queue (up to :data:`MAX_GROUP`), applies them one by one in one
  log transaction, and makes them durable with one fsync (:meth:`Hub.batch`). Nothing of the
  group leaves before that: then its events, each commanding seat's own view and the replies,
  in arrival order. If the save fails, every command of the group is forgotten and answered
  ``cannot_save`` (safe to retry). ``group_commit=False`` saves each command alone (the
  benchmark's before).
* **Seats.** Each seat number gets a seat id (= its MQTT username, ``s<n>-<random>``) when a
  phone first joins; the ids are kept in the session's log meta so a restarted hub gives the
  same seats the same ids. A join or a reclaim issues a fresh password (and drops any
  connection still using the old one: one seat, one device); so does a join that takes back a
  seat whose phone is offline (protocol section 9.3). A seat that lost its phone when the next
  game was set up (:meth:`Hub.configure`) loses that phone's login too. On an external broker
  the operator's seat logins are handed out instead (they cannot be rotated).
* **Presence.** Each seat's ``presence`` topic becomes ``hub.seats[i].online``. On mosquitto,
  whose keepalive sweep runs only every 6 s, a :class:`~companion.net.silence.SilenceWatch`
  reports a seat whose connections went silent past their keepalive, and the bridge publishes
  its offline presence as the Last Will would (taken back if the phone speaks again).

Threads: everything the bridge publishes is published from one worker thread, so messages
leave in the order above even when the Kivy screen or the timer thread changes the hub. Hub
events raised on other threads are queued to that worker; the ones raised by the worker's own
``submit`` are handled in line, before the reply.

Safety: the bridge publishes a private notice or a seat view only on that seat's ``view``
topic (the broker's wall keeps everyone else off it); the public ``state`` and ``events`` are
built from the core's public projection only.

Layout (one class, :class:`Bridge`, put together from one part per concern):
``core`` (life, the worker thread, MQTT in), ``publishing`` (hub events out: events, views,
the state), ``commands`` (commands in, group commit, replies), ``presence`` (seats' presence,
the silence watch) and ``joining`` (seat logins and the HTTP join, reclaim, handover, rename).
Every part keeps its state on the one :class:`Bridge` object (made in ``core``).
"""
from .commands import MAX_GROUP, RECENT_TX, REPLY_WAIT
from .core import ORDERS, Bridge, BridgeStopped
from .joining import MAX_JOIN_BYTES, JoinRefused, SeatLogin
from .presence import MAX_PRESENCE_BYTES
from .publishing import STATE_EVERY, VOLATILE

__all__ = ["Bridge", "BridgeStopped", "JoinRefused", "SeatLogin", "ORDERS", "RECENT_TX",
           "MAX_JOIN_BYTES", "MAX_PRESENCE_BYTES", "STATE_EVERY", "REPLY_WAIT", "MAX_GROUP",
           "VOLATILE"]
