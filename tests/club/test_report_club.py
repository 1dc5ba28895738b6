"""`companion stats` and `companion report` on the club's record (``--db postgresql://...``),
run as the commands a club runs: sessions from two tables, shipped by their shippers, and
``--table`` picking one of them."""
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.core.log import SQLiteLog
from companion.club.shipper import Shipper
from tests.lab.tables import play_table

from .conftest import table_login
from .test_shipper import all_there, wait_for

ROOT = Path(__file__).resolve().parents[2]


def companion(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "companion.cli.main", *args], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.fixture
def club(club_url, tmp_path):
    """Great Powers played through the hub at two tables (two at the kitchen's, one in the
    attic), each table's store shipped to the club."""
    for table, seeds in (("kitchen", (10, 11)), ("attic", (12,))):
        db = tmp_path / f"{table}.db"
        log = SQLiteLog(db)
        for seed in seeds:
            play_table(log, "great-powers", 3, seed=seed, table=table)
        log.close()
        s = Shipper(db, table, table_login(club_url, table), interval=0.2)
        try:
            wait_for(lambda: all_there(club_url, db, table))
        finally:
            s.stop()
    return club_url


def test_stats_on_the_club_and_one_table(club, tmp_path):
    st = json.loads(companion("stats", "--db", club, "--json"))
    assert st["sessions"] == {"great-powers": 3} and st["timed"] == {"great-powers": 3}
    st = json.loads(companion("stats", "--db", club, "--json", "--table", "kitchen"))
    assert st["sessions"] == {"great-powers": 2}
    text = companion("stats", "--db", club, "--table", "attic")
    assert "Great Powers: 1 finished session" in text
    assert "No finished sessions" in companion("stats", "--db", club, "--evening",
                                               "2001-01-01")
    # the same filter on a local store: the table named in its sessions
    st = json.loads(companion("stats", "--db", str(tmp_path / "kitchen.db"), "--json",
                              "--table", "attic"))
    assert st["sessions"] == {}


def test_report_on_the_club_and_one_table(club, tmp_path):
    out = tmp_path / "all"
    text = companion("report", "great-powers", "--db", club, "--out", str(out))
    assert "table sessions: 3 with this data" in text, text
    assert (out / "report.html").exists()
    out = tmp_path / "kitchen"
    text = companion("report", "great-powers", "--db", club, "--out", str(out),
                     "--table", "kitchen")
    assert "table sessions: 2 with this data" in text, text


def test_the_live_vs_simulated_panel_reads_the_club(club, tmp_path):
    """The lab's side-by-side: the club's table sessions and simulated games of the same
    players and options, in one page and one games.csv."""
    out = tmp_path / "both"
    text = companion("report", "great-powers", "--db", club, "--out", str(out),
                     "--simulate", "20", "--table", "kitchen")
    assert "table sessions: 2 with this data" in text, text
    with open(out / "games.csv", newline="") as f:
        sources = [r["source"] for r in csv.DictReader(f)]
    assert sources.count("live") == 2 and sources.count("sim") == 20, set(sources)
    html = (out / "report.html").read_text()
    assert "table sessions" in html and "simulated (" in html
