"""Seats and their logins, and the HTTP side of joining (protocol section 9): ``POST /join``
with a name and the room code, a reclaim with a token, a handover with a one-seat code, and
``POST /rename``. Each seat gets its seat id (its MQTT username) on its first join, kept in the
session's meta; a join or reclaim issues a fresh password and drops the old device."""
from __future__ import annotations

import dataclasses
import json

from companion.core.errors import CompanionError
from companion.service.hub import (BadNameError, JoinError, NameTakenError, SeatMovedError,
                                   SeatTakenError, TableFullError)

from .. import credentials as cred
from .. import protocol

#: The largest JSON body ``POST /join`` accepts.
MAX_JOIN_BYTES = 4096


class JoinRefused(CompanionError):
    """A ``POST /join`` the table refuses; ``status`` and ``code`` as in protocol section 9.5."""

    def __init__(self, status: int, code: str, message: str, seats=None):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.seats = seats                  # table_full: the seats a new player may take

    def body(self) -> dict:
        error = {"code": self.code, "message": self.message}
        if self.seats:
            error["seats"] = self.seats
        return {"v": 1, "error": error}


@dataclasses.dataclass
class SeatLogin:
    seat_id: str
    password: str | None = dataclasses.field(default=None, repr=False)


class Joining:
    """The seats-and-joining part of :class:`~companion.net.bridge.Bridge`."""

    # -- seats and logins ------------------------------------------------------------------------
    def _meta(self):
        try:
            return self.hub.session_meta() or None
        except CompanionError:
            return None

    def _load_seat_ids(self):
        """Seat ids kept in the session's meta by an earlier run of this table."""
        meta = self._meta() or {}
        for n, sid in enumerate(meta.get("seat_ids") or ()):
            if sid and n not in self.logins:
                self._set_login(n, SeatLogin(sid))

    def _save_seat_ids(self):
        self.hub.update_session_meta(seat_ids=self.seat_ids())

    def _set_login(self, seat, login):
        old = self.logins.get(seat)
        if old is not None and old.seat_id != login.seat_id:
            self._by_id.pop(old.seat_id, None)
        self.logins[seat] = login
        self._by_id[login.seat_id] = seat

    def _issue_login(self, seat) -> SeatLogin:
        """A fresh login for ``seat``: a new password; the old one and any connection using it
        stop working. On an external broker: the operator's login for that seat."""
        if self._operator_logins is not None:
            if seat >= len(self._operator_logins):
                raise JoinRefused(409, "table_full", "The broker's operator gave this table "
                                                     "fewer seat logins than seats.")
            login = self._operator_logins[seat]
            self.call(self._set_login, seat, login)
            return login
        login = self.logins.get(seat)
        if login is None:
            taken = set(self._by_id)
            sid = cred.new_seat_id(seat + 1)
            while sid in taken:
                sid = cred.new_seat_id(seat + 1)
            login = SeatLogin(sid)
        rotating = login.password is not None or login.seat_id in self.broker.users()
        if rotating:
            self.broker.remove_user(login.seat_id)      # drops the old device's connection
        login = SeatLogin(login.seat_id, cred.new_password())
        self.broker.add_user(login.seat_id, login.password)
        self.call(self._set_login, seat, login)
        if rotating:
            self._publish_offline(seat)
        return login

    def _drop_unheld_logins(self):
        """A seat that lost its phone at the table (offline when the next game was set up:
        :meth:`Hub.configure`) loses that phone's login too, so the old phone cannot come back
        over MQTT without joining again. Worker thread, after a lobby change."""
        if self._operator_logins is not None:
            return                              # an operator's logins cannot be rotated
        seats = self.hub.seats
        users = None
        for seat, login in list(self.logins.items()):
            if seat < len(seats) and seats[seat].token_hash is not None:
                continue
            if users is None:
                users = set(self.broker.users())
            if login.seat_id not in users:
                continue
            self.broker.remove_user(login.seat_id)      # drops its connection
            self._set_login(seat, SeatLogin(login.seat_id))
            self._client.publish(self.topics.presence(login.seat_id), protocol.encode(
                protocol.presence(False)), qos=1, retain=True, wait=False)

    def _answer(self, seat, token, host) -> dict:
        login = self.logins[seat]
        t = self.topics
        sid = login.seat_id
        ws = self.broker.ws_url_for(host) if host else self.broker.ws_url
        return {"v": 1, "table": t.table, "seat": seat, "seat_id": sid, "username": sid,
                "password": login.password, "token": token, "ws_url": ws, "base": t.base,
                "name": self.hub.seats[seat].name,
                "topics": {"state": t.state, "events": t.events, "hub_status": t.hub_status,
                           "presence": t.presence(sid), "all_presence": t.all_presence,
                           "view": t.view(sid), "cmd": t.cmd(sid), "reply": t.reply(sid)}}

    def join(self, name, room, host=None, seat=None) -> dict:
        """``POST /join`` with a name and the room code, and perhaps the seat chosen: a seat
        and its login (section 9.1; coming back to a seat whose phone is offline, 9.3)."""
        if not isinstance(name, str) or not isinstance(room, str):
            raise JoinRefused(400, "bad_request", "Send your name and the room code.")
        if len(room) > 16:
            raise JoinRefused(400, "bad_request", "That is not a room code.")
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
            raise JoinRefused(400, "bad_request", "A seat is chosen by its number.")
        hub = self.hub
        self._need_broker()
        with self._join_lock:
            if room.strip().upper() != hub.room_code:
                raise JoinRefused(403, "wrong_room", "That room code is not this table's. "
                                                     "Check the code on the table screen.")
            s = hub.session
            if s is not None and s.state.outcome is not None:
                raise JoinRefused(410, "game_over", "The game at this table has ended.")
            if not hub.seats:
                raise JoinRefused(409, "no_game", "The table has not chosen a game yet; try "
                                                  "again in a moment.")
            if seat is not None and not 0 <= seat < len(hub.seats):
                raise JoinRefused(400, "bad_request", f"There is no seat {seat + 1} at this "
                                                      f"table.")
            try:
                seat, token = hub.join(name, room, seat=seat)
            except JoinError as e:
                raise _refused(e, "table_full") from None
            return self._seat_login(seat, token, host)

    def _need_broker(self):
        """No seat is taken or handed out while the broker is down (it is being restarted)."""
        if not self.broker.alive():
            raise JoinRefused(503, "unavailable", "The table is restarting its connection for "
                                                  "phones; try again in a few seconds.")

    def _seat_login(self, seat, token, host) -> dict:
        self._issue_login(seat)
        self.call_soon(self._save_seat_ids)
        self.call_soon(self._publish_views)
        return self._answer(seat, token, host)

    def reclaim(self, token, host=None) -> dict:
        """``POST /join`` with the token of an earlier join: the same seat, a new password."""
        if not isinstance(token, str) or not 1 <= len(token) <= 128:
            raise JoinRefused(400, "bad_request", "Send the token this phone was given.")
        self._need_broker()
        with self._join_lock:
            try:
                seat = self.hub.reclaim(token)
            except SeatMovedError as e:
                raise JoinRefused(404, "moved", str(e)) from None
            except JoinError as e:          # its sentence (e.g. offline at a new game's set-up)
                raise JoinRefused(404, "unknown_token", str(e)) from None
            except CompanionError:
                raise JoinRefused(404, "unknown_token", "This phone's seat is not at this "
                                                        "table any more; join again.") from None
            return self._seat_login(seat, token, host)

    def claim_handover(self, code, host=None) -> dict:
        """``POST /join`` with a one-seat code from the table screen: that seat moves to this
        phone; the old phone's login stops working at once."""
        if not isinstance(code, str) or not 1 <= len(code) <= 32:
            raise JoinRefused(400, "bad_request", "Send the seat code from the table screen.")
        self._need_broker()
        with self._join_lock:
            try:
                seat, token = self.hub.claim_handover(code)
            except JoinError as e:
                raise JoinRefused(404, "unknown_code", str(e)) from None
            return self._seat_login(seat, token, host)

    def rename(self, token, name) -> dict:
        """``POST /rename``: the seat holding ``token`` takes a new name."""
        if not isinstance(token, str) or not 1 <= len(token) <= 128:
            raise JoinRefused(400, "bad_request", "Send the token this phone was given.")
        try:
            seat = self.hub.reclaim(token)
        except SeatMovedError as e:
            raise JoinRefused(404, "moved", str(e)) from None
        except JoinError:
            raise JoinRefused(404, "unknown_token", "This phone's seat is not at this table "
                                                    "any more; join again.") from None
        try:
            name = self.hub.rename(seat, name)
        except CompanionError as e:
            raise _refused(e, "refused") from None
        return {"v": 1, "ok": True, "seat": seat, "name": name}

    def handle_join(self, body: bytes, host=None) -> dict:
        """The whole ``POST /join``: the JSON body in, the answer out (or :class:`JoinRefused`)."""
        obj = self._json_body(body)
        if obj.get("handover") is not None:
            return self.claim_handover(obj.get("handover"), host)
        if obj.get("token") is not None:
            return self.reclaim(obj.get("token"), host)
        return self.join(obj.get("name"), obj.get("room"), host, seat=obj.get("seat"))

    def handle_rename(self, body: bytes) -> dict:
        """The whole ``POST /rename``."""
        obj = self._json_body(body)
        return self.rename(obj.get("token"), obj.get("name"))

    @staticmethod
    def _json_body(body: bytes) -> dict:
        if len(body) > MAX_JOIN_BYTES:
            raise JoinRefused(400, "bad_request", "The request is too large.")
        try:
            obj = json.loads(body.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            raise JoinRefused(400, "bad_request", "The request is not JSON.") from None
        if not isinstance(obj, dict):
            raise JoinRefused(400, "bad_request", "The request must be a JSON object.")
        return obj


#: The hub's refusals of a name or a seat, as POST /join and /rename answer them (section 9.5).
_REFUSALS = ((BadNameError, 400, "bad_request"), (NameTakenError, 409, "name_taken"),
             (SeatTakenError, 409, "seat_taken"), (TableFullError, 409, "table_full"))


def _refused(e, otherwise) -> JoinRefused:
    """The answer to the hub's refusal ``e``: its own code, else 409 ``otherwise``."""
    for cls, status, code in _REFUSALS:
        if isinstance(e, cls):
            extra = {"seats": e.seats} if isinstance(e, TableFullError) else {}
            return JoinRefused(status, code, str(e), **extra)
    return JoinRefused(409, otherwise, str(e))
