#!/usr/bin/env python3
"""Where a luck-adjusted rollout's variance comes from: each net's 0-ply
against 1-ply inconsistency, Sheshbesh's and GNU Backgammon's, along the
same games.

A luck-adjusted trial is the root's 1-ply value plus, for every position
the game then reaches, that position's 1-ply value less its 0-ply value
(the net's inconsistency there), plus nothing at the end (a finished game
or a bear-off the databases know is valued exactly). So the variance of a
trial is the variance of the sum of the inconsistencies along its game,
whatever the dice. This bench plays --paths games from each position of
`rollout_gnubg.py`'s sample (ours at 0-ply, dice from --seed), values
every position they reach with both nets at 0 and 1 ply (gnubg through
gnubg-nn), and prints per position the standard deviation of each net's
sum along the same games, their ratio (what the per-trial standard errors
of the two rollouts would be if both played these games), and per class
of position (gnubg's classes; a checker on the bar or not) each net's rms
inconsistency in equity.

--yardstick FILE keeps our play (the shipped net, or --weights) and takes
our 0- and 1-ply values from FILE: a luck yardstick's inconsistency along
the games a rollout of the playing net plays (any fixed yardstick leaves
the luck adjustment unbiased; its variance is this inconsistency's).

Usage: python3 benches/rollout_consistency.py [--paths 40] [--seed 1]
          [--weights FILE] [--yardstick FILE] [--json]
"""
import argparse
import collections
import json
import math
import os
import random
import subprocess
import sys

import gnubg_nn as g

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from rollout_gnubg import BINARY, geometric_mean, sample  # noqa: E402


def equity(p):
    w, wg, wb, lg, lb = p
    return 2 * w - 1 + wg + wb - lg - lb


def batch(args, lines):
    """One answer per line from `sheshbesh ARGS --batch`."""
    out = subprocess.run([BINARY, *args, "--batch"], input="".join(l + "\n" for l in lines),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(lines), (args, len(out), len(lines))
    return [json.loads(l) for l in out]


def known(pid):
    """The game is over or both sides are bearing off (a database knows it)."""
    return g.classify(g.board_from_position_id(pid)) <= g.c_bearoff


def play_paths(root, paths, rng, weights):
    """`paths` games from `root` at our 0-ply: per game, the positions it
    reaches after the root until a database or the end takes over."""
    games = [[] for _ in range(paths)]
    current = {i: root for i in range(paths)}
    while current:
        rolls = {i: (rng.randint(1, 6), rng.randint(1, 6)) for i in current}
        order = sorted(current)
        answers = batch(["hint", "--ply", "0", *weights],
                        [f"{current[i]} {rolls[i][0]}{rolls[i][1]}" for i in order])
        nxt = {}
        for i, a in zip(order, answers):
            if "error" in a:
                raise RuntimeError(f"{current[i]}: {a['error']}")
            moves = a["moves"]
            if moves:
                pid = moves[0]["position_id"]
            else:
                # No legal play: the same board, the other side on roll.
                b = g.board_from_position_id(current[i])
                pid = g.position_id([b[1], b[0]])
            if known(pid):
                continue
            games[i].append(pid)
            nxt[i] = pid
        current = nxt
    return games


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--paths", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--weights", help="our weights file instead of the shipped one")
    ap.add_argument("--yardstick", help="weights whose 0/1-ply values are measured "
                    "along our games (default: the playing weights)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    weights = ["--weights", a.weights] if a.weights else []
    values = ["--weights", a.yardstick] if a.yardstick else weights
    rng = random.Random(a.seed)
    picked = [(pid, k) for pid, k in sample(a.seed) if not known(pid)]
    rows = []
    classes = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for root, kind in picked:
        games = play_paths(root, a.paths, rng, weights)
        flat = [pid for game in games for pid in game]
        ours = {}
        if flat:
            e0 = batch(["eval", "--ply", "0", *values], flat)
            e1 = batch(["eval", "--ply", "1", *values], flat)
            ours = {pid: x1["equity"] - x0["equity"] for pid, x0, x1 in zip(flat, e0, e1)}
        sums = []
        for game in games:
            so = sg = 0.0
            for t, pid in enumerate(game, start=1):
                b = g.board_from_position_id(pid)
                dg = equity(g.probabilities(b, 1)) - equity(g.probabilities(b, 0))
                sign = -1.0 if t % 2 else 1.0
                so += sign * ours[pid]
                sg += sign * dg
                c = g.classify(b)
                name = {g.c_race: "race", g.c_crashed: "crashed"}.get(c, "contact")
                bar = "bar" if b[0][24] or b[1][24] else "no bar"
                acc = classes[(name, bar)]
                acc[0] += 1
                acc[1] += ours[pid] ** 2
                acc[2] += dg ** 2
            sums.append((so, sg))

        def sd(k):
            m = sum(s[k] for s in sums) / len(sums)
            return math.sqrt(sum((s[k] - m) ** 2 for s in sums) / (len(sums) - 1))

        turns = sum(len(x) for x in games) / len(games)
        sd_ours, sd_gnubg = sd(0), sd(1)
        rows.append({"position_id": root, "kind": kind, "turns": turns,
                     "sd_ours": sd_ours, "sd_gnubg": sd_gnubg,
                     # Games that reach a database at once say nothing.
                     "ratio": sd_ours / sd_gnubg if min(sd_ours, sd_gnubg) >= 0.005 else None})
    by_class = [{"class": c, "bar": b, "positions": n,
                 "rms_ours": math.sqrt(so / n), "rms_gnubg": math.sqrt(sg / n)}
                for (c, b), (n, so, sg) in sorted(classes.items())]
    ratios = [r["ratio"] for r in rows if r["ratio"]]
    geo = geometric_mean(ratios)
    if a.json:
        print(json.dumps({"rows": rows, "classes": by_class, "ratio_geometric_mean": geo}))
        return
    print(f"{'position':<16} {'kind':<8} {'turns':>5} {'sd ours':>8} {'sd gnubg':>8} {'ratio':>6}")
    for r in rows:
        ratio = f"{r['ratio']:6.2f}" if r["ratio"] else "     -"
        print(f"{r['position_id']:<16} {r['kind']:<8} {r['turns']:5.1f} "
              f"{r['sd_ours']:8.3f} {r['sd_gnubg']:8.3f} {ratio}")
    print(f"per-trial standard deviation along the same games, ours over gnubg's "
          f"(geometric mean): {geo:.2f}")
    print(f"{'class':<8} {'bar':<7} {'positions':>9} {'rms ours':>9} {'rms gnubg':>9}")
    for c in by_class:
        print(f"{c['class']:<8} {c['bar']:<7} {c['positions']:9d} "
              f"{c['rms_ours']:9.4f} {c['rms_gnubg']:9.4f}")


if __name__ == "__main__":
    main()
