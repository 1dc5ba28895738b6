"""Seats' presence: each seat's ``presence`` topic (the phone's own word and its Last Will)
becomes ``hub.seats[i].online``; junk on it is replaced; a seat whose login is rotated is said
offline by the hub. On mosquitto, a :class:`~companion.net.silence.SilenceWatch` reports a seat
whose connections all went silent past their keepalive (mosquitto's own check runs every 6 s)
and the hub says it offline as its Will would, or takes that back (protocol section 12)."""
from __future__ import annotations

import json

from .. import protocol
from ..brokers import MosquittoBroker
from ..silence import SilenceWatch

#: A presence message is ``{"v":1,"online":true}``; anything much longer is not one.
MAX_PRESENCE_BYTES = 64


class Presence:
    """The presence part of :class:`~companion.net.bridge.Bridge`."""

    def _start_watch(self):
        """On mosquitto: watch the phones' connections for silence (where the kernel can)."""
        if not isinstance(self.broker, MosquittoBroker):
            return
        watch = SilenceWatch(self.broker.log_path,
                             lambda: (self.broker.tcp_port, self.broker.ws_port),
                             self._silence_seen)
        if watch.available():
            self._watch = watch.start()

    def _stop_watch(self):
        if self._watch is not None:
            self._watch.stop()
            self._watch = None

    def _handle_presence(self, seat_id, payload):
        seat = self._by_id.get(seat_id)
        online = None
        if len(payload) <= MAX_PRESENCE_BYTES:
            try:
                obj = json.loads(payload.decode("utf-8"))
                online = obj.get("online") if isinstance(obj, dict) else None
            except (ValueError, UnicodeDecodeError, RecursionError):
                online = None
        if seat is None:
            return
        if not isinstance(online, bool):
            # junk retained on a seat's presence topic would reach every phone that
            # subscribes later: replace it with what the hub knows
            self.stats["presence_refused"] += 1
            if payload:
                self._client.publish(self.topics.presence(seat_id), protocol.encode(
                    protocol.presence(self.presence_of(seat))), qos=1, retain=True, wait=False)
            return
        if online:
            self._silenced.discard(seat_id)     # the phone speaks for itself again
        self.hub.set_presence(seat, online)
        with self._presence_seen:
            self._presence_log[seat] += 1
            self._presence_seen.notify_all()

    def _silence_seen(self, user, silent):
        """The silence watch (its thread): hand over to the worker."""
        self._jobs.put((self._on_silence, (user, silent), None))

    def _on_silence(self, seat_id, silent):
        """Every connection of a seat overran its keepalive (``silent``), or spoke again: say
        what its Last Will will say (mosquitto fires it only at its next sweep, up to 6 s
        later), or take that back. Retained, on the seat's presence topic, as the Will."""
        seat = self._by_id.get(seat_id)
        if seat is None or seat >= len(self.hub.seats):
            return
        if silent:
            if not self.presence_of(seat):
                return
            self._silenced.add(seat_id)
            self.stats["silent"] += 1
        elif seat_id in self._silenced and not self.presence_of(seat):
            self._silenced.discard(seat_id)
            self.stats["silence_ended"] += 1
        else:
            return
        online = not silent
        self.hub.set_presence(seat, online)
        self._client.publish(self.topics.presence(seat_id), protocol.encode(
            protocol.presence(online)), qos=1, retain=True, wait=False)

    def _publish_offline(self, seat):
        """A seat's offline presence, published by the hub (a dropped login fires no Will on
        mosquitto); returns once the hub has seen it come back."""
        login = self.logins[seat]
        with self._presence_seen:
            before = self._presence_log[seat]
        self._client.publish(self.topics.presence(login.seat_id),
                             protocol.encode(protocol.presence(False)), qos=1, retain=True,
                             wait=True)
        with self._presence_seen:
            self._presence_seen.wait_for(lambda: self._presence_log[seat] > before, 2.0)

    def presence_of(self, seat) -> bool:
        return bool(self.hub.seats[seat].online)
