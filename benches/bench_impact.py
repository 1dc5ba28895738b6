"""Per-card impact (issue 23, part 2; docs/lab.md "Per-card impact"): how many cards the flag
rule (difference >= 3 points, 95% interval clear of 0) flags on the shipped Trade Warz deck and
how stable the flagged set is over 5 re-seeded reruns, at a few game counts; then the same for
an edited copy where one card (Emergency Stimulus: +2 GDP -> +15 GDP) is much stronger.

    python -m benches impact [--quick] [--games N,N] [--jobs N]
"""
import shutil
import sys
import tempfile
import time

from companion import games
from companion.lab import impact


def _run(game, n, jobs, label):
    t = time.perf_counter()
    res = impact.study(game, players=3, games=n, seed=0, jobs=jobs)
    st = res["stability"]
    flags = [len(s) for s in st["sets"]]
    cards = len(res["sim"])
    print(f"{label:28} games {n:6}  cards {cards:3}  flagged per rerun {flags}  "
          f"same set {st['same']}/5  flagged >= 4 of 5: {st['stable_set'] or 'none'}  "
          f"({time.perf_counter() - t:.0f} s)", flush=True)
    for c, k in list(st["counts"].items())[:8]:
        print(f"{'':30}{c:36} {k}/5")
    return res


def main(argv):
    quick = "--quick" in argv
    jobs = 0
    sizes = [300] if quick else [500, 2000]
    for a in argv:
        if a.startswith("--games="):
            sizes = [int(x) for x in a.split("=", 1)[1].split(",")]
        if a.startswith("--jobs="):
            jobs = int(a.split("=", 1)[1])
    shipped = games.get("trade-warz")
    with tempfile.TemporaryDirectory() as d:
        copy = f"{d}/data"
        shutil.copytree(games.shipped_data_dir("trade-warz"), copy)
        p = f"{copy}/tactics.toml"
        s = open(p).read()
        old = 'text = "Gain 2 GDP."\neffects = [{ kind = "gain_gdp", amount = 2 }]'
        open(p, "w").write(s.replace(old, 'text = "Gain 15 GDP."\n'
                                          'effects = [{ kind = "gain_gdp", amount = 15 }]'))
        strong = games.get("trade-warz", data=copy)
        for n in sizes:
            _run(shipped, n, jobs, "shipped")
            _run(strong, n, jobs, "Emergency Stimulus +15")


if __name__ == "__main__":
    main(sys.argv[1:])
