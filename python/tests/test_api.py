"""The package gives the command line's numbers and messages.

Every function is compared with `sheshbesh ... --json` on the same input:
the parsed JSON must be equal, number for number.
"""

from __future__ import annotations

import numpy as np
import pytest

import sheshbesh
from sheshbesh import InputError

from conftest import MATCHES, ROOT

# A position in every form the command line reads.
POSITIONS = [
    "start",
    "4HPwATDgc/ABMA",
    "4HPwATDgc/ABMA:cIkqAAAAAAAA",
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",
    "XGID=aa--BBBB----dE---d-e----B-:1:1:-1:00:2:4:0:5:8",
    "sGfwATDgc/ABMA",
    "2+4BAQDg8+AAAA",
]


@pytest.mark.parametrize("pos", POSITIONS)
def test_position_and_moves_are_the_commands(cli, pos):
    assert sheshbesh.position(pos) == cli.json("show", pos)
    assert sheshbesh.moves(pos, "31") == cli.json("moves", pos, "31")
    assert sheshbesh.moves(pos, "6-6") == cli.json("moves", pos, "6-6")


@pytest.mark.parametrize("pos", POSITIONS)
@pytest.mark.parametrize("ply", [0, 1])
def test_hint_eval_and_cube_are_the_commands(cli, pos, ply):
    p = str(ply)
    assert sheshbesh.hint(pos, "52", ply=ply) == cli.json("hint", pos, "52", "--ply", p)
    cubeless = cli.json("hint", pos, "52", "--ply", p, "--cubeless")
    assert sheshbesh.hint(pos, "52", ply=ply, cubeless=True) == cubeless
    assert cubeless["equity"] == "cubeless"
    assert sheshbesh.evaluation(pos, ply=ply) == cli.json("eval", pos, "--ply", p)
    assert sheshbesh.cube(pos, ply=ply) == cli.json("cube", pos, "--ply", p)


def test_hint_at_two_ply_is_the_commands(cli):
    pos = POSITIONS[3]
    assert sheshbesh.hint(pos, ply=2) == cli.json("hint", pos, "--ply", "2")


def test_evaluate_gives_evals_probabilities_as_one_array(cli):
    for ply in (0, 1):
        probs = sheshbesh.evaluate(POSITIONS, ply=ply)
        assert probs.shape == (len(POSITIONS), 5)
        assert probs.dtype == np.float32
        for row, pos in zip(probs, POSITIONS):
            shown = cli.json("eval", pos, "--ply", str(ply))["probs"]
            # eval rounds to six decimals; the array keeps the engine's f32.
            assert np.abs(row.astype(np.float64) - np.array(shown)).max() <= 5.1e-7
    assert sheshbesh.evaluate([]).shape == (0, 5)


def test_rollouts_are_the_commands(cli):
    pos, match = POSITIONS[0], POSITIONS[4]
    assert sheshbesh.rollout(pos, trials=72, seed=5) == cli.json(
        "rollout", pos, "--trials", "72", "--seed", "5"
    )
    assert sheshbesh.rollout(match, trials=72, cubeful=True, truncate=9) == cli.json(
        "rollout", match, "--trials", "72", "--cubeful", "--truncate", "9"
    )
    assert sheshbesh.rollout(pos, dice="31", moves=3, trials=36) == cli.json(
        "rollout", pos, "31", "--moves", "3", "--trials", "36"
    )
    assert sheshbesh.cube_rollout(POSITIONS[3], trials=72, truncate=7) == cli.json(
        "cube", POSITIONS[3], "--rollout", "--trials", "72", "--truncate", "7"
    )


@pytest.mark.parametrize("cubeful", [False, True])
def test_rollout_shards_merge_into_exactly_the_rollout(cli, cubeful):
    pos = POSITIONS[4]
    kw = dict(cubeful=cubeful, trials=100, seed=11, truncate=12)
    whole = sheshbesh.rollout(pos, **kw)
    flags = ["--trials", "100", "--seed", "11", "--truncate", "12"]
    assert whole == cli.json("rollout", pos, *flags, *(["--cubeful"] if cubeful else []))
    for cuts in ([0, 100], [0, 1, 37, 99, 100], [0, 50, 100]):
        shards = [
            sheshbesh.rollout_shard(pos, a, b, threads=1, **kw) for a, b in zip(cuts, cuts[1:])
        ]
        assert sheshbesh.rollout_merge(pos, shards[::-1], **kw) == whole
    halves = [sheshbesh.rollout_shard(pos, 0, 50, **kw), sheshbesh.rollout_shard(pos, 40, 100, **kw)]
    with pytest.raises(InputError, match="trial 40 is in two shards"):
        sheshbesh.rollout_merge(pos, halves, **kw)
    with pytest.raises(InputError, match="another position or other settings"):
        sheshbesh.rollout_merge(POSITIONS[0], [sheshbesh.rollout_shard(pos, 0, 100, **kw)],
                                cubeful=cubeful, trials=100, seed=11, truncate=12)
    with pytest.raises(InputError, match="not a rollout shard"):
        sheshbesh.rollout_merge(pos, [b"junk"], **kw)


def test_annotation_is_the_commands(cli, tmp_path):
    match = str(MATCHES / "02_galaxy_2pt_match8062348.mat")
    assert sheshbesh.annotate(match, ply=0) == cli.json("annotate", match, "--ply", "0")
    files = sheshbesh.annotate_files([MATCHES])
    assert len(files) >= 19 and files == sorted(files)
    bad = tmp_path / "bad.mat"
    bad.write_text("garbage\n")
    with pytest.raises(InputError, match="expected \"N point match\""):
        sheshbesh.annotate(bad, ply=0)


def test_met_is_the_commands(cli):
    assert sheshbesh.met() == cli.json("met")
    assert sheshbesh.met(length=7, score="3,5", cube=2) == cli.json(
        "met", "--length", "7", "--score", "3,5", "--cube", "2"
    )
    table = str(ROOT / "data" / "met" / "Kazaross-XG2.xml")
    assert sheshbesh.met(table=table, length=5) == cli.json("met", "--table", table, "--length", "5")


@pytest.mark.parametrize(
    "call, args",
    [
        (lambda: sheshbesh.hint("bogus", "31"), ["hint", "bogus", "31"]),
        (lambda: sheshbesh.hint("start", "77"), ["hint", "start", "77"]),
        (lambda: sheshbesh.hint("start", "31", ply=9), ["hint", "start", "31", "--ply", "9"]),
        (lambda: sheshbesh.moves("4HPwATDgc/ABM"), ["moves", "4HPwATDgc/ABM"]),
        (lambda: sheshbesh.evaluation("XGID=zz"), ["eval", "XGID=zz"]),
        (lambda: sheshbesh.cube("start", weights="/nonexistent.weights"),
         ["cube", "start", "--weights", "/nonexistent.weights"]),
        (lambda: sheshbesh.met(score="3,x"), ["met", "--score", "3,x"]),
        (lambda: sheshbesh.met(score="2,4", cube=3), ["met", "--score", "2,4", "--cube", "3"]),
        (lambda: sheshbesh.cube("start", weights="/dev/zero"),
         ["cube", "start", "--weights", "/dev/zero"]),
        (lambda: sheshbesh.rollout("start", level="fastest"),
         ["rollout", "start", "--level", "fastest"]),
        (lambda: sheshbesh.rollout("start", threads=100000),
         ["rollout", "start", "--threads", "100000"]),
        (lambda: sheshbesh.rollout("start", target_se=float("nan")),
         ["rollout", "start", "--target-se", "NaN"]),
    ],
)
def test_bad_input_raises_the_commands_message(cli, call, args):
    with pytest.raises(InputError) as e:
        call()
    assert str(e.value) == cli.error(*args)
    assert isinstance(e.value, ValueError)


def test_a_rollout_of_no_plays_is_refused():
    # The command line's --moves takes 1 to 100; so does the package.
    with pytest.raises(InputError, match="bad moves 0"):
        sheshbesh.rollout("start", "31", moves=0, trials=36)


def test_evaluate_names_the_bad_position():
    with pytest.raises(InputError, match=r"^position 1: bad Position ID"):
        sheshbesh.evaluate(["start", "nonsense"])
