#!/usr/bin/env python3
"""Chooses and copies the held-out matches of this folder from a checkout
of lassehjorthmadsen/bglab (commit 671cb08d): the raw BackgammonGalaxy
and Backgammon Studio files under data-raw/*/raw whose header says 5 to
11 points, not already among data/matches (its SOURCES.txt), ordered by
the SHA-256 of their path; the first 50, renamed NN_galaxy_Npt_ID.mat.
The rule looks at no move, so no decision in them was seen before they
were chosen. Writes SOURCES.txt with each file's origin and digest.

Usage: python3 data/heldout/choose.py BGLAB_CHECKOUT
"""
import hashlib
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
COUNT = 50


def main():
    repo = sys.argv[1]
    git = ["git", "-C", repo]
    used = set()
    with open(os.path.join(HERE, "..", "matches", "SOURCES.txt")) as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if not line.startswith("#") and len(parts) > 2:
                used.add(parts[2])
    files = subprocess.run(git + ["ls-tree", "-r", "--name-only", "HEAD"],
                           capture_output=True, text=True, check=True).stdout.splitlines()
    chosen = []
    for path in files:
        if "/raw/" not in path or not path.endswith(".txt") or path in used:
            continue
        text = subprocess.run(git + ["show", f"HEAD:{path}"], capture_output=True,
                              check=True).stdout
        m = re.search(r"(\d+) point match", text[:2000].decode("utf-8", "replace"))
        if m and 5 <= int(m.group(1)) <= 11:
            chosen.append((hashlib.sha256(path.encode()).hexdigest(), path, int(m.group(1)), text))
    chosen.sort()
    commit = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    lines = [
        "# Held-out real matches for benches/match_cube_gnubg.py --files \"data/heldout/*.mat\": decisions no",
        "# net or setting was chosen on. Chosen by rule, not by content: the raw BackgammonGalaxy files of",
        "# lassehjorthmadsen/bglab (data-raw/*/raw) of 5 to 11 points not among data/matches, ordered by the",
        "# SHA-256 of their path, the first 50 (selection script: data/heldout/choose.py).",
        "# file\trepo\tpath\tcommit\tsha256[:16]\tbytes",
    ]
    for i, (_, path, n, text) in enumerate(chosen[:COUNT], 1):
        name = f"{i:02d}_galaxy_{n}pt_{os.path.basename(path)[:-4]}.mat"
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(text)
        lines.append("\t".join([name, "lassehjorthmadsen/bglab", path, commit,
                                hashlib.sha256(text).hexdigest()[:16], str(len(text))]))
    with open(os.path.join(HERE, "SOURCES.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
