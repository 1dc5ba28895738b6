"""Where a sweep runs (issue 23, part 5; docs/lab.md "On a Dask cluster"): Battle Builder bot
games per second with ``companion simulate``'s code in this process (``--jobs 1``), on one
local process per core (``--jobs 0``) and on a Dask cluster of two one-thread workers on this
machine (``--cluster``), median of 3 runs each, and a check that the three give the same
figures. On one machine the cluster can only lose to ``--jobs 0`` (the same cores, plus the
scheduler's round trips); it is worth it when its workers are other machines.

    python -m benches cluster [--quick] [--games N]
"""
import statistics
import time

from companion import games
from companion.core.play import simulate


def _rate(n, **kw):
    game = games.get("battle-builder")
    t = time.perf_counter()
    r = simulate(game, ["A", "B"], n, seed=1, **kw)
    return n / (time.perf_counter() - t), r


def main(argv):
    n = 200 if "--quick" in argv else 1000
    for a in argv:
        if a.startswith("--games="):
            n = int(a.split("=", 1)[1])
    try:
        from distributed import LocalCluster
    except ImportError:
        print("distributed is not installed (pip install 'table-companion[lab]'); skipped")
        return
    from companion.lab.cluster import connect
    results = {}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as lc, connect(lc.scheduler_address) as on:
        for label, kw in (("--jobs 1", {"jobs": 1}), ("--jobs 0", {"jobs": 0}),
                          ("--cluster (2 local workers)", {"cluster": on})):
            runs = [_rate(n, **kw) for _ in range(3)]
            results[label] = runs[0][1]
            print(f"  {label:28} {statistics.median(r for r, _ in runs):7.0f} games/s "
                  f"(median of 3, {n} games)", flush=True)
    same = all(r == results["--jobs 1"] for r in results.values())
    print(f"  the same figures from all three: {same}")
