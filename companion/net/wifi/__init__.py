"""The box's own network (docs/network.md): its own Wi-Fi with a captive portal, or the venue's
Wi-Fi chosen on the touchscreen, on the operating system's NetworkManager.

* ``own``: the box's own Wi-Fi: its name ("Table-" and four characters from the machine id),
  its password (random, kept in the state directory), the standard Wi-Fi QR text;
* ``backends``: what a backend answers (``Backend``), and the simulated one (a laptop, the
  tests of the screens);
* ``nm``: the real one: NetworkManager through ``nmcli``, the tool it ships;
* ``manager``: ``Network``, what the table holds: the boot fallback (the networks it knows for
  about 30 s, else its own Wi-Fi), the address phones join at, and the Menu's actions, each run
  off the screen's thread.
"""
from .backends import Backend, NetworkError, SimulatedWifi, WifiNetwork
from .manager import Network, FALLBACK_S
from .own import OwnWifi, box_ssid, new_password, wifi_qr

__all__ = ["Backend", "NetworkError", "SimulatedWifi", "WifiNetwork", "Network", "FALLBACK_S",
           "OwnWifi", "box_ssid", "new_password", "wifi_qr"]
