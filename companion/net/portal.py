"""The captive portal of the box's own Wi-Fi (docs/network.md).

On the own Wi-Fi every name resolves to the box (NetworkManager's dnsmasq, with the setting
install.sh adds) and port 80 reaches the phone page's server (the own Wi-Fi's firewall,
hardware/box/network/netadmin). A phone that joins the network asks a known address whether it
is online: Android ``/generate_204``, Apple ``/hotspot-detect.html``, Windows
``/connecttest.txt``, Firefox ``/canonical.html``. Until that phone has taken a seat the answer
is a redirect to the table's join page, so the phone opens its sign-in sheet on it; after, the
probe gets the answer that means "online", so the sheet may close and the phone stays on the
network (iOS and Android leave a network whose portal never lets them through).

Only requests that came in on the own Wi-Fi's address for another host name are the portal's:
the table's own page, by its address, is served as always.
"""
from __future__ import annotations

import threading

from .wifi.backends import OWN_ADDRESS

APPLE_ONLINE = (b"<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>")
FIREFOX_ONLINE = (b'<meta http-equiv="refresh" '
                  b'content="0;url=https://support.mozilla.org/kb/captive-portal"/>')
#: probe path -> (status, body, content type) that means "online"
ONLINE = {
    "/generate_204": (204, b"", "text/plain"),
    "/gen_204": (204, b"", "text/plain"),
    "/hotspot-detect.html": (200, APPLE_ONLINE, "text/html"),
    "/library/test/success.html": (200, APPLE_ONLINE, "text/html"),
    "/connecttest.txt": (200, b"Microsoft Connect Test", "text/plain"),
    "/ncsi.txt": (200, b"Microsoft NCSI", "text/plain"),
    "/canonical.html": (200, FIREFOX_ONLINE, "text/html"),
    "/success.txt": (200, b"success\n", "text/plain"),
}


class Portal:
    """Which phones on the own Wi-Fi have taken a seat (by address), and the portal's answer to
    a request: ``answer(local, host, path, client)`` is None for the table's own routes, else
    ``("online", status, body, type)`` or ``("redirect", location)``."""

    def __init__(self, address: str = OWN_ADDRESS):
        self.address = address
        self._joined: set[str] = set()
        self._lock = threading.Lock()

    def joined(self, client: str) -> None:
        with self._lock:
            self._joined.add(client)

    def has_joined(self, client: str) -> bool:
        with self._lock:
            return client in self._joined

    def mine(self, local: str, host: str | None) -> bool:
        """A request for another host that reached the box on its own Wi-Fi."""
        return local == self.address and (host or "") != self.address

    def answer(self, local: str, host: str | None, path: str, client: str):
        if not self.mine(local, host):
            return None
        if path in ONLINE and self.has_joined(client):
            return ("online", *ONLINE[path])
        return ("redirect",)
