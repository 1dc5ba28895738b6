"""One real window for the UI tests (SDL offscreen, 800x480, from tests/conftest.py's env)."""
import pytest

from ui.app import configure_window

# the biggest size: an offscreen surface can shrink for 800x480, not grow past its first size
configure_window(fullscreen=False, size=(1920, 1080))

from kivy.base import EventLoop  # noqa: E402
from kivy.core.window import Window  # noqa: E402
from kivy.uix.modalview import ModalView  # noqa: E402

from companion.core.clock import FakeClock  # noqa: E402
from companion.core.log import MemoryLog  # noqa: E402
from companion.service.hub import Hub  # noqa: E402
from ui.app import TableApp  # noqa: E402

from .harness import Driver  # noqa: E402


@pytest.fixture
def window():
    Window.size = (800, 480)
    EventLoop.idle()
    yield Window
    Window.size = (800, 480)


@pytest.fixture
def clock():
    return FakeClock(1000.0)


@pytest.fixture
def hub(clock):
    h = Hub(MemoryLog(), table="t", clock=clock, entropy=_entropy())
    yield h
    h.stop()


def _entropy():
    import random
    rng = random.Random(7)
    return lambda n: bytes(rng.randrange(256) for _ in range(n))


def kv_app():
    """The app kv's ``app`` proxy talks to now (None: it will ask on the next rule)."""
    from kivy.lang import global_idmap
    return object.__getattribute__(global_idmap["app"], "_obj")


@pytest.fixture
def start_app(window):
    """``start_app(hub, **kwargs) -> Driver``: the real app's root in the real window. The
    app's kv rules talk to that app (the app claims kv's ``app`` proxy when it builds, and
    lets go of it when it closes, its pending toasts and fades cancelled), whatever an
    earlier test's app left scheduled."""
    apps = []

    def start(hub, **kw):
        kw.setdefault("sound", False)
        kw.setdefault("reveal_step", None)      # the reveal steps when the test says
        kw.setdefault("time_hold", 0)           # "Time!" is held only where a test asks
        kw.setdefault("tap_guard", 0)           # taps on new buttons count, unless asked
        app = TableApp(hub, **kw)
        root = app.build()
        Window.add_widget(root)
        apps.append((app, root))
        d = Driver(app)
        d.pump()
        assert kv_app() is app, "the screen's kv rules talk to another app"
        return d

    yield start
    for app, root in apps:
        for w in list(Window.children):
            if isinstance(w, ModalView):
                w.dismiss(animation=False)
        Window.remove_widget(root)
        app.close()                    # nothing of it is scheduled any more
        for _ in range(3):
            EventLoop.idle()
        app.dispatch("on_stop")
        assert kv_app() is not app
