"""Simulated Wi-Fi for the box test (issue 33): the kernel's mac80211_hwsim radios in the VM
(three, loaded at boot by the image: tests/box/build-image.sh), a phone and a venue's access
point each in a network namespace of their own, made with Debian's own tools (iw,
wpa_supplicant, dhcpcd, hostapd, dnsmasq). Every radio hears every other, as in one room.

Radio 0 (02:00:00:00:00:00) is the box's (NetworkManager's); radio 1 the phone's; radio 2 the
venue's access point (NetworkManager leaves both alone: the image's conf.d says so)."""
from __future__ import annotations

import re
import shlex

from tests.box.vm import wait_for

PHONE_MAC, VENUE_MAC = "02:00:00:00:01:00", "02:00:00:00:02:00"
PY = "/opt/table-companion/venv/bin/python"
PHONE_PY = "/usr/local/lib/wifi_phone.py"


def write(vm, path, text):
    vm.exec(["tee", path], input_text=text, check=True)


def radio_into(vm, mac, ns) -> str:
    """The radio with ``mac`` moved into namespace ``ns`` (made if need be); its interface."""
    iface = vm.sh(f"ip -o link | awk -F': ' '/{mac}/ {{print $2}}' || true").strip()
    if not iface:                                   # moved before (it keeps its name)
        iface = vm.sh(f"ip netns exec {ns} ip -o link | awk -F': ' '/{mac}/ {{print $2}}'").strip()
        assert iface, f"no radio {mac}"
        return iface
    phy = vm.sh(f"cat /sys/class/net/{iface}/phy80211/name").strip()
    vm.sh(f"ip netns add {ns} 2>/dev/null || true; iw phy {phy} set netns name {ns}; "
          f"ip netns exec {ns} ip link set lo up; ip netns exec {ns} ip link set {iface} up")
    return iface


def own_wifi_up(vm) -> bool:
    return "table-companion-own" in vm.sh("nmcli -t -f NAME connection show --active || true")


def box_ssid_now(vm) -> str:
    return vm.sh("nmcli -t -f NAME,TYPE,DEVICE connection show --active || true")


def phone_on(vm, ssid, psk, ns="phone", timeout=120) -> dict:
    """The phone joins ``ssid`` with ``psk`` (WPA2) and takes an address by DHCP; its DNS
    server from the lease goes into its namespace's resolv.conf. ``{ip, dns, router}``."""
    iface = radio_into(vm, PHONE_MAC, ns)
    # the phone leaves the network it was on: its DHCP client gone (released), then its Wi-Fi
    vm.sh(f"ip netns exec {ns} dhcpcd -4 -x {iface} >/dev/null 2>&1 || true; sleep 1; "
          f"pkill -f '[d]hcpcd -4 -w' || true; "
          f"kill $(cat /run/{ns}-wpa.pid 2>/dev/null) 2>/dev/null && sleep 1; "
          f"ip netns exec {ns} ip -4 addr flush dev {iface}")
    write(vm, f"/run/{ns}-wpa.conf",
          f"ctrl_interface=/run/{ns}-wpa\nnetwork={{\n  ssid=\"{ssid}\"\n  psk=\"{psk}\"\n"
          f"  key_mgmt=WPA-PSK\n}}\n")
    vm.sh(f"ip netns exec {ns} wpa_supplicant -B -i {iface} -c /run/{ns}-wpa.conf "
          f"-P /run/{ns}-wpa.pid")
    wait_for(f"the phone associated with {ssid}", lambda: "wpa_state=COMPLETED" in vm.sh(
        f"ip netns exec {ns} wpa_cli -p /run/{ns}-wpa -i {iface} status || true"), timeout, 1)
    vm.sh(f"ip netns exec {ns} dhcpcd -4 -w -t 60 -C resolv.conf -C wpa_supplicant "
          f"-C timezone -C hostname {iface}", timeout=120)
    lease = wait_for(f"the phone's lease on {ssid}", lambda: (lambda t: t if "ip_address=" in t
                     else None)(vm.sh(f"ip netns exec {ns} dhcpcd -4 -U {iface} || true")),
                     90, 2)
    got = dict(re.findall(r"^(\w+)='?([^'\n]*)'?$", lease, re.M))
    dns = got.get("domain_name_servers", "").split()[0] if got.get("domain_name_servers") \
        else None
    vm.sh(f"mkdir -p /etc/netns/{ns}")
    write(vm, f"/etc/netns/{ns}/resolv.conf", f"nameserver {dns}\n" if dns else "")
    return {"ip": got.get("ip_address"), "dns": dns, "router": got.get("routers"),
            "iface": iface}


def phone_run(vm, *args, ns="phone", background=False, timeout=120) -> str:
    cmd = f"ip netns exec {ns} {PY} {PHONE_PY} " + " ".join(shlex.quote(a) for a in args)
    if background:
        vm.sh(f"setsid {cmd} >/run/{ns}-phone.out 2>&1 </dev/null &")
        return ""
    return vm.sh(cmd, timeout=timeout)


def phone_log(vm, out) -> list[dict]:
    import json
    text = vm.sh(f"cat {out} 2>/dev/null || true")
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def answers_tcp(vm, ns, host, port, timeout=6) -> bool:
    """Whether ``host:port`` accepts a TCP connection from namespace ``ns``."""
    code = vm.sh(f"ip netns exec {ns} timeout {timeout} bash -c "
                 f"'exec 3<>/dev/tcp/{host}/{port}' >/dev/null 2>&1; echo $?").strip()
    return code == "0"


def venue_up(vm, ssid, psk, ns="venue", subnet="192.168.50") -> str:
    """A venue's access point: hostapd (WPA2) and a DHCP server, in namespace ``ns``."""
    iface = radio_into(vm, VENUE_MAC, ns)
    vm.sh(f"ip netns exec {ns} ip -4 addr flush dev {iface}; "
          f"ip netns exec {ns} ip addr add {subnet}.1/24 dev {iface}")
    write(vm, f"/run/{ns}-hostapd.conf",
          f"interface={iface}\ndriver=nl80211\nssid={ssid}\nhw_mode=g\nchannel=6\n"
          f"wpa=2\nwpa_passphrase={psk}\nwpa_key_mgmt=WPA-PSK\nrsn_pairwise=CCMP\n")
    vm.sh(f"ip netns exec {ns} hostapd -B -P /run/{ns}-hostapd.pid /run/{ns}-hostapd.conf")
    vm.sh(f"ip netns exec {ns} /usr/sbin/dnsmasq --conf-file=/dev/null --port=0 "
          f"--interface={iface} --bind-interfaces --dhcp-range={subnet}.10,{subnet}.99,12h "
          f"--dhcp-leasefile=/run/{ns}.leases --pid-file=/run/{ns}-dnsmasq.pid")
    return iface


def venue_down(vm, ns="venue"):
    vm.sh(f"kill $(cat /run/{ns}-hostapd.pid /run/{ns}-dnsmasq.pid 2>/dev/null) "
          f"2>/dev/null || true")
