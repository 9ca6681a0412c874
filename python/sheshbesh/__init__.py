"""Sheshbesh, a backgammon (shesh-besh) analysis engine, from Python.

Every function gives what the command line prints with ``--json`` for the
same input (the same Rust code answers both), parsed into Python values;
``evaluate`` gives many positions' probabilities as one numpy array. A
POSITION is anything the command line reads: a gnubg Position ID,
``PositionID:MatchID``, an XGID, or ``"start"``. Bad input raises
:class:`InputError` with the command line's one-line message.

The engine's own threads do the work with the interpreter lock released.
Weights default to the shipped net; ``weights=PATH`` takes a file made by
``sheshbesh train``.

>>> import sheshbesh
>>> sheshbesh.hint("start", "31")["moves"][0]["move"]
'8/5 6/5'
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _native
from ._native import InputError

__all__ = [
    "InputError",
    "Position",
    "annotate",
    "annotate_files",
    "cube",
    "cube_rollout",
    "evaluate",
    "evaluation",
    "hint",
    "met",
    "moves",
    "position",
    "rollout",
    "rollout_merge",
    "rollout_shard",
    "PROBABILITIES",
]

#: The five outcome probabilities, in the order of ``evaluate``'s columns
#: and of every ``probs`` list: win, win gammon, win backgammon, lose
#: gammon, lose backgammon (for the player on roll).
PROBABILITIES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")

#: A POSITION as the command line reads it.
Position = str
#: A JSON object as the command line prints it.
Answer = Dict[str, Any]
PathLike = Union[str, "os.PathLike[str]"]


def _path(p: Optional[PathLike]) -> Optional[str]:
    return None if p is None else os.fspath(p)


def position(position: Position) -> Answer:
    """``sheshbesh show POSITION --json``: the Position ID, Match ID, XGID,
    the board (``board.on_roll`` and ``board.opponent``: bar, points 1-24
    from each side's own view, borne off) and the pip counts."""
    return json.loads(_native.position(position))


def moves(position: Position, dice: Optional[str] = None) -> Answer:
    """``sheshbesh moves POSITION [DICE] --json``: every legal move of the
    roll (``"31"``, ``"3-1"``, ``"3,1"``; default: the dice the position
    carries), one per distinct resulting position."""
    return json.loads(_native.moves(position, dice))


def hint(
    position: Position,
    dice: Optional[str] = None,
    ply: int = 0,
    weights: Optional[PathLike] = None,
    cubeless: bool = False,
) -> Answer:
    """``sheshbesh hint POSITION [DICE] --ply PLY [--cubeless] --json``: the
    legal plays ranked best first with probabilities and cubeful equity
    (EMG and MWC at a match score; cubeless with ``cubeless=True``)."""
    return json.loads(_native.hint(position, dice, ply, _path(weights), cubeless))


def evaluation(position: Position, ply: int = 0, weights: Optional[PathLike] = None) -> Answer:
    """``sheshbesh eval POSITION --ply PLY --json``: outcome probabilities,
    cubeless and cubeful equities and the cube action."""
    return json.loads(_native.evaluation(position, ply, _path(weights)))


def evaluate(
    positions: Sequence[Position], ply: int = 0, weights: Optional[PathLike] = None
) -> "np.ndarray":
    """The outcome probabilities of many positions at ``ply`` in one call,
    in parallel: a float32 array of shape ``(len(positions), 5)``, columns
    as :data:`PROBABILITIES`. Row ``i`` is ``evaluation(positions[i],
    ply)["probs"]`` before its rounding to six decimals."""
    return _native.evaluate(list(positions), ply, _path(weights))


def cube(position: Position, ply: int = 0, weights: Optional[PathLike] = None) -> Answer:
    """``sheshbesh cube POSITION --ply PLY --json``: the cube decision in
    gnubg's words with no double / double-take / double-pass equities (EMG
    in match play), take and cash points."""
    return json.loads(_native.cube(position, ply, _path(weights)))


def cube_rollout(
    position: Position,
    ply: int = 0,
    trials: int = 1296,
    truncate: Optional[int] = None,
    seed: int = 1,
    threads: Optional[int] = None,
    level: Optional[str] = None,
    target_se: Optional[float] = None,
    luck: bool = True,
    quasi: bool = True,
    weights: Optional[PathLike] = None,
) -> Answer:
    """``sheshbesh cube POSITION --rollout --json``: no double against
    double/take rolled out on the same dice with a live cube, with standard
    errors and how sure the verdict is."""
    return json.loads(
        _native.cube_rollout(
            position, ply, trials, truncate, seed, threads, level, target_se, luck, quasi,
            _path(weights),
        )
    )


def rollout(
    position: Position,
    dice: Optional[str] = None,
    ply: int = 0,
    cubeful: bool = False,
    moves: int = 4,
    trials: int = 1296,
    truncate: Optional[int] = None,
    seed: int = 1,
    threads: Optional[int] = None,
    level: Optional[str] = None,
    target_se: Optional[float] = None,
    luck: bool = True,
    quasi: bool = True,
    weights: Optional[PathLike] = None,
) -> Answer:
    """``sheshbesh rollout POSITION [DICE] --json``: a rollout of the
    position (money, or the match at its score), or with ``dice`` the best
    ``moves`` plays of the roll against each other. The same for any
    ``threads``."""
    return json.loads(
        _native.rollout(
            position, dice, ply, cubeful, moves, trials, truncate, seed, threads, level,
            target_se, luck, quasi, _path(weights),
        )
    )


def rollout_shard(
    position: Position,
    start: int,
    end: int,
    ply: int = 0,
    cubeful: bool = False,
    trials: int = 1296,
    truncate: Optional[int] = None,
    seed: int = 1,
    threads: Optional[int] = None,
    level: Optional[str] = None,
    luck: bool = True,
    quasi: bool = True,
    weights: Optional[PathLike] = None,
) -> bytes:
    """Trials ``start..end`` of ``rollout(position, ...)`` as bytes. Shards
    played anywhere (other processes, other machines) merge with
    :func:`rollout_merge` into exactly the rollout's result."""
    return _native.rollout_shard(
        position, start, end, ply, cubeful, trials, truncate, seed, threads, level, luck,
        quasi, _path(weights),
    )


def rollout_merge(
    position: Position,
    shards: Sequence[bytes],
    ply: int = 0,
    cubeful: bool = False,
    trials: int = 1296,
    truncate: Optional[int] = None,
    seed: int = 1,
    level: Optional[str] = None,
    luck: bool = True,
    quasi: bool = True,
) -> Answer:
    """The answer of ``rollout(position, ...)`` from shards that cover its
    trials exactly once, in any order; shards of another position or other
    settings, gaps and overlaps raise :class:`InputError`."""
    return json.loads(
        _native.rollout_merge(
            position, [bytes(s) for s in shards], ply, cubeful, trials, truncate, seed, level,
            luck, quasi,
        )
    )


def annotate_files(paths: Sequence[PathLike]) -> List[str]:
    """The match files ``sheshbesh annotate`` reads for these paths:
    files as given, directories expanded to their match files, sorted."""
    return [str(p) for p in _native.annotate_files([os.fspath(p) for p in paths])]


def annotate(
    path: PathLike, ply: int = 2, weights: Optional[PathLike] = None, cubeless: bool = False
) -> Answer:
    """``sheshbesh annotate FILE --ply PLY [--cubeless] --json`` for one .mat
    or SGF file: players' error rates, PR and luck, results, and every
    decision judged (checker plays by cubeful equity unless ``cubeless``).
    A file that cannot be read raises :class:`InputError`."""
    text, _row = _native.annotate_file(os.fspath(path), None, ply, _path(weights), cubeless)
    answer = json.loads(text)
    if "error" in answer:
        raise InputError(f"{answer['file']}: {answer['error']}")
    return answer


def met(
    table: Optional[PathLike] = None,
    length: Optional[int] = None,
    score: Optional[str] = None,
    cube: int = 1,
) -> Answer:
    """``sheshbesh met [--table FILE] [--length N] [--score A,B --cube C]
    --json``: a match equity table (Kazaross-XG2 unless a gnubg MET XML
    file is given), and at ``score`` (``"3,5"``: on roll 3-away, opponent
    5-away) the MWC, take points and gammon values."""
    return json.loads(_native.met(_path(table), length, score, cube))
