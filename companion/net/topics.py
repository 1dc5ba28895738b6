"""Protocol v1 topic scheme and the access wall, as pure functions (standard library only).

One versioned base per table: ``tc/v1/<table>``. Under it::

    tc/v1/<table>/state                  public, retained, QoS 1      hub writes, all read
    tc/v1/<table>/events                 public, not retained, QoS 1  hub writes, all read
    tc/v1/<table>/hub/status             public, retained, QoS 1      hub writes (+ its Last Will)
    tc/v1/<table>/seat/<seat>/presence   public, retained, QoS 1      that seat writes (+ its Will)
    tc/v1/<table>/seat/<seat>/view       private, retained, QoS 1     hub writes, that seat reads
    tc/v1/<table>/seat/<seat>/cmd        private, not retained, QoS 1 that seat writes, hub reads
    tc/v1/<table>/seat/<seat>/reply      private, not retained, QoS 1 hub writes, that seat reads

A seat's id in a topic *is* its MQTT username; that is what lets one mosquitto ``pattern`` rule
with ``%u`` stand for every seat. So seat ids must be unique on a broker (not only at a table):
:func:`companion.net.credentials.new_seat_id` makes them so.

The wall is written once, as data (:data:`SEAT_RULES`, :data:`HUB_RULES`), and read two ways:
:func:`may` evaluates it for the embedded broker's plugin, :func:`mosquitto_acl` renders it as
a mosquitto ``acl_file``. Both brokers therefore enforce the same wall.

>>> t = TableTopics("kitchen")
>>> t.view("s2-9f3a")
'tc/v1/kitchen/seat/s2-9f3a/view'
>>> may("s2-9f3a", "read", t.view("s2-9f3a")), may("s1-0c1d", "read", t.view("s2-9f3a"))
(True, False)
>>> may("s1-0c1d", "write", t.cmd("s1-0c1d")), may("s1-0c1d", "write", t.cmd("s2-9f3a"))
(True, False)
>>> may("s1-0c1d", "read", "tc/v1/kitchen/#"), may("hub", "read", "tc/v1/kitchen/#")
(False, True)
"""
from __future__ import annotations

import dataclasses
import re

from companion.core.errors import CompanionError

PROTOCOL_VERSION = 1
ROOT = "tc"
PREFIX = f"{ROOT}/v{PROTOCOL_VERSION}"          # "tc/v1"
HUB_USER = "hub"

ID_PATTERN = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?")
ID_RULE = ("use 1 to 32 characters from a-z, 0-9 and '-', starting and ending with a letter or "
           "digit")

READ, WRITE = "read", "write"
ACTIONS = (READ, WRITE)


class TopicError(CompanionError, ValueError):
    """A table id, seat id or topic that is not part of protocol v1."""


# -- ids ------------------------------------------------------------------------------------

def check_id(value, what: str = "id") -> str:
    """Return ``value`` if it is a valid topic id, else raise :class:`TopicError`.

    >>> check_id("table-1", "table id")
    'table-1'
    >>> check_id("Table 1", "table id")
    Traceback (most recent call last):
    ...
    companion.net.topics.TopicError: The table id 'Table 1' is not valid: use 1 to 32 characters from a-z, 0-9 and '-', starting and ending with a letter or digit.
    """
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise TopicError(f"The {what} {value!r} is not valid: {ID_RULE}.")
    return value


def check_table_id(table) -> str:
    return check_id(table, "table id")


def check_seat_id(seat) -> str:
    """A seat id is also the seat's MQTT username, so the hub's name is not available."""
    check_id(seat, "seat id")
    if seat == HUB_USER:
        raise TopicError(f"The seat id {seat!r} is reserved for the hub's own login.")
    return seat


def is_seat_id(value) -> bool:
    return isinstance(value, str) and bool(ID_PATTERN.fullmatch(value)) and value != HUB_USER


# -- topics of one table ----------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class TopicKind:
    """The fixed rules of one kind of topic."""
    name: str
    retained: bool
    qos: int
    private: bool          # only one seat (and the hub) may read it
    writer: str            # "hub" or "seat" (the seat the topic belongs to)


KINDS = {k.name: k for k in (
    TopicKind("state", retained=True, qos=1, private=False, writer="hub"),
    TopicKind("events", retained=False, qos=1, private=False, writer="hub"),
    TopicKind("hub/status", retained=True, qos=1, private=False, writer="hub"),
    TopicKind("presence", retained=True, qos=1, private=False, writer="seat"),
    TopicKind("view", retained=True, qos=1, private=True, writer="hub"),
    TopicKind("cmd", retained=False, qos=1, private=True, writer="seat"),
    TopicKind("reply", retained=False, qos=1, private=True, writer="hub"),
)}
SEAT_KINDS = ("presence", "view", "cmd", "reply")


@dataclasses.dataclass(frozen=True)
class TopicInfo:
    """What :func:`parse` found in a concrete topic."""
    table: str
    kind: TopicKind
    seat: str | None = None


class TableTopics:
    """Every topic of one table. Ids are checked once, here."""

    def __init__(self, table: str):
        self.table = check_table_id(table)
        self.base = f"{PREFIX}/{table}"
        self.state = f"{self.base}/state"
        self.events = f"{self.base}/events"
        self.hub_status = f"{self.base}/hub/status"
        self.all_cmds = f"{self.base}/seat/+/cmd"             # the hub subscribes to this
        self.all_presence = f"{self.base}/seat/+/presence"    # anyone may subscribe to this

    def __repr__(self):
        return f"TableTopics({self.table!r})"

    def seat_topic(self, seat: str, kind: str) -> str:
        if kind not in SEAT_KINDS:
            raise TopicError(f"{kind!r} is not a seat topic; use one of {', '.join(SEAT_KINDS)}.")
        return f"{self.base}/seat/{check_seat_id(seat)}/{kind}"

    def view(self, seat: str) -> str:
        return self.seat_topic(seat, "view")

    def cmd(self, seat: str) -> str:
        return self.seat_topic(seat, "cmd")

    def reply(self, seat: str) -> str:
        return self.seat_topic(seat, "reply")

    def presence(self, seat: str) -> str:
        return self.seat_topic(seat, "presence")

    def seat_subscriptions(self, seat: str) -> list[tuple[str, int]]:
        """What a phone subscribes to: exactly these (topic, qos) pairs, no wildcards but the
        presence of all seats."""
        return [(self.state, 1), (self.events, 1), (self.hub_status, 1), (self.all_presence, 1),
                (self.view(seat), 1), (self.reply(seat), 1)]

    def hub_subscriptions(self) -> list[tuple[str, int]]:
        """What the hub subscribes to: every seat's commands and presence."""
        return [(self.all_cmds, 1), (self.all_presence, 1)]

    def parse(self, topic: str) -> TopicInfo:
        info = parse(topic)
        if info.table != self.table:
            raise TopicError(f"The topic {topic!r} belongs to table {info.table!r}, "
                             f"not {self.table!r}.")
        return info


def parse(topic: str) -> TopicInfo:
    """Name the table, kind and seat of a concrete protocol-v1 topic.

    >>> info = parse("tc/v1/kitchen/seat/s1-0c1d/cmd")
    >>> info.table, info.kind.name, info.seat
    ('kitchen', 'cmd', 's1-0c1d')
    >>> parse("tc/v1/kitchen/seat/s1-0c1d/secrets")
    Traceback (most recent call last):
    ...
    companion.net.topics.TopicError: 'tc/v1/kitchen/seat/s1-0c1d/secrets' is not a protocol v1 topic.
    """
    parts = topic.split("/") if isinstance(topic, str) else []
    bad = TopicError(f"{topic!r} is not a protocol v1 topic.")
    if len(parts) < 4 or parts[0] != ROOT or parts[1] != f"v{PROTOCOL_VERSION}":
        raise bad
    table, rest = parts[2], parts[3:]
    if not ID_PATTERN.fullmatch(table):
        raise bad
    if rest in (["state"], ["events"]) or rest == ["hub", "status"]:
        return TopicInfo(table, KINDS["/".join(rest)])
    if len(rest) == 3 and rest[0] == "seat" and rest[2] in SEAT_KINDS and is_seat_id(rest[1]):
        return TopicInfo(table, KINDS[rest[2]], rest[1])
    raise bad


# -- the wall -------------------------------------------------------------------------------

USER = "%u"       # stands for the connecting username, as in mosquitto's pattern rules

#: Rules for every authenticated user, seats included: (access, topic filter). ``%u`` is the
#: user's own name. Anything not granted here is refused. Rendered as mosquitto ``pattern``s.
SEAT_RULES = (
    (READ, f"{PREFIX}/+/state"),
    (READ, f"{PREFIX}/+/events"),
    (READ, f"{PREFIX}/+/hub/status"),
    (READ, f"{PREFIX}/+/seat/+/presence"),
    (READ, f"{PREFIX}/+/seat/{USER}/view"),
    (READ, f"{PREFIX}/+/seat/{USER}/reply"),
    (WRITE, f"{PREFIX}/+/seat/{USER}/cmd"),
    (WRITE, f"{PREFIX}/+/seat/{USER}/presence"),
)

#: Extra rules of the hub's own login: everything under the protocol root.
HUB_RULES = (
    (READ, f"{PREFIX}/#"),
    (WRITE, f"{PREFIX}/#"),
)


def is_valid_filter(topic_filter) -> bool:
    """An MQTT topic filter: non-empty, ``+`` only as a whole level, ``#`` only as the last."""
    if not isinstance(topic_filter, str) or not topic_filter or "\0" in topic_filter:
        return False
    levels = topic_filter.split("/")
    for i, level in enumerate(levels):
        if "#" in level and (level != "#" or i != len(levels) - 1):
            return False
        if "+" in level and level != "+":
            return False
    return True


def has_wildcard(topic_filter: str) -> bool:
    return "+" in topic_filter or "#" in topic_filter


def covers(pattern: str, topic_filter: str) -> bool:
    """True if every topic matched by ``topic_filter`` is also matched by ``pattern``.

    For a concrete topic this is ordinary MQTT matching. For a filter with wildcards, each
    ``+`` must face a ``+`` or ``#`` and a ``#`` must face a ``#``: a wildcard can name topics
    nobody listed, so only a wildcard can cover it.

    >>> covers("tc/v1/+/state", "tc/v1/kitchen/state"), covers("tc/v1/+/state", "tc/v1/+/state")
    (True, True)
    >>> covers("tc/v1/+/seat/+/presence", "tc/v1/kitchen/seat/#")
    False
    >>> covers("tc/v1/#", "tc/v1"), covers("tc/v1/#", "tc/v1/kitchen/seat/+/cmd")
    (True, True)
    """
    p, f = pattern.split("/"), topic_filter.split("/")
    for i, level in enumerate(p):
        if level == "#":
            # "a/#" also matches "a" itself (MQTT 3.1.1, 4.7.1.2)
            return not (i < len(f) and f[i].startswith("$") and i == 0)
        if i >= len(f):
            return False
        if f[i] == "#":
            return False
        if level == "+":
            if i == 0 and f[i].startswith("$"):
                return False
            continue
        if f[i] == "+" or f[i] != level:
            return False
    return len(f) == len(p)


def rules_for(user: str) -> list[tuple[str, str]]:
    """The (access, filter) rules that apply to ``user``, with ``%u`` filled in."""
    rules = [(access, flt.replace(USER, user)) for access, flt in SEAT_RULES]
    if user == HUB_USER:
        rules.extend(HUB_RULES)
    return rules


def may(user, action: str, topic: str) -> bool:
    """May ``user`` ``action`` ("read" or "write") ``topic``? The one access decision.

    ``user`` is the MQTT username: ``"hub"`` or a seat id; None or "" is an anonymous client and
    may do nothing. ``topic`` is a concrete topic, or for "read" a subscription filter, which is
    allowed only if *every* topic it could match is readable. Usernames that could change the
    meaning of a rule (``/``, ``+``, ``#``, NUL) get nothing, as in mosquitto.

    >>> may(None, "read", "tc/v1/kitchen/state"), may("s1-0c1d", "read", "tc/v1/kitchen/state")
    (False, True)
    >>> may("s1-0c1d", "write", "tc/v1/kitchen/state"), may("hub", "write", "tc/v1/kitchen/state")
    (False, True)
    >>> may("s1-0c1d", "read", "tc/v1/kitchen/seat/+/presence")
    True
    >>> may("s1-0c1d", "read", "tc/v1/kitchen/seat/+/view"), may("s1-0c1d", "read", "#")
    (False, False)
    """
    if action not in ACTIONS:
        raise ValueError(f"action must be 'read' or 'write', not {action!r}")
    if not user or not isinstance(user, str) or any(c in user for c in "/+#\0"):
        return False
    if not is_valid_filter(topic):
        return False
    if action == WRITE and has_wildcard(topic):
        return False
    return any(access == action and covers(flt, topic) for access, flt in rules_for(user))


def mosquitto_acl(hub_user: str = HUB_USER) -> str:
    """The mosquitto ``acl_file`` equivalent to :func:`may`.

    Pattern rules apply to every authenticated user with ``%u`` replaced by the username;
    the hub's login gets the root on top.
    """
    if hub_user != HUB_USER:
        raise TopicError(f"The hub's username is fixed to {HUB_USER!r} by protocol v1.")
    lines = ["# Generated by companion.net.topics.mosquitto_acl(): protocol v1 wall.",
             "# Every authenticated user: public topics, and its own private topics (%u).",
             "# Anything not listed is refused (anonymous clients are refused by the config)."]
    lines += [f"pattern {access} {flt}" for access, flt in SEAT_RULES]
    lines += ["", "# The hub's own login: everything under the protocol root.", f"user {hub_user}"]
    lines += [f"topic {access} {flt}" for access, flt in HUB_RULES]
    return "\n".join(lines) + "\n"


# -- the club: what leaves the box, and the club broker's wall ------------------------------------

#: A table's public topics, relative to its base: the only ones its box bridges out to a club
#: (never a view, cmd or reply). One list, read by the bridge and by the club's wall.
PUBLIC_TOPICS = ("state", "events", "hub/status", "seat/+/presence")
#: Where a box's bridge says whether it is linked to the club: mosquitto publishes ``1``
#: (retained) when the bridge is up and leaves a Last Will of ``0`` at the club.
CLUB_LINK = "club/link"
CLUB_USER = "_club"           # the club's own tools: read everything
VIEWER_USER = "_viewer"       # the club page: read the public topics of every table


#: Where the hub puts the public state as it may leave the table (the spectator's copy:
#: :func:`companion.net.protocol.spectator_state`) while a club is attached; the bridge sends it
#: to the club as the table's ``state``, so the room code never leaves the box.
OUTSIDE_STATE = "outside/state"


def outside_state(table: str) -> str:
    """Where the hub publishes ``table``'s outside state.

    >>> outside_state("kitchen")
    'tc/v1/kitchen/outside/state'
    """
    return f"{TableTopics(table).base}/{OUTSIDE_STATE}"


def bridge_topics(table: str, remote: str | None = None) -> list[str]:
    """mosquitto ``topic`` lines of ``table``'s bridge to the club: its public topics, one
    way out, the state taken from :func:`outside_state` (mosquitto's local and remote
    prefixes map it onto the club's ``state``), all under ``remote``, the table's name at the
    club, when that differs (a second box called ``table`` is ``table-2`` there).

    >>> for line in bridge_topics("kitchen"): print(line)
    topic state out 1 tc/v1/kitchen/outside/ tc/v1/kitchen/
    topic tc/v1/kitchen/events out 1
    topic tc/v1/kitchen/hub/status out 1
    topic tc/v1/kitchen/seat/+/presence out 1
    >>> for line in bridge_topics("table", "table-2"): print(line)
    topic state out 1 tc/v1/table/outside/ tc/v1/table-2/
    topic events out 1 tc/v1/table/ tc/v1/table-2/
    topic hub/status out 1 tc/v1/table/ tc/v1/table-2/
    topic seat/+/presence out 1 tc/v1/table/ tc/v1/table-2/
    """
    base = TableTopics(table).base
    there = TableTopics(remote or table).base
    if there == base:
        return [f"topic state out 1 {base}/outside/ {base}/" if t == "state" else
                f"topic {base}/{t} out 1" for t in PUBLIC_TOPICS]
    return [f"topic state out 1 {base}/outside/ {there}/" if t == "state" else
            f"topic {t} out 1 {base}/ {there}/" for t in PUBLIC_TOPICS]


def public_patterns(table: str) -> list[str]:
    """The topic filters of ``table`` that may leave its box for the club.

    >>> public_patterns("kitchen")
    ['tc/v1/kitchen/state', 'tc/v1/kitchen/events', 'tc/v1/kitchen/hub/status', 'tc/v1/kitchen/seat/+/presence']
    """
    base = TableTopics(table).base
    return [f"{base}/{t}" for t in PUBLIC_TOPICS]


def club_link(table: str) -> str:
    """Where ``table``'s bridge publishes its link state on the club broker (and on the box).

    >>> club_link("kitchen")
    'tc/v1/kitchen/club/link'
    """
    return f"{TableTopics(table).base}/{CLUB_LINK}"


#: The club broker's wall, as data. A table's bridge logs in with the table id as username, so
#: ``%u`` is the table: it writes that table's public topics and its link, and reads nothing.
CLUB_TABLE_RULES = tuple((WRITE, f"{PREFIX}/{USER}/{t}") for t in PUBLIC_TOPICS + (CLUB_LINK,))
#: The club page: reads the public topics and the link of every table, writes nothing.
CLUB_VIEWER_RULES = tuple((READ, f"{PREFIX}/+/{t}") for t in PUBLIC_TOPICS + (CLUB_LINK,))
#: The club's own tools: read everything under the protocol root, write nothing.
CLUB_READER_RULES = ((READ, f"{PREFIX}/#"),)


def club_rules_for(user) -> list[tuple[str, str]]:
    """The (access, filter) rules of ``user`` on the club broker, with ``%u`` filled in."""
    if user == CLUB_USER:
        return list(CLUB_READER_RULES)
    if user == VIEWER_USER:
        return list(CLUB_VIEWER_RULES)
    if isinstance(user, str) and ID_PATTERN.fullmatch(user):
        return [(access, flt.replace(USER, user)) for access, flt in CLUB_TABLE_RULES]
    return []


def club_may(user, action: str, topic: str) -> bool:
    """May ``user`` ``action`` ``topic`` on the club broker? What :func:`club_acl` renders.

    No one may write a view, cmd or reply there, nor read one (none ever arrives), and a
    table's login writes only its own table's public topics:

    >>> club_may("kitchen", "write", "tc/v1/kitchen/state"), club_may("kitchen", "write", "tc/v1/hall/state")
    (True, False)
    >>> club_may("kitchen", "write", "tc/v1/kitchen/seat/s1-0c1d/view"), club_may("kitchen", "read", "tc/v1/kitchen/state")
    (False, False)
    >>> club_may("_viewer", "read", "tc/v1/+/state"), club_may("_viewer", "read", "tc/v1/kitchen/seat/s1-0c1d/reply")
    (True, False)
    >>> club_may("_viewer", "write", "tc/v1/_viewer/state"), club_may("_club", "read", "tc/v1/#")
    (False, True)
    """
    if action not in ACTIONS:
        raise ValueError(f"action must be 'read' or 'write', not {action!r}")
    if not user or not isinstance(user, str) or any(c in user for c in "/+#\0"):
        return False
    if not is_valid_filter(topic) or (action == WRITE and has_wildcard(topic)):
        return False
    return any(access == action and covers(flt, topic) for access, flt in club_rules_for(user))


def club_acl() -> str:
    """The club broker's mosquitto ``acl_file``, equivalent to :func:`club_may`.

    mosquitto applies ``pattern`` rules to every login, so ``_viewer`` and ``_club`` would be
    allowed to write ``tc/v1/_viewer/state`` (a fake table every viewer reads): each gets a
    ``topic deny`` on its own subtree, which mosquitto checks before any grant. Any other login
    that is not a table (mosquitto's internal probe) is denied the whole root.

    >>> acl = club_acl()
    >>> "pattern write tc/v1/%u/state" in acl, "topic read tc/v1/+/seat/+/presence" in acl
    (True, True)
    >>> [r for r in acl.splitlines() if r.endswith(("/view", "/cmd", "/reply", "/#")) and " deny " not in r]
    ['topic read tc/v1/#']
    """
    lines = ["# Generated by companion.net.topics.club_acl(): the club broker's wall.",
             "# A table's bridge (username = table id): that table's public topics and its link.",
             "# No one writes or reads a seat's view, cmd or reply here."]
    lines += [f"pattern {access} {flt}" for access, flt in CLUB_TABLE_RULES]
    lines += ["", "# The club page: read the public topics of every table.", f"user {VIEWER_USER}",
              f"topic deny {PREFIX}/{VIEWER_USER}/#"]
    lines += [f"topic {access} {flt}" for access, flt in CLUB_VIEWER_RULES]
    lines += ["", "# The club's own tools: read everything.", f"user {CLUB_USER}",
              f"topic deny {PREFIX}/{CLUB_USER}/#"]
    lines += [f"topic {access} {flt}" for access, flt in CLUB_READER_RULES]
    lines += ["", "# The broker's internal probe login: nothing.", "user _probe",
              f"topic deny {PREFIX}/#"]
    return "\n".join(lines) + "\n"
