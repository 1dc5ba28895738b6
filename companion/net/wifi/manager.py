"""``Network``: what the table holds of the box's network.

At start (``start``) it gives the networks the box knows about ``FALLBACK_S`` seconds to come up
(NetworkManager joins them by itself); none by then, or none known: the box's own Wi-Fi, and the
screen says so. The same when the venue's Wi-Fi goes away later and does not come back. A known network that comes into reach later is not taken while the own Wi-Fi is
up: moving would cut every phone at the table off mid-game; the Menu's Network dialog shows it
as known, one tap away, and the next boot takes it.

The Menu's actions (join a network, the own Wi-Fi, a new password, the country, sharing) run
one at a time on a thread of their own; ``status()`` says what the box is on, what it is doing
and the last thing that failed, in words, and listeners hear every change.
"""
from __future__ import annotations

import logging
import threading
import time

from .backends import OWN_ADDRESS, Backend, Link, NetworkError
from .own import OwnWifi

log = logging.getLogger(__name__)

FALLBACK_S = 30.0          # how long the known networks get at boot before the own Wi-Fi
POLL_S = 2.0               # how often the link is read while waiting, and after (x5)
RETRY_S = 10.0             # an own Wi-Fi that did not start is tried again after this

#: The Wi-Fi countries the Menu offers first (any ISO 3166 code may be typed).
COUNTRIES = ("GB", "US", "DE", "FR", "NL", "BE", "ES", "IT", "IE", "SE", "NO", "DK", "FI",
             "PL", "CH", "AT", "PT", "CA", "AU", "NZ", "JP")


def decide(link: Link, elapsed: float, fallback_s: float = FALLBACK_S) -> str:
    """What the boot does next: ``wait`` for a known network, ``own`` (bring the own Wi-Fi up),
    or ``done`` (on a Wi-Fi network, or the own one is up already).

    >>> decide(Link("wifi", "Home", "192.168.1.5"), 3.0)
    'done'
    >>> decide(Link("none"), 3.0), decide(Link("none"), 30.0)
    ('wait', 'own')
    >>> decide(Link("ethernet", ethernet="192.168.1.9"), 31.0)   # the radio is free: phones too
    'own'
    """
    if link.kind in ("wifi", "own"):
        return "done"
    return "own" if elapsed >= fallback_s else "wait"


class Network:
    def __init__(self, backend: Backend, state_dir, *, fallback_s: float = FALLBACK_S,
                 clock=time.monotonic, machine_id: str | None = None, lan_ip=None):
        self.backend = backend
        self.own = OwnWifi(state_dir, machine_id)
        self.fallback_s = fallback_s
        self.clock = clock
        self._lan_ip = lan_ip
        self.link = Link()
        self.busy: str | None = None
        self.error: str | None = None
        self.waiting_until: float | None = None     # the boot's deadline while it waits
        self._listeners = []
        self._lock = threading.Lock()               # one action at a time
        self._stop = threading.Event()
        self._thread = None

    # -- what the screens read ----------------------------------------------------------------
    def status(self) -> dict:
        link, own = self.link, self.own
        left = None
        if self.waiting_until is not None:
            left = max(0, round(self.waiting_until - self.clock()))
        return {"backend": self.backend.name, "kind": link.kind, "ssid": link.ssid,
                "address": link.address, "ethernet": link.ethernet, "known": list(link.known),
                "own": {"ssid": own.ssid, "password": own.password, "qr": own.qr,
                        "up": link.kind == "own"},
                "country": own.country, "share": own.share, "busy": self.busy,
                "error": self.error, "waiting_s": left, "said": self.said(left)}

    def said(self, left=None) -> str:
        """One line for the screen: what the box is on."""
        link = self.link
        if self.busy:
            return self.busy
        if link.kind == "own":
            return (f"On its own Wi-Fi {link.ssid}: phones join it first, then the table.")
        if link.kind == "wifi":
            eth = f"; Ethernet {link.ethernet}" if link.ethernet else ""
            return f"On the Wi-Fi {link.ssid} ({link.address}{eth})."
        if link.kind == "ethernet":
            return f"On Ethernet ({link.ethernet})."
        if left is not None:
            return f"Looking for a network it knows: its own Wi-Fi in {left} s."
        return "No network."

    def address(self) -> str | None:
        """Where phones reach the table: the own Wi-Fi's address while it is up (phones are
        told to join it first); on a venue's Wi-Fi, the box's address there (the phones are on
        that Wi-Fi, even when a cable gives the box a default route elsewhere); on Ethernet
        only, the Ethernet address; else the LAN address the routes give."""
        link = self.link
        if link.kind == "own":
            return OWN_ADDRESS
        if link.kind == "wifi" and link.address:
            return link.address
        if link.kind == "ethernet" and link.ethernet:
            return link.ethernet
        if self._lan_ip is not None:
            return self._lan_ip()
        return None

    def on_change(self, fn):
        self._listeners.append(fn)
        return lambda: self._listeners.remove(fn) if fn in self._listeners else None

    def _changed(self):
        for fn in list(self._listeners):
            try:
                fn(self)
            except Exception:
                log.warning("a network listener failed", exc_info=True)

    def refresh(self) -> Link:
        try:
            link = self.backend.link()
        except NetworkError as e:
            log.warning("reading the network failed: %s", e)
            return self.link
        if link != self.link:
            self.link = link
            self._changed()
        return link

    # -- the boot -------------------------------------------------------------------------------
    def start(self) -> "Network":
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="tc-network", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def _run(self):
        """The fallback, at boot and after: while the box is on no Wi-Fi (its own or a
        venue's) for ``fallback_s`` (NetworkManager trying the known ones meanwhile), its own
        Wi-Fi; one that does not start (a radio still coming up, the country not set) is tried
        again every ``RETRY_S``. An action of the Menu under way is never interrupted."""
        try:
            self.backend.apply()
        except NetworkError as e:
            log.warning("%s", e)
        since = self.clock()                    # when the box was last seen on a Wi-Fi
        while not self._stop.is_set():
            link = self.refresh()
            if link.kind in ("wifi", "own"):
                since = None
            elif since is None:                 # its Wi-Fi went away: the fallback again
                since = self.clock()
            waiting = since is not None and self.busy is None
            self.waiting_until = since + self.fallback_s if waiting else None
            if waiting and decide(link, self.clock() - since, self.fallback_s) == "own" \
                    and self._lock.acquire(blocking=False):
                try:
                    log.info("no known network in %.0f s: the box's own Wi-Fi %s",
                             self.fallback_s, self.own.ssid)
                    self._own_up()
                    since = self.waiting_until = None
                except NetworkError:            # said in the status; again in RETRY_S
                    since = self.clock() - self.fallback_s + RETRY_S
                finally:
                    self._lock.release()
            self._changed()
            self._stop.wait(POLL_S if since is not None else POLL_S * 5)

    # -- the Menu's actions (blocking; ``submit`` runs them off the screen's thread) ------------
    def submit(self, action: str, *args, done=None):
        """Run ``action`` (``join``, ``use_own``, ``renew_password``, ``set_country``,
        ``set_share``, ``forget``) on its own thread; ``done(error_or_None)`` after."""
        def run():
            err = None
            try:
                getattr(self, action)(*args)
            except NetworkError as e:
                err = str(e)
            except Exception as e:                       # said, never silent
                log.exception("network action %s failed", action)
                err = f"The network did not answer ({e.__class__.__name__})."
            if done is not None:
                done(err)
        threading.Thread(target=run, name=f"tc-network-{action}", daemon=True).start()

    def _doing(self, words: str | None):
        self.busy = words
        self._changed()

    def join(self, ssid: str, password: str | None = None):
        with self._lock:
            self.error = None
            was_own = self.link.kind == "own"
            self._doing(f"Joining {ssid}…")
            try:
                self.backend.join(ssid, password or None)
            except NetworkError as e:
                # the phones' network again (the own Wi-Fi, when the box was on it)
                if was_own:
                    try:
                        self._own_up()
                    except NetworkError:
                        pass
                self.error = str(e)
                raise
            finally:
                self._doing(None)
                self.refresh()

    def use_own(self):
        with self._lock:
            self.error = None
            self._doing(f"Starting its own Wi-Fi {self.own.ssid}…")
            try:
                self._own_up()
            finally:
                self._doing(None)

    def _own_up(self):
        try:
            address = self.backend.own_up(self.own.ssid, self.own.password)
            self.error = None
            log.info("the box's own Wi-Fi %s is up: phones join it, then the table at %s",
                     self.own.ssid, address)
        except NetworkError as e:
            self.error = str(e)
            log.warning("the own Wi-Fi did not start: %s", e)
            raise
        finally:
            self.refresh()

    def renew_password(self):
        """A new password for the own Wi-Fi; phones on it now join again with the new QR."""
        with self._lock:
            self.own.renew_password()
            if self.link.kind == "own":
                self._doing(f"Restarting {self.own.ssid} with its new password…")
                try:
                    self._own_up()
                finally:
                    self._doing(None)
            else:
                self._changed()

    def set_country(self, code: str):
        code = (code or "").strip().upper()
        if len(code) != 2 or not code.isalpha():
            raise NetworkError(f"{code!r} is not a country code (two letters, such as GB).")
        with self._lock:
            self.own.country = code
            self.own.save()
            self.backend.set_country(code)
            self._changed()

    def set_share(self, on: bool):
        with self._lock:
            self.own.share = bool(on)
            self.own.save()
            self.backend.apply()
            self._changed()

    def forget(self, ssid: str):
        with self._lock:
            self.backend.forget(ssid)
            self.refresh()
            self._changed()
