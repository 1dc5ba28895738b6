"""A real PostgreSQL for the club's tests: Debian's server started by companion.club.pg in a
folder of its own on a free port (once per test run), and a fresh database per test."""
import os
import shutil
import tempfile

import pytest

from companion.club import pg
from companion.net.brokers import free_port


@pytest.fixture(scope="session")
def pg_server():
    if not pg.installed():
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    # under root the server runs as postgres, who must be able to reach the folder: pytest's
    # own tmp folders are private to root
    base = tempfile.mkdtemp(prefix="club-pg-")
    os.chmod(base, 0o711)
    server = pg.Server(os.path.join(base, "data"), port=free_port("127.0.0.1")).start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def club_url(pg_server, request):
    """A fresh, empty database on the test server: its postgresql:// URL."""
    name = "t_" + "".join(c if c.isalnum() else "_" for c in request.node.name.lower())[:50]
    pg_server.start()           # a test may have stopped it
    pg_server.drop_database(name)
    url = pg_server.create_database(name)
    yield url
    pg_server.start()
    pg_server.drop_database(name)


def table_login(url, table):
    """The club set up on ``url`` (schema, fences: the organiser's step) and ``table`` let in:
    the record's URL with that table's own login, as a box gets it when it joins."""
    from companion.club.record import Record, admit_table
    Record(url).close()
    return admit_table(url, table)


@pytest.fixture
def kitchen_url(club_url):
    """The record's URL with table kitchen's own login (what its box ships with)."""
    return table_login(club_url, "kitchen")
