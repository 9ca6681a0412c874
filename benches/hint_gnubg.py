#!/usr/bin/env python3
"""Hint speed at depth, ours against gnubg's, on positions from real play.

Takes the first `--positions` checker decisions (100 by default) of real
match files (`sheshbesh annotate --json` gives each one's Position ID,
Match ID and dice), and times, one thread each, start-up removed:
- gnubg 1.07 `hint` at `--ply` (`set threads 1`, its default move filters,
  cubeful), every position in one gnubg process: a position's time runs
  from gnubg setting its ID to setting the next one's (the last one's to
  the end of the process);
- `sheshbesh hint --batch --ply N` with `RAYON_NUM_THREADS=1`, by cubeful
  equity (the default) and with `--cubeless`: a position's time runs from
  the previous answer line to its own, after one warm-up line.
Prints the median, the 90th percentile and the total of each, and the
ratios of gnubg's to ours. Both answer as their output arrives, so the
times include writing it; gnubg's terminal output is read through
`script`, as it prints hints only to a terminal.

Usage:
  apt-get install gnubg && cargo build --release
  python3 benches/hint_gnubg.py [--ply 3] [--positions 100]
      [--binary target/release/sheshbesh] [FILES...]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from match_play_gnubg import MATCHES, ROOT, decisions

DEFAULT_FILES = [
    "05_galaxy_5pt_match2430002.mat",
    "07_galaxy_7pt_match7663225.mat",
    "14_bgstudio_9pt_Llabba-faith23.mat",
    "16_bgstudio_13pt_Llabba-grahamd.mat",
]
MARK = b"Setting GNUbg ID"


def timed_lines(cmd, stdin_bytes, marker, env=None):
    """Runs `cmd`, feeding `stdin_bytes`, and returns the times (seconds
    since start) at which each output occurrence of `marker` arrived, and
    the time the process ended."""
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, env=env)
    t0 = time.perf_counter()
    p.stdin.write(stdin_bytes)
    p.stdin.close()
    times, tail = [], b""
    while True:
        chunk = os.read(p.stdout.fileno(), 65536)
        if not chunk:
            break
        now = time.perf_counter() - t0
        data = tail + chunk
        times += [now] * data.count(marker)
        # Keep enough of the end to catch a marker split across reads.
        tail = data[-(len(marker) - 1):] if len(marker) > 1 else b""
        if marker in tail:
            tail = b""
    p.wait()
    return times, time.perf_counter() - t0


def gnubg_times(positions, ply):
    lines = ["set threads 1", "set player 0 human", "set player 1 human",
             f"set evaluation chequerplay evaluation plies {ply}"]
    for pos, mid, _ in positions:
        lines += [f"set gnubgid {pos}:{mid}", "hint"]
    lines.append("quit")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        script = f.name
    try:
        marks, end = timed_lines(
            ["script", "-qc", f"/usr/games/gnubg -t -q < {script}", "/dev/null"], b"", MARK)
    finally:
        os.unlink(script)
    if len(marks) != len(positions):
        sys.exit(f"gnubg answered {len(marks)} of {len(positions)} positions")
    return [b - a for a, b in zip(marks, marks[1:] + [end])]


def ours_times(binary, positions, ply, *flags):
    lines = [f"{p}:{m} {d}" for p, m, d in positions]
    text = ("\n".join([lines[0]] + lines) + "\n").encode()
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    marks, _ = timed_lines([binary, "hint", "--ply", str(ply), "--batch", *flags],
                           text, b"\n", env)
    if len(marks) != len(lines) + 1:
        sys.exit(f"sheshbesh answered {len(marks) - 1} of {len(lines)} positions")
    return [b - a for a, b in zip(marks, marks[1:])]


def summary(ts):
    ts = sorted(ts)
    return statistics.median(ts), ts[min(len(ts) - 1, int(0.9 * len(ts)))], sum(ts)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ply", type=int, default=3)
    ap.add_argument("--positions", type=int, default=100)
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "sheshbesh"))
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or [os.path.join(MATCHES, f) for f in DEFAULT_FILES]
    pos = decisions(a.binary, files, a.positions)
    rows = {
        f"gnubg {a.ply}-ply hint": gnubg_times(pos, a.ply),
        f"ours {a.ply}-ply, cubeful": ours_times(a.binary, pos, a.ply),
        f"ours {a.ply}-ply, cubeless": ours_times(a.binary, pos, a.ply, "--cubeless"),
    }
    print(f"{len(pos)} positions from {len(files)} match files, one thread each, "
          "start-up removed")
    print(f"{'':<26} {'median s':>9} {'90th pct s':>11} {'total s':>9} {'gnubg / ours':>13}")
    g = summary(next(iter(rows.values())))
    for name, ts in rows.items():
        m, p90, tot = summary(ts)
        print(f"{name:<26} {m:>9.3f} {p90:>11.3f} {tot:>9.2f} {g[2] / tot:>13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
