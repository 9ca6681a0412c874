#!/usr/bin/env python3
"""0-ply evaluation speed, ours against gnubg's, in one run.

Ours: `cargo bench -p sheshbesh-benches --bench eval -- zero_ply_batched`
(every play of 2,000 contact rolls from the committed fixture, batched per
roll as search evaluates them, the shipped net, one thread), which also
names the kernel build this CPU runs (avx512, avx2 or portable). gnubg's:
1.07's `calibrate` (static evaluations per second, one calculation thread),
read through `script`, as gnubg prints it only to a terminal. The two
alternate `--rounds` times, so that a machine whose speed drifts during the
run weighs on both; the report gives each round and the ratio of the
medians.

Usage:
  apt-get install gnubg
  python3 benches/eval_gnubg.py [--rounds 2] [--calibrations 3]
"""

import argparse
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNITS = {"elem/s": 1.0, "Kelem/s": 1e3, "Melem/s": 1e6, "Gelem/s": 1e9}


def ours():
    """Evaluations per second (criterion's middle estimate) and the kernel."""
    out = subprocess.run(
        ["cargo", "bench", "-q", "-p", "sheshbesh-benches", "--bench", "eval", "--",
         "--noplot", "zero_ply_batched$"],
        cwd=ROOT, capture_output=True, text=True)
    text = out.stdout + out.stderr
    rate = re.search(r"thrpt:\s+\[\S+ \S+ (\S+) (\S+)", text)
    kernel = re.search(r"positions, (\w+) kernels", text)
    if out.returncode != 0 or not rate or not kernel:
        sys.exit(f"the eval bench failed or printed no throughput:\n{text[-2000:]}")
    return float(rate.group(1)) * UNITS[rate.group(2)], kernel.group(1)


def gnubg(calibrations):
    """gnubg's `calibrate` result, evaluations per second."""
    cmd = f"printf 'calibrate {calibrations}\\n' | /usr/games/gnubg -t -q"
    out = subprocess.run(["script", "-qc", cmd, "/dev/null"], capture_output=True, text=True)
    found = re.search(r"Calibration result: (\d+) static evaluations/second", out.stdout)
    if not found:
        sys.exit(f"gnubg printed no calibration result:\n{out.stdout[-2000:]}")
    return float(found.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--calibrations", type=int, default=3)
    a = ap.parse_args()
    if a.rounds < 1 or a.calibrations < 1:
        sys.exit("--rounds and --calibrations must be at least 1")
    mine, theirs = [], []
    for r in range(a.rounds):
        rate, kernel = ours()
        mine.append(rate)
        theirs.append(gnubg(a.calibrations))
        print(f"round {r + 1}: ours {mine[-1]:,.0f}/s ({kernel} kernels), "
              f"gnubg 1.07 calibrate {theirs[-1]:,.0f}/s, "
              f"{mine[-1] / theirs[-1]:.2f} times", flush=True)
    m, g = statistics.median(mine), statistics.median(theirs)
    print(f"median: ours {m:,.0f}/s, gnubg {g:,.0f}/s: {m / g:.2f} times gnubg's")


if __name__ == "__main__":
    main()
