"""The bridge to a club: :class:`BridgeTo`, where a box's mosquitto sends its table's public topics
(mosquitto's own bridge, one way out, public topics only) and the bridge section of its config.
"""
from __future__ import annotations

import dataclasses

from .. import credentials as cred
from ..topics import bridge_topics, check_table_id, club_link
from .errors import BrokerError

@dataclasses.dataclass(frozen=True)
class BridgeTo:
    """Where a box's mosquitto sends its table's public topics: the club broker at
    ``host:port`` (TCP), logged in as ``username`` (the table id) with ``password``. One way
    out, public topics only (:func:`companion.net.topics.public_patterns`)."""
    host: str
    port: int
    username: str
    password: str = dataclasses.field(repr=False)
    table: str
    #: the table's name at the club, when the club gave it another (``table-2``)
    remote: str | None = None

    def __post_init__(self):
        check_table_id(self.table)
        if self.remote is not None:
            check_table_id(self.remote)
        cred.check_username(self.username)
        cred.check_password(self.password)
        if not isinstance(self.host, str) or not self.host or any(c.isspace() or c in "[]#:"
                                                                   for c in self.host):
            # (mosquitto's "address host:port" line cannot hold an IPv6 literal: use a name)
            raise BrokerError(f"{self.host!r} is not a club broker host name or IPv4 address.")
        if not isinstance(self.port, int) or not 0 < self.port < 65536:
            raise BrokerError(f"{self.port!r} is not a club broker port.")
        if any(c.isspace() for c in self.password):
            # mosquitto's config reader would cut it at the first space
            raise BrokerError("A club broker password cannot contain spaces.")

    def config_lines(self) -> list[str]:
        """mosquitto's own bridge section for this link, one setting a line (why: the comments)."""
        lines = [
            f"connection tc-club-{self.table}",
            f"address {self.host}:{self.port}",
            "bridge_protocol_version mqttv311",
            # an ordinary client to the club: a one-way bridge has no remote subscriptions for
            # the bridge flag to help with, and any broker accepts it
            "try_private false",
            f"remote_clientid tc-bridge-{self.table}",
            f"remote_username {self.username}",
            f"remote_password {self.password}",
            # nothing piles up on the box while the club is away (the record goes by the
            # shipper); at every connect mosquitto sends the retained state, status and
            # presence again, which is the live picture; stale events are not replayed as live
            "cleansession true",
            "start_type automatic",
            "restart_timeout 2 15",   # back at the club within 15 s of its return
            # a vanished box is noticed by the club within 1.5 x this (its link turns 0)
            "keepalive_interval 30",
            "notifications true",
            "notifications_local_only false",      # the club must see it, not only the box
            f"notification_topic {club_link(self.remote or self.table)}",
            # send the club publishes only (no UNSUBSCRIBE for the out topics)
            "bridge_attempt_unsubscribe false",
        ]
        lines += bridge_topics(self.table, self.remote)
        return lines
