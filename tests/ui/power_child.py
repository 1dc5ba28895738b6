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
    from kivy.app import App
    app = App.get_running_app()
    while app is None or app.root is None or not app.notifier.ready or (
            app.notifier.interval and app.notifier.pets < 1):
        yield
        app = App.get_running_app()
    from tests.ui.harness import Driver         # imports the window: only once it exists
    d = Driver(app)
    for _ in range(3):
        yield
    d.tap(d.tid("lobby:start"), pump=False)     # a command the table acknowledges
    print("TAPPED lobby:start", flush=True)
    if mode == "gpio":
        from companion.service import power
        t = threading.Thread(target=power.request, args=("reboot",), name="gpio-button")
        t.start()
        t.join()
        print("REQUESTED reboot", flush=True)
        return
    for tid in ("menu", "menu:poweroff", "confirm:poweroff"):
        for _ in range(3):                      # the dialog opens and is laid out
            yield
        d.tap(d.tid(tid), pump=False)
        print(f"TAPPED {tid}", flush=True)
    while True:
        yield


def drive(mode):
    it = steps(mode)

    def tick(_dt):
        try:
            next(it)
        except StopIteration:
            return False
    Clock.schedule_interval(tick, 0.05)


if __name__ == "__main__":
    mode, sep, *args = sys.argv[1:]
    assert sep == "--"
    drive(mode)
    code = main(["run", *args])
    print(f"EXIT {code}", flush=True)
    sys.exit(code)
