"""What the table asks of the operating system's network, and the simulated network.

A ``Backend`` answers in plain data and raises ``NetworkError`` with a sentence a player can
read. ``nm.NetworkManager`` is the real one; ``SimulatedWifi`` is a table on a laptop or in the
screens' tests: a few networks in reach, one of them known, joined and left in memory (it never
touches this machine's network), the way ``--hardware simulated`` stands in for the GPIO parts.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

from companion.core.errors import CompanionError

#: The address the box has on its own Wi-Fi (NetworkManager's shared mode hands out the rest
#: of 10.42.0.0/24 to phones).
OWN_ADDRESS = "10.42.0.1"


class NetworkError(CompanionError):
    """A network action that did not happen, said for the screen."""


@dataclass(frozen=True)
class WifiNetwork:
    """A Wi-Fi network in reach: its name, signal (0 to 100), whether it asks a password,
    whether the box knows it (joined before) and whether the box is on it now."""
    ssid: str
    signal: int
    secure: bool = True
    known: bool = False
    active: bool = False


@dataclass
class Link:
    """What the box is on now. ``kind``: ``own`` (its own Wi-Fi), ``wifi`` (a venue's),
    ``ethernet`` or ``none``; ``wifi`` may be on beside ``ethernet``."""
    kind: str = "none"
    ssid: str | None = None
    address: str | None = None
    ethernet: str | None = None          # the Ethernet address, when plugged in
    known: list = field(default_factory=list)   # the Wi-Fi networks it remembers


class Backend:
    """The operations (each may take seconds; the table runs them off the screen's thread)."""
    name = "none"

    def link(self) -> Link:
        raise NotImplementedError

    def scan(self) -> list[WifiNetwork]:
        raise NotImplementedError

    def join(self, ssid: str, password: str | None) -> str:
        """Join ``ssid`` (remembered from then on); the address it gave, or NetworkError."""
        raise NotImplementedError

    def own_up(self, ssid: str, password: str) -> str:
        """The box's own Wi-Fi, up; its address."""
        raise NotImplementedError

    def own_down(self) -> None:
        raise NotImplementedError

    def forget(self, ssid: str) -> None:
        raise NotImplementedError

    def set_country(self, code: str) -> None:
        raise NotImplementedError

    def apply(self) -> None:
        """The settings the root helper applies (country, sharing) changed: apply them."""


class SimulatedWifi(Backend):
    """Three networks in reach (one known, one open); ``join`` takes any password of 8 or
    more characters for a secure one, except for the network named ``Wrong password``."""
    name = "simulated"

    def __init__(self, networks=None, known=("Home",)):
        self._lock = threading.Lock()
        self.networks = list(networks or [
            WifiNetwork("Cafe Guest", 72, secure=False),
            WifiNetwork("Home", 55),
            WifiNetwork("Convention Hall 2", 31)])
        self.known = set(known)
        self.now = Link()
        self.country = None

    def link(self) -> Link:
        with self._lock:
            return Link(self.now.kind, self.now.ssid, self.now.address, None, sorted(self.known))

    def scan(self) -> list[WifiNetwork]:
        with self._lock:
            return [WifiNetwork(n.ssid, n.signal, n.secure, n.ssid in self.known,
                                self.now.kind == "wifi" and self.now.ssid == n.ssid)
                    for n in sorted(self.networks, key=lambda n: -n.signal)]

    def join(self, ssid, password):
        with self._lock:
            net = next((n for n in self.networks if n.ssid == ssid), None)
            if net is None:
                raise NetworkError(f"{ssid} is out of reach.")
            if net.secure and ssid not in self.known and (not password or len(password) < 8):
                raise NetworkError(f"{ssid} needs its password (8 characters or more).")
            if ssid == "Wrong password":
                raise NetworkError(f"{ssid} did not take that password.")
            self.known.add(ssid)
            self.now = Link("wifi", ssid, "192.168.7.20")
            return self.now.address

    def own_up(self, ssid, password):
        with self._lock:
            self.now = Link("own", ssid, OWN_ADDRESS)
            return OWN_ADDRESS

    def own_down(self):
        with self._lock:
            if self.now.kind == "own":
                self.now = Link()

    def forget(self, ssid):
        with self._lock:
            self.known.discard(ssid)

    def set_country(self, code):
        self.country = code
