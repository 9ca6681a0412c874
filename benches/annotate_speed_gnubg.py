#!/usr/bin/env python3
"""Annotation speed at depth, ours against gnubg's analysis of the same
real matches, one thread each, start-up removed.

For each match file (by default three committed real matches), the CPU
seconds (user and system) of:
- gnubg 1.07 (`set threads 1`, checker plays and cube decisions at
  `--ply`): a process that imports the .mat and runs `analyse match`,
  less one that only imports it;
- `sheshbesh annotate --ply N FILE` with `RAYON_NUM_THREADS=1`, less
  `sheshbesh hint start 31 --ply 0` (loading the nets).
Prints each file's times and the ratio of the totals (gnubg's over ours).

Usage:
  apt-get install gnubg && cargo build --release
  python3 benches/annotate_speed_gnubg.py [--ply 2]
      [--binary target/release/sheshbesh] [FILES...]
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile

from match_play_gnubg import MATCHES, ROOT

DEFAULT_FILES = [
    "05_galaxy_5pt_match2430002.mat",
    "07_galaxy_7pt_match7663225.mat",
    "18_bgstudio_7pt_Maciel-Llabba.mat",
]


def cpu_seconds(cmd, stdin_text=None, env=None):
    """Runs `cmd` to its end and returns the CPU seconds it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, input=stdin_text, text=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({r.returncode}): {r.stderr.strip()[-300:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def gnubg_seconds(path, ply):
    def run(analyse):
        lines = ["set threads 1",
                 f"set analysis chequerplay evaluation plies {ply}",
                 f"set analysis cubedecision evaluation plies {ply}",
                 f"import mat {path}"]
        if analyse:
            lines.append("analyse match")
        lines += ["quit", "y"]
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("\n".join(lines) + "\n")
            script = f.name
        try:
            with open(script) as stdin:
                return cpu_seconds(["/usr/games/gnubg", "-t", "-q"], stdin.read())
        finally:
            os.unlink(script)
    return run(True) - run(False)


def ours_seconds(binary, path, ply):
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    start = cpu_seconds([binary, "hint", "start", "31", "--ply", "0"], env=env)
    return cpu_seconds([binary, "annotate", "--ply", str(ply), path], env=env) - start


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "sheshbesh"))
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    files = a.files or [os.path.join(MATCHES, f) for f in DEFAULT_FILES]
    print(f"{a.ply}-ply annotation, one thread each, CPU seconds, start-up removed")
    print(f"{'file':<42} {'gnubg':>8} {'ours':>8} {'gnubg / ours':>13}")
    total_g = total_o = 0.0
    for path in files:
        g = gnubg_seconds(path, a.ply)
        o = ours_seconds(a.binary, path, a.ply)
        total_g += g
        total_o += o
        print(f"{os.path.basename(path)[:42]:<42} {g:>8.2f} {o:>8.2f} {g / o:>13.2f}")
    print(f"{'total':<42} {total_g:>8.2f} {total_o:>8.2f} {total_g / total_o:>13.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
