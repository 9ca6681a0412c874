"""Scaling of `sheshbesh-cluster rollout`: one worker process against two.

Rolls out the same file of positions three ways in one run and prints the
wall times and their ratios:

- `sheshbesh rollout POSITION --threads 1` for each line (one core, no Ray);
- `sheshbesh-cluster rollout` on a local Ray cluster of one 1-CPU worker
  node (the head has no CPUs, so every task runs on a worker node);
- the same with two 1-CPU worker nodes.

Every cluster answer must equal the command line's, line for line; the
script fails otherwise. Run it on an idle machine with at least two cores.

Usage:
  pip install './python[cluster]' && cargo build --release
  python3 benches/cluster_scaling.py [--positions 8] [--trials 1296] [--json]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ray
from ray.cluster_utils import Cluster

from sheshbesh import cluster

ROOT = Path(__file__).resolve().parents[1]

# Contact, race and opening positions (Position IDs) rolled out in turn.
POSITIONS = [
    "start",
    "4HPwATDgc/ABMA",
    "sGfwATDgc/ABMA",
    "4HPhASLgc/ABMA",
    "2+4BAQDg8+AAAA",
    "4DnyADLgc/ABMA",
    "jGfkASjg8wcBAA",
    "4HPwQQLgc/ABMA",
]


def on_cluster(path: str, workers: int, trials: int, out: str) -> tuple[float, list[str]]:
    """Wall time of the cluster rollout with `workers` one-CPU nodes (the
    nodes are started first, outside the timing) and its output lines."""
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    for _ in range(workers):
        c.add_node(num_cpus=1)
    c.wait_for_nodes()
    buf = io.StringIO()
    try:
        # Warm the workers (process start, module import) outside the timing.
        ray.init(address=c.address, runtime_env={"env_vars": {"RAYON_NUM_THREADS": "1"}},
                 log_to_driver=False)
        ray.get([ray.remote(num_cpus=1)(lambda: __import__("sheshbesh")).remote()
                 for _ in range(workers)])
        start = time.perf_counter()
        with contextlib.redirect_stdout(buf):
            code = cluster.main(["rollout", path, "--trials", str(trials), "--json", "--quiet",
                                 "--address", c.address, "--out", out])
        seconds = time.perf_counter() - start
    finally:
        ray.shutdown()
        c.shutdown()
    if code != 0:
        sys.exit(f"cluster rollout with {workers} workers failed ({code})")
    return seconds, buf.getvalue().splitlines()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=int, default=8)
    p.add_argument("--trials", type=int, default=1296)
    p.add_argument("--binary", default=str(ROOT / "target" / "release" / "sheshbesh"))
    p.add_argument("--json", action="store_true")
    a = p.parse_args()
    positions = (POSITIONS * (a.positions // len(POSITIONS) + 1))[: a.positions]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "positions.txt")
        Path(path).write_text("\n".join(positions) + "\n")
        start = time.perf_counter()
        want = []
        for pos in positions:
            r = subprocess.run([a.binary, "rollout", pos, "--trials", str(a.trials), "--threads",
                                "1", "--json", "--quiet"], capture_output=True, text=True,
                               check=True)
            want.append(r.stdout.strip())
        cli = time.perf_counter() - start
        one, got1 = on_cluster(path, 1, a.trials, os.path.join(tmp, "out1"))
        two, got2 = on_cluster(path, 2, a.trials, os.path.join(tmp, "out2"))
    if got1 != want or got2 != want:
        sys.exit("a cluster answer differs from `sheshbesh rollout`")
    result = {
        "positions": a.positions,
        "trials": a.trials,
        "cli_one_thread_s": round(cli, 2),
        "cluster_one_worker_s": round(one, 2),
        "cluster_two_workers_s": round(two, 2),
        "speedup_two_over_one": round(one / two, 2),
        "one_worker_over_cli": round(one / cli, 2),
    }
    if a.json:
        print(json.dumps(result))
    else:
        print(f"{a.positions} positions x {a.trials} trials, 0-ply, identical answers")
        print(f"  sheshbesh rollout --threads 1   {cli:8.2f} s")
        print(f"  cluster, 1 worker               {one:8.2f} s  ({one / cli:.2f}x the CLI)")
        print(f"  cluster, 2 workers              {two:8.2f} s  (speed-up {one / two:.2f})")


if __name__ == "__main__":
    main()
