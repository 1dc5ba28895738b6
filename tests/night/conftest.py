"""Whole game nights (issue 10): one real table, its Kivy screen in the offscreen window and
four phones in one headless Chromium, per design, from the start to the Victory screen.
See night.py for the pieces and minds.py for how a phone decides what to tap."""
import gc

import pytest

from ui.app import configure_window

# the biggest size first: an offscreen surface can shrink to 800x480, not grow past its first
configure_window(fullscreen=False, size=(1920, 1080))

from playwright.sync_api import Browser, Error, sync_playwright  # noqa: E402

from tests.phone.conftest import CHROMIUM, FLAGS  # noqa: E402

from .night import Night  # noqa: E402


@pytest.fixture(scope="package")
def browser():
    """One Chromium for every phone of the nights, closed when they are done (Playwright's
    sync API runs one instance per thread: the phone tests start theirs afterwards). Run after
    the phone tests' own (``pytest tests/phone tests/night``), the nights use that one."""
    try:
        pw = sync_playwright().start()
    except Error as e:
        running = []
        for o in gc.get_objects():
            try:                                    # a dead weak proxy raises on any look
                if isinstance(o, Browser) and o.is_connected():
                    running.append(o)
            except ReferenceError:
                continue
        assert running, f"no Chromium to use: {e}"
        yield running[0]
        return
    b = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
    try:
        yield b
    finally:
        b.close()
        pw.stop()


@pytest.fixture
def night(browser, tmp_path, request):
    n = Night(browser, tmp_path, request.node.name.replace("test_", "").replace("_night", ""))
    yield n
    print(f"\n{n.prefix}: the screens agreed {n.agreed} times ({n.agreeing:.1f} s); "
          f"{n.verified} own lock-ins shown verified at reveals; feeds of up to "
          f"{getattr(n, 'feed_lines', 0)} lines alike")
    n.close()
    errors = {p.name: p.errors for p in list(n.phones.values()) + n.retired +
              ([n.tv] if n.tv else []) if p.errors}
    assert not errors, f"page errors: {errors}"
