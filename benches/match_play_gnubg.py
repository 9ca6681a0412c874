#!/usr/bin/env python3
"""Checker play at match scores, ours against gnubg's, on real match positions.

Takes the checker decisions of real match files (`sheshbesh annotate --json`
gives each one's Position ID, Match ID and dice), asks gnubg 1.07 for its
best play at the same ply with the score (`set gnubgid P:M`, `hint`), and
asks `sheshbesh hint --batch` twice: with the Match ID (match-aware) and
with the Position ID alone (money play). Prints how often each of ours
picks gnubg's play, and how often the score changed our choice.

Plays are compared as multisets of moves (`24/18 13/11` = `13/11 24/18`,
`8/4*(2)` = `8/4* 8/4`). gnubg ranks plays by cubeful equity at every
ply; ours rank by cubeless EMG through the match equity table.

Usage:
  apt-get install gnubg && cargo build --release
  python3 benches/match_play_gnubg.py [--ply 0] [--limit 400]
      [--binary target/release/sheshbesh] [FILES...]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MATCHES = os.path.join(ROOT, "data", "matches")
DEFAULT_FILES = [
    "03_galaxy_3pt_match1061881.mat",
    "05_galaxy_5pt_match2430002.mat",
    "07_galaxy_7pt_match7663225.mat",
    "13_bgstudio_5pt_Magic-Lasse.mat",
    "14_bgstudio_9pt_Llabba-faith23.mat",
    "16_bgstudio_13pt_Llabba-grahamd.mat",
]


def norm(play):
    """A play as a sorted list of moves: hits unmarked, `8/4(2)` as two."""
    moves = []
    for m in play.replace("*", "").lower().split():
        n = re.match(r"^(.*)\((\d)\)$", m)
        moves += [n.group(1)] * int(n.group(2)) if n else [m]
    return " ".join(sorted(moves))


def decisions(binary, files, limit):
    out = []
    for f in files:
        v = json.loads(subprocess.run(
            [binary, "annotate", f, "--ply", "0", "--json", "--quiet"],
            capture_output=True, text=True, check=True).stdout)
        if v.get("length", 0) == 0:
            continue
        for d in v["decisions"]:
            if d["kind"] == "checker":
                out.append((d["position_id"], d["match_id"], d["dice"]))
    return out[:limit]


def gnubg_best(positions, ply):
    """gnubg's best play for each (position ID, match ID, dice)."""
    lines = [
        "set player 0 human",
        "set player 1 human",
        f"set evaluation chequerplay evaluation plies {ply}",
    ]
    for pos, mid, _ in positions:
        lines += [f"set gnubgid {pos}:{mid}", "hint 1"]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        script = f.name
    try:
        text = subprocess.run(
            ["script", "-qc", f"/usr/games/gnubg -t -q < {script}", "/dev/null"],
            capture_output=True, text=True, timeout=3600).stdout
    finally:
        os.unlink(script)
    best = []
    # Each position's answer follows gnubg's "Setting GNUbg ID" line.
    for chunk in text.split("Setting GNUbg ID")[1: len(positions) + 1]:
        m = re.search(r"\b1\.\s+\S+\s+\d-ply\s+(.*?)\s+Eq\.:", chunk)
        best.append(m.group(1).strip() if m else None)
    return best


def ours_best(binary, inputs, ply):
    text = "\n".join(inputs) + "\n"
    out = subprocess.run([binary, "hint", "--ply", str(ply), "--batch"], input=text,
                         capture_output=True, text=True, check=True).stdout
    best = []
    for line in out.splitlines():
        v = json.loads(line)
        best.append(v["moves"][0]["move"] if "moves" in v else None)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ply", type=int, default=0)
    ap.add_argument("--limit", type=int, default=400)
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "sheshbesh"))
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or [os.path.join(MATCHES, f) for f in DEFAULT_FILES]
    pos = decisions(a.binary, files, a.limit)
    theirs = gnubg_best(pos, a.ply)
    match = ours_best(a.binary, [f"{p}:{m} {d}" for p, m, d in pos], a.ply)
    money = ours_best(a.binary, [f"{p} {d}" for p, m, d in pos], a.ply)
    n = sum(1 for t in theirs if t)
    agree_match = sum(1 for t, o in zip(theirs, match) if t and o is not None and norm(t) == norm(o))
    agree_money = sum(1 for t, o in zip(theirs, money) if t and o is not None and norm(t) == norm(o))
    changed = sum(1 for x, y in zip(match, money) if x != y)
    print(f"{len(pos)} checker decisions from {len(files)} match files, {a.ply}-ply; "
          f"gnubg answered {n}")
    print(f"ours with the score picks gnubg's play: {agree_match}/{n} "
          f"({100.0 * agree_match / max(n, 1):.1f}%)")
    print(f"ours as money play picks gnubg's play: {agree_money}/{n} "
          f"({100.0 * agree_money / max(n, 1):.1f}%)")
    print(f"the score changed our choice on {changed} of {len(pos)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
