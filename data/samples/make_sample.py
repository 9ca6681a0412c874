#!/usr/bin/env python3
"""Makes bglab-checker.ids: the board of every checker decision of real
play in lassehjorthmadsen/bglab (commit 671cb08d), the raw
BackgammonGalaxy and Backgammon Studio files under data-raw/*/raw, except
the matches of data/matches and data/heldout (the benches' tuning and
held-out sets), and without any board of a checker decision of those
sets (openings recur from match to match): nothing trained on this
sample was a decision the benches judge. One Position ID a line (the player
on roll's view, before the roll), distinct, sorted; the sample of
`train expert --sample`.

Usage: cargo build --release
       python3 data/samples/make_sample.py BGLAB_CHECKOUT [--binary target/release/sheshbesh]
"""
import argparse
import hashlib
import json
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.dirname(HERE)
ROOT = os.path.dirname(DATA)


def used_paths():
    """The bglab paths the benches' match sets were copied from."""
    used = set()
    for name in ("matches", "heldout"):
        with open(os.path.join(DATA, name, "SOURCES.txt")) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if not line.startswith("#") and len(parts) > 2:
                    used.add(parts[2])
    return used


def checker_boards(binary, folder):
    """The Position IDs of every checker decision of the match files in `folder`."""
    out = subprocess.run([binary, "annotate", folder, "--ply", "0", "--json", "--quiet"],
                         capture_output=True, text=True, check=True).stdout
    return {d["position_id"] for f in json.loads(out) for d in f.get("decisions", [])
            if d["kind"] == "checker"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bglab")
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "sheshbesh"))
    a = ap.parse_args()
    git = ["git", "-C", a.bglab]
    files = subprocess.run(git + ["ls-tree", "-r", "--name-only", "HEAD"], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    used = used_paths()
    chosen = [p for p in files if "/raw/" in p and p.endswith(".txt") and p not in used]
    with tempfile.TemporaryDirectory() as tmp:
        for i, path in enumerate(chosen):
            text = subprocess.run(git + ["show", f"HEAD:{path}"], capture_output=True,
                                  check=True).stdout
            with open(os.path.join(tmp, f"{i:05d}.txt"), "wb") as f:
                f.write(text)
        boards = checker_boards(a.binary, tmp)
    benched = set()
    for name in ("matches", "heldout"):
        benched |= checker_boards(a.binary, os.path.join(DATA, name))
    ids = sorted(boards - benched)
    text = "".join(i + "\n" for i in ids)
    target = os.path.join(HERE, "bglab-checker.ids")
    with open(target + ".tmp", "w") as f:
        f.write(text)
    os.replace(target + ".tmp", target)
    print(f"{len(chosen)} match files, {len(boards)} distinct boards, "
          f"{len(boards) - len(ids)} of them the benches' dropped, {len(ids)} kept, "
          f"sha256 {hashlib.sha256(text.encode()).hexdigest()[:16]}")


if __name__ == "__main__":
    main()
