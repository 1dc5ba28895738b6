"""The real backend: NetworkManager, the network stack of Raspberry Pi OS (bookworm and trixie),
through ``nmcli``, the tool it ships (its D-Bus API would need a D-Bus library on the box for
the same calls). The table's user may use it through the polkit rule install.sh adds
(hardware/box/network/); what needs root (the Wi-Fi country, the own Wi-Fi's firewall) is done
by the root helper ``table-companion-netadmin`` from the settings file (docs/network.md).

The own Wi-Fi is one NetworkManager connection, ``table-companion-own``: access point on
2.4 GHz (every phone has it), WPA2 (RSN/CCMP), shared mode (NetworkManager's DHCP and DNS, with
the dnsmasq settings install.sh adds: every name resolves to the box), at 10.42.0.1.
NetworkManager does not scan while a radio is an access point: looking for networks while the
own Wi-Fi is up stops it for the scan (about ten seconds) and starts it again.
"""
from __future__ import annotations

import logging
import os
import shutil
import subprocess
import time

from .backends import OWN_ADDRESS, Backend, Link, NetworkError, WifiNetwork

log = logging.getLogger(__name__)

OWN = "table-companion-own"
NMCLI = "nmcli"


def split_terse(line: str) -> list[str]:
    r"""One line of ``nmcli -t`` output into its fields (``:`` separates, ``\`` escapes).

    >>> split_terse(r"*:Cafe\: upstairs:72:WPA2")
    ['*', 'Cafe: upstairs', '72', 'WPA2']
    >>> split_terse(r"a\\b::c")
    ['a\\b', '', 'c']
    """
    fields, cur, esc = [], [], False
    for ch in line:
        if esc:
            cur.append(ch)
            esc = False
        elif ch == "\\":
            esc = True
        elif ch == ":":
            fields.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    fields.append("".join(cur))
    return fields


def parse_scan(text: str, known: set, active: str | None) -> list[WifiNetwork]:
    r"""``nmcli -t -f IN-USE,SSID,SIGNAL,SECURITY device wifi list`` as networks: one per name
    (its strongest access point), hidden ones left out, strongest first.

    >>> nets = parse_scan("*:Home:55:WPA2\n :Cafe Guest:72:\n :Home:40:WPA2\n ::80:WPA2\n", {"Home"}, "Home")
    >>> [(n.ssid, n.signal, n.secure, n.known, n.active) for n in nets]
    [('Cafe Guest', 72, False, False, False), ('Home', 55, True, True, True)]
    """
    best: dict[str, WifiNetwork] = {}
    for line in text.splitlines():
        f = split_terse(line)
        if len(f) < 4 or not f[1]:
            continue
        ssid = f[1]
        try:
            signal = int(f[2])
        except ValueError:
            signal = 0
        net = WifiNetwork(ssid, signal, secure=f[3].strip() not in ("", "--"),
                          known=ssid in known, active=ssid == active)
        if ssid not in best or best[ssid].signal < signal:
            best[ssid] = net
    return sorted(best.values(), key=lambda n: (-n.signal, n.ssid))


def failure(ssid: str, text: str) -> str:
    """nmcli's error as a sentence for the screen.

    >>> failure("Cafe", "Error: Connection activation failed: Secrets were required, but not provided.")
    'Cafe did not take that password.'
    >>> failure("Cafe", "Error: No network with SSID 'Cafe' found.")
    'Cafe is out of reach now.'
    """
    low = text.lower()
    if "secrets were required" in low or "802-1x supplicant" in low or "psk" in low:
        return f"{ssid} did not take that password."
    if "no network with ssid" in low or "not found" in low:
        return f"{ssid} is out of reach now."
    if "timeout" in low or "timed out" in low:
        return f"{ssid} did not answer in time."
    detail = text.strip().splitlines()[-1] if text.strip() else "no answer"
    return f"Could not join {ssid}: {detail.removeprefix('Error: ')}"


class NetworkManager(Backend):
    name = "networkmanager"

    def __init__(self, nmcli: str = NMCLI, timeout: float = 45.0):
        self.nmcli = nmcli
        self.timeout = timeout

    @staticmethod
    def present(nmcli: str = NMCLI) -> bool:
        """Whether NetworkManager runs here (and nmcli can ask it)."""
        if shutil.which(nmcli) is None:
            return False
        try:
            out = subprocess.run([nmcli, "-t", "-f", "RUNNING", "general"], text=True,
                                 capture_output=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            return False
        return out.returncode == 0 and out.stdout.strip() == "running"

    def _run(self, *args, check=True, timeout=None) -> str:
        argv = [self.nmcli, *args]
        try:
            out = subprocess.run(argv, text=True, capture_output=True,
                                 timeout=timeout or self.timeout,
                                 env={**os.environ, "LC_ALL": "C"})
        except subprocess.TimeoutExpired:
            raise NetworkError("NetworkManager did not answer in time.") from None
        except OSError as e:
            raise NetworkError(f"NetworkManager cannot be asked here ({e.strerror}).") from None
        if check and out.returncode != 0:
            raise NetworkError((out.stderr or out.stdout).strip() or f"nmcli {args[0]} failed")
        return out.stdout

    def _lines(self, *args) -> list[list[str]]:
        return [split_terse(x) for x in self._run("-t", *args).splitlines() if x]

    def wifi_device(self) -> str | None:
        devs = sorted(f[0] for f in self._lines("-f", "DEVICE,TYPE", "device", "status")
                      if len(f) > 1 and f[1] == "wifi")
        return devs[0] if devs else None

    def _address(self, device: str) -> str | None:
        for f in self._lines("-f", "IP4.ADDRESS", "device", "show", device):
            if len(f) > 1 and f[1]:
                return f[1].split("/")[0]
        return None

    def _known(self) -> dict[str, str]:
        """Connection name -> SSID of every Wi-Fi network the box remembers (not its own)."""
        known = {}
        for f in self._lines("-f", "NAME,TYPE", "connection", "show"):
            if len(f) > 1 and f[1] == "802-11-wireless" and f[0] != OWN:
                ssid = self._run("-g", "802-11-wireless.ssid", "connection", "show", "id",
                                 f[0], check=False).strip()
                known[f[0]] = ssid or f[0]
        return known

    def link(self) -> Link:
        link = Link(known=sorted(set(self._known().values())))
        for f in self._lines("-f", "DEVICE,TYPE,STATE,CONNECTION", "device", "status"):
            if len(f) < 4 or not f[2].startswith("connected"):
                continue
            dev, kind, con = f[0], f[1], f[3]
            if kind == "ethernet" and link.ethernet is None:
                link.ethernet = self._address(dev)
                if link.kind == "none":
                    link.kind = "ethernet"
            elif kind == "wifi" and link.kind in ("none", "ethernet"):
                ssid = self._run("-g", "802-11-wireless.ssid", "connection", "show", "id", con,
                                 check=False).strip() or con
                link.kind = "own" if con == OWN else "wifi"
                link.ssid, link.address = ssid, self._address(dev)
        return link

    def _device(self) -> str:
        dev = self.wifi_device()
        if dev is None:
            raise NetworkError("This box has no Wi-Fi (or its Wi-Fi is off: choose the Wi-Fi "
                               "country first).")
        return dev

    def _own_active(self) -> bool:
        return any(f[0] == OWN for f in self._lines("-f", "NAME", "connection", "show",
                                                    "--active"))

    def scan(self) -> list[WifiNetwork]:
        dev = self._device()
        paused = self._own_active()
        if paused:                       # NetworkManager does not scan from an access point
            self._run("connection", "down", "id", OWN, check=False)
        try:
            text = self._run("-t", "-f", "IN-USE,SSID,SIGNAL,SECURITY", "device", "wifi",
                             "list", "ifname", dev, "--rescan", "yes", timeout=60)
        finally:
            if paused:
                self._run("--wait", "30", "connection", "up", "id", OWN, check=False)
        link = self.link()
        return parse_scan(text, set(link.known), link.ssid if link.kind == "wifi" else None)

    def join(self, ssid, password):
        dev = self._device()
        if self._own_active():
            self._run("connection", "down", "id", OWN, check=False)
        self._run("device", "wifi", "list", "ifname", dev, "--rescan", "yes", check=False,
                  timeout=60)
        names = [n for n, s in self._known().items() if s == ssid]
        try:
            if names and not password:
                self._run("--wait", "40", "connection", "up", "id", names[0], "ifname", dev)
            else:
                for n in names:                  # a new password replaces the old one
                    self._run("connection", "delete", "id", n, check=False)
                args = ["--wait", "40", "device", "wifi", "connect", ssid]
                if password:
                    args += ["password", password]
                self._run(*args, "ifname", dev)
        except NetworkError as e:
            if not names or password:            # nothing half-made stays remembered
                for n, s in self._known().items():
                    if s == ssid and n not in names:
                        self._run("connection", "delete", "id", n, check=False)
            raise NetworkError(failure(ssid, str(e))) from None
        return self._address(dev)

    def own_up(self, ssid, password):
        dev = self._device()
        settings = ["802-11-wireless.ssid", ssid, "802-11-wireless.mode", "ap",
                    "802-11-wireless.band", "bg", "ipv4.method", "shared",
                    "ipv4.addresses", f"{OWN_ADDRESS}/24", "ipv6.method", "disabled",
                    "wifi-sec.key-mgmt", "wpa-psk", "wifi-sec.proto", "rsn",
                    "wifi-sec.pairwise", "ccmp", "wifi-sec.group", "ccmp",
                    "wifi-sec.psk", password, "connection.autoconnect", "no",
                    "connection.interface-name", dev]
        exists = any(f[0] == OWN for f in self._lines("-f", "NAME", "connection", "show"))
        if exists:
            self._run("connection", "modify", "id", OWN, *settings)
        else:
            self._run("connection", "add", "type", "wifi", "con-name", OWN, *settings)
        try:
            self._run("--wait", "30", "connection", "up", "id", OWN)
        except NetworkError as e:
            raise NetworkError(f"The box's own Wi-Fi did not start: {str(e).removeprefix('Error: ')}") from None
        for _ in range(20):                      # shared mode's address comes with the link
            if self._address(dev):
                break
            time.sleep(0.5)
        return OWN_ADDRESS

    def own_down(self):
        if self._own_active():
            self._run("connection", "down", "id", OWN, check=False)

    def forget(self, ssid):
        for n, s in self._known().items():
            if s == ssid:
                self._run("connection", "delete", "id", n, check=False)

    def set_country(self, code):
        # the root helper sets the regulatory domain from the settings file (its path unit
        # saw the file change); a Pi's Wi-Fi is blocked until then: turn it on now
        time.sleep(1.0)
        self.apply()

    def apply(self):
        self._run("radio", "wifi", "on", check=False)
