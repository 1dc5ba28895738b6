"""What goes wrong with a broker, in words: :class:`BrokerError`, and :class:`PortTaken` naming the
program that holds a port the table needs.
"""
from __future__ import annotations

from companion.core.errors import CompanionError

class BrokerError(CompanionError):
    """The broker could not start, stop, or do what was asked. The message says why."""


class PortTaken(BrokerError):
    """Another program listens on a port the table's broker needs (``kind``: ``"mqtt"`` or
    ``"ws"``). ``holder`` is ``(pid, command name)``, or None when it cannot be named.
    ``owner`` (``"user mosquitto"``, or ``"uid 4242"`` where the system has no name for it) is
    set when the holder was found through the socket's owner rather than its open files (another
    user's process, see :func:`owner_holder`): the holder's user, or, with no holder, the user
    whose program it is. ``others``: more ``((pid, name), owner, hint)`` that may be the holder
    just as well (two brokers of the socket's owner: it cannot tell which)."""

    def __init__(self, port: int, kind: str = "mqtt", holder: tuple | None = None,
                 hint: str = "", owner: str | None = None, others=()):
        self.port, self.kind, self.holder, self.owner = port, kind, holder, owner
        self.others = list(others)
        if holder is not None:
            named = [(holder, owner, hint)] + self.others
            names = [f"{name} ({', '.join(x for x in (f'pid {pid}', who, why) if x)})"
                     for (pid, name), who, why in named[:3]]
            if len(named) > 3:
                names.append(f"{len(named) - 3} more like them")
            who = "by " + (names[0] if len(names) == 1 else
                           ", ".join(names[:-1]) + " or " + names[-1])
            brokers = all(_broker_like(name) for (_, name), _, _ in named)
            that = "that broker" if brokers else "that program"
        elif owner is not None:
            who = f"by a program of {owner}"
            that = "that program"
        else:
            who = "by a program this user cannot see"
            that = "that program"
        need = "needs it" if kind == "mqtt" else "needs it for the phones (MQTT over WebSockets)"
        flag = "--mqtt-port" if kind == "mqtt" else "--ws-port"
        super().__init__(f"Port {port} is already taken {who}; the table's broker {need}. "
                         f"Stop {that} or start the table with {flag}.")


#: Words in a command name that make it an MQTT broker (mosquitto, amqtt, EMQX, NanoMQ, ...).
BROKER_WORDS = ("mosquitto", "mqtt", "emqx", "nanomq", "vernemq", "hivemq")


def _broker_like(*names) -> bool:
    return any(w in (n or "").lower() for n in names for w in BROKER_WORDS)
