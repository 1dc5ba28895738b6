"""What the bridge publishes: hub events in, then ``events`` messages, the seats' views and the
public ``state`` out, in the order of the package's docstring (ack-first or legacy), retained
documents only when they changed, the state after a change of table facts alone at most once
a second. Runs on the bridge's worker (hub events from other threads are queued to it)."""
from __future__ import annotations

import logging
import threading
import time

from .. import protocol

log = logging.getLogger(__name__)
_UNSET = object()

#: Table facts alone (presence, alerts, a scan) republish the public state at most this often.
STATE_EVERY = 1.0
#: Fields of a retained document that change with every record without anything a player
#: sees changing: a document that differs only in them (and in a running timer's ``left``) is
#: not published again.
VOLATILE = ("seq", "rev", "now")


class Publishing:
    """The publishing part of :class:`~companion.net.bridge.Bridge`."""

    # -- hub events (any thread) ------------------------------------------------------------------
    def _on_hub_event(self, event):
        # The seq is read now, on the thread that made the change, so each event carries the
        # seq of the command that caused it even when the worker publishes it a little later.
        item = (event, self._seq())
        self._pending.append(item)
        if self._in_worker():
            if self._held is not None:
                self._held["events"].append(item)   # published once the group is saved
                return
            self._flush_hub_events()
        else:
            self._jobs.put((self._flush_hub_events, (), None))

    def _flush_hub_events(self):
        """Publish the notices of every hub event so far, in order, then the views.

        Views are computed when published, so they may already show a later change than the
        event being handled; publishing all pending events first keeps "a command's events
        come before any view that shows its effects" (a phone must see ChoiceLocked before a
        view that reveals the window). In the ack-first order the views follow in the fan-out,
        after the commands already waiting have had their replies."""
        views, state = self._publish_events()
        if views:
            if self.order == "legacy":
                self._publish_views()
            else:
                self._views_soon()
        elif state:
            self._state_soon()

    def _publish_events(self):
        """Every pending hub event's public notices; ``(views changed, state changed)``."""
        views = state = False
        while self._pending:
            event, seq = self._pending.popleft()
            kind = event.get("kind")
            if kind == "changed":
                self._check_session()
                for notice in event.get("notices") or ():
                    if "to" in notice:
                        continue                # private: only inside that seat's view
                    self._publish(self.topics.events, protocol.event(seq, notice))
                views = True
            elif kind == "lobby":
                self._drop_unheld_logins()      # a seat that lost its phone: its login too
                views = True
            elif kind in ("alert", "scan", "presence"):
                state = True                    # table facts: the public state only
        return views, state

    def _views_soon(self):
        """The fan-out, after the jobs already queued (commands waiting get their replies
        first; one fan-out then covers them all)."""
        self._dirty = True
        if not self._fanout_queued:
            self._fanout_queued = True
            self.call_soon(self._fanout)

    def _fanout(self):
        self._fanout_queued = False
        if self._dirty:
            self._publish_views()

    def _state_soon(self):
        """The public state after a change of table facts (presence, alerts, a scan), at most
        once a second: a seat toggling its presence cannot make the hub fan out."""
        wait = STATE_EVERY - (time.monotonic() - self._state_at)
        if wait <= 0:
            self._publish_state()
        elif not self._state_timer:
            self._state_timer = True
            t = threading.Timer(wait, lambda: self.call_soon(self._deferred_state))
            t.daemon = True
            t.start()

    def _deferred_state(self):
        self._state_timer = False
        self._publish_state()

    def _publish_state(self):
        self._state_at = time.monotonic()
        self._publish_public(self.public_state())

    def _publish_public(self, doc):
        """The public state, and while a club is attached (``outside``) its copy without the
        room code for the club (:func:`companion.net.topics.outside_state`)."""
        self._publish_retained(self.topics.state, doc)
        if self.outside:
            self._publish_retained(self._outside_topic, protocol.spectator_state(doc))

    def set_outside(self, on: bool):
        """A club was attached (or left): publish the outside copy from now on (at once, so the
        club has a state before the next change), or clear it."""
        from ..topics import outside_state
        self._outside_topic = outside_state(self.hub.table)
        self.outside = bool(on)

        def now():
            if self.outside:
                self._publish_state()
            else:
                self._last.pop(self._outside_topic, None)
                self._publish(self._outside_topic, b"", retain=True)
        self.call_soon(now)

    def _seq(self):
        s = self.hub.session
        return s.state.seq if s is not None else 0

    def _rev(self):
        s = self.hub.session
        return (id(s), s.version) if s is not None else None

    def _check_session(self):
        """A new session (start, resume): persist the seat ids and announce it."""
        s = self.hub.session
        sid = s.id if s is not None else None
        if sid == self._session_id:
            return
        self._session_id = sid
        if s is not None:
            self._load_seat_ids()
            self._save_seat_ids()
        self._publish(self.topics.hub_status,
                      protocol.hub_status(True, sid, getattr(self, "boot", None)), retain=True)

    # -- publishing -------------------------------------------------------------------------------
    def _publish(self, topic, message, retain=False, force=True):
        data = protocol.encode(message) if isinstance(message, dict) else message
        if len(data) > protocol.MAX_PAYLOAD_BYTES:
            # the broker would drop it silently; say so loudly instead
            log.error("not publishing %d bytes on %s: over the %d-byte limit", len(data), topic,
                      protocol.MAX_PAYLOAD_BYTES)
            self.stats["oversize"] += 1
            return
        if retain and not force and self._last.get(topic) == data:
            return
        if retain:
            self._last[topic] = data
        info = self._client.publish(topic, data, qos=1, retain=retain, wait=False)
        self.stats["published"] += 1
        return info

    def _publish_doc(self, topic, doc):
        """A retained document (a view, the state), unless all that changed since we last
        sent it on ``topic`` is :data:`VOLATILE` or a running timer's ``left``.

        The document is encoded once: everything but those fields first (that is what is
        compared), then the fields are appended to the same JSON object."""
        tail = {k: doc[k] for k in VOLATILE if k in doc}
        body = protocol.encode({k: v for k, v in doc.items() if k not in VOLATILE})
        key = body
        timers = doc.get("timers")
        if timers and isinstance(timers, dict) and any(
                isinstance(t, dict) and "left" in t for t in timers.values()):
            # the timers go last, with the volatile fields; compared without their "left"
            body = protocol.encode({k: v for k, v in doc.items()
                                    if k not in VOLATILE and k != "timers"})
            key = body + b"\n" + protocol.encode(
                {n: {k: v for k, v in t.items() if k != "left"} if isinstance(t, dict) else t
                 for n, t in timers.items()})
            tail = {"timers": timers, **tail}
        if self._last.get(topic) == key:
            self.stats["unchanged"] += 1
            return
        if not tail:
            data = body
        elif body == b"{}":
            data = protocol.encode(tail)
        else:
            data = body[:-1] + b"," + protocol.encode(tail)[1:]
        if len(data) > protocol.MAX_PAYLOAD_BYTES:
            self._publish(topic, data, retain=True)          # says it is too large
            return
        self._last[topic] = key
        self._revs[topic] = doc.get("rev")
        self._client.publish(topic, data, qos=1, retain=True, wait=False)
        self.stats["published"] += 1

    def _decorate(self, view):
        view["table"] = self.topics.table
        view["seat_ids"] = self.seat_ids()
        self._clock_now(view)
        return view

    def _clock_now(self, view):
        """``now`` and a running timer's ``left`` as of the moment the document goes out, not
        of the last record: a document published later (a seat moved to a new phone, a
        restart, a presence change) would otherwise hand a phone the time left at that
        record as the time left now, and the phone would run behind the table from then on.
        A client animates from ``deadline`` and ``now`` (protocol section 4.1)."""
        timers = view.get("timers")
        if "now" not in view or not isinstance(timers, dict):
            return
        now = self.hub.session_time()
        if now is None or now < view["now"]:
            return
        view["now"] = round(now, 3)
        view["timers"] = {
            n: dict(t, left=round(max(0.0, t["deadline"] - now), 3))
            if isinstance(t, dict) and not t.get("paused")
            and isinstance(t.get("deadline"), (int, float)) else t
            for n, t in timers.items()}

    def seat_ids(self) -> list:
        return [self.logins[n].seat_id if n in self.logins else None
                for n in range(len(self.hub.seats))]

    def seat_view(self, seat: int, view=None) -> dict:
        """The seat's view as its phone gets it: the hub's view with the table and seat ids."""
        return self._decorate(self.hub.seat_view(seat) if view is None else view)

    def public_state(self) -> dict:
        return self._decorate(self.hub.public_view())

    def _publish_retained(self, topic, doc):
        if self.order == "legacy":
            self._publish(topic, doc, retain=True, force=False)
            self._revs[topic] = doc.get("rev")
        else:
            self._publish_doc(topic, doc)

    def _publish_views(self):
        """Every seat's view and then the public state, each only if it changed."""
        self._dirty = False
        self._publish_events()          # events of changes these views may already show
        seats = [n for n in sorted(self.logins) if n < len(self.hub.seats)]
        pub, per_seat = self.hub.views(seats)        # one moment, one public projection
        for n in seats:
            self._publish_retained(self.topics.view(self.logins[n].seat_id),
                                   self.seat_view(n, per_seat[n]))
        self._publish_public(self._decorate(pub))
        self._state_at = time.monotonic()

    def _publish_own_view(self, seat):
        """The commanding seat's view, before its reply: when the reply arrives the phone
        already shows what its command did (its lock-in, its card played)."""
        if self._held is not None:
            if seat not in self._held["views"]:
                self._held["views"].append(seat)    # after the group's save
            return
        self._publish_events()
        login = self.logins.get(seat)
        if login is None or seat >= len(self.hub.seats):
            return
        _, per_seat = self.hub.views([seat])     # built as the fan-out builds it: the same
        self._publish_retained(self.topics.view(login.seat_id),     # bytes are not sent twice
                               self.seat_view(seat, per_seat[seat]))
        self.stats["own_views"] += 1

    def _publish_everything(self):
        self._session_id = _UNSET
        self._check_session()
        self._publish_views()

    def retained_revs(self) -> dict:
        """``{"state": rev, seat: rev, ...}``: the ``rev`` of the retained documents as last
        published (ack-first order; a document that did not change keeps an older rev)."""
        def get():
            out = {"state": self._revs.get(self.topics.state)}
            for n, login in self.logins.items():
                out[n] = self._revs.get(self.topics.view(login.seat_id))
            return out
        return self.call(get)
