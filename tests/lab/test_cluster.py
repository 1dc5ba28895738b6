"""The lab's sweeps on a real Dask cluster (issue 23, part 5; docs/lab.md, "On a Dask cluster"):
a ``dask scheduler`` and two ``dask worker`` processes on this machine, started with dask's own
commands. Every sweep gives exactly what a local run gives for the same seeds, and an address
where no scheduler answers is one sentence, not a traceback."""
import json
import os
import pathlib
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("distributed")

from companion import games                        # noqa: E402
from companion.cli.main import main                # noqa: E402
from companion.core.play import simulate as core_simulate  # noqa: E402
from companion.lab import calibrate, cluster, paired  # noqa: E402
from companion.lab.simulate import simulate          # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _stop(procs):
    """Terminate each process in turn (the workers before their scheduler: a worker that has
    lost its scheduler is slow to stop), killing one that takes more than 5 s."""
    for p in procs:
        if p.poll() is None:
            p.terminate()
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


@pytest.fixture(scope="module")
def address(tmp_path_factory):
    """A scheduler and two one-thread workers, all importing this checkout's companion."""
    tmp = tmp_path_factory.mktemp("dask")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]),
        DASK_TEMPORARY_DIRECTORY=str(tmp))
    dask = [sys.executable, "-m", "dask"]
    file = tmp / "scheduler.json"
    procs, logs = [], []

    def log(name):
        logs.append(open(tmp / name, "w"))
        return logs[-1]
    try:
        procs.append(subprocess.Popen(
            dask + ["scheduler", "--scheduler-file", str(file), "--host", "127.0.0.1",
                    "--port", "0", "--no-dashboard"],
            cwd=tmp, env=env, stdout=subprocess.DEVNULL, stderr=log("scheduler.log")))
        deadline = time.monotonic() + 20
        addr = None
        while addr is None:
            assert procs[0].poll() is None, (tmp / "scheduler.log").read_text()
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
            try:
                addr = json.loads(file.read_text())["address"]
            except (OSError, ValueError, KeyError):
                pass                # not written yet, or half written
        for i in range(2):
            procs.append(subprocess.Popen(
                dask + ["worker", "--scheduler-file", str(file), "--host", "127.0.0.1",
                        "--nthreads", "1", "--nworkers", "1", "--no-nanny", "--no-dashboard",
                        "--name", f"w{i}"],
                cwd=tmp, env=env, stdout=subprocess.DEVNULL,
                stderr=log(f"worker{i}.log")))
        import distributed
        with distributed.Client(addr, timeout=20, set_as_default=False) as c:
            c.wait_for_workers(2, timeout=30)
        yield addr
    finally:
        _stop(procs[::-1])
        for f in logs:
            f.close()


@pytest.fixture(scope="module")
def on(address):
    with cluster.connect(address) as c:
        assert c.workers == 2
        yield c


def test_simulate_on_the_cluster_gives_the_local_games(on):
    bb = games.get("battle-builder")
    players = ["A", "B"]
    from distributed import get_task_stream
    here = simulate(bb, players, 12, seed=7)
    with get_task_stream(client=on.client) as stream:
        there = simulate(bb, players, 12, seed=7, cluster=on)   # in two chunks of 10 and 2
    assert there == here and len(here) == 12
    assert len(stream.data) == 2            # the workers played them
    assert {t["worker"] for t in stream.data} <= set(on.client.nthreads())
    assert core_simulate(bb, players, 12, seed=7, cluster=on) == \
        core_simulate(bb, players, 12, seed=7)


def test_the_simulate_command_with_cluster(address, capsys):
    args = ["simulate", "market-trading", "--players", "2", "--games", "30", "--seed", "4",
            "--json"]
    assert main(args) == 0
    here = json.loads(capsys.readouterr().out)
    assert main(args + ["--cluster", address]) == 0
    there = json.loads(capsys.readouterr().out)
    here.pop("seconds"), there.pop("seconds")
    assert there == here


def test_pairs_on_the_cluster_are_the_local_pairs(on):
    bb = games.get("battle-builder")

    def take(**kw):
        stream = paired.play_pairs(bb, bb, ["A", "B"], seed=5, **kw)
        got = [next(stream) for _ in range(12)]
        stream.close()
        return got
    assert take(cluster=on, batch=12) == take(jobs=1, batch=12)


def test_impact_and_restricted_play_on_the_cluster(address, capsys):
    """The per-card table of the simulated games and restricted play ('without')."""
    args = ["impact", "trade-warz", "--games", "6", "--reruns", "1", "--no-live", "--json",
            "--without", "emergency-stimulus"]
    assert main(args + ["--jobs", "1"]) == 0
    here = json.loads(capsys.readouterr().out)
    assert main(args + ["--cluster", address]) == 0
    there = json.loads(capsys.readouterr().out)
    assert there == here and here["without"][0]["games"] == 6


def test_a_calibration_on_the_cluster_is_the_local_one(on):
    kw = dict(monsters=["slime", "troll"], battles=40, max_steps=2)
    there = calibrate.calibrate(cluster=on, **kw)
    assert [r["id"] for r in there] == ["slime", "troll"]
    assert there == calibrate.calibrate(jobs=1, **kw) == calibrate.calibrate(jobs=2, **kw)


def test_the_ladder_on_the_cluster_is_the_local_one(address, capsys):
    """`companion ladder --cluster`: a sequential rung (blocks of new deals) played there
    prints what the local run prints."""
    args = ["ladder", "great-powers", "--rungs", "random,greedy", "--games", "48",
            "--until", "decided", "--json"]
    assert main(args + ["--jobs", "1"]) == 0
    here = json.loads(capsys.readouterr().out)
    assert main(args + ["--cluster", address]) == 0
    assert json.loads(capsys.readouterr().out) == here and here[0]["games"] <= 48


@pytest.mark.parametrize("command", [
    ["simulate", "battle-builder", "--players", "2", "--games", "5"],
    ["impact", "trade-warz", "--games", "5", "--reruns", "1", "--no-live"],
    ["calibrate", "battle-builder", "--monster", "slime", "--out", "{tmp}/out"],
    ["report", "battle-builder", "--simulate", "5", "--out", "{tmp}/page"]])
def test_no_scheduler_at_the_address_is_one_sentence(command, tmp_path, capsys):
    with socket.socket() as s:                 # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    argv = [a.format(tmp=tmp_path) for a in command] + ["--db", str(tmp_path / "s.db"),
                                                        "--cluster", address]
    if command[0] in ("simulate", "calibrate"):
        argv.remove("--db"), argv.remove(str(tmp_path / "s.db"))
    t0 = time.monotonic()
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 1 and time.monotonic() - t0 < 5
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith(f"companion: --cluster {address}: no Dask scheduler answers there "
                          f"(Connection refused)")


def test_an_address_that_is_not_one_is_one_sentence(capsys):
    assert main(["simulate", "battle-builder", "--players", "2", "--cluster", "localhost"]) == 1
    assert capsys.readouterr().err == ("companion: --cluster wants a Dask scheduler's address, "
                                       "tcp://HOST:PORT (as 'dask scheduler' prints it), not "
                                       "'localhost'.\n")


def test_dask_stays_out_unless_cluster_is_given():
    """The table and every command without --cluster run without importing dask."""
    code = ("import sys, contextlib, io, companion.core.session, companion.games, "
            "companion.service.hub, companion.lab.calibrate, companion.lab.impact, "
            "companion.lab.paired, companion.lab.report; "
            "from companion.cli.main import main; "
            "out = io.StringIO(); ctx = contextlib.redirect_stdout(out); ctx.__enter__(); "
            "code = main(['simulate', 'battle-builder', '--players', '2', '--games', '60', "
            "'--jobs', '2', '--json']); ctx.__exit__(None, None, None); "
            "assert code == 0, code; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')); "
            "assert not bad, bad")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr


def test_the_report_page_with_cluster_writes_the_local_csv(address, tmp_path, capsys):
    def page(*extra):
        out = tmp_path / ("cluster" if extra else "local")
        assert main(["report", "market-trading", "--simulate", "12", "--out", str(out),
                     "--db", str(tmp_path / "s.db"), "--jobs", "1", *extra]) == 0
        return {p.name: p.read_text() for p in sorted(out.glob("*.csv"))}
    here = page()
    there = page("--cluster", address)
    assert "cluster tcp://" in capsys.readouterr().out
    assert there == here and here
