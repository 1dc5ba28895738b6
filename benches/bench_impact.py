"""Per-card impact (issue 23, part 2; docs/lab.md "Per-card impact"): how many cards the flag
rule flags on the shipped Trade Warz deck and how stable the flagged set is over 5 re-seeded
reruns, at a few game counts; then the same for an edited copy where one card (Emergency
Stimulus: +2 GDP -> +15 GDP) is much stronger. Each rerun's games are flagged under every rule
(``--rule=margin,holm,raw``; the default rule first), so the rules are compared on the same
games.

    python -m benches impact [--quick] [--games=N,N] [--jobs=N] [--rule=margin,holm,raw]
"""
import shutil
import sys
import tempfile
import time

from companion import games
from companion.lab import impact


def _run(game, n, jobs, label, rules=("margin", "holm", "raw")):
    t = time.perf_counter()
    tables = []

    def run(k):
        rows, names = impact.simulate_rows(game, ["A", "B", "C"], n,
                                           seed=impact.rerun_seed(0, k), jobs=jobs)
        tables.append(impact.card_table(rows, names))
        return tables[-1]
    for rule in rules:
        if not tables:
            impact.stability(run)
        st = impact.stability(lambda k: impact.flag_cards(tables[k], rule=rule))
        flags = [len(s) for s in st["sets"]]
        print(f"{label:24} {rule:7} games {n:6}  cards {len(tables[0]):3}  flagged per rerun "
              f"{flags}  same set {st['same']}/5  flagged >= 4 of 5: "
              f"{st['stable_set'] or 'none'}  ({time.perf_counter() - t:.0f} s)", flush=True)
        for c, k in list(st["counts"].items())[:8]:
            print(f"{'':34}{c:36} {k}/5")


def main(argv):
    quick = "--quick" in argv
    jobs = 0
    sizes = [300] if quick else [500, 2000]
    rules = ("margin", "holm", "raw")
    for a in argv:
        if a.startswith("--rule="):
            rules = tuple(a.split("=", 1)[1].split(","))
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
            _run(shipped, n, jobs, "shipped", rules)
            _run(strong, n, jobs, "Emergency Stimulus +15", rules)


if __name__ == "__main__":
    main(sys.argv[1:])
