"""WebKit for the phone tests: Debian's WebKitGTK (the engine of every iPhone browser and of
iOS's captive-portal sheet) driven over the W3C WebDriver protocol.

``WebKitWebDriver`` (Debian package ``webkit2gtk-driver``) starts WebKitGTK's MiniBrowser in
automation mode for each session. MiniBrowser has no headless mode, so it draws on an Xvfb
display of our own (``Xvfb -displayfd``: the server picks a free display number and tells us).

The client is the standard library over HTTP (``urllib``, JSON), not ``selenium``: the tests need
eight commands (new session, window size, navigate, find element, click, send keys, execute
script, screenshot), each one HTTP request of the W3C protocol; selenium would add a package and
its dependencies (urllib3, trio, websocket-client...) to every test install for that, and its
WebKitGTK options class only writes the same ``webkitgtk:browserOptions`` capability.

Three things this machine showed:

* MiniBrowser's toolbar is wider than a phone: GTK keeps its window at least 447 px wide. A
  GTK style sheet of our own (``XDG_CONFIG_HOME/gtk-3.0/gtk.css``) shrinks the toolbar's widgets,
  so the window, and the page's viewport, can be 390 px wide. It styles GTK's widgets only, not
  the page (WebKit draws the page and its form controls itself).
* A "tap" here is WebDriver's element click: a mouse click at the element's centre, after
  scrolling it into view (touch actions were not tried).
* A screenshot is the last frame WebKitGTK drew: taken right after typing it showed the field
  still empty. :meth:`Session.screenshot` first waits for two animation frames.

JavaScript errors: a script injected after each navigation records ``window.onerror``,
unhandled rejections and ``console.error`` calls (:meth:`Session.errors`). It runs once the page
has loaded (WebDriver classic cannot run a script before the page's own), so an error while the
modules load is not recorded: it shows instead as a page that never draws its join form.
(MiniBrowser's ``--enable-write-console-messages-to-stdout`` would see those, but its automation
windows do not take that setting: tried, nothing was written.)
"""
import base64
import json
import os
import pathlib
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

DRIVER = "WebKitWebDriver"
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"        # the W3C element reference key
GTK_CSS = ("* { font-size: 3px; padding: 0; margin: 0; min-width: 0; min-height: 0;"
           " -gtk-icon-transform: scale(0.3); }\n")

# Records the page's errors from the moment it runs (after a navigation).
CATCH = """
if (!window.__errors) {
  window.__errors = [];
  addEventListener("error", (e) => window.__errors.push("error: " + e.message + " at " +
    (e.filename || "?") + ":" + e.lineno));
  addEventListener("unhandledrejection", (e) => window.__errors.push("unhandled rejection: " +
    String(e.reason)));
  const error = console.error;
  console.error = (...a) => { window.__errors.push("console.error: " + a.join(" "));
                              error.apply(console, a); };
}
"""


def available():
    """Why WebKit cannot run here (a sentence), or None when it can."""
    for prog, pkg in ((DRIVER, "webkit2gtk-driver"), ("Xvfb", "xvfb")):
        if shutil.which(prog) is None:
            return f"{prog} is not installed (Debian package {pkg}; ./table.sh test installs it)"
    return None


class WebDriverError(AssertionError):
    pass


class WebKit:
    """An Xvfb display and a WebKitWebDriver on it; :meth:`session` opens a browser window."""

    def __init__(self, workdir):
        self.dir = pathlib.Path(workdir)
        for gtk in ("gtk-3.0", "gtk-4.0"):      # MiniBrowser is GTK 3 (WebKitGTK 4.1) today
            (self.dir / gtk).mkdir(parents=True, exist_ok=True)
            (self.dir / gtk / "gtk.css").write_text(GTK_CSS)
        r, w = os.pipe()
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0",
                                      "1280x1024x24", "-nolisten", "tcp"], pass_fds=(w,),
                                     stderr=subprocess.DEVNULL)
        os.close(w)
        with os.fdopen(r) as f:
            display = f.readline().strip()
        if not display:
            raise WebDriverError("Xvfb did not start")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.env = {**os.environ, "DISPLAY": ":" + display, "XDG_CONFIG_HOME": str(self.dir),
                    "XDG_CACHE_HOME": str(self.dir / "cache"),
                    "XDG_DATA_HOME": str(self.dir / "data")}
        self.log = self.dir / "driver.log"
        self._log = open(self.log, "ab")
        self.open = set()                       # the sessions not closed yet
        self._start_driver()

    def _start_driver(self):
        # its own process group: the driver and the MiniBrowsers it started end together
        self.driver = subprocess.Popen([DRIVER, f"--port={self.port}"], env=self.env,
                                       stdout=self._log, stderr=subprocess.STDOUT,
                                       start_new_session=True)
        end = time.monotonic() + 15
        while True:
            try:
                self.call("GET", "/status")
                break
            except OSError:
                if time.monotonic() > end or self.driver.poll() is not None:
                    raise WebDriverError(f"{DRIVER} did not start: {self.log.read_text()}")
                time.sleep(0.05)

    def call(self, method, path, body=None, timeout=60):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data,
                                     method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as e:
            v = json.loads(e.read()).get("value", {})
            raise WebDriverError(f"{method} {path}: {v.get('error')}: {v.get('message')}") \
                from None

    def session(self, width=390, height=844, proxy=None):
        """A new MiniBrowser window of ``width`` x ``height``. ``proxy`` (``host:port``) takes
        every request for a host other than the loopback."""
        caps = {"browserName": "MiniBrowser",
                "webkitgtk:browserOptions": {"args": ["--automation"]}}
        if proxy:
            caps["proxy"] = {"proxyType": "manual", "httpProxy": proxy,
                             "noProxy": ["127.0.0.1", "localhost"]}
        body = {"capabilities": {"alwaysMatch": caps}}
        try:
            value = self.call("POST", "/session", body, timeout=90)
        except TimeoutError:
            # Once, in a loaded CI run, the driver never answered a new session (a MiniBrowser
            # that did not come up; a session normally opens in under a second here). With no
            # other window open: a fresh driver, once, and the session asked for again.
            if self.open:
                raise
            self._stop_driver()
            self._start_driver()
            value = self.call("POST", "/session", body, timeout=90)
        s = Session(self, value["sessionId"])
        s.call("POST", "/window/rect", {"width": width, "height": height})
        return s

    def _stop_driver(self):
        try:
            os.killpg(self.driver.pid, signal.SIGTERM)
            self.driver.wait(5)
        except subprocess.TimeoutExpired:
            os.killpg(self.driver.pid, signal.SIGKILL)
            self.driver.wait()
        except ProcessLookupError:
            self.driver.wait()

    def close(self):
        self._stop_driver()
        self.xvfb.terminate()
        try:
            self.xvfb.wait(5)
        except subprocess.TimeoutExpired:
            self.xvfb.kill()
            self.xvfb.wait()
        self._log.close()


class Session:
    """One browser window (its own storage) and the page in it."""

    def __init__(self, webkit, sid):
        self.webkit, self.sid = webkit, sid
        webkit.open.add(sid)

    def call(self, method, path="", body=None):
        return self.webkit.call(method, f"/session/{self.sid}{path}", body)

    def goto(self, url):
        self.call("POST", "/url", {"url": url})
        self.js(CATCH)

    def url(self):
        return self.call("GET", "/url")

    def js(self, script, *args):
        """Run ``script`` (a function body: ``return ...``) with ``arguments``."""
        return self.call("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css):
        return self.call("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def tap(self, css):
        self.call("POST", f"/element/{self.find(css)}/click", {})

    def type(self, css, text):
        self.call("POST", f"/element/{self.find(css)}/value", {"text": text})

    def text(self, css):
        return self.js("return document.querySelector(arguments[0]).textContent", css)

    def value(self, css):
        return self.js("return document.querySelector(arguments[0]).value", css)

    def wait(self, predicate, *args, timeout=15.0, what=None):
        """Poll the JavaScript expression ``predicate`` (``arguments`` are ``args``) until it is
        truthy; its value."""
        end = time.monotonic() + timeout
        while True:
            v = self.js(f"return ({predicate});", *args)
            if v:
                return v
            if time.monotonic() > end:
                raise AssertionError(f"WebKit: {what or predicate} not seen in {timeout:g} s")
            time.sleep(0.05)

    def wait_for(self, css, timeout=15.0):
        return self.wait("document.querySelector(arguments[0])", css, timeout=timeout, what=css)

    def screenshot(self, path):
        path = pathlib.Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        # WebKitGTK's screenshot is the last frame drawn: let the page draw what it has now
        self.js("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        path.write_bytes(base64.b64decode(self.call("GET", "/screenshot")))
        return path

    def errors(self):
        """The JavaScript errors :data:`CATCH` recorded."""
        return self.js("return window.__errors || []")

    def close(self):
        self.webkit.open.discard(self.sid)
        self.call("DELETE")

