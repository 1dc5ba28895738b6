"""A table screen process for the crash test: plays part of a Great Powers game by touch and by
phone on a SQLite log, says READY with its public view, then waits to be killed."""
import json
import os
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from ui.app import configure_window  # noqa: E402

configure_window(fullscreen=False, size=(800, 480))

from kivy.core.window import Window  # noqa: E402

from companion.core.log import SQLiteLog  # noqa: E402
from companion.service.hub import Hub  # noqa: E402
from tests.ui.harness import Driver  # noqa: E402
from ui.app import TableApp  # noqa: E402
from ui.widgets.common import TButton  # noqa: E402


def main(db):
    hub = Hub(SQLiteLog(db), table="crash")
    app = TableApp(hub, sound=False, reveal_step=None)
    Window.add_widget(app.build())
    d = Driver(app)
    d.pump()
    d.tap(d.one("Great Powers", TButton))
    d.tap(d.one("3", TButton))
    d.tap(d.one("Set up a new game", TButton))
    d.tap(d.one("Start the game", TButton))
    for seat, traits in enumerate((["navy", "army", "colony"], ["army", "navy", "industry"],
                                   ["colony", "population", "navy"])):
        t = threading.Thread(target=hub.submit, args=(seat, "submit_bids", {"traits": traits}))
        t.start()
        t.join()
    d.pump()
    d.tap(d.one("Continue", TButton))
    seat = hub.public_view()["waiting"][0]
    d.tap(d.one(f"{hub.public_view()['players'][seat]} passes", TButton))
    view = hub.public_view()
    view.pop("hub")
    print("READY " + json.dumps({"view": view, "screen": app.screen_name}), flush=True)
    while True:
        time.sleep(60)


if __name__ == "__main__":
    main(sys.argv[1])
