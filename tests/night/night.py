"""A game night, driven the way a table plays it: the real table (``TableServer`` with its
embedded broker, the bridge and the phone page, a SQLite store), the real Kivy table screen in
the offscreen window (tapped through the harness ``Driver`` by ``tid`` or visible text), the
reader simulator for the physical cards, and phones in headless Chromium that only tap what
their page shows.

A phone decides from its own page (``window.tc.view``, see ``minds.py``) and then taps: a
move's button ``[data-move]``, its options ``[data-arg][data-value]``, the steppers, ``#send``.
Nothing here sends a move to the hub for a player or for the table.

At each new phase or round, after every undo, after the restart and at game over,
``Night.agree`` checks that the screens tell one story (the hub, the Kivy screen, every phone,
/watch; one phone reloaded as a fresh page), the same feed of what happened included (each
phone's own lines on that phone alone), and that every reveal verifies.

Screenshots go to ``screenshots/night/`` (git-ignored): the table screen through the Driver's
``check`` (which also insists every text is legible at arm's length), the phones full-page.
"""
import json
import pathlib
import random
import time

from kivy.base import EventLoop
from kivy.core.window import Window
from kivy.uix.modalview import ModalView
from PIL import Image
from pyzbar.pyzbar import decode

from companion.core import choices
from companion.net.brokers import free_ports
from companion.net.serve import TableServer
from tests.phone.conftest import Phone
from tests.ui.harness import Driver
from tests.teardown import close_all
from tests.waiting import wait_until
from ui.app import TableApp

from . import minds

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "screenshots" / "night"
HOST = "127.0.0.1"


def canonical(v) -> str:
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# -- the table screen ---------------------------------------------------------------------------

class Table(Driver):
    """The harness Driver, with its pictures in screenshots/night/<game>-..."""

    def __init__(self, app, prefix):
        super().__init__(app)
        self.prefix = prefix

    def shot(self, name):
        import os
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.pump()
        final = SHOTS / f"{self.prefix}-table-{name}.png"
        path = Window.screenshot(name=str(final))
        os.replace(path, final)
        return final

    def check(self, name):
        """The harness's check: a screenshot, and every text legible at arm's length."""
        self.shot(name)
        bad = self.problems()
        assert bad == [], f"{name}: {bad}"

    def qr(self, name):
        """What a phone's camera reads off the table screen: the QR code on it, decoded."""
        self.check(name)
        codes = decode(Image.open(SHOTS / f"{self.prefix}-table-{name}.png"))
        assert len(codes) == 1, f"{len(codes)} QR codes on the table screen"
        return codes[0].data.decode()

    def dialogs(self):
        return [w for w in Window.children if isinstance(w, ModalView)]


# -- a phone ------------------------------------------------------------------------------------

class NightPhone(Phone):
    """One phone of the night: a browser context, its page, and its player's mind."""

    def __init__(self, browser, name, prefix, tv=False):
        super().__init__(browser, name, prefix, tv=tv)
        self.page.set_default_timeout(20_000)
        self.memo = {}                       # what the player remembers (the mind's notes)
        self.before = set()                  # windows locked before this phone held its seat

    def shot(self, step):
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.evaluate("window.scrollTo(0, 0); const t = document.getElementById('toast');"
                           "if (t) { t.style.transition = 'none'; t.classList.remove('show'); }")
        path = SHOTS / f"{self.prefix}-phone-{self.name.lower()}-{step}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path

    # -- reading the page -------------------------------------------------------------------
    def view(self):
        return self.page.evaluate("window.tc.view")

    def rev(self):
        r = self.page.get_attribute("#game-screen", "data-rev")
        return int(r) if r else -1

    def shows_rev(self, rev, timeout=20_000):
        self.page.wait_for_function(
            "(rev) => Number(document.getElementById('game-screen').dataset.rev) >= rev "
            "&& window.tc.view && window.tc.view.rev >= rev", arg=rev, timeout=timeout)

    # -- joining ----------------------------------------------------------------------------
    def join(self, url, name=None):
        """Open the table's link (from its QR code) and give the player's name: the one thing
        a player types."""
        self.page.goto(url)
        self.page.wait_for_selector("#join-name")
        self.page.fill("#join-name", name or self.name)
        self.page.click("#join-button")
        self.page.wait_for_function(
            "(n) => document.querySelector('#me .name') && "
            "document.querySelector('#me .name').textContent === n", arg=name or self.name)

    def live(self, timeout=30_000):
        self.page.wait_for_selector("#bar-conn.on", timeout=timeout)

    # -- tapping a move ---------------------------------------------------------------------
    def open(self, move):
        """The move's pickers open (a tap on its button when it is one of several)."""
        form = f"[data-form={move}]"
        if self.page.query_selector(form) is None:
            self.page.click(f"[data-move={move}]")
            self.page.wait_for_selector(form)
        return form

    def tap_args(self, move, specs, args, half=False):
        """Tap each answer of ``args`` into the open form of ``move``, question by question
        in the order the page asks them (``half``: only the start of the first answer, as a
        player interrupted mid-choice)."""
        form = self.open(move)
        done = {}
        seen = set()
        for s in specs:
            name = s["name"]
            if name in seen or not choices._holds(s.get("when"), done):
                continue
            seen.add(name)
            if name not in args:
                continue
            v = args[name]
            if half:
                if isinstance(v, list) and len(v) > 1:
                    v = v[:1]
                    args = dict(args, **{name: v})
                if move == "pick_leader":
                    args = {"leader": args["leader"]}
                self._set(form, move, s, v, args)
                return
            self._set(form, move, s, v, args)
            done[name] = v

    def _set(self, form, move, s, v, args):
        p = self.page
        name, kind = s["name"], s["kind"]
        if move == "pick_leader" and name in ("leader", "ranking"):
            # the Leader pick is drawn as one ordered pick: the wish, then the back-ups
            if name == "ranking":
                return
            want = [args["leader"]] + list(args.get("ranking") or [])
            opt = f"{form} [data-arg=leader]"

            def ranked():
                got = p.eval_on_selector_all(f"{opt}[data-rank]", "es => es.map(e => "
                                             "[Number(e.dataset.rank), e.dataset.value])")
                return [json.loads(v) for _, v in sorted(got)]
            if ranked() == want:
                return
            for x in reversed(ranked()):                   # tap again to take one back
                p.click(f"{opt}[data-value='{canonical(x)}']")
            for x in want:
                p.click(f"{opt}[data-value='{canonical(x)}']")
            assert ranked() == want, ranked()
            return
        if kind == "one":
            sel = f"{form} [data-arg={name}][data-value='{canonical(v)}']"
            if p.get_attribute(sel, "aria-pressed") != "true":
                p.click(sel)                  # the page redraws the form as it handles it
        elif kind == "number":
            box = f"{form} [data-spec={name}] .stepper"
            step = s.get("step") or 1
            for _ in range(200):
                raw = p.get_attribute(box, "data-value")
                cur = json.loads(raw) if raw not in (None, "") else None
                if cur == v:
                    break
                if cur is None:
                    p.click(f"{box} [data-step='{step}']")
                    continue
                diff = v - cur
                big = f"{box} [data-step='{5 * step if diff > 0 else -5 * step}']"
                if abs(diff) >= 5 * step and p.query_selector(big) is not None:
                    p.click(big)
                else:
                    p.click(f"{box} [data-step='{step if diff > 0 else -step}']")
            else:
                raise AssertionError(f"the stepper of {name} never showed {v}")
        elif kind in ("order", "subset"):
            opts = f"{form} [data-arg={name}]"
            for x in p.eval_on_selector_all(f"{opts}[aria-pressed=true]",
                                            "es => es.map(e => e.dataset.value)"):
                if kind == "order" or json.loads(x) not in v:
                    p.click(f"{opts}[data-value='{x}']")
            for x in v:
                sel = f"{opts}[data-value='{canonical(x)}']"
                if p.get_attribute(sel, "aria-pressed") != "true":
                    p.click(sel)
        elif kind == "counts":
            for opt in s["options"]:
                key = str(opt["value"])
                want = int(v.get(key, 0))
                row = f"{form} [data-arg={name}][data-value='{canonical(opt['value'])}']"
                if p.query_selector(row) is None:
                    assert want == 0, f"no row for {key}"
                    continue
                for _ in range(100):
                    n = int(p.get_attribute(row, "data-n"))
                    if n == want:
                        break
                    p.click(f"{row} [data-step='{1 if want > n else -1}']")
        elif kind == "flag":
            sel = f"{form} [data-arg={name}]"
            if (p.get_attribute(sel, "aria-pressed") == "true") != bool(v):
                p.click(sel)
        else:
            raise AssertionError(f"a phone never types a move's answer ({name}: {kind})")

    def send(self, move):
        """Tap the send button; wait for the table's answer. Returns the page's result."""
        p = self.page
        p.wait_for_selector(f"#send[data-send={move}]:not([disabled])")
        n = self.sent()
        p.click("#send")
        return self.answer(n)

    def sent(self):
        return self.page.evaluate("window.tc.txN")

    def answer(self, before):
        """The table's answer to the move sent after ``before`` moves."""
        self.page.wait_for_function(
            "(n) => window.tc.answered && window.tc.answered.n > n", arg=before)
        r = self.page.evaluate("window.tc.answered")
        assert r["ok"], f"{self.name}: the table refused: {r['message']}"
        return r

    def play(self, move, args, view):
        """Tap ``move`` with ``args`` (every value one the page offers)."""
        m = minds.legal(view, move)
        assert m is not None, f"{self.name}'s page does not offer {move}"
        if not m["args"]:
            if self.page.query_selector(f"[data-form={move}]") is not None:
                return self.send(move)                 # the only move: its own form
            n = self.sent()
            self.page.click(f"[data-move={move}]")
            return self.answer(n)
        self.tap_args(move, m["args"], args)
        return self.send(move)


# -- the night -------------------------------------------------------------------------------------

def timed(fn):
    """Count the seconds a Night spends in ``fn`` (outermost calls only): ``night.spent``."""
    import functools

    @functools.wraps(fn)
    def run(self, *a, **kw):
        if self._timing:
            return fn(self, *a, **kw)
        self._timing = True
        t = time.monotonic()
        try:
            return fn(self, *a, **kw)
        finally:
            self._timing = False
            self.spent[fn.__name__] = self.spent.get(fn.__name__, 0) + time.monotonic() - t
    return run


class Night:
    """One table and its phones for one game (see the module doc)."""

    def __init__(self, browser, tmp_path, prefix, seed=1):
        self.browser = browser
        self.tmp_path = tmp_path
        self.prefix = prefix
        self.table_id = prefix.replace("_", "-")[:24]
        self.db = tmp_path / "night.db"
        self.ports = dict(zip(("http_port", "mqtt_port", "ws_port"), free_ports(3, HOST)))
        self.server = self.link = self.app = self.d = None
        self.stopped_at = None              # when the table last stopped (restart)
        self.phones = {}                    # seat -> NightPhone
        self.retired = []                   # phones whose seat moved away
        self.tv = None
        self.rng = random.Random(seed)
        self.mind = None
        self.seen_table = set()
        self.seen_phone = set()
        self.moves = 0
        self.table_taps = 0
        self.marks = {}
        self.spent = {}                     # seconds spent per kind of step (see ``timed``)
        self.toasts = []                    # every toast the table screen showed
        self.agreeing = 0.0                 # seconds spent checking the screens agree
        self.agreed = 0                     # how many times they were checked
        self.verified = 0                   # own lock-ins a phone showed "verified" at a reveal
        self.feed_lines = 0                 # the longest feed the pages showed alike
        self._timing = False
        self.t0 = time.monotonic()
        Window.size = (800, 480)

    # -- the table ------------------------------------------------------------------------
    @property
    def hub(self):
        return self.server.hub

    @timed
    def open_table(self, **kw):
        kw = {"bind": HOST, "public_host": HOST, "start": "manual", **self.ports, **kw}
        self.server = TableServer(self.table_id, db=str(self.db), **kw).start()
        from hardware.hubglue import start_devices
        self.link, description = start_devices(self.hub, simulate=True)
        assert "imulated" in description
        self.app = TableApp(self.hub, sound=False, reveal_step=None, time_hold=0,
                            simulated_hardware_note=description)
        root = self.app.build()
        self.app.bind(toast=lambda _a, t: t and self.toasts.append(t))
        Window.add_widget(root)
        self.d = Table(self.app, self.prefix)
        self.d.pump()
        from kivy.lang import global_idmap      # (a new app takes kv's ``app`` proxy)
        proxy = global_idmap["app"]
        assert object.__getattribute__(proxy, "_ensure_app")() is self.app, \
            "the screen's kv rules talk to an older app"
        # the simulated-hardware note: read once and put away, as a table would
        if not self.seen_table:
            self.d.shot("note")
        self.tap("banner:dismiss")
        return self.d

    def close_table(self):
        """The screen, the devices and the table stop (as at a power cut or Ctrl-C)."""
        if self.app is not None:
            for w in list(Window.children):
                if isinstance(w, ModalView):
                    w.dismiss(animation=False)
            Window.remove_widget(self.app.root)
            self.app.close()                   # nothing of it is scheduled any more
            for _ in range(3):
                EventLoop.idle()
            self.app.dispatch("on_stop")
            self.app = self.d = None
        if self.link is not None:
            self.link.close()
            self.link = None
        if self.server is not None:
            self.server.stop()
            self.server = None
            self.stopped_at = time.monotonic()  # the timers kept their time up to here

    @timed
    def restart(self):
        """Stop everything and start it again on the same store and ports: the table resumes
        its open session; the phones reclaim their seats by themselves."""
        session = self.hub.session.id
        self.close_table()
        for ph in self.phones.values():
            ph.page.wait_for_selector("#bar-conn:not(.on)")
        self.open_table()
        assert self.server.resumed is not None and self.hub.session.id == session
        for ph in self.phones.values():
            ph.live()
        wait_until(lambda: all(s.online for s in self.hub.seats), what="every phone back")
        self.d.pump()
        self.agree("after the restart", reload=True, feed="The table restarted.")

    def close(self):
        close_all(list(self.phones.values()) + self.retired + ([self.tv] if self.tv else []),
                  "a phone's browser page")
        self.close_table()

    def mark(self, what):
        self.marks[what] = round(time.monotonic() - self.t0, 1)

    def final_scores(self):
        """The game is over: the table shows Victory, and every phone's final scores panel
        shows the outcome's scores, legibly; the winner's phone is photographed. Returns the
        rows every scores panel must show, ``[(seat, score), ...]``."""
        self.d.pump()
        assert self.app.screen_name == "victory"
        self.look()
        outcome = self.hub.session.state.outcome
        self.agree("at game over", reload=True)
        want = sorted((str(s), str(n)) for s, n in outcome.scores.items())
        for ph in self.phones.values():
            assert outcome_rows(ph.page) == want
            assert not ph.unreadable(), ph.unreadable()
        self.phones[outcome.winners[0]].shot("final-scores")
        return want

    # -- phones ---------------------------------------------------------------------------
    def phone(self, name):
        return NightPhone(self.browser, name, self.prefix)

    @timed
    def join(self, url, names):
        """Phones open the join link and give their names; returns them."""
        out = []
        for name in names:
            ph = self.phone(name)
            ph.join(url, name)
            seat = ph.page.evaluate("window.tc.creds.seat")
            assert seat not in self.phones
            self.phones[seat] = ph
            out.append(ph)
        return out

    def rev(self):
        return self.hub.public_view()["rev"]

    def time_left(self):
        """``{timer: seconds left now}`` (a running timer's ``remaining`` is its time at the
        start; its deadline says how long is left)."""
        s = self.hub.session
        return {n: (t.deadline - s.clock.now() if t.deadline is not None else t.remaining)
                for n, t in s.state.timers.items()}

    def lobby_start(self, names=("Ann", "Bo", "Cy"), seed=None):
        """Phones read the join QR off the lobby screen and give their names; the table taps
        Start with the last seat still free. Returns the join URL (for the late joiner)."""
        assert self.app.screen_name == "lobby"
        url = self.d.qr("lobby")
        assert url == self.hub.join_url
        self.join(url, names)
        self.d.pump()
        n = len(self.hub.seats)
        assert f"{len(names)} of {n} phones joined" in self.d.texts()
        self.look("lobby-joined")
        self.phones[0].shot("lobby")
        self.tap("lobby:start")
        self.d.wait_for(lambda: self.hub.session is not None, timeout=20)
        if seed is not None:                # the server's --seed, also for a start by tap
            assert self.hub.log.info(self.hub.session.id).meta["seed"] == seed
        assert self.hub.session.state.players[n - 1] == f"Seat {n}"
        self.mark("started")
        return url

    def menu_join_qr(self):
        """The join QR during the game, from the table's Menu (the lobby's is gone): what a
        late phone's camera reads off the screen."""
        self.tap("menu")
        self.tap("menu:join")
        url = self.d.qr("menu-join-qr")
        assert url == self.hub.join_url
        self.tap("join:close")
        assert not self.d.dialogs()
        return url

    def late_joiner(self, name="Di"):
        """A player arrives after the start, reads the join QR the table's Menu shows and
        names the free seat: every phone and the table screen show the name."""
        seat = next(s.no for s in self.hub.seats if not s.phone)
        [ph] = self.join(self.menu_join_qr(), [name])
        assert self.hub.seats[seat].name == name
        assert self.hub.session.state.players[seat] == name
        for other in self.phones.values():
            other.page.wait_for_function(
                "([s, n]) => document.querySelector(`#players li[data-seat='${s}'] .pname`)"
                ".textContent === n", arg=[seat, name])
        self.d.pump()
        assert not any(f"Seat {seat + 1}" in t for t in self.d.texts())
        return ph

    @timed
    def in_step(self, keys=None):
        """Every phone draws what the hub's seat view says: the same rev, the same moves (or
        the waiting line), the same numbers. ``keys(view, seat) -> {stat: text}``."""
        views = {s: self.hub.seat_view(s) for s in self.phones}
        rev = self.rev()
        for s, ph in self.phones.items():
            ph.shows_rev(rev)
        for s, ph in self.phones.items():
            v, p = views[s], ph.page
            assert ph.rev() == rev == v["rev"], (ph.name, ph.rev(), rev)
            legal = v["legal"]
            prompted = set((v.get("prompt") or {}).get("moves") or ())
            if legal:
                if len(legal) == 1:
                    assert p.get_attribute("[data-form]", "data-form") == legal[0]["move"], \
                        ph.name
                else:
                    shown = p.eval_on_selector_all("[data-move]",
                                                   "bs => bs.map(b => b.dataset.move)")
                    want = [m["move"] for m in legal if m["move"] in prompted] + \
                        [m["move"] for m in legal if m["move"] not in prompted]
                    assert shown == want, (ph.name, shown, want)
                form = p.query_selector("[data-form]")
                if form is not None:
                    move = next(m for m in legal if m["move"] == form.get_attribute("data-form"))
                    if move["args"] and move["args"][0]["kind"] in ("one", "order", "subset"):
                        first = move["args"][0]
                        shown = p.eval_on_selector_all(
                            f"[data-form={move['move']}] [data-arg='{first['name']}']",
                            "es => es.map(e => JSON.parse(e.dataset.value))")
                        want = [o["value"] for o in choices.options_now(first, {})]
                        assert shown == want, (ph.name, shown, want)
            else:
                assert not p.query_selector("[data-move], [data-form]"), ph.name
                names = [v["players"][x] for x in v.get("waiting") or () if x != s]
                if names and not any(not w["revealed"] for w in v.get("windows") or ()):
                    text = p.text_content("[data-panel=waiting]")
                    assert text.startswith("Waiting for ") and all(n in text for n in names), \
                        (ph.name, text, names)
            if keys is not None:
                stats = dict(p.eval_on_selector_all(
                    "#me .stat[data-stat]",
                    "ss => ss.map(s => [s.dataset.stat, s.querySelector('.v').textContent])"))
                for k, want in keys(v, s).items():
                    assert stats.get(k) == want, (ph.name, k, stats.get(k), want)
            scores = dict(p.eval_on_selector_all(
                "#players li[data-seat]",
                "ls => ls.map(l => [l.dataset.seat, (l.querySelector('.score') || {})"
                ".textContent || null])"))
            for i in range(len(v["players"])):
                want = score_of(v, i)
                assert scores.get(str(i)) == want, (ph.name, i, scores.get(str(i)), want)

    # -- agreement between screens ---------------------------------------------------------
    def screens(self):
        """Every page that shows the table's story: the phones by seat, and /watch if open."""
        out = [(s, ph) for s, ph in sorted(self.phones.items())]
        if self.tv is not None:
            out.append((None, self.tv))
        return out

    def agree(self, what, reload=False, feed=None):
        t = time.monotonic()
        try:
            return self._agree(what, reload, feed)
        finally:
            self.agreeing += time.monotonic() - t     # (also inside undo and restart)

    @timed
    def _agree(self, what, reload=False, feed=None):
        """The table (its hub's public view, and the Kivy screen's copy of it), every phone and
        /watch tell the same story now: the same rev and phase, the same bar line, the same names
        and scores, the same seats playing or choosing, the same timer (within 2 s); no reveal
        panel anywhere says a choice changed after lock-in, and each phone's own locked choice
        is "verified" (a phone that took over a seat sees the earlier lock-ins as "consistent"). ``reload``: one phone (a different one each time) reloads, as a
        freshly opened page for its seat, and shows what it showed before (its clock is read
        again against the table's, not against its old digits). Every page's feed ("What
        happened") is the table's story, newest first: its public entries on /watch and on every
        phone (a reloaded one too), and on each phone the entries meant for its seat alone,
        which no other page shows; the table screen's list is the public one too. No page has
        text cut by its box, running off the screen or too small (``Phone.unreadable``). ``feed``:
        every page's feed says so, in a line that starts with it."""
        self.d.pump()
        v = self.hub.public_view()
        rev = v["rev"]
        self.d.wait_for(lambda: (self.app.view or {}).get("rev") == rev, timeout=20)
        tv = self.app.view
        assert (tv.get("phase"), tv.get("round")) == (v.get("phase"), v.get("round")), what
        want_seats = [[i, n, score_of(v, i), doing_of(v, i)] for i, n in enumerate(v["players"])]
        want_where = where_of(v)
        want_feed = [e["says"] for e in reversed(v.get("story") or [])]
        assert not any("to" in e for e in v.get("story") or ()), (what, "a private entry in public")
        assert list(getattr(self.app, "story_lines", lambda: want_feed)()) == want_feed, \
            (what, "the table screen's story")
        assert [score_of(tv, i) for i in range(len(v["players"]))] == \
            [x[2] for x in want_seats], (what, "the table screen's scores")
        got, timed_pages = {}, 0
        for seat, ph in self.screens():
            ph.page.wait_for_function(
                "(rev) => { const s = document.getElementById('game-screen') || "
                "document.getElementById('watch'); return Number(s.dataset.rev) >= rev; }",
                arg=rev, timeout=20_000)
            snap = ph.page.evaluate(SNAPSHOT)
            left = self.time_left()
            got[ph.name] = snap
            # nothing cut by its box, off the screen or too small, on every page, every time
            bad = ph.unreadable(least=16 if seat is not None else 18)
            assert not bad, (what, ph.name, "text a player cannot read", bad)
            assert self.rev() == rev, f"{what}: the game moved on while the screens were read"
            assert (snap["rev"], snap["phase"], snap["where"]) == (rev, v["phase"], want_where), \
                (what, ph.name, snap, want_where)
            assert snap["seats"] == want_seats, (what, ph.name, snap["seats"], want_seats)
            # a seat's feed leaves out a public entry it has its own words for ("... on you")
            want = want_feed if seat is None else [
                e["says"] for e in reversed(v.get("story") or []) if e.get("not_for") != seat]
            assert snap["feed"] == want, (what, ph.name, "feed", snap["feed"], want)
            own = [e["says"] for e in reversed(self.hub.seat_view(seat)["story"])
                   if "to" in e] if seat is not None else []
            assert snap["mine"] == own, (what, ph.name, "its own entries", snap["mine"], own)
            self.feed_lines = max(self.feed_lines, len(snap["feed"]) + len(own))
            if snap["timer"] not in (None, "up"):
                assert snap["timer"] in left, (what, ph.name, snap["timer"], left)
                t = v["timers"][snap["timer"]]
                assert snap["paused"] == bool(t.get("paused")), (what, ph.name, snap, t)
                assert abs(clock_seconds(snap["clock"]) - left[snap["timer"]]) <= 2.5, \
                    (what, ph.name, snap["clock"], left)
                timed_pages += 1
            else:
                running = {n for n, t in v["timers"].items()
                           if t.get("deadline") is not None or t.get("paused")}
                assert snap["timer"] == "up" or not running, (what, ph.name, running)
            for win, s, cls, text in snap["checks"]:
                assert cls in ("good", "none"), (what, ph.name, win, s, text)
                if seat is not None and s == seat and win not in ph.before:
                    assert cls == "good", (what, ph.name, "its own choice", text)
                    self.verified += 1
        if feed is not None:
            for seat, ph in self.screens():
                ph.page.wait_for_function(
                    "(f) => [...document.querySelectorAll('#feed li')]"
                    ".some(l => l.textContent.startsWith(f))", arg=feed, timeout=20_000)
        if reload and self.phones:
            seats = sorted(self.phones)
            self._reloads = getattr(self, "_reloads", -1) + 1
            seat = seats[self._reloads % len(seats)]
            ph = self.phones[seat]
            before = got[ph.name]
            ph.page.reload()
            ph.live()
            ph.shows_rev(rev)
            ph.page.wait_for_selector("#players li[data-seat]")
            after = ph.page.evaluate(SNAPSHOT)
            assert self.rev() == rev, f"{what}: the game moved on during the reload"
            keep = ("rev", "phase", "where", "seats", "timer", "paused", "checks", "feed",
                    "mine")
            assert {k: after[k] for k in keep} == {k: before[k] for k in keep}, \
                (what, ph.name, "a fresh page", after, before)
            if after["timer"] not in (None, "up"):
                left = self.time_left()[after["timer"]]
                assert abs(clock_seconds(after["clock"]) - left) <= 2.5, \
                    (what, ph.name, "a fresh page's clock", after["clock"], left)
        self.agreed += 1
        return timed_pages          # how many pages showed a timer that agreed with the table

    # -- the table's taps -------------------------------------------------------------------
    @timed
    def tap(self, tid_or_text, pump=True):
        d = self.d
        # a person's taps are seconds apart: the screen's last command has finished (the
        # screen drops a command tapped while another runs; Undo's confirm then stays open
        # and says so)
        assert self.app.bridge.wait_idle(30), "the table's last command did not finish"
        try:
            w = d.tid(tid_or_text)
        except AssertionError:
            w = d.one(tid_or_text)
        # a button that has just appeared where another was, or that an alert has just
        # moved, ignores taps for a moment (issue 22); a person reads it first
        left = max(float(getattr(w, "guard_until", 0) or 0),
                   float(getattr(self.app, "moved_until", 0) or 0)) - time.monotonic()
        if left > 0:
            time.sleep(left + 0.01)
        d.tap(w, pump=False)
        if pump:
            d.pump(1)
        self.table_taps += 1
        return w

    @timed
    def look(self, name=None):
        """The table screen now; each screen the night has not seen yet is checked (legible
        at arm's length) and saved."""
        if name is None:                 # after a move: a frame shows it, often enough
            EventLoop.idle()
            if self.app.bridge.events or self.app.bridge.busy():
                self.d.pump(1)
        else:
            self.d.pump(1)
        key = name or self.app.screen_name
        if key not in self.seen_table:
            self.seen_table.add(key)
            self.d.check(key)

    @timed
    def undo(self):
        """The table's Undo and its confirm; returns what the dialog said it undoes."""
        from ui.widgets.dialogs import UndoDialog
        before = self.hub.session.state.seq
        self.tap("undo")
        [dlg] = [w for w in self.d.dialogs() if isinstance(w, UndoDialog)]
        what = dlg.what
        self.look("undo-dialog")
        self.tap("undo:go")
        assert dlg not in self.d.dialogs(), f"Undo was refused: {dlg.refused}"
        try:
            self.d.wait_for(lambda: self.hub.session.state.seq == before - 1, timeout=20)
        except AssertionError:
            raise AssertionError(f"Undo ({what}) did not happen; the screen said "
                                 f"{self.toasts[-3:]}; the last records: "
                                 f"{self.hub.session.records[-3:]}") from None
        self.d.pump()
        self.agree(f"after the undo of {what}", reload=True, feed="The table undid")
        return what

    @timed
    def move_seat(self, seat):
        """Tap the seat on the table screen (through the menu, which every screen has),
        "Move to a new phone", read the QR code off the screen with a fresh phone: the seat
        is on that phone; the old one says its seat moved."""
        old = self.phones[seat]
        self.tap("menu")
        self.look("menu")
        self.tap(f"seat:{seat}")
        self.look("seat-dialog")
        self.tap("seat:handover")
        self.d.wait_for(lambda: any(type(w).__name__ == "HandoverDialog"
                                    for w in self.d.dialogs()), timeout=20)
        url = self.d.qr("handover-qr")
        assert "seat=" in url and url.startswith(f"http://{HOST}:{self.ports['http_port']}/")
        new = NightPhone(self.browser, old.name + "-new", self.prefix)
        new.memo = old.memo
        # the old phone saw those lock-ins, not this one: "consistent", not "verified", here
        new.before = {str(w["id"]) for w in self.hub.public_view().get("windows") or ()}
        new.page.goto(url)
        new.page.wait_for_function(
            "(n) => document.querySelector('#me .name') && "
            "document.querySelector('#me .name').textContent === n",
            arg=self.hub.seats[seat].name)
        assert "seat=" not in new.page.url
        old.page.wait_for_selector("#join-screen:not([hidden])", timeout=30_000)
        old.page.wait_for_function("() => document.getElementById('join-error').textContent"
                                   ".includes('Your seat moved to another phone')")
        assert not old.unreadable(), old.unreadable()
        old.shot("seat-moved")
        self.d.pump()
        for w in self.d.dialogs():             # the QR dialog: its job is done
            if type(w).__name__ == "HandoverDialog":
                self.tap("handover:cancel")
        self.phones[seat] = new
        self.retired.append(old)
        new.live()
        return new

    @timed
    def reload_mid_choice(self, seat):
        """The seat's player starts answering their prompt, and the phone reloads (a swipe, a
        crash, the browser killed in the background): the page comes back on the same seat
        and the same question, and the player answers it."""
        ph = self.phones[seat]
        rev = self.rev()
        ph.shows_rev(rev)
        view = ph.view()
        move, args = self.mind(view, self.rng, ph.memo)
        m = minds.legal(view, move)
        assert m["args"], f"{move} has nothing to choose"
        ph.tap_args(move, m["args"], args, half=True)
        picked = "() => [...document.querySelectorAll('[data-form] [aria-pressed=true]')]" \
            ".map(e => e.dataset.arg + '=' + e.dataset.value)"
        half = ph.page.evaluate(picked)
        assert half, "nothing was picked"
        ph.shot("reload-1-half-chosen")
        ph.page.reload()
        ph.live()
        ph.shows_rev(rev)
        # the same question, with the half answer still picked
        ph.page.wait_for_selector(f"[data-form={move}]")
        assert ph.page.evaluate(picked) == half
        assert ph.page.text_content("#me .name") == self.hub.seats[seat].name
        assert ph.page.query_selector("#join-screen:not([hidden])") is None
        ph.shot("reload-2-back")
        self.phone_turn(seat)

    # -- playing -------------------------------------------------------------------------------
    def next_actor(self):
        st = self.hub.session.state
        if st.outcome is not None:
            return "over"
        if None in st.prompts:
            return None
        seats = sorted(s for s in st.prompts if s is not None)
        return seats[0] if seats else "timer"

    @timed
    def phone_turn(self, seat, hook=None):
        """The seat's phone reads its page, decides, taps. ``hook(seat, move, args, view)``
        may play it another way (an Export by the card reader) and returns True if it did."""
        ph = self.phones[seat]
        rev = self.rev()
        ph.shows_rev(rev)
        view = ph.view()
        move, args = self.mind(view, self.rng, ph.memo)
        if hook is not None and hook(seat, move, args, view):
            pass
        else:
            key = (view.get("phase"), move)
            if key not in self.seen_phone:
                m = minds.legal(view, move)
                if m["args"]:
                    ph.tap_args(move, m["args"], args)
                self.seen_phone.add(key)
                assert not ph.unreadable(), (ph.name, ph.unreadable())
                assert ph.fits_the_screen(), ph.name
                ph.shot(f"{len(self.seen_phone):02d}-{view.get('phase')}-{move}")
            ph.play(move, args, view)
        self.moves += 1
        wait_until(lambda: self.rev() > rev, what=f"{ph.name}'s {move} to land")

    def play(self, until, hook=None, table=None, limit=400):
        """Phones and the table play until ``until()``. ``table()`` answers the table's
        prompts (the default taps the prompt's own move on the screen)."""
        for _ in range(limit):
            if until():
                return
            who = self.next_actor()
            if who == "over":
                raise AssertionError("the game ended before the condition")
            if who is None:
                (table or self.table_turn)()
            elif who == "timer":
                raise AssertionError("only a timer can move the game on")
            else:
                self.phone_turn(who, hook)
            self.look()
            st = self.hub.session.state
            if (st.phase, st.round) != getattr(self, "_agreed_at", None):
                self._agreed_at = (st.phase, st.round)   # a new phase or round: every screen
                self.agree(f"at {st.phase} round {st.round}")
        raise AssertionError("the condition was never reached")

    @timed
    def table_turn(self):
        """The table's prompt, answered on the screen: its ``next`` move's button."""
        self.d.pump()
        v = self.hub.public_view()
        tp = v["table_prompt"]
        rev = v["rev"]
        nxt = tp.get("next")
        tids = self.d.tids()
        want = [t for t in tids if t == f"table:{nxt}" or t.startswith(f"table:{nxt}:")]
        assert want, f"no button for the table's {nxt} on {self.app.screen_name}: {tids}"
        self.tap(want[0])
        self.d.wait_for(lambda: self.rev() > rev, timeout=20)

    def moments(self, names):
        """Tap Continue on the moments the table screen holds (a reveal, a recap)."""
        for _ in range(5):
            self.d.pump()
            tids = self.d.tids()
            hit = [t for t in names if t in tids]
            if not hit:
                return
            self.look()
            self.tap(hit[0])


# -- agreement between screens (issue 22) --------------------------------------------------------

# What a page shows of the shared story, normalized: its document's rev and phase, the bar's
# phase line (phase, round, "Game over"), per seat the name, the score and what the seat is
# doing (free seat / choosing / locked in / to play: the phone's first such tag, /watch's only
# one), the timer (its name, its digits, paused or not), and the commitment marks of the reveal
# panel. Phones draw the players in #players, /watch in #w-scores; both share the bar.
SNAPSHOT = r"""() => {
  const scr = document.getElementById('game-screen') || document.getElementById('watch');
  const DOING = {'free seat': 'free', 'choosing': 'choosing', 'locked': 'locked',
                 'locked in': 'locked', 'to play': 'to play'};
  const seats = [...document.querySelectorAll('#players li[data-seat], #w-scores li[data-seat]')]
    .map(l => {
      const doing = [...l.querySelectorAll('.tag')].map(t => DOING[t.textContent])
        .filter(x => x);
      return [Number(l.dataset.seat), l.querySelector('.pname').textContent,
              (l.querySelector('.score') || {}).textContent || null, doing[0] || null];
    });
  const tb = document.getElementById('bar-timer');
  const digits = tb && tb.querySelector('[data-clock]');
  const checks = [...document.querySelectorAll('[data-panel=reveal] .pcard')].map(c => {
    const k = c.querySelector('.check');
    return [c.closest('[data-window]').dataset.window, Number(c.dataset.seat),
            k ? k.className.replace('check', '').trim() : null, k ? k.textContent : null];
  });
  return {rev: scr.dataset.rev === '' ? -1 : Number(scr.dataset.rev), phase: scr.dataset.phase,
          where: document.getElementById('bar-phase').textContent, seats: seats,
          timer: tb && tb.dataset.timer || null, clock: digits ? digits.textContent : null,
          paused: !!(tb && tb.classList.contains('paused')), checks: checks,
          feed: [...document.querySelectorAll('#feed li:not(.mine)')].map(l => l.textContent),
          mine: [...document.querySelectorAll('#feed li.mine')].map(l => l.textContent)};
}"""


def clock_seconds(text):
    m, s = text.split(":")
    return int(m) * 60 + int(s)


def doing_of(v, i):
    """What a seat is doing in a public view, as the pages' tags say it (see SNAPSHOT)."""
    if v.get("outcome"):
        return None
    seats = (v.get("hub") or {}).get("seats") or []
    open_ = [w for w in v.get("windows") or () if not w.get("revealed")]
    if i < len(seats) and not seats[i].get("phone"):
        return "free"
    for w in open_:
        if i in (w.get("seats") or ()):
            return "locked" if str(i) in (w.get("locked") or {}) else "choosing"
    if i in (v.get("waiting") or ()):
        return "to play"
    return None


def where_of(v):
    """The bar's phase line, as the phone page's renderBar (ui/web/js/render.js) and watch.js's
    render draw it."""
    if v.get("outcome"):
        return "Game over"
    w = v.get("phase_label") or " ".join(
        p[:1].upper() + p[1:] for p in str(v.get("phase")).replace("_", " ").replace("-", " ").split())
    return w + (f" · round {v['round']}" if v.get("round") else "")


def outcome_rows(page, rows="[data-panel=outcome] li"):
    """``[(seat, score), ...]`` as a page's final scores panel shows them, sorted."""
    page.wait_for_selector("[data-panel=outcome]")
    return sorted(map(tuple, page.eval_on_selector_all(
        rows, "ls => ls.map(l => [l.dataset.seat, l.querySelector('.score').textContent])")))


def score_of(v, i):
    """The score a phone's player list shows for seat ``i`` (as scoreOf in ui/web/js/words.js)."""
    gv = v.get("game_view") or {}
    tokens = gv.get("tokens")
    if isinstance(tokens, list) and i < len(tokens) and isinstance(tokens[i], dict) \
            and "vp" in tokens[i]:
        return f"{tokens[i]['vp']} VP"
    for key, unit in (("vp", "VP"), ("gdp", "GDP"), ("points", "pts")):
        xs = gv.get(key)
        if isinstance(xs, list) and i < len(xs):
            return f"{xs[i]} {unit}"
    earned, bowl = gv.get("earned"), gv.get("bowl")       # Market Trading's points
    if isinstance(earned, list) and i < len(earned):
        left = f" \u00b7 {bowl[i]} left" if isinstance(bowl, list) and i < len(bowl) else ""
        return f"{earned[i]} pts{left}"
    return None
