"""Run every benchmark: `python -m benches` (or `python -m benches core serial ...` for some;
`--quick` and other flags are passed to each benchmark).

Each benches/bench_<topic>.py is a script with a main(); figures are printed as medians, p99
and ratios. The machine is shared and noisy: compare within one run, not across runs.
"""
import importlib
import pathlib
import sys
import time


def main(argv):
    here = pathlib.Path(__file__).parent
    names = sorted(p.stem[len("bench_"):] for p in here.glob("bench_*.py"))
    flags = [a for a in argv if a.startswith("--")]
    chosen = [a for a in argv if not a.startswith("--")] or names
    for name in chosen:
        if name not in names:
            print(f"no benchmark {name!r}; have: {', '.join(names)}", file=sys.stderr)
            return 2
    for name in chosen:
        print(f"\n===== bench_{name} =====", flush=True)
        t = time.perf_counter()
        mod = importlib.import_module(f"benches.bench_{name}")
        try:
            mod.main(flags)
        except SystemExit as e:         # a bench without these flags: its own defaults
            if e.code != 2 or not flags:
                raise
            print(f"(bench_{name} takes no {' '.join(flags)}; running its default)")
            mod.main([])
        print(f"----- bench_{name}: {time.perf_counter() - t:.1f} s", flush=True)
    from benches.figures import issue_table
    issue_table()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
