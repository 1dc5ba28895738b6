"""A broker somebody else runs (``mqtt://host:port``): nothing started, only checked that it
answers; its logins and ACL are the operator's.
"""
from __future__ import annotations

import socket

from ..client import ConnectError, parse_url
from .base import Broker
from .errors import BrokerError
from .ports import _url_host

class ExternalBroker(Broker):
    """A broker run by somebody else. We start nothing; :meth:`start` only checks that the TCP
    port answers. Its logins and ACL are the operator's: give every seat a login there and
    install the wall from :func:`companion.net.topics.mosquitto_acl` (or equivalent)."""

    mode = "external"
    manages_users = False

    def __init__(self, url: str, ws_url: str | None = None, check_timeout: float = 3.0):
        try:
            ep = parse_url(url)
            ws = parse_url(ws_url) if ws_url else None
        except ConnectError as e:
            raise BrokerError(str(e)) from None
        if ep.scheme != "mqtt":
            raise BrokerError(f"The hub's broker URL must be mqtt://host:port, not {url!r}.")
        if ws is not None and ws.scheme != "ws":
            raise BrokerError(f"The phones' broker URL must be ws://host:port/path, "
                              f"not {ws_url!r}.")
        super().__init__(ep.host, ep.port, ws.port if ws else None)
        self._ws = ws
        self.check_timeout = check_timeout

    @property
    def url(self) -> str:
        return f"mqtt://{_url_host(self.host)}:{self.tcp_port}"

    @property
    def ws_url(self) -> str | None:
        return self._ws.url if self._ws else None

    def ws_url_for(self, host: str) -> str | None:
        return self.ws_url        # the operator's URL is already what phones use

    def start(self) -> "ExternalBroker":
        try:
            socket.create_connection((self.host, self.tcp_port), self.check_timeout).close()
        except OSError as e:
            raise BrokerError(f"Nothing answers at {self.url}: {e.strerror or e}.") from None
        self._running = True
        return self

    def stop(self) -> None:
        self._running = False

    def _refuse(self):
        raise BrokerError(f"The external broker at {self.url} manages its own logins; add or "
                          f"remove seat logins there (see docs/protocol.md, 'External broker').")

    def add_user(self, username: str, password: str) -> None:
        self._refuse()

    def remove_user(self, username: str) -> bool:
        self._refuse()

    def users(self) -> list[str]:
        return []
