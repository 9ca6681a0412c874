#!/usr/bin/env python3
"""Rollouts, Sheshbesh against GNU Backgammon, on 20 varied positions.

Positions come from the committed move-generation fixture (gnubg's own and
mixed play): 12 with contact, 5 races, 3 bear-offs, drawn with a fixed seed.
Both programs roll each out cubeless at 0-ply with variance reduction and
quasi-random dice, to the end (gnubg stops at its one-sided bear-off
database, we at ours): gnubg 1.07 (`apt-get install gnubg`) through `gnubg
-t` under a pseudo-terminal (`script`; without one gnubg does not print the
results), Sheshbesh through `sheshbesh rollout --json`. Each program plays
the rollout with its own net, so the two converge to slightly different
values; the report gives each position's difference, its combined standard
error, the mean difference (the nets' systematic part) and how many
positions agree within 2 combined standard errors, before and after
removing the mean difference.

It also prints the efficiency of each program, time times squared
standard error (lower is better; each program on --threads threads, one
position at a time), their ratio, the ratio of the per-trial standard
errors (the strength of the variance reduction, whatever the trial count),
and our rollouts on one thread against --threads (the scaling).

--weights FILE rolls ours out with another weights file (a candidate net,
or one with its own luck yardstick). --gnubg-from FILE takes gnubg's
figures from an earlier run's --json output instead of rolling out again:
per-trial errors then still compare, but the efficiency ratio mixes two
runs' timings, so quote efficiency only from a run that made both.

Usage: python3 benches/rollout_gnubg.py [--gnubg-trials 648] [--trials 1296]
          [--threads 2] [--seed 1] [--json] [--check-luck]
          [--weights FILE] [--gnubg-from FILE]
"""
import argparse
import gzip
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import gnubg_nn as g

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "data", "fixtures", "movegen_gnubg.txt.gz")
BINARY = os.path.join(HERE, "..", "target", "release", "sheshbesh")


def kind(b):
    """contact, race or bearoff for gnubg-nn's board (player on roll, then
    opponent; 25 points each, index 24 the bar)."""
    me, opp = b[1], b[0]
    if all(c == 0 for c in me[6:]) and all(c == 0 for c in opp[6:]):
        return "bearoff"
    my_back = max((i for i, c in enumerate(me) if c), default=-1)
    opp_back = max((i for i, c in enumerate(opp) if c), default=-1)
    return "contact" if my_back + opp_back >= 24 else "race"


def sample(seed):
    rng = random.Random(seed)
    with gzip.open(FIXTURE, "rt") as f:
        ids = sorted({l.split()[1] for l in f if l.split()[0] in ("gnubg0", "mixed")})
    rng.shuffle(ids)
    want = {"contact": 12, "race": 5, "bearoff": 3}
    picked = []
    for pid in ids:
        b = g.board_from_position_id(pid)
        if sum(b[0]) < 3 or sum(b[1]) < 3:
            continue
        k = kind(b)
        if want.get(k, 0) > 0:
            want[k] -= 1
            picked.append((pid, k))
        if not any(want.values()):
            break
    return picked


def geometric_mean(xs):
    """None for no values."""
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def gnubg_rollout(pid, trials, seed, threads=1):
    cmds = "\n".join([
        "set player 0 human", "set player 1 human",
        # gnubg prints 3 decimals by default, which rounds a race's
        # standard error to 0.000 and a contact one's by up to 7%.
        "set output digits 5",
        f"set rollout trials {trials}",
        "set rollout chequerplay plies 0", "set rollout cubedecision plies 0",
        "set rollout cubeful off", "set rollout varredn on",
        "set rollout quasirandom on", f"set rollout seed {seed}",
        # A money Match ID without dice: the position is rolled out before
        # the roll, like ours.
        f"set threads {threads}", "new game", "set matchid cAkAAAAAAAAA",
        f"set board {pid}", "rollout", "",
    ])
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(cmds)
        path = f.name
    try:
        t0 = time.perf_counter()
        out = subprocess.run(
            ["script", "-q", "-c", f"/usr/games/gnubg -t < {path}", "/dev/null"],
            capture_output=True, text=True, timeout=3600,
        ).stdout.replace("\r", "")
        seconds = time.perf_counter() - t0
    finally:
        os.unlink(path)
    out = out.split("Rollout done.")[-1]
    m = re.search(r"Current Position:\n\s*([\d.]+) ([\d.]+) ([\d.]+) - ([\d.]+) ([\d.]+) ([\d.]+) CL ([+-][\d.]+)\n"
                  r"\s*\[[\d. -]+CL\s+([\d.]+)\]", out)
    if not m:
        raise RuntimeError(f"{pid}: no rollout result in gnubg's output")
    v = [float(x) for x in m.groups()]
    return {"equity": v[6], "se": v[7], "win": v[0], "seconds": seconds, "trials": trials}


def ours_rollout(pid, trials, seed, extra=(), threads=1, weights=None):
    t0 = time.perf_counter()
    out = subprocess.run(
        [BINARY, "rollout", pid, "--trials", str(trials), "--seed", str(seed),
         "--threads", str(threads), "--json", "--quiet", *extra,
         *(["--weights", weights] if weights else [])],
        capture_output=True, text=True, check=True,
    ).stdout
    seconds = time.perf_counter() - t0
    v = json.loads(out)
    return {"equity": v["equity"], "se": v["se"]["equity"], "win": v["probs"][0],
            "seconds": seconds, "trials": v["trials"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gnubg-trials", type=int, default=648)
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--threads", type=int, default=2,
                    help="threads of each program (one position at a time)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--check-luck", action="store_true",
                    help="also roll out each contact position without variance reduction "
                         "(4x the trials, another seed) and count agreement with ours")
    ap.add_argument("--weights", help="our weights file instead of the shipped one")
    ap.add_argument("--gnubg-from", metavar="FILE",
                    help="gnubg's figures from an earlier run's --json output")
    a = ap.parse_args()

    picked = sample(a.seed)
    # One program at a time, each on --threads threads, so the timings
    # compare; position by position (gnubg, ours, ours on one thread), so
    # that what is compared ran seconds apart, not minutes: this machine's
    # speed drifts by 10 to 20% over minutes.
    theirs, ours, ours1 = [], [], []
    if a.gnubg_from:
        with open(a.gnubg_from) as f:
            earlier = json.load(f)["rows"]
        if [r["position_id"] for r in earlier] != [pid for pid, _ in picked]:
            sys.exit(f"{a.gnubg_from}: not this seed's positions")
        theirs = [r["gnubg"] for r in earlier]
    for pid, _ in picked:
        if not a.gnubg_from:
            theirs.append(gnubg_rollout(pid, a.gnubg_trials, a.seed, a.threads))
        ours.append(ours_rollout(pid, a.trials, a.seed, threads=a.threads, weights=a.weights))
        ours1.append(ours_rollout(pid, a.trials, a.seed, threads=1, weights=a.weights))
    rows = []
    for (pid, k), t, o in zip(picked, theirs, ours):
        diff = o["equity"] - t["equity"]
        se = math.hypot(o["se"], t["se"])
        rows.append({"position_id": pid, "kind": k, "ours": o, "gnubg": t,
                     "diff": diff, "se": se})
    if a.check_luck:
        # The luck adjustment must not move the mean: plain Monte Carlo on
        # the same positions agrees within its (larger) standard error.
        agree = 0
        contact = [r for r in rows if r["kind"] == "contact"]
        for r in contact:
            plain = ours_rollout(r["position_id"], 4 * a.trials, a.seed + 1, ("--no-luck",),
                                 weights=a.weights)
            r["plain"] = plain
            z = (r["ours"]["equity"] - plain["equity"]) / math.hypot(r["ours"]["se"], plain["se"])
            agree += abs(z) <= 2
            if not a.json:
                print(f"{r['position_id']:<16} luck-adjusted {r['ours']['equity']:+.3f} "
                      f"plain {plain['equity']:+.3f} ± {plain['se']:.3f} z {z:+.1f}")
        if not a.json:
            print(f"luck-adjusted against plain rollouts: {agree}/{len(contact)} within 2 SE")
    bias = sum(r["diff"] for r in rows) / len(rows)
    # Efficiency: time x SE^2 summed over the positions (the time one
    # would need for a given error); per trial: SE x sqrt(trials).
    eff_ours = sum(o["seconds"] * o["se"] ** 2 for o in ours)
    eff_gnubg = sum(t["seconds"] * t["se"] ** 2 for t in theirs)
    for r in rows:
        o, t = r["ours"], r["gnubg"]
        # Positions both programs value exactly (a database, a certain
        # result) have no error to compare.
        if t["se"] > 0 and o["se"] > 0:
            r["per_trial_se_ratio"] = ((o["se"] * math.sqrt(o["trials"]))
                                       / (t["se"] * math.sqrt(t["trials"])))
    rated = [r for r in rows if "per_trial_se_ratio" in r]
    se_ratio = geometric_mean([r["per_trial_se_ratio"] for r in rated])
    se_ratio_by_kind = {
        k: geometric_mean([r["per_trial_se_ratio"] for r in rated if r["kind"] == k])
        for k in ("contact", "race", "bearoff")
    }
    scaling = sum(o["seconds"] for o in ours1) / sum(o["seconds"] for o in ours)
    summary = {
        "efficiency_ratio": eff_gnubg / eff_ours,
        "per_trial_se_ratio": se_ratio,
        "per_trial_se_ratio_by_kind": se_ratio_by_kind,
        "seconds": {"ours": sum(o["seconds"] for o in ours),
                    "gnubg": sum(t["seconds"] for t in theirs),
                    "ours_1_thread": sum(o["seconds"] for o in ours1)},
        "thread_scaling": scaling,
    }
    within = sum(abs(r["diff"]) <= 2 * r["se"] for r in rows)
    within_b = sum(abs(r["diff"] - bias) <= 2 * r["se"] for r in rows)
    if a.json:
        print(json.dumps({"rows": rows, "mean_difference": bias,
                          "within_2se": within, "within_2se_after_bias": within_b, **summary}))
        return
    print(f"{'position':<16} {'kind':<8} {'ours':>18} {'gnubg':>18} {'diff':>7} {'z':>5} "
          f"{'SE/trial':>8}")
    for r in rows:
        z = r["diff"] / r["se"] if r["se"] else 0.0
        ratio = f"{r['per_trial_se_ratio']:.2f}" if "per_trial_se_ratio" in r else "-"
        print(f"{r['position_id']:<16} {r['kind']:<8} "
              f"{r['ours']['equity']:+.3f} ± {r['ours']['se']:.5f} "
              f"{r['gnubg']['equity']:+.3f} ± {r['gnubg']['se']:.5f} "
              f"{r['diff']:+.3f} {z:+5.1f} {ratio:>8}")
    print(f"mean difference (ours - gnubg): {bias:+.4f}")
    print(f"within 2 combined SE: {within}/{len(rows)}; "
          f"after removing the mean difference: {within_b}/{len(rows)}")
    print(f"per-trial standard error, ours over gnubg's (geometric mean): {se_ratio:.2f} "
          + "(" + ", ".join(f"{k} {v:.2f}" for k, v in se_ratio_by_kind.items() if v) + ")")
    print(f"time: ours {summary['seconds']['ours']:.1f} s ({a.trials} trials), "
          f"gnubg {summary['seconds']['gnubg']:.1f} s ({a.gnubg_trials} trials), "
          f"{a.threads} threads each")
    print(f"efficiency (time x SE^2), gnubg's over ours: {summary['efficiency_ratio']:.2f}")
    print(f"our rollouts on 1 thread against {a.threads}: {scaling:.2f} times faster")


if __name__ == "__main__":
    main()
