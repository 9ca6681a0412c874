#!/usr/bin/env python3
"""Our cube decisions against our own cubeful rollouts, with no referee.

Three steps:

  draw  MATCHES... --count N --seed S --out LIST
        The turns of match files (any `annotate` reads) at which the player
        on roll has the cube at the score in a contact position and our
        0-ply calls the decision close (double/take or double/pass above no
        double less 0.12 EMG) or the player doubled; N of them drawn at
        random, written as XGIDs (JSON list).
  roll  LIST --trials T --out ROLLOUTS
        `sheshbesh cube --rollout` of each (no double against double/take
        on the same dice, a live cube in every trial, 0-ply play and cube),
        one JSON line each with its XGID; resumes where ROLLOUTS stops.
  score ROLLOUTS... [--weights W ...] [--by-score]
        Prints, for our 0-ply and 2-ply (and each --weights file's), how
        often each gives the rollout's verdict, the mean cost of its actions
        in the rollout's equities (mEMG a decision: the double/no double
        part where it differs, plus the take/pass part where that does),
        the missed and wrong doubles, and the mean difference of its no
        double and double/take equities from the rollout's. The row "model
        at the rollouts' chances" feeds the rollouts' own cubeless chances
        to our 0-ply cube model (`benches/examples/cube_of_chances.rs`):
        what is left is the model's part of the error, the rest the net's.

The rollouts are our own 0-ply play and cube, so this measures how our
evaluations agree with what our own play makes of a decision; gnubg's
2-ply judgement is `match_cube_gnubg.py`. The committed set is
`data/labels/cube-rollouts-duels.jsonl` (how it was made:
`data/labels/README.md`).

Usage:
  cargo build --release && cargo build --release -p sheshbesh-benches --example cube_of_chances
  python3 benches/cube_rollouts_ours.py score data/labels/cube-rollouts-duels.jsonl
"""
import argparse
import collections
import json
import os
import random
import subprocess
import sys

from gnubg_cube import cost, doubles, takes
from match_cube_gnubg import BINARY, decisions

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = os.path.join(HERE, "..", "target", "release", "examples", "cube_of_chances")


def batch(binary, args, lines):
    """One JSON answer per line from a `--batch` co-process of ours."""
    out = subprocess.run([binary, *args], input="".join(l + "\n" for l in lines),
                         capture_output=True, text=True, check=True).stdout
    answers = [json.loads(l) for l in out.splitlines()]
    if len(answers) != len(lines):
        raise SystemExit(f"{binary} {' '.join(args)}: {len(answers)} answers to {len(lines)} lines")
    return answers


def contact(board):
    """Whether the sides can still hit each other ("board" of `show --json`)."""
    far = [max([i for i in range(1, 26) if board[side][i]] or [0]) for side in ("on_roll", "opponent")]
    return far[0] + far[1] > 25


def draw(a):
    found = decisions(sorted(a.matches))
    keys = sorted(found)
    shows = batch(BINARY, ["show", "--json", "--batch"], keys)
    cubes = batch(BINARY, ["cube", "--ply", "0", "--json", "--batch"], keys)
    close = []
    for k, s, c in zip(keys, shows, cubes):
        if "action" not in c or not c["match_play"] or not contact(s["board"]):
            continue
        if any(w in c["action"] for w in ("access", "dead", "Crawford")):
            continue
        if found[k] or min(c["double_take"], c["double_pass"]) > c["no_double"] - 0.12:
            close.append(s["xgid"])
    random.Random(a.seed).shuffle(close)
    chosen = close[:a.count]
    with open(a.out + ".tmp", "w") as f:
        json.dump(chosen, f, indent=0)
    os.replace(a.out + ".tmp", a.out)
    print(f"{len(keys)} turns, {len(close)} close contact decisions, {len(chosen)} drawn", file=sys.stderr)


def roll(a):
    xgids = json.load(open(a.list))
    done = set()
    if os.path.exists(a.out):
        with open(a.out) as f:
            done = {json.loads(l)["xgid"] for l in f if l.strip()}
    todo = [x for x in xgids if x not in done]
    proc = subprocess.Popen([BINARY, "cube", "--rollout", "--trials", str(a.trials), "--seed",
                             str(a.seed), "--json", "--batch"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    with open(a.out, "a") as f:
        for i, x in enumerate(todo):
            proc.stdin.write(x + "\n")
            proc.stdin.flush()
            r = json.loads(proc.stdout.readline())
            if "error" in r:
                raise SystemExit(f"{x}: {r['error']}")
            keep = {k: r[k] for k in ("action", "no_double", "double_take", "double_pass", "se",
                                      "probs", "passes", "trials", "seed")}
            f.write(json.dumps({"xgid": x, **keep}) + "\n")
            f.flush()
            print(f"\r{len(done) + i + 1}/{len(xgids)}", end="", file=sys.stderr)
    proc.stdin.close()
    proc.wait()
    print(file=sys.stderr)


def verdict(r):
    """The rollout's proper action, in our words."""
    nd, dt, dp = r["no_double"], r["double_take"], r["double_pass"]
    take = "take" if dt <= dp else "pass"
    return {"nd": nd, "dt": dt, "dp": dp,
            "action": ("Double, " if min(dt, dp) > nd else "No double, ") + take}


def group(show):
    """Away counts and cube of a decision (`show --json`), as `7a-5a` or
    `3a-7a c2`."""
    m, cube = show["match"], show["cube"]["value"]
    g = f"{m['length'] - m['score']['on_roll']}a-{m['length'] - m['score']['opponent']}a"
    return g + (f" c{cube}" if cube > 1 else "")


def chances(probs):
    """A rollout's chances made consistent: luck adjustment can leave a
    rare outcome's share a hair below zero."""
    w, wg, wbg, lg, lbg = (min(max(p, 0.0), 1.0) for p in probs)
    wg = min(wg, w)
    lg = min(lg, 1.0 - w)
    return [w, wg, min(wbg, wg), lg, min(lbg, lg)]


def row(name, refs, answers):
    s = collections.Counter()
    for ref, a in zip(refs, answers):
        c = cost(ref, a["action"])
        s["cost"] += c
        s["agree"] += doubles(a["action"]) == doubles(ref["action"]) and takes(a["action"]) == takes(ref["action"])
        gap = abs(ref["nd"] - min(ref["dt"], ref["dp"]))
        if doubles(ref["action"]) and not doubles(a["action"]):
            s["missed"] += 1
            s["missed_emg"] += gap
        if doubles(a["action"]) and not doubles(ref["action"]):
            s["wrong"] += 1
            s["wrong_emg"] += gap
        if takes(a["action"]) != takes(ref["action"]):
            s["take_pass"] += 1
            s["take_pass_emg"] += abs(ref["dt"] - ref["dp"])
        s["nd"] += a["no_double"] - ref["nd"]
        s["dt"] += a["double_take"] - ref["dt"]
    n = max(len(refs), 1)
    return {"name": name, "decisions": len(refs), "agree": round(s["agree"] / n, 3),
            "cost_memg": round(1000 * s["cost"] / n, 2),
            "missed_doubles": [s["missed"], round(s["missed_emg"], 3)],
            "wrong_doubles": [s["wrong"], round(s["wrong_emg"], 3)],
            "wrong_takes_or_passes": [s["take_pass"], round(s["take_pass_emg"], 3)],
            "no_double_bias": round(s["nd"] / n, 4), "double_take_bias": round(s["dt"] / n, 4)}


def score(a):
    rolls = []
    for path in a.rollouts:
        with open(path) as f:
            rolls += [json.loads(l) for l in f if l.strip()]
    xgids = [r["xgid"] for r in rolls]
    refs = [verdict(r) for r in rolls]
    answers = {}
    for w in [None, *a.weights]:
        for ply in (0, 2):
            args = ["cube", "--ply", str(ply), "--json", "--batch"] + (["--weights", w] if w else [])
            name = f"{os.path.basename(w) + ' ' if w else 'ours '}{ply}-ply"
            answers[name] = batch(BINARY, args, xgids)
    if not os.path.exists(MODEL):
        raise SystemExit(f"{MODEL} is missing: cargo build --release -p sheshbesh-benches "
                         "--example cube_of_chances")
    model_in = [f"{r['xgid']} {' '.join(str(p) for p in chances(r['probs']))}" for r in rolls]
    answers["model at the rollouts' chances"] = batch(MODEL, [], model_in)
    for name, ans in answers.items():
        bad = [x for x, o in zip(xgids, ans) if "action" not in o]
        if bad:
            raise SystemExit(f"{name}: no answer for {bad[0]}: {ans[xgids.index(bad[0])]}")
    rows = [row(name, refs, ans) for name, ans in answers.items()]
    out = {"decisions": len(rolls), "rows": rows}
    if a.by_score:
        groups = collections.defaultdict(list)
        for i, shown in enumerate(batch(BINARY, ["show", "--json", "--batch"], xgids)):
            groups[group(shown)].append(i)
        out["by_score"] = {g: [row(name, [refs[i] for i in idx], [ans[i] for i in idx])
                               for name, ans in answers.items()]
                           for g, idx in sorted(groups.items(), key=lambda kv: -len(kv[1]))}
    if a.json:
        print(json.dumps(out))
        return
    print(f"{len(rolls)} cube decisions against our own cubeful rollouts "
          f"({rolls[0]['trials']} trials each)")
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        print(f"{r['name']:<{width}}  verdict {100 * r['agree']:.1f}%  cost {r['cost_memg']:5.2f} mEMG"
              f"  missed doubles {r['missed_doubles'][0]:3d} ({r['missed_doubles'][1]:.2f} EMG)"
              f"  wrong doubles {r['wrong_doubles'][0]:3d} ({r['wrong_doubles'][1]:.2f})"
              f"  takes/passes {r['wrong_takes_or_passes'][0]:3d} ({r['wrong_takes_or_passes'][1]:.2f})"
              f"  mean difference: no double {r['no_double_bias']:+.3f}, double/take {r['double_take_bias']:+.3f}")
    for g, grows in out.get("by_score", {}).items():
        if grows[0]["decisions"] < a.min_group:
            continue
        print(f"{g} ({grows[0]['decisions']}): " + "; ".join(
            f"{r['name']} {r['cost_memg']:.1f} mEMG, nd {r['no_double_bias']:+.3f} dt {r['double_take_bias']:+.3f}"
            for r in grows))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="step", required=True)
    d = sub.add_parser("draw")
    d.add_argument("matches", nargs="+")
    d.add_argument("--count", type=int, default=300)
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--out", required=True)
    r = sub.add_parser("roll")
    r.add_argument("list")
    r.add_argument("--trials", type=int, default=324)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--out", required=True)
    s = sub.add_parser("score")
    s.add_argument("rollouts", nargs="+")
    s.add_argument("--weights", action="append", default=[])
    s.add_argument("--by-score", action="store_true")
    s.add_argument("--min-group", type=int, default=10, help="smallest score group printed")
    s.add_argument("--json", action="store_true")
    a = ap.parse_args()
    {"draw": draw, "roll": roll, "score": score}[a.step](a)


if __name__ == "__main__":
    main()
