"""The MQTT broker the phones and the hub meet on: one interface, three modes, and ``auto``.

* ``auto`` (the default of ``companion serve`` and ``companion run``): mosquitto when it is
  installed, else the embedded broker (:func:`auto_mode`; benches/bench_broker.py and
  bench_hub.py measure why).
* :class:`EmbeddedBroker` (nothing to install): amqtt 0.12.1 on its own asyncio loop in a
  thread, TCP + WebSockets listeners, logins checked in memory by our auth plugin, the topic
  wall by our topic plugin (both call :func:`companion.net.topics.may`); amqtt's private parts
  it patches live in :mod:`companion.net.amqtt_glue`, behind a version check.
* :class:`MosquittoBroker`: a ``mosquitto -c`` child process with a generated config, password
  file (``$7$`` hashes) and ACL file (``pattern`` rules rendered from the same wall),
  supervised (restarted on the same ports if it dies), and dying with the table (Linux:
  ``PR_SET_PDEATHSIG``, the child forked by one long-lived thread; :func:`_reap_orphan` at the
  next start is the second line of defence).
  With a :class:`BridgeTo`, the child also bridges the table's public topics out to a club's
  broker (mosquitto's own bridge, one way; never a view, cmd or reply).
* :class:`ExternalBroker`: a broker somebody else runs (``mqtt://host:port``). No child, and its
  logins and ACL are the operator's job: :meth:`add_user` raises :class:`BrokerError`.

One broker per port: before the embedded broker or mosquitto starts, each port it needs is
checked against the sockets listening on it (``/proc/net/tcp{,6}``; a wildcard bind counts the
loopback addresses, where Debian's own ``mosquitto.service`` listens). A taken port is a
:class:`PortTaken` sentence naming the port and its holder's command and pid (found by the
socket's inode in ``/proc/*/fd``; another user's process hides its open files, so then from what
every user may read: the socket's owner uid in ``/proc/net/tcp`` and each process's ``status``,
``comm``, ``cmdline`` and ``cgroup``, see :func:`owner_holder`). Ready means the probe login was
answered *and* every listener on our ports is ours (the child's sockets, in
``/proc/<pid>/fd``); a supervisor whose port was taken says so once and stops restarting.

Every mode is a context manager with ``start()``/``stop()``, ``host``, ``tcp_port``, ``ws_port``,
``url`` (for the hub), ``ws_url`` (for the phones) and ``add_user``/``remove_user``.
Oversized payloads (over :data:`MAX_PAYLOAD_BYTES`) are dropped by both brokers we run.

The package, one concern a module: :mod:`.errors`, :mod:`.ports` (who holds a port),
:mod:`.base` (the interface), :mod:`.embedded`, :mod:`.children` (child processes that die with
the table), :mod:`.mosquitto`, :mod:`.external`, :mod:`.club` (the bridge to a club). Its names
are all here too, for the callers.
"""
# (the names callers and tests use, from the module that owns each)
# flake8: noqa: F401
from .errors import BROKER_WORDS, BrokerError, PortTaken
from .ports import (connect_host, free_port, free_ports, listeners, owner_holder, port_taken,
                    socket_holder, _command_name, _listening, _socket_inodes)
from .base import (Broker, KEEPALIVE_GRACE, MOSQUITTO_BINARIES, probe_login, WS_PATH,
                   _mqtt_string)
from .embedded import EmbeddedBroker
from .children import DIE_WITH_PARENT, PROBE_USER, _note_child, _reap_orphan, _SPAWNER
from .mosquitto import find_mosquitto, mosquitto_available, MosquittoBroker
from .external import ExternalBroker
from .club import BridgeTo


def auto_mode(binary: str | None = None) -> str:
    """The broker ``auto`` means here: ``"mosquitto"`` when it is installed (2-3x faster
    round trips and fan-out than the embedded broker, and out of the hub's process, so the
    hub's Python work never delays a delivery), else ``"embedded"`` (nothing to install)."""
    return "mosquitto" if mosquitto_available(binary) else "embedded"


def make_broker(spec: str = "auto", **options) -> Broker:
    """``"auto"`` (mosquitto if installed, else embedded: :func:`auto_mode`), ``"embedded"``,
    ``"mosquitto"``, or an ``mqtt://host:port`` URL (options: ``ws_url``)."""
    if spec == "auto":
        spec = auto_mode(options.get("binary"))
        if spec == "embedded":
            options.pop("binary", None)
    if spec == "embedded":
        return EmbeddedBroker(**options)
    if spec == "mosquitto":
        return MosquittoBroker(**options)
    if isinstance(spec, str) and spec.startswith(("mqtt://", "ws://")):
        return ExternalBroker(spec, **options)
    raise BrokerError(f"Unknown broker {spec!r}: use 'auto', 'embedded', 'mosquitto' or "
                      f"mqtt://host:port.")
