"""The topic scheme and the wall as pure functions (no broker)."""
import doctest

import pytest
from hypothesis import given, strategies as st

from companion.net import client, credentials, protocol, topics
from companion.net.topics import TableTopics, TopicError, covers, may


@pytest.mark.parametrize("module", [topics, protocol, credentials, client])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_table_topics_layout():
    t = TableTopics("kitchen-2")
    assert t.base == "tc/v1/kitchen-2"
    assert (t.state, t.events, t.hub_status) == (
        "tc/v1/kitchen-2/state", "tc/v1/kitchen-2/events", "tc/v1/kitchen-2/hub/status")
    assert [t.view("s1-ab"), t.cmd("s1-ab"), t.reply("s1-ab"), t.presence("s1-ab")] == [
        f"tc/v1/kitchen-2/seat/s1-ab/{k}" for k in ("view", "cmd", "reply", "presence")]
    assert t.all_cmds == "tc/v1/kitchen-2/seat/+/cmd"
    assert t.hub_subscriptions() == [(t.all_cmds, 1), (t.all_presence, 1)]
    subs = dict(t.seat_subscriptions("s1-ab"))
    assert set(subs) == {t.state, t.events, t.hub_status, t.all_presence, t.view("s1-ab"),
                         t.reply("s1-ab")}
    assert all(may("s1-ab", "read", f) for f in subs)


@pytest.mark.parametrize("bad", ["", "Kitchen", "kitchen table", "-a", "a-", "a/b", "a+b", "#",
                                 "x" * 33, "ä", None, 7])
def test_bad_table_ids_are_refused_with_a_sentence(bad):
    with pytest.raises(TopicError, match=r"table id .* is not valid: use 1 to 32 characters"):
        TableTopics(bad)


def test_seat_ids_are_checked_and_hub_is_reserved():
    t = TableTopics("t")
    with pytest.raises(TopicError, match="seat id 'S1' is not valid"):
        t.view("S1")
    with pytest.raises(TopicError, match="reserved for the hub"):
        t.cmd("hub")
    with pytest.raises(TopicError, match="not a seat topic"):
        t.seat_topic("s1", "secrets")
    assert topics.check_id("a" * 32) == "a" * 32


def test_parse_names_every_kind_and_refuses_the_rest():
    t = TableTopics("kitchen")
    for kind, topic in (("state", t.state), ("events", t.events), ("hub/status", t.hub_status)):
        info = topics.parse(topic)
        assert (info.table, info.kind.name, info.seat) == ("kitchen", kind, None)
    for kind in topics.SEAT_KINDS:
        info = t.parse(t.seat_topic("s2-x", kind))
        assert (info.kind.name, info.seat) == (kind, "s2-x")
    assert topics.KINDS["view"].retained and topics.KINDS["view"].private
    assert not topics.KINDS["cmd"].retained and topics.KINDS["cmd"].writer == "seat"
    assert topics.KINDS["events"].retained is False and topics.KINDS["state"].retained is True
    for bad in ("tc/v2/kitchen/state", "tc/v1/kitchen", "tc/v1/kitchen/seat/hub/view",
                "tc/v1/Kitchen/state", "tc/v1/kitchen/seat/s1/view/x", "x/v1/kitchen/state"):
        with pytest.raises(TopicError, match="not a protocol v1 topic"):
            topics.parse(bad)
    with pytest.raises(TopicError, match="belongs to table 'other'"):
        t.parse("tc/v1/other/state")


def test_may_table_for_a_seat():
    t = TableTopics("kitchen")
    me, other = "s1-aaaa", "s2-bbbb"
    allowed_read = [t.state, t.events, t.hub_status, t.presence(me), t.presence(other),
                    t.all_presence, t.view(me), t.reply(me), "tc/v1/+/state"]
    denied_read = [t.cmd(me), t.view(other), t.reply(other), t.cmd(other), "#", "tc/#", "+",
                   f"{t.base}/#", f"{t.base}/seat/{me}/#", f"{t.base}/seat/{me}/+",
                   f"{t.base}/seat/+/view", "$SYS/#", "tc/v1/kitchen/other", "tc/v1"]
    allowed_write = [t.cmd(me), t.presence(me)]
    denied_write = [t.state, t.events, t.hub_status, t.view(me), t.reply(me), t.cmd(other),
                    t.presence(other), t.all_cmds, f"{t.base}/seat/{me}/+", "tc/v1/x/y"]
    assert [f for f in allowed_read if not may(me, "read", f)] == []
    assert [f for f in denied_read if may(me, "read", f)] == []
    assert [f for f in allowed_write if not may(me, "write", f)] == []
    assert [f for f in denied_write if may(me, "write", f)] == []


def test_may_for_hub_anonymous_and_odd_usernames():
    t = TableTopics("kitchen")
    for f in (t.state, t.all_cmds, f"{t.base}/#", "tc/v1/#", t.view("s1-a")):
        assert may("hub", "read", f)
    assert may("hub", "write", t.view("s1-a")) and may("hub", "write", t.state)
    assert not may("hub", "read", "#") and not may("hub", "write", "elsewhere/x")
    assert not may("hub", "write", f"{t.base}/#")          # no wildcards in a publish
    for nobody in (None, "", "s1/a", "+", "#", "a\0b"):
        assert not may(nobody, "read", t.state)
    for bad in ("", "a/#/b", "a+/b", "a/b#"):
        assert not may("hub", "read", f"tc/v1/{bad}" if bad else bad)
    with pytest.raises(ValueError):
        may("hub", "subscribe", t.state)


def test_mosquitto_acl_is_rendered_from_the_same_rules():
    acl = topics.mosquitto_acl()
    lines = [x for x in acl.splitlines() if x and not x.startswith("#")]
    assert lines == [
        "pattern read tc/v1/+/state",
        "pattern read tc/v1/+/events",
        "pattern read tc/v1/+/hub/status",
        "pattern read tc/v1/+/seat/+/presence",
        "pattern read tc/v1/+/seat/%u/view",
        "pattern read tc/v1/+/seat/%u/reply",
        "pattern write tc/v1/+/seat/%u/cmd",
        "pattern write tc/v1/+/seat/%u/presence",
        "user hub",
        "topic read tc/v1/#",
        "topic write tc/v1/#",
    ]
    with pytest.raises(TopicError):
        topics.mosquitto_acl("admin")


def matches(flt: str, topic: str) -> bool:
    """Plain MQTT matching of a concrete topic against a filter (reference for the tests)."""
    f, t = flt.split("/"), topic.split("/")
    for i, level in enumerate(f):
        if level == "#":
            return True
        if i >= len(t) or (level != "+" and level != t[i]):
            return False
    return len(f) == len(t)


LEVELS = ["tc", "v1", "kitchen", "seat", "s1-a", "s2-b", "view", "cmd", "state", "hub", "x"]
level = st.sampled_from(LEVELS)
topic_st = st.lists(level, min_size=1, max_size=6).map("/".join)
filter_st = st.lists(st.one_of(level, st.just("+")), min_size=1, max_size=6).flatmap(
    lambda ls: st.one_of(st.just("/".join(ls)), st.just("/".join(ls + ["#"]))))


@given(topic_st, filter_st)
def test_covers_agrees_with_mqtt_matching_on_concrete_topics(topic, flt):
    assert covers(flt, topic) == matches(flt, topic)


@given(filter_st, filter_st, st.lists(topic_st, max_size=30))
def test_covers_is_sound_for_filters(pattern, flt, samples):
    """If ``pattern`` covers ``flt``, every topic ``flt`` matches, ``pattern`` matches too."""
    if covers(pattern, flt):
        for topic in samples:
            if matches(flt, topic):
                assert matches(pattern, topic)


protocol_filter_st = st.one_of(
    filter_st,
    st.lists(st.one_of(level, st.just("+")), min_size=1, max_size=4).flatmap(
        lambda ls: st.sampled_from(["tc/v1/" + "/".join(ls), "tc/v1/" + "/".join(ls + ["#"])])))


@given(st.sampled_from(["s1-a", "s2-b", "hub"]), protocol_filter_st, st.data())
def test_a_readable_filter_only_matches_readable_topics(user, flt, data):
    """Soundness of ``may`` for subscriptions: if a filter is allowed, every concrete topic it
    could match is readable (wildcards filled in at random)."""
    if not may(user, "read", flt):
        return
    for _ in range(20):
        parts = []
        for lv in flt.split("/"):
            if lv == "+":
                parts.append(data.draw(level))
            elif lv == "#":
                parts.extend(data.draw(st.lists(level, max_size=2)))
            else:
                parts.append(lv)
        topic = "/".join(parts)
        assert matches(flt, topic)
        assert may(user, "read", topic), (flt, topic)
