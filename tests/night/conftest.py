"""Whole game nights (issue 10): one real table, its Kivy screen in the offscreen window and
four phones in one headless Chromium, per design, from the start to the Victory screen.
See night.py for the pieces and minds.py for how a phone decides what to tap."""
import pytest

from ui.app import configure_window

# the biggest size first: an offscreen surface can shrink to 800x480, not grow past its first
configure_window(fullscreen=False, size=(1920, 1080))

from tests.phone.conftest import browser  # noqa: E402,F401  (one Chromium for every phone)

from .night import Night  # noqa: E402


@pytest.fixture
def night(browser, tmp_path, request):  # noqa: F811
    n = Night(browser, tmp_path, request.node.name.replace("test_", "").replace("_night", ""))
    yield n
    n.close()
    errors = {p.name: p.errors for p in list(n.phones.values()) + n.retired +
              ([n.tv] if n.tv else []) if p.errors}
    assert not errors, f"page errors: {errors}"
