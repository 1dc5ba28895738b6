"""Real headless Chromium (Playwright, /usr/bin/chromium) driving the phone page against a real
table: TableServer with its broker, bridge and web server in this process. Every phone is its
own browser context (own localStorage), 360 x 740 CSS pixels, touch. Screenshots go to
screenshots/phone/ (git-ignored)."""
import io
import pathlib
import urllib.request

import pytest
from PIL import Image

from companion.net.serve import TableServer
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright
from pyzbar.pyzbar import decode
from ..teardown import close_all
from ..waiting import wait_until

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

    def __init__(self, browser, name, prefix, tv=False):
        self.name, self.prefix = name, prefix
        if tv:          # a TV or a laptop: the spectator page
            self.width = 1280
            self.context = browser.new_context(viewport={"width": 1280, "height": 720})
        else:
            self.width = 360
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
        if m.type != "error" or any(x in m.text for x in self.EXPECTED):
            return
        # a refusal the page shows in words (a taken name, a used seat code, a seat that
        # moved): Chromium also logs the 4xx answer of that POST
        url = (m.location or {}).get("url", "")
        if m.text.startswith("Failed to load resource: the server responded with a status of 4") \
                and url.split("?")[0].endswith(("/join", "/rename")):
            return
        self.errors.append(m.text)

    def shot(self, step):
        SHOTS.mkdir(parents=True, exist_ok=True)
        # the toast floats over the top bar; in a full-page picture it would hide
        # whatever it lands on
        self.page.evaluate("window.scrollTo(0, 0); const t = document.getElementById('toast');"
                           "if (t) { t.style.transition = 'none'; t.classList.remove('show'); }")
        path = SHOTS / f"{self.prefix}-{self.name.lower()}-{step}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def fits_the_screen(self):
        """No sideways scrolling (on a 360 px phone, or the TV's 1280 px)."""
        return self.page.evaluate("document.documentElement.scrollWidth") <= self.width

    def unreadable(self, root="body", least=16):
        """Visible text under ``root`` that an arm's length cannot read on a 360 px phone: a
        font below 16 px, text that runs off the screen, or text cut off by its box (a box
        that hides what overflows it, sideways or at its bottom, or ends it with "..."), or
        clipped by a box around it. Returns a list of (problem, text) pairs, each problem
        naming the element (``tag#id.class``); [] when all is well. The check runs in the page
        (injected here; the page's own scripts know nothing of it)."""
        return self.page.evaluate(UNREADABLE, [root, least])

    def visible_text(self, sel="body"):
        return self.page.evaluate("(s) => document.querySelector(s).innerText", sel)

    def close(self):
        self.context.close()


# Text a player cannot read, found in the page (Phone.unreadable). A box that hides its
# overflow (overflow hidden or clip, on either axis; text-overflow: ellipsis; a line clamp),
# or scrolls it (the line at a scroll box's edge stands cut), and whose content is larger
# than it cuts that text. Text whose box reaches past the viewport's sides runs off the
# screen.
UNREADABLE = r"""([root, least]) => {
  const out = [];
  const top = document.querySelector(root);
  if (!top) return out;
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
    [...e.classList].map(c => "." + c).join("");
  const hides = (v) => v === "hidden" || v === "clip";
  const walker = document.createTreeWalker(top, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  while (walker.nextNode()) {
    const t = walker.currentNode;
    const text = t.textContent.trim();
    const e = t.parentElement;
    if (!text || !e || seen.has(e)) continue;
    seen.add(e);
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || e.closest("[hidden]")) continue;
    const cs = getComputedStyle(e);
    if (cs.visibility === "hidden" || cs.display === "none" || Number(cs.opacity) === 0
        || e.closest("details:not([open]) > :not(summary)")) continue;
    const size = parseFloat(cs.fontSize);
    if (size < least) out.push(["font " + size + "px in " + name(e), text.slice(0, 60)]);
    if (r.right > window.innerWidth + 0.5 || r.left < -0.5) {
      out.push(["off screen: " + name(e), text.slice(0, 60)]);
    }
    for (let x = e; x && x !== document.body; x = x.parentElement) {
      const s = getComputedStyle(x);
      const wide = (hides(s.overflowX) || s.textOverflow === "ellipsis") &&
        x.scrollWidth > x.clientWidth + 1;
      // a scroll box (overflow auto) counts too: its last line stood cut at its edge
      const tall = (hides(s.overflowY) || s.overflowY === "auto" || s.overflowY === "scroll" ||
        (s.webkitLineClamp && s.webkitLineClamp !== "none")) &&
        x.scrollHeight > x.clientHeight + 1;
      if (wide || tall) {
        out.push(["cut off " + (wide ? "at the side" : "at the bottom") + " by " + name(x),
                  text.slice(0, 60)]);
        break;
      }
    }
  }
  return out;
}"""


@pytest.fixture
def phones(browser, request):
    made = []
    words = request.node.name.split("[")[0].replace("test_", "").split("_")
    prefix = "-".join(words[:2])

    def make(name, tv=False):
        p = Phone(browser, name, prefix, tv=tv)
        made.append(p)
        return p

    yield make
    close_all(made, "a phone's browser page")
    for p in made:
        assert not p.errors, f"{p.name}'s page had errors: {p.errors}"


def url_from_qr(server):
    """What a phone's camera reads: the table's QR code, decoded."""
    with urllib.request.urlopen(f"http://127.0.0.1:{server.web.port}/qr.png", timeout=5) as r:
        [code] = decode(Image.open(io.BytesIO(r.read())))
    return code.data.decode()


def start_table(tmp_path, table, game, players, **kw):
    kw = {"http_port": 0, "mqtt_port": 0, "ws_port": 0, **kw}
    return TableServer(table, db=tmp_path / f"{table}.db", game=game, players=players,
                       bind="0.0.0.0", **kw).start()


@pytest.fixture
def servers():
    made = []
    yield made.append
    for s in made:
        s.stop()


def join_all(phones, server, names, shots=True):
    """Each phone opens the URL of the table's QR code, types its player's name and joins."""
    url = url_from_qr(server)
    assert url == server.hub.join_url and url.endswith(f"/?room={server.hub.room_code}")
    out = []
    for i, name in enumerate(names):
        ph = phones(name)
        ph.page.goto(url)
        assert ph.page.input_value("#join-room") == server.hub.room_code   # from the QR's URL
        if i == 0 and shots:
            ph.shot("1-join")
        ph.page.fill("#join-name", name)
        ph.page.click("#join-button")
        ph.page.wait_for_selector("#me .name")
        assert ph.page.text_content("#me .name") == name
        if i == 0 and shots:
            ph.shot("2-lobby")
        out.append(ph)
    assert wait_until(lambda: server.hub.session is not None)     # all seats taken: it starts
    return out


def value_sel(arg, value):
    """The selector of the option of argument ``arg`` whose value is ``value`` (the page writes
    values as canonical JSON: sorted keys, no spaces)."""
    import json
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"[data-arg='{arg}'][data-value='{text}']"


def drive(hub, until, rng, limit=400, skip=()):
    """Play the table's confirmations and every seat's moves (except the seats in ``skip``)
    with the game's bots (as the table screen and the card reader would) until
    ``until(state)``."""
    game = hub.session.game
    for _ in range(limit):
        st = hub.session.state
        if until(st):
            return st
        if not st.prompts:
            raise AssertionError(f"nobody to act in {st.phase}")
        seats = [s for s in st.prompts if s not in skip]
        if not seats:
            raise AssertionError(f"only {sorted(st.prompts)} may act in {st.phase}")
        seat = min(seats, key=lambda x: -1 if x is None else x)
        if seat is None:
            move, args = game.table_bot(game, game.observe(st, None), rng)
            hub.table_move(move, args)
        else:
            move, args = game.bots["greedy"](game, game.observe(st, seat), rng)
            hub.submit(seat, move, args)
    raise AssertionError("the game never got there")


def prompted(move):
    return lambda st: any(s is not None and move in p["moves"] for s, p in st.prompts.items())


def reveal_checks(ph, window):
    """{seat: (check, choice)} of a reveal as the phone shows it. A ChoiceLocked published
    before the reveal may still be on its way when the revealed view is drawn (the check then
    says "lock-in not seen here" and is done again when it lands): give it a moment (up to
    15 s: on a loaded CI machine 3 s was once too little)."""
    sel = f".reveal[data-window='{window}']"
    ph.page.wait_for_selector(sel)
    try:
        ph.page.wait_for_function(
            "(sel) => [...document.querySelectorAll(sel + ' .check')].every("
            "(c) => !c.textContent.includes('not seen'))", arg=sel, timeout=15000)
    except PlaywrightTimeout:
        pass                              # the assertion that follows shows what is wrong
    rows = ph.page.query_selector_all(f"{sel} li.pcard")
    return {r.get_attribute("data-seat"): (r.query_selector(".check").text_content(),
                                           r.query_selector(".choice-text").text_content())
            for r in rows}


def values(page, sel):
    """The option values (parsed) of the elements ``sel`` matches, in page order."""
    return page.eval_on_selector_all(sel, "es => es.map(e => JSON.parse(e.dataset.value))")


def outcome_rows(page):
    """[(seat, score)] of the final scores panel, as strings."""
    return sorted(map(tuple, page.eval_on_selector_all(
        "[data-panel=outcome] li",
        "ls => ls.map(l => [l.dataset.seat, l.querySelector('.score').textContent])")))


def shows_rev(page, rev, box="game-screen"):
    """Wait until the page draws a document of revision ``rev`` or newer."""
    page.wait_for_function(
        "([box, rev]) => Number(document.getElementById(box).dataset.rev) >= rev", arg=[box, rev])
