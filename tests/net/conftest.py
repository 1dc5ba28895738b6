"""Real brokers for the net tests: every contract test runs on the embedded broker (amqtt) and
on mosquitto (a child process), each on free ports, started once per module."""
import itertools

import pytest

from companion.net import brokers
from companion.net import credentials as cred
from companion.net.client import MqttClient

from ..teardown import close_all

MOSQUITTO = "/usr/sbin/mosquitto"
MODES = ["embedded", "mosquitto"]

_serial = itertools.count(1)


def make(mode, **kw):
    if mode == "mosquitto":
        return brokers.MosquittoBroker(binary=MOSQUITTO, **kw)
    return brokers.EmbeddedBroker(**kw)


@pytest.fixture(scope="module")
def hub_cred():
    return cred.hub_credential()


@pytest.fixture(scope="module", params=MODES)
def broker(request, hub_cred):
    with make(request.param, users=[hub_cred]) as b:
        yield b


@pytest.fixture
def clients():
    """Connect clients through this; they are all closed after the test."""
    made = []

    def connect(broker_or_url, credential=None, *, ws=False, **kw):
        if isinstance(broker_or_url, str):
            url = broker_or_url
        else:
            url = broker_or_url.ws_url if ws else broker_or_url.url
        user = credential.username if credential else None
        password = credential.password if credential else None
        c = MqttClient(url, user, password, **kw)
        made.append(c)
        return c.connect()

    yield connect
    close_all(made, "an MQTT client")


@pytest.fixture
def new_seat(broker):
    """Add a fresh seat login to the broker; returns its Credential."""
    def add():
        c = cred.seat_credential(cred.new_seat_id(next(_serial)))
        broker.add_user(c.username, c.password)
        return c
    return add
