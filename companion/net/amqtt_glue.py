"""The embedded broker's hold on amqtt, in one place, behind a version check.

Public extension points (amqtt's documented plugin API):

* :class:`SeatAuthPlugin` (``BaseAuthPlugin.authenticate``): logins from a password table in
  memory; a Last Will only on a topic the login may write;
* :class:`WallPlugin` (``BaseTopicPlugin.topic_filtering``): the topic wall of
  :func:`companion.net.topics.may` for every subscribe, publish and delivery;
* ``Broker(config, loop=...)``, ``start()``, ``shutdown()``, plugins by dotted path.

Private parts, because amqtt offers no extension point for them. Each is checked by
:func:`check` (the version, and the name and parameters of every private method we replace or
call) before the embedded broker starts, and its behaviour by the contract tests
(``tests/net/test_amqtt_contract.py`` and ``tests/net/test_broker_contract.py``):

====================================================  ======================================
private part                                          why
====================================================  ======================================
``BrokerProtocolHandler.handle_read_timeout``          empty in 0.12.1: a client that vanishes
                                                      without a TCP close (a phone out of
                                                      Wi-Fi) stayed connected, its Will never
                                                      fired. Ours drops it.
``Broker._handle_message_delivery``                   no payload limit in amqtt: ours drops a
                                                      publish over 64 KiB.
``Broker._publish_retained_messages_for_subscription``  sent every retained message matching
                                                      any client's filter to every connecting
                                                      client, unchecked: a seat got others'
                                                      views. Ours sends only what the
                                                      subscriber asked for and may read.
``Broker._subscriptions``                             iterated across awaits: a subscribe
                                                      meanwhile raised "dictionary changed
                                                      size" and lost the message, a client
                                                      leaving skipped the next subscriber.
                                                      Ours iterates a snapshot of the dict
                                                      and of each subscriber list.
``Broker._create_server_instance``                    the WebSocket listener pinged every
                                                      client every 20 s (websockets' default);
                                                      paho answers with an unmasked pong, the
                                                      server closes the connection ("incorrect
                                                      masking"), so every Python client over
                                                      WebSockets was cut off after 20 s. Ours
                                                      listens without pings: MQTT's keepalive
                                                      already finds dead clients.
``Broker._retained_messages``, ``_matches``,          read by our retained-message code.
``_get_handler``, ``_servers``, ``sessions``,
handler ``writer``
====================================================  ======================================

On another amqtt version :func:`check` refuses with a sentence (install the tested version, or
use mosquitto), rather than run a broker whose wall may have holes.
"""
from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging

from companion.core.errors import CompanionError

from . import credentials as cred
from .protocol import MAX_PAYLOAD_BYTES
from .topics import may

log = logging.getLogger(__name__)

#: amqtt versions the private parts above were written for and contract-tested with.
TESTED_VERSIONS = ("0.12.1",)

#: The private methods we replace or call, with the parameter names we rely on.
PRIVATE_METHODS = {
    ("amqtt.mqtt.protocol.broker_handler.BrokerProtocolHandler", "handle_read_timeout"):
        ("self",),
    ("amqtt.broker.Broker", "_handle_message_delivery"):
        ("self", "client_session", "handler", "wait_deliver"),
    ("amqtt.broker.Broker", "_publish_retained_messages_for_subscription"):
        ("self", "subscription", "session"),
    ("amqtt.broker.Broker", "_matches"): ("self", "topic", "a_filter"),
    ("amqtt.broker.Broker", "_create_server_instance"):
        ("self", "listener_name", "listener_type", "address", "port", "ssl_context"),
    ("amqtt.broker.Broker", "_get_handler"): ("self", "session"),
}
#: Attributes of a Broker instance we read or replace.
PRIVATE_ATTRIBUTES = ("_subscriptions", "_retained_messages", "_servers", "sessions")


class AmqttMismatch(CompanionError):
    """The installed amqtt is not one the embedded broker was checked with."""


def installed_version() -> str | None:
    """amqtt's version, or None if it is not installed."""
    from importlib import metadata
    try:
        return metadata.version("amqtt")
    except metadata.PackageNotFoundError:
        return None


def _resolve(dotted):
    import importlib
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def problems(version: str | None = None) -> list[str]:
    """What stands in the way of our patches on this amqtt (empty: nothing). ``version``
    overrides the installed version's number (to check the check)."""
    found = installed_version()
    if found is None:
        return ["amqtt is not installed (pip install 'amqtt==%s')" % TESTED_VERSIONS[-1]]
    version = found if version is None else version
    out = []
    if version not in TESTED_VERSIONS:
        out.append(f"amqtt {version} is installed; the embedded broker was checked with "
                   f"{', '.join(TESTED_VERSIONS)}")
    for (owner, name), params in PRIVATE_METHODS.items():
        try:
            cls = _resolve(owner)
        except (ImportError, AttributeError):
            out.append(f"{owner} is gone")
            continue
        fn = getattr(cls, name, None)
        if fn is None:
            out.append(f"{owner.rsplit('.', 1)[-1]}.{name} is gone")
            continue
        got = tuple(inspect.signature(getattr(fn, "__wrapped__", fn)).parameters)
        if got[:len(params)] != params:
            out.append(f"{owner.rsplit('.', 1)[-1]}.{name} takes {', '.join(got)}, not "
                       f"{', '.join(params)}")
    return out


def check(version: str | None = None) -> str:
    """The installed amqtt's version if the embedded broker may run on it; else
    :class:`AmqttMismatch` saying what differs and what to do."""
    found = problems(version)
    if found:
        raise AmqttMismatch(
            "The embedded broker cannot run safely here: " + "; ".join(found) +
            f". Install amqtt {TESTED_VERSIONS[-1]} (pip install 'amqtt=={TESTED_VERSIONS[-1]}')"
            ", or install mosquitto (apt-get install mosquitto) and use --broker mosquitto.")
    return installed_version()


def check_instance(broker) -> None:
    """The private attributes of a constructed amqtt Broker (set in its ``__init__``)."""
    missing = [a for a in PRIVATE_ATTRIBUTES if not hasattr(broker, a)]
    if missing:
        raise AmqttMismatch(f"amqtt's Broker has no {', '.join(missing)}; the embedded broker "
                            f"cannot run on this version ({installed_version()}).")


# -- the parts --------------------------------------------------------------------------------

def abort(handler) -> None:
    """Drop a client's connection at the socket. Its reader then sees EOF and amqtt ends the
    session the normal way (Last Will included). Cancelling amqtt's reader task instead can
    hang: on Python 3.11 ``asyncio.wait_for`` may swallow the cancel."""
    writer = getattr(handler, "writer", None)
    inner = getattr(writer, "_writer", None) or getattr(writer, "_protocol", None)
    transport = getattr(inner, "transport", None)
    if transport is not None:
        transport.abort()


def sessions(broker) -> list:
    """``[(session, handler), ...]`` of a running amqtt broker."""
    return list(broker.sessions.values())


def bound_port(broker, listener: str) -> int:
    """The port a listener really bound (amqtt keeps no public handle on its sockets)."""
    return list(broker._servers[listener].instance.sockets)[0].getsockname()[1]


class _SnapshotDict(dict):
    """A dict whose iteration walks a copy, so it may change while a coroutine iterates it.
    ``items()`` copies each value list too: amqtt's broadcast walks a filter's subscriber
    list across an await (the topic check), and a client leaving meanwhile pops its entry
    from that list, which made the walk skip the next subscriber (one message lost for one
    client, seen about one run in four of the churn contract test)."""

    def __iter__(self):
        return iter(list(dict.keys(self)))

    def items(self):
        return [(k, list(v)) for k, v in dict.items(self)]


def _make_classes():
    check()
    from functools import partial

    import websockets
    from amqtt import broker as amqtt_broker
    from amqtt.contexts import Action, ListenerType
    from amqtt.mqtt.protocol.broker_handler import BrokerProtocolHandler
    from amqtt.plugins.base import BaseAuthPlugin, BaseTopicPlugin

    def handle_read_timeout(self):
        """amqtt 0.12.1 leaves this empty, so a client that vanishes without a TCP close (a phone
        that lost Wi-Fi) stays "connected" and its Last Will never fires. Here a client silent
        for its keepalive plus the broker's grace is dropped (the Will fires)."""
        abort(self)

    handle_read_timeout.tc_patch = True
    BrokerProtocolHandler.handle_read_timeout = handle_read_timeout

    class SeatAuthPlugin(BaseAuthPlugin):
        """Logins from a :class:`PasswordTable` in memory; a Last Will only on a topic the user
        may write (amqtt would otherwise publish a will anywhere, unchecked)."""

        @dataclasses.dataclass
        class Config:
            pass

        table: cred.PasswordTable | None = None

        async def authenticate(self, *, session) -> bool:
            table = self.table
            if table is None or not session or not session.username:
                return False
            if not table.check(session.username, session.password):
                return False
            if session.will_flag and not may(session.username, "write", session.will_topic):
                return False
            return True

    class WallPlugin(BaseTopicPlugin):
        """The topic wall: :func:`companion.net.topics.may` for every subscribe, publish and
        delivery."""

        @dataclasses.dataclass
        class Config:
            pass

        async def topic_filtering(self, *, session=None, topic=None, action=None) -> bool:
            user = session.username if session is not None else None
            if action == Action.PUBLISH:
                return may(user, "write", topic)
            return may(user, "read", topic)     # SUBSCRIBE (a filter) and RECEIVE (a topic)

    class WalledBroker(amqtt_broker.Broker):
        """amqtt's broker with a leak closed and a payload limit (the other hole, Wills published
        unchecked, is closed at login by SeatAuthPlugin).

        amqtt 0.12.1 sends retained messages on connect for *every* filter any client has
        subscribed to, to *every* connecting client, without a topic check: a seat would get
        other seats' retained views. Here retained messages go only for the session's own
        subscriptions, and only on topics it may read.
        """

        max_payload = MAX_PAYLOAD_BYTES

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            check_instance(self)
            # amqtt iterates this dict across awaits (each delivery awaits the topic check):
            # a client subscribing meanwhile raised "dictionary changed size during iteration"
            # and the message was lost for the remaining subscribers.
            self._subscriptions = _SnapshotDict(self._subscriptions)

        async def _handle_message_delivery(self, client_session, handler, wait_deliver):
            msg = wait_deliver.result()
            if msg is not None and msg.data is not None and len(msg.data) > self.max_payload:
                log.info("dropped a %d-byte publish from %s on %s (limit %d bytes)",
                         len(msg.data), client_session.username, msg.topic, self.max_payload)
                return True          # keep the connection; nothing is delivered or retained
            return await super()._handle_message_delivery(client_session, handler, wait_deliver)

        async def _create_server_instance(self, listener_name, listener_type, address, port,
                                          ssl_context):
            if listener_type != ListenerType.WS:
                return await super()._create_server_instance(listener_name, listener_type,
                                                             address, port, ssl_context)
            # as amqtt 0.12.1 serves WebSockets, without websockets' 20 s pings: paho-mqtt
            # (2.2) answers a ping with an unmasked pong, which a server must refuse, so each
            # paho client was disconnected after 20 s; MQTT's keepalive does the same job
            return await websockets.serve(
                partial(self.ws_connected, listener_name=listener_name), address, port,
                ssl=ssl_context, subprotocols=[websockets.Subprotocol("mqtt")],
                ping_interval=None)

        async def _publish_retained_messages_for_subscription(self, subscription, session):
            topic_filter = subscription[0]
            mine = [q for s, q in self._subscriptions.get(topic_filter, [])
                    if s.client_id == session.client_id]
            handler = self._get_handler(session)
            if not mine or handler is None:
                return
            tasks = []
            for topic, retained in list(self._retained_messages.items()):
                if self._matches(topic, topic_filter) and may(session.username, "read", topic):
                    qos = min(mine[0], retained.qos if retained.qos is not None else mine[0])
                    tasks.append(asyncio.ensure_future(
                        handler.mqtt_publish(retained.topic, retained.data, qos, retain=True)))
            if tasks:
                await asyncio.wait(tasks)

    return SeatAuthPlugin, WallPlugin, WalledBroker


_CLASSES = None


def classes():
    """``(SeatAuthPlugin, WallPlugin, WalledBroker)``, made once (after :func:`check`)."""
    global _CLASSES, SeatAuthPlugin, WallPlugin
    if _CLASSES is None:
        _CLASSES = _make_classes()
        # module attributes, so amqtt can load the plugins by dotted path
        SeatAuthPlugin, WallPlugin = _CLASSES[0], _CLASSES[1]
    return _CLASSES


def __getattr__(name):          # lazy module attributes for amqtt's plugin loader
    if name in ("SeatAuthPlugin", "WallPlugin"):
        classes()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
