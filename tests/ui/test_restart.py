"""The app is only a view: kill the table screen's process (SIGKILL, mid-game) and start it
again on the same log; the game is where it was, on the same screen, and its story says the
table restarted."""
import json
import os
import signal
import subprocess
import sys

from companion.core.log import SQLiteLog
from companion.service.hub import Hub
from ui.widgets.common import TButton

HERE = os.path.dirname(os.path.abspath(__file__))


def test_killed_and_restarted_the_screen_shows_the_same_game(tmp_path, start_app):
    db = tmp_path / "table.db"
    env = dict(os.environ, KIVY_HOME=str(tmp_path / "kivy"))
    child = subprocess.Popen([sys.executable, os.path.join(HERE, "crash_child.py"), str(db)],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                             text=True)
    try:
        line = ""
        for line in child.stdout:
            if line.startswith("READY "):
                break
        assert line.startswith("READY "), "the child never got ready"
        before = json.loads(line[6:])
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    assert before["screen"] == "gp_action"

    hub = Hub(SQLiteLog(db), table="crash")
    d = start_app(hub)                       # resumes the open session by itself
    after = hub.public_view()
    after.pop("hub")
    # the story, rebuilt from the log, goes on with the one thing only the table knew
    story, told = after.pop("story"), before["view"].pop("story")
    assert story[-1] == {"rev": after["rev"], "says": "The table restarted."}
    assert story[:-1] == told[len(told) - len(story) + 1:]
    assert after == before["view"]
    # the same screen: the turn's reveal was seen before the crash, it is not held again
    assert d.app.screen_name == "gp_action"
    seat = after["waiting"][0]
    assert d.find(f"{after['players'][seat]} passes", TButton)
    hub.log.close()
