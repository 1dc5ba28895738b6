"""A small blocking wrapper over a paho-mqtt client: connect or fail with a sentence, publish and
wait for the broker's ack, collect messages in a queue. Used by the hub, the tests and the bench.

MQTT 3.1.1 only (the embedded broker speaks nothing else). ``mqtt://host:port`` uses TCP,
``ws://host:port/path`` uses WebSockets.
"""
from __future__ import annotations

import queue
import secrets
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass

import paho.mqtt.client as paho
from paho.mqtt.enums import CallbackAPIVersion

from companion.core.errors import CompanionError

DEFAULT_PORTS = {"mqtt": 1883, "ws": 80}


class ConnectError(CompanionError):
    """The broker could not be reached, or it refused the login."""


@dataclass(frozen=True)
class Endpoint:
    scheme: str        # "mqtt" or "ws"
    host: str
    port: int
    path: str = "/mqtt"

    @property
    def url(self) -> str:
        if self.scheme == "ws":
            return f"ws://{self.host}:{self.port}{self.path}"
        return f"mqtt://{self.host}:{self.port}"


def parse_url(url: str) -> Endpoint:
    """``mqtt://host[:port]`` or ``ws://host[:port][/path]``.

    >>> parse_url("mqtt://10.0.0.2")
    Endpoint(scheme='mqtt', host='10.0.0.2', port=1883, path='/mqtt')
    >>> parse_url("ws://pi.local:9001/mqtt").url
    'ws://pi.local:9001/mqtt'
    """
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except (ValueError, TypeError, AttributeError):
        raise ConnectError(f"{url!r} is not a broker URL; write mqtt://host:port or "
                           f"ws://host:port/mqtt.") from None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname:
        raise ConnectError(f"{url!r} is not a broker URL; write mqtt://host:port or "
                           f"ws://host:port/mqtt (mqtts/wss are not supported yet).")
    path = parts.path or "/mqtt"
    return Endpoint(parts.scheme, parts.hostname, port or DEFAULT_PORTS[parts.scheme], path)


def set_nodelay(sock) -> None:
    """Turn Nagle off on a paho socket (TCP, or the TCP under paho's WebSocket wrapper). paho
    leaves it on, and a QoS 1 exchange of small packets then stalls for tens of ms."""
    sock = getattr(sock, "_socket", sock)
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (OSError, AttributeError):
        pass


@dataclass(frozen=True)
class Message:
    topic: str
    payload: bytes
    qos: int
    retain: bool
    received_at: float      # time.perf_counter() when paho handed it over


class MqttClient:
    """One connection. ``messages`` is a queue of :class:`Message`; or pass ``on_message``."""

    def __init__(self, url: str, username: str | None, password: str | None, *,
                 client_id: str | None = None, will: tuple | None = None,
                 keepalive: int = 30, on_message=None, reconnect: bool = False,
                 max_inflight: int | None = None, on_reconnect=None):
        """``reconnect=True`` (the hub): paho reconnects by itself after a lost connection
        (1 s to 2 min back-off) and this class subscribes again. ``max_inflight``: QoS 1
        publishes awaiting their PUBACK before paho queues the next (paho's default is 20;
        the hub sends a burst of views per command and raises it). ``on_reconnect()`` is
        called (on paho's thread) after an automatic reconnect has subscribed again, e.g. so
        the hub can republish its status that its Last Will overwrote."""
        self.endpoint = parse_url(url)
        self.username = username
        self.client_id = client_id or f"{username or 'anon'}-{secrets.token_hex(6)}"
        self.messages: queue.Queue[Message] = queue.Queue()
        self._user_on_message = on_message
        self._on_reconnect = on_reconnect
        self._connected = threading.Event()
        self._disconnected = threading.Event()
        self._result = None
        transport = "websockets" if self.endpoint.scheme == "ws" else "tcp"
        c = paho.Client(CallbackAPIVersion.VERSION2, client_id=self.client_id,
                        clean_session=True, protocol=paho.MQTTv311, transport=transport,
                        reconnect_on_failure=reconnect)
        if transport == "websockets":
            c.ws_set_options(path=self.endpoint.path)
        if max_inflight is not None:
            c.max_inflight_messages_set(max_inflight)
        if username is not None:
            c.username_pw_set(username, password)
        if will is not None:
            topic, payload, qos, retain = will
            c.will_set(topic, payload, qos=qos, retain=retain)
        c.on_connect = self._on_connect
        c.on_message = self._on_message
        c.on_disconnect = self._on_disconnect
        c.on_subscribe = self._on_subscribe
        self._suback = threading.Condition()
        self._subscriptions: dict[str, int] = {}   # replayed after an automatic reconnect
        self._subacks: dict[int, list[int]] = {}
        self._client = c
        self._keepalive = keepalive

    # -- paho callbacks (paho's thread) ------------------------------------------------------
    def _on_connect(self, client, userdata, flags, reason_code, properties):
        if self._connected.is_set() and not reason_code.is_failure:
            # an automatic reconnect (reconnect=True): a clean session lost the subscriptions
            set_nodelay(client.socket())
            if self._subscriptions:
                client.subscribe(list(self._subscriptions.items()))
            if self._on_reconnect is not None:
                self._on_reconnect()
        self._result = reason_code
        self._connected.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties):
        self._disconnected.set()
        if not self._connected.is_set():
            self._result = reason_code
            self._connected.set()

    def _on_subscribe(self, client, userdata, mid, reason_codes, properties):
        with self._suback:
            self._subacks[mid] = [int(rc.value) for rc in reason_codes]
            self._suback.notify_all()

    def _on_message(self, client, userdata, msg):
        m = Message(msg.topic, msg.payload, msg.qos, bool(msg.retain), time.perf_counter())
        if self._user_on_message is not None:
            self._user_on_message(m)
        else:
            self.messages.put(m)

    # -- life -------------------------------------------------------------------------------
    def connect(self, timeout: float = 5.0) -> "MqttClient":
        """Connect and wait for the CONNACK; raise :class:`ConnectError` if refused."""
        ep = self.endpoint
        try:
            self._client.connect(ep.host, ep.port, keepalive=self._keepalive)
        except OSError as e:
            raise ConnectError(f"Cannot reach the broker at {ep.url}: {e.strerror or e}.") from None
        set_nodelay(self._client.socket())
        self._client.loop_start()
        if not self._connected.wait(timeout):
            self._client.loop_stop()
            raise ConnectError(f"The broker at {ep.url} did not answer within {timeout:g} s.")
        rc = self._result
        if rc is None or rc.is_failure:
            self._client.loop_stop()
            sock = self._client.socket()
            if sock is not None:
                sock.close()
            reason = str(rc) if rc is not None else "closed the connection"
            raise ConnectError(f"The broker at {ep.url} refused {self.username or 'an anonymous'}"
                               f" login: {reason}.")
        return self

    def is_connected(self) -> bool:
        return self._client.is_connected()

    def wait_disconnected(self, timeout: float = 5.0) -> bool:
        """Wait until the broker ends this connection; True if it did within ``timeout``."""
        return self._disconnected.wait(timeout)

    def subscribe(self, topics, timeout: float = 5.0) -> list[int]:
        """Subscribe to [(topic, qos), ...]; return the granted QoS per topic (128 = refused).

        A granted code does not prove delivery: mosquitto grants a forbidden subscription and
        then delivers nothing on it.
        """
        topics = [(t, q) for t, q in topics]
        self._subscriptions.update(topics)
        rc, mid = self._client.subscribe(topics)
        if rc != paho.MQTT_ERR_SUCCESS:
            raise ConnectError(f"Subscribe failed: {paho.error_string(rc)}.")
        with self._suback:
            if not self._suback.wait_for(lambda: mid in self._subacks, timeout):
                raise ConnectError(f"No SUBACK within {timeout:g} s.")
            return self._subacks.pop(mid)

    def publish(self, topic: str, payload, qos: int = 1, retain: bool = False,
                wait: bool = True, timeout: float = 5.0):
        info = self._client.publish(topic, payload, qos=qos, retain=retain)
        if info.rc != paho.MQTT_ERR_SUCCESS:
            raise ConnectError(f"Publish to {topic} failed: "
                               f"{paho.error_string(info.rc).rstrip('.')}.")
        if wait and qos > 0:
            info.wait_for_publish(timeout)
            if not info.is_published():
                raise ConnectError(f"No PUBACK for {topic} within {timeout:g} s.")
        return info

    def wait_for(self, predicate, timeout: float = 5.0) -> list[Message]:
        """Collect messages until one satisfies ``predicate``; return all collected (it last).
        Raise TimeoutError if none does within ``timeout``."""
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching message within {timeout:g} s; saw "
                                   f"{[m.topic for m in seen]}")
            try:
                m = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            seen.append(m)
            if predicate(m):
                return seen

    def drain(self) -> list[Message]:
        out = []
        while True:
            try:
                out.append(self.messages.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        """Clean disconnect (no Last Will)."""
        try:
            if self._client.is_connected():
                self._client.disconnect()
        finally:
            self._client.loop_stop()

    def kill(self) -> None:
        """Drop the connection without a DISCONNECT packet, as a phone that loses Wi-Fi: the
        broker publishes the Last Will."""
        sock = self._client.socket()
        if sock is not None:
            try:   # the TCP socket (under paho's WebSocket wrapper, if any): wakes paho at once
                getattr(sock, "_socket", sock).shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._client.loop_stop()
        sock = self._client.socket()
        if sock is not None:
            sock.close()

    def __enter__(self):
        return self.connect()

    def __exit__(self, *exc):
        self.close()
