#!/usr/bin/env python3
"""Makes deep-back-games.ids: the boards of bglab-checker.ids where a side
holding two or more points of the other's home board (two or more of its
checkers on each) trails the race by 60 pips or more. Deep back games,
which the net's own self-play seldom reaches; the sample of the rollouts
in data/labels/backgame-deep-walks-seed141-142.labels. One Position ID a
line, in bglab-checker.ids's order.

Usage: cargo build --release
       python3 data/samples/deep_back_games.py [--depth 60] [--binary target/release/sheshbesh]
"""
import argparse
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def holds_two(side):
    """Points 19 to 24 of a side's own count are the other's home board."""
    return sum(1 for point in range(19, 25) if side[point] >= 2) >= 2


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depth", type=int, default=60, help="pips behind, at least")
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "sheshbesh"))
    a = ap.parse_args()
    with open(os.path.join(HERE, "bglab-checker.ids")) as f:
        ids = [line.strip() for line in f if line.strip()]
    shown = subprocess.run([a.binary, "show", "--batch", "--json"], check=True,
                           input="".join(i + "\n" for i in ids),
                           capture_output=True, text=True).stdout.splitlines()
    if len(shown) != len(ids):
        raise SystemExit(f"{len(ids)} boards, {len(shown)} answers")
    keep = []
    for pid, line in zip(ids, shown):
        s = json.loads(line)
        if "error" in s:
            raise SystemExit(f"{pid}: {s['error']}")
        me, opp = s["board"]["on_roll"], s["board"]["opponent"]
        lead = s["pips"]["opponent"] - s["pips"]["on_roll"]
        if (holds_two(me) and -lead >= a.depth) or (holds_two(opp) and lead >= a.depth):
            keep.append(pid)
    out = os.path.join(HERE, "deep-back-games.ids")
    with open(out + ".tmp", "w") as f:
        f.writelines(k + "\n" for k in keep)
    os.replace(out + ".tmp", out)
    print(f"{len(keep)} of {len(ids)} boards written to {out}")


if __name__ == "__main__":
    main()
