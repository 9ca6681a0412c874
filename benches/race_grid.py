#!/usr/bin/env python3
"""Cube equities of the match cube grid's races (or, with `--kind`,
another kind of its positions) at every score of a 7-point match, ours
beside GNU Backgammon 1.07's 2-ply evaluation and its cubeful rollouts.

The cases: the race positions of `data/fixtures/match_cube_grid_gnubg.json`
where the player on roll may double (cube centred, or 2 or 4 owned by
it). `sheshbesh cube --batch --ply P` answers each; gnubg's 2-ply no
double and double/take come from that fixture and its rollouts of the
same decisions (0-ply checker play and cube decisions, 1,296 trials)
from `data/fixtures/race_grid_rollouts_gnubg.json`
(`gen_race_grid_rollouts.py`; `back_game_grid_rollouts_gnubg.json` for
`--kind "back game"`), when they are there.

Prints, for each of our plies and for gnubg 2-ply: how many cases have
both equities within 0.02 EMG of gnubg 2-ply, and of the rollout, and
the mean and largest distances; then the cases where ours and gnubg
2-ply differ most, with the rollout beside them.

`--our-rollouts TRIALS` adds our own cubeful rollouts of the same
decisions (`cube --batch --rollout`, 0-ply checker play, seed 1) as a
second reference: how far our 0-ply and 2-ply are from what our own net
plays out, apart from gnubg's view, and how far our 0-ply cube model is
when given the rollouts' own cubeless chances
(`examples/cube_of_chances.rs`): the model's part of our error, the rest
being the net's chances. `--keep FILE` reads the rollouts from FILE
when it holds every case at that many trials (as
`data/labels/back-game-grid-rollouts-ours.jsonl` does for the back
game at 648), and writes them there otherwise.

`--sage` adds Open Sage's cube equities at gnubg's 2-ply (its "3ply";
`pip install bgsage`): a third engine's view of the same cases, with
nets of its own.

Usage: python3 benches/race_grid.py [--kind race] [--plies 0,2] [--worst 12] [--sage] [--json]
    [--binary PATH] [--our-rollouts TRIALS [--keep FILE]]
"""
import argparse
import json
import os
import sys

from cube_rollouts_ours import MODEL, batch, chances

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BINARY = os.path.join(ROOT, "target", "release", "sheshbesh")
FIXTURES = os.path.join(ROOT, "data", "fixtures")


def cases(kind="race"):
    sys.path.insert(0, FIXTURES)
    from gen_race_grid_rollouts import fixture_name, grid_cases

    out = grid_cases(kind)
    if not out:
        raise SystemExit(f"the grid has no cases of kind {kind!r}")
    rollouts = {}
    path = os.path.join(FIXTURES, fixture_name(kind))
    if os.path.exists(path):
        with open(path) as f:
            rollouts = {r["xgid"]: r for r in json.load(f)["cases"]}
    for c in out:
        c["rollout"] = rollouts.get(c["xgid"])
    return out


def answered(cs, binary, args, lines):
    """One JSON answer per case from a `--batch` co-process, or an exit
    naming the first case it could not answer."""
    answers = batch(binary, args, lines)
    for c, a in zip(cs, answers):
        if "error" in a:
            raise SystemExit(f"{c['xgid']}: {a['error']}")
    return answers


def cube_answers(cs, flags, binary=BINARY):
    """`sheshbesh cube --batch FLAGS` on each case: its JSON answers."""
    return answered(cs, binary, ["cube", "--batch", *flags], [c["xgid"] for c in cs])


def cube_batch(cs, flags, binary=BINARY):
    """`sheshbesh cube --batch FLAGS` on each case: (no double, double/take)."""
    return [(a["no_double"], a["double_take"]) for a in cube_answers(cs, flags, binary)]


def ours(cs, ply, binary=BINARY):
    return cube_batch(cs, ["--ply", str(ply)], binary)


def our_rollouts(cs, trials, binary=BINARY, keep=None):
    """Our cubeful rollouts of each case (`cube --rollout --json`
    answers), read from `keep` when it holds them all at `trials`, else
    rolled out (and written to `keep`, atomically)."""
    if keep and os.path.exists(keep):
        with open(keep) as f:
            kept = {r["xgid"]: r["rollout"] for r in map(json.loads, filter(str.strip, f))}
        if all(kept.get(c["xgid"], {}).get("trials") == trials for c in cs):
            return [kept[c["xgid"]] for c in cs]
    answers = cube_answers(cs, ["--rollout", "--trials", str(trials)], binary)
    if keep:
        with open(keep + ".tmp", "w") as f:
            f.writelines(json.dumps({"xgid": c["xgid"], "rollout": a}) + "\n"
                         for c, a in zip(cs, answers))
        os.replace(keep + ".tmp", keep)
    return answers


def model_at(cs, rolled):
    """Our 0-ply cube model's (no double, double/take) at each rollout's
    own cubeless chances."""
    if not os.path.exists(MODEL):
        raise SystemExit(f"{MODEL} is missing: cargo build --release -p sheshbesh-benches "
                         "--example cube_of_chances")
    lines = [f"{c['xgid']} {' '.join(str(p) for p in chances(r['probs']))}"
             for c, r in zip(cs, rolled)]
    return [(a["no_double"], a["double_take"]) for a in answered(cs, MODEL, [], lines)]


def sage(cs):
    """Open Sage's no double and double/take of each case at gnubg's 2-ply."""
    from match_cube_gnubg import sage_cube

    keys = [f"{c['position_id']}:{c['match_id']}" for c in cs]
    answers = sage_cube(keys, 2)
    return [(answers[k]["nd"], answers[k]["dt"]) for k in keys]


def summary(name, equities, refs):
    """Distances of (nd, dt) pairs from reference pairs (None: no reference)."""
    pairs = [(e, r) for e, r in zip(equities, refs) if r is not None]
    dist = [max(abs(e[0] - r[0]), abs(e[1] - r[1])) for e, r in pairs]
    if not dist:
        return None
    return {"who": name, "cases": len(dist), "within_0.02": sum(d <= 0.02 for d in dist),
            "mean": sum(dist) / len(dist), "largest": max(dist)}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kind", default="race", help="the grid's kind of position")
    ap.add_argument("--plies", default="0,2")
    ap.add_argument("--worst", type=int, default=12)
    ap.add_argument("--sage", action="store_true", help="add Open Sage's 2-ply (bgsage)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--binary", default=BINARY, help="the sheshbesh binary to measure")
    ap.add_argument("--our-rollouts", type=int, metavar="TRIALS",
                    help="add our own cubeful rollouts of each case as a reference")
    ap.add_argument("--keep", metavar="FILE",
                    help="our rollouts read from FILE when it has them, written there otherwise")
    a = ap.parse_args()
    cs = cases(a.kind)
    g2 = [(c["ply2"]["nd"], c["ply2"]["dt"]) for c in cs]
    ro = [(c["rollout"]["no_double"], c["rollout"]["double_take"]) if c["rollout"] else None
          for c in cs]
    rows = []
    mine = {}
    for ply in [int(p) for p in a.plies.split(",")]:
        mine[ply] = ours(cs, ply, a.binary)
        rows.append(("against gnubg 2-ply", summary(f"Sheshbesh {ply}-ply", mine[ply], g2)))
        rows.append(("against gnubg rollouts", summary(f"Sheshbesh {ply}-ply", mine[ply], ro)))
    rows.append(("against gnubg rollouts", summary("gnubg 2-ply", g2, ro)))
    if a.keep and not a.our_rollouts:
        ap.error("--keep needs --our-rollouts TRIALS")
    if a.our_rollouts:
        answers = our_rollouts(cs, a.our_rollouts, a.binary, a.keep)
        rolled = [(r["no_double"], r["double_take"]) for r in answers]
        for ply in mine:
            rows.append(("against our rollouts", summary(f"Sheshbesh {ply}-ply", mine[ply], rolled)))
        rows.append(("against our rollouts",
                     summary("0-ply model, their odds", model_at(cs, answers), rolled)))
        rows.append(("against our rollouts", summary("gnubg 2-ply", g2, rolled)))
        rows.append(("against gnubg rollouts", summary("our rollouts", rolled, ro)))
    sg = sage(cs) if a.sage else None
    if sg:
        rows.append(("against gnubg 2-ply", summary("Open Sage 2-ply", sg, g2)))
        rows.append(("against gnubg rollouts", summary("Open Sage 2-ply", sg, ro)))
    rows = [(k, s) for k, s in rows if s]
    if a.json:
        print(json.dumps([{"reference": k, **s} for k, s in rows]))
        return
    print(f"{len(cs)} {a.kind} cube decisions; {sum(r is not None for r in ro)} rolled out by gnubg")
    print(f"{'':24} {'reference':24} {'cases':>5} {'within 0.02':>11} {'mean':>7} {'largest':>7}")
    for k, s in rows:
        print(f"{s['who']:24} {k:24} {s['cases']:>5} {s['within_0.02']:>11} "
              f"{s['mean']:>7.4f} {s['largest']:>7.4f}")
    ply = max(mine)
    worst = sorted(range(len(cs)), key=lambda i: -max(abs(mine[ply][i][0] - g2[i][0]),
                                                       abs(mine[ply][i][1] - g2[i][1])))
    print(f"\nwhere our {ply}-ply and gnubg 2-ply differ most (no double / double, take):")
    for i in worst[:a.worst]:
        c = cs[i]
        r = f"{ro[i][0]:+.3f} / {ro[i][1]:+.3f}" if ro[i] else "not rolled out"
        sage_view = f", Open Sage {sg[i][0]:+.3f} / {sg[i][1]:+.3f}" if sg else ""
        print(f"  {c['xgid']}  {c['away'][0]}a-{c['away'][1]}a cube {c['cube']}: ours "
              f"{mine[ply][i][0]:+.3f} / {mine[ply][i][1]:+.3f}, gnubg 2-ply {g2[i][0]:+.3f} / "
              f"{g2[i][1]:+.3f}, rollout {r}{sage_view}")


if __name__ == "__main__":
    main()
