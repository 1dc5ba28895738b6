"""Real headless Chromium (Playwright, /usr/bin/chromium) driving the phone page against a real
table: TableServer with its broker, bridge and web server in this process. Every phone is its
own browser context (own localStorage), 360 x 740 CSS pixels, touch. Screenshots go to
screenshots/phone/ (git-ignored)."""
import io
import pathlib
import time
import urllib.request

import pytest
from PIL import Image
from playwright.sync_api import sync_playwright
from pyzbar.pyzbar import decode

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "screenshots" / "phone"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
         "--disable-dev-shm-usage"]


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


class Phone:
    """One phone: a browser context with its own storage, and the page in it."""

    def __init__(self, browser, name, prefix):
        self.name, self.prefix = name, prefix
        self.context = browser.new_context(viewport={"width": 360, "height": 740},
                                           device_scale_factor=2, is_mobile=True,
                                           has_touch=True)
        self.page = self.context.new_page()
        self.page.set_default_timeout(10_000)
        self.errors = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", self._console)

    # Chromium's own words when mqtt.js writes to a socket that just died (the table went
    # away): expected while a table restarts, not a fault of the page
    EXPECTED = ("WebSocket is already in CLOSING or CLOSED state",
                "WebSocket connection to", "Failed to load resource: net::ERR_CONNECTION")

    def _console(self, m):
        if m.type == "error" and not any(x in m.text for x in self.EXPECTED):
            self.errors.append(m.text)

    def shot(self, step):
        SHOTS.mkdir(parents=True, exist_ok=True)
        # the toast floats over the viewport's bottom; in a full-page picture it would hide
        # whatever it lands on
        self.page.evaluate("window.scrollTo(0, 0); document.getElementById('toast')"
                           ".classList.remove('show')")
        path = SHOTS / f"{self.prefix}-{self.name.lower()}-{step}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def fits_the_screen(self):
        """No sideways scrolling on a 360 px phone."""
        return self.page.evaluate("document.documentElement.scrollWidth") <= 360

    def close(self):
        self.context.close()


@pytest.fixture
def phones(browser, request):
    made = []
    words = request.node.name.split("[")[0].replace("test_", "").split("_")
    prefix = "-".join(words[:2])

    def make(name):
        p = Phone(browser, name, prefix)
        made.append(p)
        return p

    yield make
    for p in made:
        try:
            p.close()
        except Exception:
            pass
    for p in made:
        assert not p.errors, f"{p.name}'s page had errors: {p.errors}"


def url_from_qr(server):
    """What a phone's camera reads: the table's QR code, decoded."""
    with urllib.request.urlopen(f"http://127.0.0.1:{server.web.port}/qr.png", timeout=5) as r:
        [code] = decode(Image.open(io.BytesIO(r.read())))
    return code.data.decode()


def wait_until(pred, timeout=10.0, step=0.02):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(step)
    return pred()
