#!/usr/bin/env python3
"""Cube decisions, Sheshbesh against GNU Backgammon's 2-ply `eval`.

Samples positions from the committed move-generation fixture (gnubg's own
play) where the side on roll has between 55% and 97% winning chances at
gnubg 0-ply (where cube decisions are not trivial), as money positions
(Jacoby on, beavers off, centred cube) and at random 7-point match scores.
gnubg (`apt-get install gnubg`) evaluates each with `eval` (2-ply) and
names the proper cube action; `sheshbesh cube --batch --ply N` answers for
the same Position ID and Match ID. Prints the agreement rate and every
disagreement.

Usage: python3 benches/cube_gnubg.py [--money 100] [--match 60] [--ply 2] [--seed 1] [--json]
"""
import argparse
import gzip
import json
import os
import random
import re
import subprocess

import gnubg_nn as g

from gnubg_cube import agrees, cost

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "data", "fixtures", "movegen_gnubg.txt.gz")
BINARY = os.path.join(HERE, "..", "target", "release", "sheshbesh")


def sample(n_money, n_match, seed):
    rng = random.Random(seed)
    with gzip.open(FIXTURE, "rt") as f:
        ids = sorted({l.split()[1] for l in f if l.split()[0] in ("gnubg0", "mixed")})
    rng.shuffle(ids)
    picked = []
    for pid in ids:
        b = g.board_from_position_id(pid)
        if sum(b[0]) == 0 or sum(b[1]) == 0:
            continue
        w = g.probabilities(b, 0)[0]
        if 0.55 <= w <= 0.97:
            picked.append(pid)
        if len(picked) >= n_money + n_match:
            break
    cases = [(pid, None) for pid in picked[:n_money]]
    for pid in picked[n_money:]:
        # Scores away from the end of a 7-point match (no one at 6+).
        a, b = rng.randint(0, 5), rng.randint(0, 5)
        cases.append((pid, (a, b)))
    return cases


def gnubg_eval(cases):
    lines = ["set display off", "set beavers 0", "set jacoby on"]
    for pid, score in cases:
        if score is None:
            lines += ["new session", "set turn 1", f"set board {pid}", "eval"]
        else:
            lines += ["new match 7", f"set score {score[1]} {score[0]}", "set turn 1",
                      f"set board {pid}", "eval"]
    out = subprocess.run(["/usr/games/gnubg", "-t", "-q"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True).stdout
    results = []
    cur = {}
    for line in out.splitlines():
        m = re.match(r"Position ID:\t(\S+)", line)
        if m:
            cur = {"pid": m.group(1)}
        m = re.match(r"Match ID:\t(\S+)", line)
        if m:
            cur["mid"] = m.group(1)
        m = re.match(r"\d\. (No double|No redouble|Double, take|Redouble, take|Double, pass|Redouble, pass)\s+([+-][\d.]+)", line.strip())
        if m and cur:
            key = {"No": "nd", "Dou": "dt" if "take" in m.group(1) else "dp",
                   "Red": "dt" if "take" in m.group(1) else "dp"}[m.group(1)[:3] if m.group(1).startswith(("Dou", "Red")) else "No"]
            cur[key] = float(m.group(2))
        m = re.match(r"Proper cube action: (.*?)(?: \([-0-9.]+%\))?$", line)
        if m and cur:
            cur["action"] = m.group(1).strip()
            results.append(cur)
            cur = {}
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--money", type=int, default=100)
    ap.add_argument("--match", type=int, default=60)
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--weights")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    cases = sample(a.money, a.match, a.seed)
    ref = gnubg_eval(cases)
    wanted = {pid for pid, _ in cases}
    ref = [r for r in ref if r["pid"] in wanted and "mid" in r]
    cmd = [BINARY, "cube", "--batch", "--ply", str(a.ply)]
    if a.weights:
        cmd += ["--weights", a.weights]
    inp = "".join(f"{r['pid']}:{r['mid']}\n" for r in ref)
    ours = [json.loads(l) for l in subprocess.run(cmd, input=inp, capture_output=True, text=True).stdout.splitlines()]
    agree = 0
    rows = []
    for r, o in zip(ref, ours):
        ok = agrees(r["action"], o.get("action", ""))
        agree += ok
        rows.append({"position": f"{r['pid']}:{r['mid']}", "gnubg": r["action"], "ours": o.get("action", o.get("error")), "match_play": o.get("match_play"), "agree": ok,
                     "cost": cost(r, o.get("action", ""))})
    n = len(rows)
    money = [x for x in rows if not x["match_play"]]
    match = [x for x in rows if x["match_play"]]
    summary = {
        "positions": n, "agree": agree, "rate": round(agree / max(n, 1), 3),
        "money": [sum(x["agree"] for x in money), len(money)],
        "match": [sum(x["agree"] for x in match), len(match)],
        "ply": a.ply,
    }
    if a.json:
        print(json.dumps({"summary": summary, "disagreements": [x for x in rows if not x["agree"]]}))
        return
    for x in rows:
        if not x["agree"]:
            print(f"{x['position']:<32} gnubg: {x['gnubg']:<28} ours: {x['ours']:<28} costs {x['cost']:.3f} by gnubg's equities")
    costs = sorted(x["cost"] for x in rows if not x["agree"] and x["cost"] is not None)
    if costs:
        print(f"disagreements cost (gnubg's equities): median {costs[len(costs) // 2]:.3f}, largest {costs[-1]:.3f}, "
              f"{sum(c < 0.02 for c in costs)} of {len(costs)} under 0.020, "
              f"total {sum(costs):.3f} over {n} decisions ({1000 * sum(costs) / max(n, 1):.1f} mEMG per decision)")
    print(f"agreement: {agree}/{n} ({100 * agree / max(n, 1):.1f}%); money {summary['money'][0]}/{summary['money'][1]}, match {summary['match'][0]}/{summary['match'][1]} (ours at {a.ply}-ply, gnubg 2-ply)")


if __name__ == "__main__":
    main()
