"""A real `companion run` on the box for test_box_run.py, driven from inside its own event loop:
once the table is on the screen (and, under a watchdog, has pinged it), it starts the game by
touch and then either taps Menu > Shut down > Shut down (``menu``) or asks for a restart as the
GPIO button does, from another thread (``gpio``). Exits with what `companion run` returns.

    python power_child.py menu|gpio -- <companion run arguments>
"""
import os
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from kivy.clock import Clock  # noqa: E402  (no window yet: companion run configures it)

from companion.cli.main import main  # noqa: E402


def steps(mode):
    """One frame per ``yield``. Each tap waits until its control is on the screen and what it
    opens has opened; a step that never comes says so and stops the table (no hang)."""
    from kivy.app import App
    app = yield from until(lambda: _ready(App.get_running_app()), "the table on the screen")
    from kivy.core.window import Window
    from tests.ui.harness import Driver         # imports the window: only once it exists
    d = Driver(app)

    def dialog(name):
        return next((w for w in Window.children if type(w).__name__ == name), None)

    def tap(tid):
        yield from until(lambda: [w for top in d.tops() for w in _walk(top)
                                  if getattr(w, "tid", None) == tid], f"{tid} shown")
        for _ in range(2):                      # laid out where it will stay
            yield
        # a button just shown, or just moved by an alert, ignores taps for a moment
        yield from until(lambda: not d.tid(tid)._guarded(), f"{tid} taking taps")
        d.tap(d.tid(tid), pump=False)
        print(f"TAPPED {tid}", flush=True)

    yield from until(lambda: app.screen_name == "lobby", "the lobby")
    yield from tap("lobby:start")               # a command the table acknowledges
    if mode == "gpio":                          # pressed while the start is being written
        from companion.service import power
        t = threading.Thread(target=power.request, args=("reboot",), name="gpio-button")
        t.start()
        t.join()
        print("REQUESTED reboot", flush=True)
        return
    yield from until(lambda: app.hub.session is not None and not app.bridge.busy(),
                     "the game started")
    yield from tap("menu")
    yield from until(lambda: dialog("TableMenu"), "the menu")
    yield from tap("menu:poweroff")
    yield from until(lambda: dialog("ConfirmDialog"), "the question")
    yield from tap("confirm:poweroff")
    yield from until(lambda: False, "the table stopping", frames=2000)


def _ready(app):
    if app is None or app.root is None or not app.notifier.ready:
        return None
    if app.notifier.interval and app.notifier.pets < 1:
        return None
    return app


def _walk(w):
    yield w
    for c in w.children:
        yield from _walk(c)


def until(cond, what, frames=600):
    """Wait (frame by frame) until ``cond()`` is truthy; return it. Stuck: say where, dump
    every thread's stack and stop the table, so the test fails in words instead of hanging."""
    for _ in range(frames):
        value = cond()
        if value:
            return value
        yield
    print(f"STUCK waiting for {what}", flush=True)
    import faulthandler
    faulthandler.dump_traceback(all_threads=True)
    from kivy.app import App
    app = App.get_running_app()
    if app is not None:
        app.stop()
    raise Stuck(what)


class Stuck(Exception):
    pass


def drive(mode):
    it = steps(mode)

    def tick(_dt):
        try:
            next(it)
        except (StopIteration, Stuck):
            return False
    Clock.schedule_interval(tick, 0.05)


if __name__ == "__main__":
    mode, sep, *args = sys.argv[1:]
    assert sep == "--"
    drive(mode)
    code = main(["run", *args])
    print(f"EXIT {code}", flush=True)
    sys.exit(code)
