"""A protocol-v1 seat in Python: what the phone page does, without a browser. Joins over HTTP,
talks MQTT (TCP or WebSockets) with a Last Will on its presence, sends moves with fresh ``tx``
and waits for their replies. Used by the tests, the hub benchmark and bots that play remotely.

>>> # p = SeatClient.join("http://127.0.0.1:8000", "Ann", "ABCD").connect()
>>> # p.send("submit_bids", {"traits": ["navy", "army", "colony"]})["ok"]
"""
from __future__ import annotations

import itertools
import json
import secrets
import threading
import urllib.error
import urllib.request

from companion.core import choices
from companion.core.errors import CompanionError

from . import protocol
from .client import MqttClient

TOPIC_KEYS = ("state", "events", "hub_status", "all_presence", "view", "reply")


class JoinFailed(CompanionError):
    def __init__(self, status, code, message, seats=None):
        super().__init__(message)
        self.status, self.code = status, code
        self.seats = seats or []        # table_full: the seats whose phones are offline


def post_join(base_url: str, body: dict, timeout: float = 10.0) -> dict:
    """``POST /join``; the answer, or :class:`JoinFailed` with the table's status and code."""
    data = json.dumps({"v": 1, **body}).encode()
    req = urllib.request.Request(base_url.rstrip("/") + "/join", data=data,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        try:
            err = json.loads(e.read())["error"]
        except (ValueError, KeyError, TypeError):
            err = {"code": None, "message": f"HTTP {e.code}"}
        raise JoinFailed(e.code, err.get("code"), err.get("message"), err.get("seats")) from None


def any_legal_move(view, rng):
    """``(move, args)``: a legal move picked at random from a seat's own view (what its phone
    offers: the prompt's moves, each argument from its legal choices), or None when the seat
    has nothing to do. A remote random player: the fault bench, the backup and box tests."""
    for m in (view or {}).get("legal") or ():
        if view.get("prompt") and m["move"] not in view["prompt"]["moves"]:
            continue
        args = choices.sample(m["args"], rng)
        if args is not None:
            return m["move"], args
    return None


#: Random bits in the tx prefix a client draws when it starts (docs/protocol.md 5.1): with 128,
#: a billion clients in a club's lifetime have about one chance in 10^21 that two drew the same.
TX_PREFIX_BITS = 128


def new_tx_prefix() -> str:
    """A fresh tx prefix: 128 random bits as 32 hex digits (a tx is ``<prefix>-<counter>``)."""
    return secrets.token_hex(TX_PREFIX_BITS // 8)


class SeatClient:
    """One seat's connection. ``latest`` holds the newest payload per topic kind."""

    def __init__(self, base_url: str, creds: dict, transport: str = "ws",
                 keepalive: int = 30, url: str | None = None):
        self.base_url = base_url
        self.creds = creds
        self.transport = transport
        self.keepalive = keepalive
        self.url = url
        self.client: MqttClient | None = None
        self._tx = itertools.count(1)
        self._prefix = new_tx_prefix()
        self._cond = threading.Condition()
        self.replies: dict[str, dict] = {}
        self.latest: dict[str, dict] = {}
        self.events: list[dict] = []
        self.received: list = []            # every Message, for leak checks
        self.keep_messages = True

    # -- joining ----------------------------------------------------------------------------------
    @classmethod
    def join(cls, base_url, name, room, **kw) -> "SeatClient":
        return cls(base_url, post_join(base_url, {"name": name, "room": room}), **kw)

    def reclaim(self) -> dict:
        self.creds = post_join(self.base_url, {"token": self.creds["token"]})
        return self.creds

    @property
    def topics(self) -> dict:
        return self.creds["topics"]

    @property
    def seat(self) -> int:
        return self.creds["seat"]

    # -- MQTT -------------------------------------------------------------------------------------
    def connect(self, extra_subscriptions=()) -> "SeatClient":
        c = self.creds
        url = self.url or (c["ws_url"] if self.transport == "ws" else None)
        if url is None:
            raise ValueError("give url= for a TCP seat client")
        t = self.topics
        self.client = MqttClient(url, c["username"], c["password"], keepalive=self.keepalive,
                                 will=(t["presence"], protocol.encode(protocol.presence(False)),
                                       1, True),
                                 on_message=self._on_message)
        self.client.connect()
        self.client.subscribe([(t[k], 1) for k in TOPIC_KEYS] +
                              [(f, 1) for f in extra_subscriptions])
        self.client.publish(t["presence"], protocol.encode(protocol.presence(True)), retain=True)
        return self

    def _on_message(self, m):
        if self.keep_messages:
            self.received.append(m)
        try:
            msg = json.loads(m.payload)
        except ValueError:
            return
        t = self.topics
        with self._cond:
            if m.topic == t["reply"]:
                self.replies[msg.get("tx")] = msg
                if (msg.get("error") or {}).get("code") == "tx_reused":
                    self._prefix = new_tx_prefix()  # never again under that prefix
            elif m.topic == t["events"]:
                self.events.append(msg)
            elif m.topic == t["view"]:
                self.latest["view"] = msg
            elif m.topic == t["state"]:
                self.latest["state"] = msg
            self._cond.notify_all()

    def publish_command(self, move, args=None, tx=None, raw: bytes | None = None,
                        retain=False, wait=False) -> str:
        """Publish a command (``wait``: until the broker acknowledged it); return its tx."""
        tx = tx or f"{self._prefix}-{next(self._tx)}"
        data = raw if raw is not None else protocol.encode(
            {"v": 1, "tx": tx, "move": move, "args": args or {}})
        self.client.publish(self.topics["cmd"], data, qos=1, retain=retain, wait=wait)
        return tx

    def wait_reply(self, tx, timeout: float = 5.0) -> dict:
        with self._cond:
            if not self._cond.wait_for(lambda: tx in self.replies, timeout):
                raise TimeoutError(f"no reply to {tx} within {timeout:g} s")
            return self.replies.pop(tx)

    def send(self, move, args=None, tx=None, timeout: float = 5.0) -> dict:
        return self.wait_reply(self.publish_command(move, args, tx), timeout)

    def wait_view(self, predicate, timeout: float = 5.0) -> dict:
        """The newest view once ``predicate(view)`` holds."""
        with self._cond:
            ok = self._cond.wait_for(lambda: "view" in self.latest and
                                     predicate(self.latest["view"]), timeout)
            if not ok:
                raise TimeoutError(f"no matching view within {timeout:g} s; last: "
                                   f"{str(self.latest.get('view'))[:300]}")
            return self.latest["view"]

    def wait_state(self, predicate, timeout: float = 5.0) -> dict:
        with self._cond:
            ok = self._cond.wait_for(lambda: "state" in self.latest and
                                     predicate(self.latest["state"]), timeout)
            if not ok:
                raise TimeoutError(f"no matching state within {timeout:g} s")
            return self.latest["state"]

    def close(self):
        """A clean goodbye: offline presence, then DISCONNECT."""
        if self.client is not None:
            try:
                self.client.publish(self.topics["presence"],
                                    protocol.encode(protocol.presence(False)), retain=True)
            except CompanionError:
                pass
            self.client.close()
            self.client = None

    def kill(self):
        """Vanish like a phone that lost Wi-Fi (no DISCONNECT: the Will fires)."""
        if self.client is not None:
            self.client.kill()
            self.client = None
