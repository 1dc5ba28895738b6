"""Games load when asked for (issue 15, memory): asking for one game imports that game's
package only, so a table that resumes a game carries no other game's rules and data; the full
registry (the Home screen's list) still has every game, the same objects. Each check runs in a
fresh interpreter, where nothing was imported before."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fresh(code):
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env=dict(os.environ, PYTHONPATH=ROOT))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


GAMES_LOADED = ("sorted(m for m in sys.modules if m.startswith('companion.games.') "
                "and m.count('.') == 2)")


def test_asking_for_one_game_imports_that_game_only():
    got = fresh(f"""
import json, sys
from companion import games
g = games.get("great-powers")
loaded = {GAMES_LOADED}
cat = games.card_catalog("great-powers")
print(json.dumps({{"title": g.title, "loaded": loaded, "after": {GAMES_LOADED},
                  "cards": len(cat["cards"]), "same": games.registry()["great-powers"] is g,
                  "all": sorted(games.registry())}}))
""")
    assert got["title"] == "Great Powers" and got["cards"] > 0
    assert got["loaded"] == got["after"] == ["companion.games.great_powers"]
    assert got["same"] and got["all"] == ["battle-builder", "great-powers", "market-trading",
                                          "trade-warz"]


def test_a_table_resuming_its_game_loads_no_other(tmp_path):
    db = tmp_path / "s.db"
    got = fresh(f"""
import json, sys
from companion.core.log import SQLiteLog
from companion.service.hub import Hub
log = SQLiteLog({str(db)!r})
hub = Hub(log, table="t")
hub.configure("market-trading", 3)
hub.start(seed=1)
before = hub.session.id
log.close()
for m in [m for m in sys.modules if m.startswith("companion.games")]:
    del sys.modules[m]
log = SQLiteLog({str(db)!r})
again = Hub(log, table="t").resume()
print(json.dumps({{"same": again.id == before, "loaded": {GAMES_LOADED}}}))
""")
    assert got["same"] and got["loaded"] == ["companion.games.market_trading"]


def test_an_unknown_game_still_lists_every_game():
    got = fresh("""
import json
from companion import games
from companion.core.errors import ConfigError
try:
    games.get("chess")
except ConfigError as e:
    print(json.dumps({"message": str(e)}))
""")
    assert got["message"] == ("No game called 'chess'. Games: battle-builder, great-powers, "
                              "market-trading, trade-warz.")
