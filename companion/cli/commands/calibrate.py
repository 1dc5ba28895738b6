"""`companion calibrate battle-builder --out DIR`: search each monster's attack, then its HP,
until the players' win rate against it sits on its difficulty's target (85/65/40% for
easy/medium/hard, within 3 points, 95% half-width at most 3 points, at most 8 steps in all), and
write the proposed data folder: a copy of the data with only those values changed (docs/lab.md,
"Calibration"):

    companion calibrate battle-builder --out ~/bb-proposed
    companion calibrate battle-builder --monster troll --battles 300 --out /tmp/bb-try
"""
import json
import os
import sys

from companion.cli.common import add_cluster_arg, cluster
from companion.core.errors import ConfigError


def register(sub):
    p = sub.add_parser("calibrate", help="search monster stats (Battle Builder: attack, HP) until "
                                         "the bots' win rate sits on the design targets")
    games = p.add_subparsers(dest="calibrate_game", metavar="GAME")
    bb = games.add_parser("battle-builder", help="each monster's attack and HP against its "
                                                 "difficulty's target win rate")
    bb.add_argument("--out", required=True, metavar="DIR",
                    help="new or empty folder for the proposed copy of the data folder")
    bb.add_argument("--data", default=None, metavar="DIR",
                    help="start from this copy of the data folder (default: the shipped data)")
    bb.add_argument("--monster", action="append", metavar="ID",
                    help="only this monster (repeatable, or ID,ID; default: all)")
    bb.add_argument("--battles", type=int, default=None, metavar="N",
                    help="at most N battles per step (default: as many as a 3-point "
                         "half-width needs, about 550-1100)")
    bb.add_argument("--stat", default="attack+hp", metavar="STAT[+STAT...]",
                    help="the monster stats searched, coarse first: attack+hp (default: attack "
                         "brackets the target, then HP closes in), attack+hp+speed, or hp, "
                         "attack or speed alone")
    bb.add_argument("--steps", type=int, default=8,
                    help="most steps per monster, every stat together (default 8)")
    bb.add_argument("--tolerance", type=float, default=3.0,
                    help="win-rate points from the target that count as on it (default 3)")
    bb.add_argument("--half-width", type=float, default=3.0,
                    help="largest 95%% half-width in points (default 3)")
    bb.add_argument("--fine", type=float, default=None, metavar="POINTS",
                    help="a value within the tolerance is measured again to this 95%% "
                         "half-width, and so is the proposal on fresh games (default: half "
                         "of --half-width; 0: never)")
    bb.add_argument("--aim", type=float, default=None, metavar="POINTS",
                    help="stop once a value measured finely is this close to the target, "
                         "else look on for a nearer one (default: half the tolerance)")
    bb.add_argument("--players", type=int, default=2)
    bb.add_argument("--bots", default="casual",
                    help="the players' bots (default casual: greedy with one answer in five "
                         "any legal one, a table of ordinary players; greedy alone gives a "
                         "staircase, docs/lab.md)")
    bb.add_argument("--seed", type=int, default=0)
    bb.add_argument("--option", action="append", help="rule setting key=value (repeatable)")
    bb.add_argument("--jobs", type=int, default=0,
                    help="worker processes, one monster each (0: one per core; the searches "
                         "do not depend on it)")
    add_cluster_arg(bb)
    bb.add_argument("--no-check", dest="check", action="store_false",
                    help="skip measuring the proposal again on fresh games (default: measure)")
    bb.add_argument("--json", action="store_true", help="print the results as JSON")
    bb.set_defaults(func=run)


def run(args):
    from companion.cli.commands.report import _options
    from companion.lab.calibrate import (advice, calibrate, check, check_line, line, stages,
                                         write_proposal)
    from companion.games.battle_builder.data import DATA
    src = os.path.abspath(args.data or DATA)
    out = os.path.abspath(args.out)
    for forbidden in {src, os.path.abspath(DATA)}:
        if out == forbidden or out.startswith(forbidden + os.sep):
            raise ConfigError(f"--out {args.out}: inside the data folder {forbidden}; give a "
                              f"new folder (the proposal is a copy, the data is never edited)")
    if os.path.exists(out) and (not os.path.isdir(out) or os.listdir(out)):
        raise ConfigError(f"--out {args.out}: not an empty folder; give a new or empty one")
    if args.battles is not None and args.battles < 1:
        raise ConfigError("--battles must be at least 1")
    ids = [i for m in (args.monster or ()) for i in m.split(",") if i] or None
    opts = _options(args.option)
    if "monster_pool" in opts:
        raise ConfigError("--option monster_pool: calibration sets the monster pool itself")
    try:
        stages(args.stat)
    except ValueError as e:
        raise ConfigError(f"--stat: {e}") from None
    if not args.json:
        print(f"Battle Builder calibration of {args.stat}: {args.players} players, "
              f"{args.bots} bots, target +-{args.tolerance:g} points, 95% half-width <= "
              f"{args.half_width:g} points, at most {args.steps} steps", flush=True)

    def log(r):
        if not args.json:
            print(line(r), flush=True)
    fine = args.half_width / 2 if args.fine is None else args.fine
    aim = args.tolerance / 2 if args.aim is None else args.aim
    if fine < 0 or aim < 0:
        raise ConfigError("--fine and --aim are points, 0 or more")
    checked = []
    try:
        with cluster(args) as on:
            results = calibrate(src, ids, args.players, args.bots, opts, args.seed,
                                args.tolerance / 100, args.half_width / 100, args.steps,
                                args.battles, log, args.stat, jobs=args.jobs, cluster=on,
                                aim=aim / 100, fine=fine / 100)
            write_proposal(src, out, {r["id"]: r["proposed"] for r in results}, args.stat)
            reached = sum(r["reached"] for r in results)
            if not args.json:
                print(f"{reached} of {len(results)} monsters reached the target; proposed "
                      f"data (only monsters.toml's {', '.join(stages(args.stat))} changed): "
                      f"{out}", flush=True)
                for tip in advice(results, args.stat, args.steps):
                    print(f"  next: {tip}", flush=True)
            if args.check:
                if not args.json:
                    print("The proposal on fresh games (seeds the search never played):",
                          flush=True)
                checked = check(out, [r["id"] for r in results], args.players, args.bots,
                                opts, args.seed, args.tolerance / 100, args.battles,
                                (fine or args.half_width) / 100, jobs=args.jobs, cluster=on)
    except ValueError as e:
        raise ConfigError(str(e)) from None
    if args.check:
        if not args.json:
            for c in checked:
                print(check_line(c))
            print(f"{sum(c['on'] for c in checked)} of {len(checked)} on target on fresh "
                  f"games; {sum(c['band_in_ci'] for c in checked)} of {len(checked)} with "
                  f"a 95% interval that reaches the target band")
    if args.json:
        json.dump({"out": out, "results": results, "check": checked,
                   "next": advice(results, args.stat, args.steps)}, sys.stdout, indent=1)
        print()
    return 0
