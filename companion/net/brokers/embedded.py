"""The embedded broker: amqtt 0.12.1 on its own asyncio loop in a thread, TCP and WebSockets
listeners, logins checked in memory and the topic wall applied by our plugins
(:mod:`companion.net.amqtt_glue` holds what it patches of amqtt), and amqtt's routine disconnect
chatter kept out of the log.
"""
from __future__ import annotations

import asyncio
import logging
import os
import re
import threading

from .. import amqtt_glue
from .. import credentials as cred
from ..protocol import MAX_PAYLOAD_BYTES
from .base import Broker, KEEPALIVE_GRACE
from .errors import BrokerError
from .ports import _socket_inodes, _url_host

log = logging.getLogger(__name__)

_CONNECTION_LOSS = re.compile(r"no close frame|connection (?:reset|closed|lost)|broken pipe|"
                              r"ConnectionClosed|IncompleteRead|Cannot write to closing|"
                              r"messages not broadcasted",
                              re.IGNORECASE)


class _RoutineDisconnects(logging.Filter):
    """amqtt reports a phone that drops its connection (asleep, out of Wi-Fi, the page
    reloaded, the table stopping) as warnings and tracebacks. They are routine at a table:
    keep them at debug level, so the console shows only what an operator must act on."""

    def filter(self, record):
        exc = record.exc_info[1] if record.exc_info else None
        text = record.getMessage()
        if isinstance(exc, (ConnectionError, asyncio.IncompleteReadError)) or \
                (exc is not None and _CONNECTION_LOSS.search(type(exc).__name__ + str(exc))) \
                or (record.levelno < logging.ERROR and _CONNECTION_LOSS.search(text)):
            if log.isEnabledFor(logging.DEBUG):
                log.debug("broker: %s (%s)", text, exc)
            return False
        return True


_QUIETED = []


def _loop_exception(loop, context):
    """The embedded broker's loop: a publish to a phone that just vanished is routine."""
    exc = context.get("exception")
    if isinstance(exc, (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError)) \
            or (exc is not None and _CONNECTION_LOSS.search(type(exc).__name__ + str(exc))):
        log.debug("broker: %s (%r)", context.get("message"), exc)
        return
    loop.default_exception_handler(context)


def _quiet_amqtt():
    if _QUIETED:
        return
    f = _RoutineDisconnects()
    for name in ("amqtt.broker", "amqtt.mqtt.protocol.handler", "amqtt.adapters",
                 "amqtt.mqtt.protocol.broker_handler", "websockets.server",
                 "websockets.asyncio.server"):
        logging.getLogger(name).addFilter(f)
    _QUIETED.append(f)


class EmbeddedBroker(Broker):
    """amqtt in this process. Passwords live in memory only (:class:`PasswordTable`).

    MQTT 3.1.1 only: an MQTT 5 client never gets a CONNACK from amqtt.
    """

    mode = "embedded"

    def __init__(self, host: str = "127.0.0.1", tcp_port: int = 0, ws_port: int | None = 0,
                 users=None, max_payload: int = MAX_PAYLOAD_BYTES, start_timeout: float = 10.0):
        super().__init__(host, tcp_port, ws_port, users, max_payload)
        self._table = cred.PasswordTable(self._initial_users)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._broker = None
        self._start_timeout = start_timeout

    def _bind(self, port: int) -> str:
        return f"{_url_host(self.host)}:{port}"

    async def _astart(self):
        auth_cls, wall_cls, broker_cls = amqtt_glue.classes()
        listeners = {"default": {"type": "tcp", "bind": self._bind(self.tcp_port)}}
        if self.ws_port is not None:
            listeners["ws"] = {"type": "ws", "bind": self._bind(self.ws_port)}
        glue = amqtt_glue.__name__
        config = {"listeners": listeners, "timeout_disconnect_delay": KEEPALIVE_GRACE,
                  "plugins": {f"{glue}.SeatAuthPlugin": {}, f"{glue}.WallPlugin": {}}}
        broker = broker_cls(config, loop=asyncio.get_running_loop())
        broker.max_payload = self.max_payload
        plugins = broker.plugins_manager.plugins
        auths = [p for p in plugins if isinstance(p, auth_cls)]
        if len(auths) != 1 or not any(isinstance(p, wall_cls) for p in plugins):
            raise BrokerError("The embedded broker did not load its auth and topic plugins.")
        auths[0].table = self._table
        await broker.start()
        self._broker = broker
        self.tcp_port = amqtt_glue.bound_port(broker, "default")
        if self.ws_port is not None:
            self.ws_port = amqtt_glue.bound_port(broker, "ws")

    def start(self) -> "EmbeddedBroker":
        if self._running:
            return self
        try:
            self.amqtt_version = amqtt_glue.check()
        except amqtt_glue.AmqttMismatch as e:
            raise BrokerError(str(e)) from None
        taken = self._taken()                   # someone else's broker on our port: say who
        if taken is not None:
            raise taken
        _quiet_amqtt()
        self._loop = asyncio.new_event_loop()
        self._loop.set_exception_handler(_loop_exception)
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="tc-embedded-broker")
        self._thread.start()
        fut = asyncio.run_coroutine_threadsafe(self._astart(), self._loop)
        try:
            fut.result(self._start_timeout)
        except BrokerError:
            self._stop_loop()
            raise
        except Exception as e:           # amqtt wraps bind errors in its own BrokerError
            self._stop_loop()
            taken = self._taken()           # taken between the check and the bind
            if taken is not None:
                raise taken from None
            cause = e.__cause__ or e
            raise BrokerError(f"The embedded broker could not listen on {self.host} "
                              f"(TCP {self.tcp_port}, WebSockets {self.ws_port}): {cause}.") from None
        # ours alone: no other socket (a loopback one taken meanwhile) shares our ports
        taken = self._taken(mine=_socket_inodes(os.getpid()))
        if taken is not None:
            self._stop_loop()
            raise taken
        self._running = True
        return self

    @staticmethod
    def _abort(handler) -> None:
        amqtt_glue.abort(handler)

    async def _ashutdown(self):
        broker = self._broker
        if broker is not None:
            for _session, handler in amqtt_glue.sessions(broker):
                if handler is not None:
                    self._abort(handler)
            await asyncio.sleep(0)
            try:
                await asyncio.wait_for(broker.shutdown(), 5)
            except asyncio.TimeoutError:
                log.warning("the embedded broker took over 5 s to shut down; cancelling it")
        current = asyncio.current_task()
        rest = [t for t in asyncio.all_tasks() if t is not current]
        for t in rest:
            t.cancel()
        await asyncio.gather(*rest, return_exceptions=True)

    def _stop_loop(self):
        if self._loop is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self._ashutdown(), self._loop).result(10)
        except Exception as e:              # still stop the loop; report once
            log.warning("embedded broker shutdown: %r", e)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
        self._loop = self._thread = self._broker = None

    def stop(self) -> None:
        if not self._running:
            return
        self._running = False
        self._stop_loop()

    # logins
    def add_user(self, username: str, password: str) -> None:
        self._table.add(username, password)

    def remove_user(self, username: str) -> bool:
        """Forget the login and drop its live connections (their Last Will fires)."""
        removed = self._table.remove(username)
        if self._running:
            asyncio.run_coroutine_threadsafe(self._kick(username), self._loop).result(5)
        return removed

    async def _kick(self, username: str):
        for session, handler in amqtt_glue.sessions(self._broker):
            if session.username == username and handler is not None:
                self._abort(handler)

    def users(self) -> list[str]:
        return self._table.names()
