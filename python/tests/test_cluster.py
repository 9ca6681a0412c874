"""`sheshbesh-cluster` computes what the command line computes.

A real Ray cluster on this machine (`ray.cluster_utils.Cluster`: a head
with no CPUs and two one-CPU worker nodes, so every task runs on a worker
node) runs each job; its output must equal the single-machine command's
byte for byte. One test removes a worker node while a rollout runs: the
lost tasks run again elsewhere and the result does not change.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Iterator, List

import pytest

import ray
from ray.cluster_utils import Cluster

from sheshbesh import cluster

from conftest import MATCHES


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Cluster]:
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 0})
    c.add_node(num_cpus=1)
    c.add_node(num_cpus=1)
    c.wait_for_nodes()
    yield c
    ray.shutdown()
    c.shutdown()


def run(capsys, c: Cluster, *args: str) -> List[str]:
    """Runs `sheshbesh-cluster JOB ARGS` on the test cluster: its exit
    status, then its stdout lines (stderr is shown when the test fails)."""
    capsys.readouterr()
    code = cluster.main([args[0], "--address", c.address, "--quiet", *args[1:]])
    out, err = capsys.readouterr()
    print(err)
    return [str(code), *out.splitlines()]


ROLLOUTS = [
    "4HPwATDgc/ABMA",
    "start",
    "",
    "not a position",
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:10",
    # Carries the roll 52: `rollout` rolls out the roll's plays, the
    # cluster's shards a position before its roll, so it is refused.
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",
    "sGfwATDgc/ABMA",
]
REFUSED = ("", "not a position", ROLLOUTS[5])


def cli_rollout(cli, pos: str, *flags: str) -> str:
    code, out, err = cli.run("rollout", pos, *flags, "--json", "--quiet")
    assert code == 0, err
    return out.strip()


@pytest.mark.parametrize(
    "flags",
    [
        ["--trials", "96", "--seed", "3"],
        ["--trials", "64", "--seed", "5", "--cubeful", "--truncate", "7"],
    ],
)
def test_rollout_is_the_commands(ray_cluster, cli, capsys, tmp_path, flags):
    f = tmp_path / "positions.txt"
    f.write_text("\n".join(ROLLOUTS) + "\n")
    got = run(capsys, ray_cluster, "rollout", str(f), *flags, "--shard-trials", "20",
              "--json", "--out", str(tmp_path / "out"))
    assert got[0] == "1", "a bad line makes the exit status 1"
    assert len(got) == 1 + len(ROLLOUTS), got
    for n, (pos, line) in enumerate(zip(ROLLOUTS, got[1:]), 1):
        if pos in REFUSED:
            answer = json.loads(line)
            assert answer["line"] == n and answer["error"], line
        else:
            assert line == cli_rollout(cli, pos, *flags), pos


def test_a_run_prints_none_of_rays_notices(ray_cluster, tmp_path):
    # A fresh process joining the cluster: with --quiet, nothing on stderr
    # (Ray's notices of token authentication and of connecting ask
    # nothing of a user).
    f = tmp_path / "positions.txt"
    f.write_text("start\n")
    run_main = "import sys; from sheshbesh import cluster; sys.exit(cluster.main(sys.argv[1:]))"
    r = subprocess.run(
        [sys.executable, "-c", run_main, "rollout", str(f), "--address", ray_cluster.address,
         "--trials", "36", "--truncate", "2", "--json", "--quiet", "--out", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=600,
    )
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert json.loads(r.stdout)["trials"] == 36
    assert r.stderr == "", r.stderr


class Counting:
    """Wraps `cluster._remote` and counts the tasks submitted."""

    def __init__(self) -> None:
        self.submitted = 0
        self.real = cluster._remote

    def __call__(self, fn: Any) -> Any:
        task = self.real(fn)
        outer = self

        class Task:
            def remote(self, *args: Any) -> Any:
                outer.submitted += 1
                return task.remote(*args)

        return Task()


def test_rollout_restarted_skips_finished_work(ray_cluster, cli, capsys, tmp_path, monkeypatch):
    f = tmp_path / "positions.txt"
    f.write_text("start\n4HPwATDgc/ABMA\n")
    args = ["rollout", str(f), "--trials", "60", "--shard-trials", "20", "--json",
            "--out", str(tmp_path / "out")]
    count = Counting()
    monkeypatch.setattr(cluster, "_remote", count)
    first = run(capsys, ray_cluster, *args)
    assert count.submitted == 6
    # Everything kept: nothing runs again.
    assert run(capsys, ray_cluster, *args) == first
    assert count.submitted == 6
    # One shard and the merged answer of line 2 lost (a driver stopped
    # after the first shard): only that shard runs.
    shards = sorted((tmp_path / "out").glob("rollout-*/0000001/*.shard"))
    assert len(shards) == 3
    shards[1].unlink()
    answer = next((tmp_path / "out").glob("rollout-*/0000001.json"))
    answer.unlink()
    assert run(capsys, ray_cluster, *args) == first
    assert count.submitted == 7
    assert first[1:] == [cli_rollout(cli, p, "--trials", "60") for p in ("start", "4HPwATDgc/ABMA")]


def test_annotate_is_the_commands(ray_cluster, cli, capsys, tmp_path):
    files = [
        str(MATCHES / "01_galaxy_1pt_match8321063.mat"),
        str(MATCHES / "12_bgstudio_3pt_MrPurple-Lasse_garbage_resign.mat"),
        str(tmp_path / "missing.mat"),
    ]
    capsys.readouterr()
    code = cluster.main(["annotate", *files, "--ply", "0", "--json", "--address",
                         ray_cluster.address, "--out", str(tmp_path / "out"), "--quiet"])
    got = capsys.readouterr()
    want_code, want_out, want_err = cli.run("annotate", *files, "--ply", "0", "--json",
                                            "--quiet")
    assert code == want_code == 1, "a missing file makes the exit status 1"
    assert got.out == want_out
    assert got.err.strip() == want_err.strip()


def _label_here_and_on_the_cluster(ray_cluster, cli, capsys, tmp_path, games, common):
    """`train expert COMMON` run here and through the cluster's `label`
    from copies of one tiny net; the two label files must be the same.
    Returns the local label file, the cluster's rounds and the two nets."""
    net = tmp_path / "net.weights"
    code, _, err = cli.run("train", "selfplay", "--checkpoint", str(net), "--games", str(games),
                           "--hidden", "32", "--race-hidden", "32", "--check-every", "0",
                           "--quiet")
    assert code == 0, err
    local, remote = tmp_path / "local.weights", tmp_path / "remote.weights"
    shutil.copy(net, local)
    shutil.copy(net, remote)
    code, _, err = cli.run("train", "expert", "--checkpoint", str(local), "--cache",
                           str(tmp_path / "local"), *common)
    assert code == 0, err
    got = run(capsys, ray_cluster, "label", "--", "--checkpoint", str(remote), "--cache",
              str(tmp_path / "remote"), *common)
    assert got[0] == "0", got
    (label,) = sorted((tmp_path / "local").iterdir())
    assert filecmp.cmp(label, tmp_path / "remote" / label.name, shallow=False)
    return label, [json.loads(line) for line in got[1:]], local, remote


def test_label_sends_the_sample_to_the_workers(ray_cluster, cli, capsys, tmp_path):
    args = ["--labels", "search", "--sample", "a.ids", "--seed", "2"]
    assert cluster._sample_path(args) == "a.ids"
    assert cluster._with_sample(args, "/tmp/b.ids") == [
        "--labels", "search", "--sample", "/tmp/b.ids", "--seed", "2"]
    assert cluster._with_sample(["--sample=a.ids"], "b") == ["--sample=b"]
    assert cluster._sample_path(["--labels", "search"]) is None
    sample = tmp_path / "real.ids"
    sample.write_text("4HPwATDgc/ABMA\njGfkASjg8wcBMA\n4HPhASHgc/ABMA\n")
    common = ["--labels", "search", "--ply", "0", "--positions", "10", "--epochs", "0",
              "--sample", str(sample), "--check-pairs", "1", "--quiet"]
    label, _, _, _ = _label_here_and_on_the_cluster(ray_cluster, cli, capsys, tmp_path, 16,
                                                    common)
    ids = {line.split()[0] for line in label.read_text().splitlines() if not line.startswith("#")}
    assert ids == set(sample.read_text().split())


def test_label_is_train_expert(ray_cluster, cli, capsys, tmp_path):
    common = ["--labels", "decisions:2", "--ply", "0", "--positions", "3000", "--seed", "4",
              "--epochs", "1", "--batch", "16", "--check-pairs", "5", "--quiet"]
    label, rounds, local, remote = _label_here_and_on_the_cluster(
        ray_cluster, cli, capsys, tmp_path, 64, common)
    assert len(rounds) == 1 and rounds[0]["labelled_here"] == rounds[0]["pieces"] >= 2, rounds
    assert Path(rounds[0]["label_file"]).name == label.name
    # The fitted nets are the same net: the same numbers everywhere.
    for pos in ["start", "4HPwATDgc/ABMA", "sGfwATDgc/ABMA"]:
        assert cli.json("eval", pos, "--weights", str(local)) == cli.json(
            "eval", pos, "--weights", str(remote)
        )


def test_rollout_survives_a_lost_node(ray_cluster, cli, capsys, tmp_path):
    """Runs last in this module: it changes the cluster's nodes."""
    f = tmp_path / "positions.txt"
    f.write_text("start\n")
    out = tmp_path / "out"
    flags = ["--trials", "2592", "--seed", "9"]
    result: dict = {}

    def job() -> None:
        result["code"] = cluster.main(["rollout", str(f), *flags, "--shard-trials", "72",
                                       "--json", "--out", str(out), "--address",
                                       ray_cluster.address, "--quiet"])

    capsys.readouterr()
    t = threading.Thread(target=job)
    t.start()
    deadline = time.time() + 300
    while not list(out.glob("rollout-*/0000000/*.shard")):
        assert time.time() < deadline and t.is_alive(), "no shard finished"
        time.sleep(0.05)
    victim = next(n for n in ray_cluster.worker_nodes)
    ray_cluster.remove_node(victim)
    ray_cluster.add_node(num_cpus=1)
    t.join(timeout=600)
    assert not t.is_alive()
    lines = capsys.readouterr().out.splitlines()
    assert result["code"] == 0
    assert len(list(out.glob("rollout-*/0000000/*.shard"))) == 36
    assert lines == [cli_rollout(cli, "start", *flags)]
