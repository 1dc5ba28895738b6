"""Commands in: each payload on a seat's ``cmd`` topic parsed, checked against the seats,
de-duplicated by ``tx`` (also across a restart, from the session's store: a resend of the same
command gets its first answer, a different command under a known ``tx`` is refused with
``tx_reused`` and changes nothing), applied; commands
that arrive together applied and saved together (group commit, one fsync), then answered in
arrival order, each seat's own view before its reply. Every payload gets an answer; none can
stop the bridge."""
from __future__ import annotations

import collections
import json
import logging
import time

from companion.core.errors import CompanionError, StorageError
from companion.core.session import command_digest

from .. import protocol

log = logging.getLogger(__name__)

#: How many recent ``tx`` per seat the bridge remembers (with the digest of the command each
#: carried) to answer a repeat without applying it.
RECENT_TX = 256
#: Seconds the worker waits for the broker to take a reply before it starts a fan-out.
REPLY_WAIT = 0.05
#: The most commands one save covers (group commit); the rest wait for the next group.
MAX_GROUP = 64


def _tx_of(payload):
    try:
        return json.loads(payload).get("tx")
    except (ValueError, AttributeError, TypeError, RecursionError):
        return None


class Commands:
    """The command part of :class:`~companion.net.bridge.Bridge`."""

    # -- commands ---------------------------------------------------------------------------------
    def _handle_group(self, group):
        """Commands that arrived together: applied in arrival order, saved by one fsync, then
        published: their events, then in arrival order each commanding seat's own view and its
        reply, and (ack-first) once the broker has taken the replies, the fan-out."""
        t0 = time.perf_counter()
        held = self._held = {"replies": [], "views": [], "memos": [], "events": [],
                             "marks": []}
        lost = None
        try:
            with self.hub.batch():
                for args in group:
                    self._handle_command(*args)
                    if self.trace is not None:
                        held["marks"].append((time.perf_counter(), len(held["replies"])))
        except StorageError as e:
            lost = e
        finally:
            self._held = None
        saved = time.perf_counter()
        if lost is None:
            for seat_id, tx, digest, data in held["memos"]:
                self._remember(seat_id, tx, digest, data)
            self._flush_hub_events()
            views = held["views"]
            answered = {self._by_id.get(seat_id) for seat_id, _ in held["replies"]}
            for seat in list(views):
                if seat not in answered:
                    self._publish_own_view(seat)
            replies = held["replies"]
        else:
            # nothing of the group was kept: its events never happened, every answer that
            # said "ok" becomes "not saved" (a retry with the same tx will run again)
            self.stats["groups_lost"] += 1
            mine = {id(item) for item in held["events"]}
            self._pending = collections.deque(i for i in self._pending if id(i) not in mine)
            for seat_id, tx, digest, data in held["memos"]:
                if not json.loads(data).get("ok"):
                    self._remember(seat_id, tx, digest, data)
            replies = []
            for seat_id, data in held["replies"]:
                reply = json.loads(data)
                if reply.get("ok"):
                    data = protocol.encode(protocol.error_reply(reply.get("tx"), "cannot_save",
                                                                str(lost)))
                replies.append((seat_id, data))
            self._views_soon()
        info, sent = None, []
        for seat_id, data in replies:
            seat = self._by_id.get(seat_id)
            if lost is None and seat in views:
                views.remove(seat)
                self._publish_own_view(seat)            # each seat's view, then its reply
            info = self._publish(self.topics.reply(seat_id), data)
            sent.append(time.perf_counter())
        taken = None
        if self.order != "legacy" and info is not None and self._fanout_queued:
            # The fan-out that follows is Python work holding the GIL: paho's thread (and the
            # embedded broker's) would wait for it before the replies leave. Wait until the
            # broker has them (the last one's PUBACK: paho sends in order; bounded, a slow
            # broker must not stall us).
            try:
                info.wait_for_publish(REPLY_WAIT)
                taken = time.perf_counter()
            except (RuntimeError, ValueError):      # not connected: paho says so; carry on
                pass
            self.stats["reply_waits"] += 1
        self.stats["groups"] += 1
        self.stats["grouped"] += len(group) - 1
        if self.trace is not None:
            before = 0
            for args, (applied, n) in zip(group, held["marks"]):
                replied = sent[n - 1] if n > before else None
                before = n
                self.trace.append((_tx_of(args[1]), args[3], t0, applied, saved, replied,
                                   taken))

    def _reply(self, seat_id, message):
        """Every answer to a command goes through here: held until its group is saved."""
        data = protocol.encode(message) if isinstance(message, dict) else message
        if self._held is not None:
            self._held["replies"].append((seat_id, data))
        else:
            self._publish(self.topics.reply(seat_id), data)

    def _handle_command(self, seat_id, payload, retained, received_at=None):
        """Every payload on a command topic gets an answer; none can stop the bridge."""
        try:
            self._command(seat_id, payload, retained)
        except Exception:
            log.exception("a command from %s could not be handled", seat_id)
            self.stats["internal"] += 1
            try:
                tx = protocol.parse_command(payload).tx
            except Exception:
                tx = None
            self._reply(seat_id, protocol.error_reply(tx, "internal",
                                                      protocol.ERROR_CODES["internal"]))

    def _command(self, seat_id, payload, retained):
        self.stats["commands"] += 1
        if retained:
            # a retained command is a replay from the broker, never a new move: clear it, and
            # remember its tx, since a broker may still deliver the same publish live (amqtt
            # does when the hub subscribes while the publish waits in its broadcast queue)
            self._clearing[seat_id] += 1
            self._client.publish(self.topics.cmd(seat_id), b"", qos=1, retain=True, wait=False)
            self.stats["retained_ignored"] += 1
            try:
                cmd = protocol.parse_command(payload)
            except protocol.ProtocolError:
                return
            self._remember(seat_id, cmd.tx, command_digest(cmd.move, cmd.args), None)
            return
        if not payload and self._clearing[seat_id] > 0:
            self._clearing[seat_id] -= 1         # our own clearing of a retained command
            self.stats["retained_cleared"] += 1
            return
        seat = self._by_id.get(seat_id)
        try:
            cmd = protocol.parse_command(payload)
        except protocol.ProtocolError as e:
            self._reply(seat_id, protocol.error_reply(e.tx, e.code, e.message))
            return
        if seat is None:
            self._reply(seat_id, protocol.error_reply(
                cmd.tx, "not_seated", "This phone no longer has a seat at the table; join "
                                      "again."))
            return
        digest = command_digest(cmd.move, cmd.args)
        known = self._recent.get(seat_id, {}).get(cmd.tx)
        if known is None:
            known = self._first_answer(seat, cmd.tx)     # answered before a restart?
            if known is not None and known[0] == digest:
                self._remember(seat_id, cmd.tx, *known)
        if known is not None:
            first_digest, first = known
            if first_digest is not None and first_digest != digest:
                # a different command under a tx already used: refused, nothing kept (the tx
                # still belongs to its first command, whose resend gets its first answer)
                self.stats["tx_reused"] += 1
                self._reply(seat_id, protocol.error_reply(
                    cmd.tx, "tx_reused", protocol.TX_REUSED_MESSAGE))
                return
            self.stats["duplicates"] += 1
            if first is not None:                   # None: a retained replay, never applied
                self._reply(seat_id, first)
            return
        rev = self._rev()
        reply = self._apply(seat, cmd)
        if self.order != "legacy" and self._rev() != rev:
            self._publish_own_view(seat)            # acknowledge first, then draw the rest
        data = protocol.encode(reply)
        if reply["ok"] or reply["error"]["code"] not in ("internal", "cannot_save"):
            self._remember(seat_id, cmd.tx, digest, data)   # a retry of those must run again
            s = self.hub.session
            if not reply["ok"] and s is not None:
                try:
                    self.hub.log.put_reply(s.id, seat, cmd.tx, data.decode(), digest)
                except Exception:                   # a refusal changes nothing: best effort
                    log.warning("could not keep the answer to %s", cmd.tx, exc_info=True)
        self._reply(seat_id, data)

    def _first_answer(self, seat, tx) -> tuple | None:
        """``(digest, answer)`` of the command that used this ``tx`` before (from the
        session's store, which outlives a restart): its record if it was applied (the record
        holds the move and arguments as applied), its refusal if it was refused (kept with
        its digest; None for a refusal kept before the store had digests)."""
        s = self.hub.session
        if s is None:
            return None
        rec = s.find_tx(seat, tx)
        if rec is not None:
            return (command_digest(rec.get("move"), rec.get("args")),
                    protocol.encode(protocol.ok_reply(tx, {"seq": rec.get("seq")})))
        stored = self.hub.log.find_reply(s.id, seat, tx)
        return (stored[1], stored[0].encode()) if stored is not None else None

    def _remember(self, seat_id, tx, digest, reply):
        if self._held is not None and reply is not None:
            self._held["memos"].append((seat_id, tx, digest, reply))   # once the group is saved
            return
        recent = self._recent.setdefault(seat_id, collections.OrderedDict())
        recent[tx] = (digest, reply)
        while len(recent) > RECENT_TX:
            recent.popitem(last=False)

    def _apply(self, seat, cmd) -> dict:
        s = self.hub.session
        if s is not None and s.state.outcome is not None:
            return protocol.error_reply(cmd.tx, "game_over", "The game has ended; no more "
                                                             "moves.")
        try:
            self.hub.submit(seat, cmd.move, cmd.args, tx=cmd.tx)
        except CompanionError as e:
            self.stats["refused"] += 1
            return protocol.reply_for(cmd.tx, e)
        except Exception as e:                   # a bug in a game: refuse, keep running
            log.exception("seat %s move %s failed", seat, cmd.move)
            return protocol.reply_for(cmd.tx, e)
        return protocol.ok_reply(cmd.tx, {"seq": self._seq()})
