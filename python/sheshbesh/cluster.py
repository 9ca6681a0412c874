"""``sheshbesh-cluster``: rollouts, annotation and training labels on Ray.

Each job computes exactly what the single-machine command computes, with
its work spread over a Ray cluster (or a local Ray instance):

``rollout FILE``
    One POSITION a line. Each position's trials are split into shards of
    trial ranges (trial ``i`` plays the dice of ``(seed, i)`` wherever it
    runs), played as tasks, and merged on the driver into exactly what
    ``sheshbesh rollout POSITION ... --json`` prints: one JSON line per
    input line, in input order (``{"line": N, "error": ...}`` for a line
    that is not a position the rollout can take).

``annotate FILE|DIR...``
    One task per match file (the driver reads the files, so workers need
    not see its disk). Standard output is what ``sheshbesh annotate ...
    --json`` prints; the final table goes to standard error (not with
    ``--quiet``).

``label -- ARGS``
    The next round(s) of ``sheshbesh train expert ARGS`` (which must name
    ``--cache``): the round's label pieces are made as tasks and kept in
    the cache as a local run keeps them; the driver then joins them into
    the same label file and fits, checks and writes the checkpoint.

Finished work is kept in files written atomically (``--out`` for rollouts
and annotation, the ``--cache`` for labels), so the same command run again
skips it. A task whose worker or node is lost is run again by Ray, and as
every task depends only on its inputs, the result does not change.

Every node needs the package installed (``pip install ./python``); the
engine, the shipped weights and its bear-off databases come with it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import shlex
import sys
import tempfile
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from . import _native
from ._native import InputError

#: Trials per rollout shard, unless ``--shard-trials`` says otherwise: a
#: quarter of the default 1296, so one position already keeps four
#: workers busy while a task still outlasts its scheduling by far.
SHARD_TRIALS = 324

#: Retries of a task whose worker process or node died.
RETRIES = 5


class UsageError(Exception):
    """A command that cannot start; its message is the one line printed."""


# ----------------------------------------------------------------- files


def write_atomic(path: str, data: bytes) -> None:
    """Writes ``data`` to ``path`` so that a reader sees the old file or
    the whole new one, never a part (a driver may be stopped anywhere)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _read(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"{what} {path}: cannot read: {e.strerror}") from None


def _json(value: Any) -> str:
    """JSON as the command line prints it: compact, UTF-8 as is."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _digest(*parts: Any) -> str:
    """A short name for a job: a hash of everything its result depends on."""
    h = hashlib.sha256()
    for p in parts:
        h.update(p if isinstance(p, bytes) else json.dumps(p, sort_keys=True).encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


# Weights files sent to workers, written once per process by content.
_LOCAL_FILES: Dict[str, str] = {}


def _local_file(blob: Optional[bytes], suffix: str = ".weights") -> Optional[str]:
    """A local path holding ``blob`` (weights, a checkpoint or a sample sent
    from the driver), so a worker on another machine reads the driver's
    file."""
    if blob is None:
        return None
    sha = hashlib.sha256(blob).hexdigest()
    path = _LOCAL_FILES.get(sha)
    if path is None:
        path = os.path.join(tempfile.gettempdir(), f"sheshbesh-{sha[:24]}{suffix}")
        if not os.path.exists(path):
            write_atomic(path, blob)
        _LOCAL_FILES[sha] = path
    return path


# ----------------------------------------------------------------- tasks
# Plain functions, made Ray tasks in `_remote`: each uses one core (the
# engine's pools get one thread: see `_connect`), so Ray's CPU count is
# the parallelism.


def _rollout_shard_task(
    position: str, start: int, end: int, settings: Dict[str, Any], weights: Optional[bytes]
) -> bytes:
    return _native.rollout_shard(
        position, start, end, threads=1, weights=_local_file(weights), **settings
    )


def _annotate_task(
    path: str, data: bytes, ply: int, weights: Optional[bytes]
) -> Tuple[str, str]:
    return _native.annotate_file(path, data, ply, _local_file(weights))


def _label_task(
    args: List[str], checkpoint: bytes, teacher: Optional[bytes], sample: Optional[bytes],
    piece: int
) -> str:
    ckpt = _local_file(checkpoint)
    assert ckpt is not None
    if sample is not None:
        # The driver's --sample file, read here from this machine's copy.
        args = _with_sample(args, _local_file(sample, ".ids"))
    return _native.label_pieces(args, ckpt, [piece], _local_file(teacher))[0]


def _sample_path(args: List[str]) -> Optional[str]:
    """The file ``--sample`` names in ``train expert`` arguments, if any."""
    for i, x in enumerate(args):
        if x == "--sample" and i + 1 < len(args):
            return args[i + 1]
        if x.startswith("--sample="):
            return x[len("--sample="):]
    return None


def _with_sample(args: List[str], path: Optional[str]) -> List[str]:
    """``args`` with ``--sample`` naming ``path`` instead."""
    out: List[str] = []
    skip = False
    for i, x in enumerate(args):
        if skip:
            skip = False
            continue
        if x == "--sample" and i + 1 < len(args):
            out += ["--sample", str(path)]
            skip = True
        elif x.startswith("--sample="):
            out.append(f"--sample={path}")
        else:
            out.append(x)
    return out


def _remote(fn: Callable[..., Any]) -> Any:
    import ray

    return ray.remote(num_cpus=1, max_retries=RETRIES)(fn)


# ----------------------------------------------------------------- Ray


def _connect(address: Optional[str]) -> None:
    """Joins the cluster at ``address`` (``auto`` or ``HOST:PORT``), or
    starts a local instance on this machine's cores."""
    import ray

    if ray.is_initialized():
        return
    # One task, one core: the engine's global pool in each worker process
    # gets one thread.
    env = {"env_vars": {"RAYON_NUM_THREADS": "1"}}
    # Ray's own notices (token authentication set up, a local instance
    # started) ask nothing of the user: only its errors are shown.
    quiet = {"log_to_driver": False, "logging_level": logging.ERROR}
    if address:
        ray.init(address=address, runtime_env=env, **quiet)
    else:
        ray.init(include_dashboard=False, runtime_env=env, **quiet)


def _window() -> int:
    """Tasks kept in flight: enough to keep every core busy, few enough
    that results stream out in input order."""
    import ray

    cpus = int(ray.cluster_resources().get("CPU", 1))
    return max(8, 4 * cpus)


def _cause(e: BaseException) -> str:
    """The engine's message inside a failed task's error."""
    cause = getattr(e, "cause", None)
    return str(cause) if cause is not None else str(e).strip().splitlines()[-1]


def _drain(
    tasks: Iterable[Tuple[Any, Callable[[], Any]]],
    done: Callable[[Any, Any, Optional[str]], None],
) -> None:
    """Submits ``tasks`` (tag, submit) in order, a window at a time, and
    calls ``done(tag, value, error)`` as each finishes."""
    import ray

    window = _window()
    pending: Dict[Any, Any] = {}
    source: Iterator[Tuple[Any, Callable[[], Any]]] = iter(tasks)
    more = True
    while True:
        while more and len(pending) < window:
            try:
                tag, submit = next(source)
            except StopIteration:
                more = False
                break
            pending[submit()] = tag
        if not pending:
            return
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            tag = pending.pop(ref)
            try:
                value, error = ray.get(ref), None
            except ray.exceptions.RayError as e:
                value, error = None, _cause(e)
            done(tag, value, error)


def _progress(total: int, unit: str, quiet: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, file=sys.stderr, disable=quiet or total == 0)


# ----------------------------------------------------------------- rollout


def _shard_ranges(trials: int, size: int) -> List[Tuple[int, int]]:
    return [(s, min(s + size, trials)) for s in range(0, trials, size)]


def rollout(a: argparse.Namespace, out: Callable[[str], None]) -> int:
    """``sheshbesh-cluster rollout``: prints one JSON line per line of
    ``a.file``; returns 1 if any line was not a position, else 0."""
    if a.shard_trials < 1:
        raise UsageError(f"--shard-trials {a.shard_trials}: give 1 or more")
    text = _read(a.file, "positions file")
    try:
        lines = text.decode("utf-8").splitlines()
    except UnicodeDecodeError as e:
        raise UsageError(f"positions file {a.file}: not UTF-8 text (byte {e.start})") from None
    settings: Dict[str, Any] = dict(
        ply=a.ply,
        cubeful=a.cubeful,
        trials=a.trials,
        truncate=a.truncate,
        seed=a.seed,
        level=a.level,
        luck=not a.no_luck,
        quasi=not a.no_quasi,
    )
    weights = _read(a.weights, "weights") if a.weights else None
    state = os.path.join(a.out, "rollout-" + _digest(settings, weights or b"", text))

    answers: List[Optional[str]] = [None] * len(lines)
    failed: set = set()

    def fail(i: int, message: str) -> None:
        failed.add(i)
        answers[i] = _json({"line": i + 1, "error": message})

    todo: Dict[int, List[Tuple[int, int]]] = {}
    for i, line in enumerate(lines):
        pos = line.strip()
        answer = os.path.join(state, f"{i:07}.json")
        if not pos:
            fail(i, "empty line: expected a POSITION")
            continue
        try:
            _native.rollout_check(pos, **settings)
        except InputError as e:
            fail(i, str(e))
            continue
        if os.path.exists(answer):
            answers[i] = _read(answer, "kept answer").decode()
            continue
        ranges = _shard_ranges(a.trials, a.shard_trials)
        todo[i] = [r for r in ranges if not os.path.exists(_shard_file(state, i, r))]

    printed = 0

    def flush() -> None:
        nonlocal printed
        while printed < len(lines) and answers[printed] is not None:
            out(answers[printed] or "")
            printed += 1

    def merge(i: int) -> None:
        pos = lines[i].strip()
        shards = [_read(_shard_file(state, i, r), "kept shard") for r in
                  _shard_ranges(a.trials, a.shard_trials)]
        try:
            answer = _native.rollout_merge(pos, shards, **settings)
        except InputError as e:
            fail(i, str(e))
        else:
            write_atomic(os.path.join(state, f"{i:07}.json"), answer.encode())
            answers[i] = answer

    for i in [i for i, left in todo.items() if not left]:
        merge(i)
    flush()
    pending = {i: len(left) for i, left in todo.items() if left}
    if not pending:
        return 1 if failed else 0

    _connect(a.address)
    import ray

    task = _remote(_rollout_shard_task)
    wref = ray.put(weights)
    bar = _progress(sum(pending.values()), "shard", a.quiet)

    def tasks() -> Iterator[Tuple[Any, Callable[[], Any]]]:
        for i, left in todo.items():
            for r in left:
                yield (i, r), (lambda i=i, r=r: task.remote(lines[i].strip(), r[0], r[1],
                                                            settings, wref))

    def done(tag: Tuple[int, Tuple[int, int]], value: Optional[bytes], error: Optional[str]):
        i, r = tag
        bar.update(1)
        if answers[i] is not None:
            return
        if error is not None:
            fail(i, error)
        else:
            write_atomic(_shard_file(state, i, r), value or b"")
            pending[i] -= 1
            if pending[i] == 0:
                merge(i)
        flush()

    _drain(tasks(), done)
    bar.close()
    flush()
    return 1 if failed else 0


def _shard_file(state: str, line: int, r: Tuple[int, int]) -> str:
    return os.path.join(state, f"{line:07}", f"{r[0]:09}-{r[1]:09}.shard")


# ----------------------------------------------------------------- annotate


def annotate(a: argparse.Namespace, out: Callable[[str], None]) -> int:
    """``sheshbesh-cluster annotate``: prints what ``sheshbesh annotate
    ... --json`` prints and (without ``--quiet``) the table on standard
    error; returns 1 if any file could not be annotated."""
    if a.ply > 4:
        raise UsageError(f"--ply {a.ply}: at most 4")
    try:
        files = [str(f) for f in _native.annotate_files(list(a.files))]
    except InputError as e:
        raise UsageError(str(e)) from None
    blobs: List[Optional[bytes]] = []
    for f in files:
        try:
            with open(f, "rb") as fh:
                blobs.append(fh.read())
        except OSError:
            blobs.append(None)
    weights = _read(a.weights, "weights") if a.weights else None
    state = os.path.join(
        a.out,
        "annotate-" + _digest(a.ply, weights or b"", [
            [f, hashlib.sha256(b).hexdigest() if b is not None else None]
            for f, b in zip(files, blobs)]),
    )
    results: List[Optional[Tuple[str, str]]] = [None] * len(files)
    for i in range(len(files)):
        kept = os.path.join(state, f"{i:07}.json")
        if blobs[i] is None:
            # The engine words the file's error as the command line does.
            results[i] = _native.annotate_file(files[i], None, a.ply, _local_file(weights))
        elif os.path.exists(kept):
            j, row = json.loads(_read(kept, "kept annotation"))
            results[i] = (j, row)

    several = len(files) > 1
    printed = 0
    if several:
        out("[")

    def flush() -> None:
        nonlocal printed
        while printed < len(files) and results[printed] is not None:
            j = results[printed][0]  # type: ignore[index]
            out(j + ("," if several and printed + 1 < len(files) else ""))
            printed += 1

    flush()
    left = [i for i, r in enumerate(results) if r is None]
    if left:
        _connect(a.address)
        import ray

        task = _remote(_annotate_task)
        wref = ray.put(weights)
        bar = _progress(len(left), "file", a.quiet)

        def done(i: int, value: Optional[Tuple[str, str]], error: Optional[str]) -> None:
            bar.update(1)
            if error is not None:
                # The engine turns a bad file into its answer; only a lost
                # task (retries spent) lands here.
                value = (
                    _json({"file": files[i], "error": error}),
                    _json({"Failed": {"path": files[i], "error": error}}),
                )
            else:
                assert value is not None
                write_atomic(os.path.join(state, f"{i:07}.json"), json.dumps(list(value)).encode())
            results[i] = (value[0], value[1])
            flush()

        _drain(
            ((i, lambda i=i: task.remote(files[i], blobs[i], a.ply, wref)) for i in left), done
        )
        bar.close()
    flush()
    if several:
        out("]")
    rows = [r[1] for r in results if r is not None]
    if not a.quiet:
        sys.stderr.write(_native.annotate_table(rows))
    return 1 if any("Failed" in json.loads(r) for r in rows) else 0


# ----------------------------------------------------------------- label


def label(a: argparse.Namespace, out: Callable[[str], None]) -> int:
    """``sheshbesh-cluster label -- ARGS``: the rounds of ``sheshbesh train
    expert ARGS`` with their labels made on the cluster; prints one JSON
    line per round."""
    args = [x for x in a.args if x != "--"] if a.args[:1] == ["--"] else list(a.args)
    if not args:
        raise UsageError("label: give the arguments of `sheshbesh train expert` after --")
    command = "sheshbesh-cluster label -- " + " ".join(shlex.quote(x) for x in args)
    job = _label_job(args)
    for r in range(int(job["rounds"])):
        if r > 0:
            # The next round samples from the net the last one fitted.
            job = _label_job(args)
        made = 0
        if not os.path.exists(job["label_file"]):
            missing = [k for k, p in enumerate(job["piece_files"]) if not os.path.exists(p)]
            made = len(missing)
            if missing:
                _connect(a.address)
                import ray

                task = _remote(_label_task)
                ckpt = ray.put(_read(job["checkpoint"], "checkpoint"))
                teacher = ray.put(_read(job["teacher"], "teacher") if job["teacher"] else None)
                named = _sample_path(args)
                sample = ray.put(_read(named, "sample") if named else None)
                bar = _progress(len(missing), "piece", a.quiet)
                errors: List[str] = []

                def done(k: int, text: Optional[str], error: Optional[str]) -> None:
                    bar.update(1)
                    if error is not None:
                        errors.append(f"piece {k}: {error}")
                    else:
                        write_atomic(job["piece_files"][k], (text or "").encode())

                _drain(((k, lambda k=k: task.remote(args, ckpt, teacher, sample, k))
                        for k in missing), done)
                bar.close()
                if errors:
                    raise UsageError(errors[0])
        try:
            done_rounds = _native.train_expert_round(args, command)
        except InputError as e:
            raise UsageError(str(e)) from None
        if done_rounds < job["round"]:
            raise UsageError(f"round {job['round']}: pieces are missing after labelling")
        out(_json({"round": job["round"], "pieces": len(job["piece_files"]),
                        "labelled_here": made, "label_file": job["label_file"],
                        "checkpoint": job["checkpoint"]}))
    return 0


def _label_job(args: List[str]) -> Dict[str, Any]:
    try:
        return json.loads(_native.label_job(args))
    except InputError as e:
        raise UsageError(str(e)) from None


# ----------------------------------------------------------------- command line


def parser() -> argparse.ArgumentParser:
    """The command line of ``sheshbesh-cluster``."""
    p = argparse.ArgumentParser(
        prog="sheshbesh-cluster",
        description="Sheshbesh's rollouts, annotation and training labels on a Ray cluster; "
        "every result is the one `sheshbesh` computes on one machine.",
    )
    sub = p.add_subparsers(dest="job", required=True)

    def common(q: argparse.ArgumentParser, keeps: bool = True) -> None:
        q.add_argument("--address", help="join this Ray cluster (`auto` or HOST:PORT); "
                       "default: start a local Ray instance")
        if keeps:
            q.add_argument("--out", default="sheshbesh-cluster.out",
                           help="folder keeping finished work, so the same command run "
                           "again skips it (default: %(default)s)")
        q.add_argument("--quiet", action="store_true", help="no progress bar (and no annotation table)")

    r = sub.add_parser("rollout", help="roll out every position of a file (one a line)")
    r.add_argument("file", help="one POSITION a line (Position ID, ID:MatchID, XGID, start)")
    r.add_argument("--trials", type=int, default=1296)
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--ply", type=int, default=0)
    r.add_argument("--truncate", type=int)
    r.add_argument("--cubeful", action="store_true")
    r.add_argument("--level", help="a named rollout level, as `sheshbesh rollout --level`")
    r.add_argument("--no-luck", action="store_true", help="no variance reduction")
    r.add_argument("--no-quasi", action="store_true", help="no quasi-random dice")
    r.add_argument("--weights", help="a weights file instead of the shipped weights")
    r.add_argument("--shard-trials", type=int, default=SHARD_TRIALS,
                   help="trials per task (default: %(default)s); the result does not "
                   "depend on it")
    r.add_argument("--json", action="store_true", required=True,
                   help="JSON lines, as `sheshbesh rollout --json` (required)")
    common(r)

    n = sub.add_parser("annotate", help="annotate match files (.mat, .sgf) or folders of them")
    n.add_argument("files", nargs="+", metavar="FILE|DIR")
    n.add_argument("--ply", type=int, default=2)
    n.add_argument("--weights", help="a weights file instead of the shipped weights")
    n.add_argument("--json", action="store_true", required=True,
                   help="JSON, as `sheshbesh annotate --json` (required)")
    common(n)

    lab = sub.add_parser("label", help="expert-iteration rounds with labels made on the cluster",
                         description="Runs `sheshbesh train expert ARGS` (ARGS must name "
                         "--cache), its labels made on the cluster.")
    common(lab, keeps=False)
    lab.add_argument("args", nargs=argparse.REMAINDER, metavar="-- ARGS")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs ``sheshbesh-cluster``; returns the exit status."""
    a = parser().parse_args(argv)
    # Standard output carries the results alone: Ray prints its notices
    # (a task retried after a lost node, ...) to `sys.stdout`, so that
    # points at standard error while the job runs.
    stdout = sys.stdout

    def out(line: str) -> None:
        stdout.write(line + "\n")
        stdout.flush()

    jobs = {"rollout": rollout, "annotate": annotate, "label": label}
    sys.stdout = sys.stderr
    try:
        return jobs[a.job](a, out)
    except UsageError as e:
        sys.stderr.write(f"sheshbesh-cluster: {e}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("sheshbesh-cluster: interrupted; finished work is kept\n")
        return 130
    finally:
        sys.stdout = stdout


if __name__ == "__main__":
    sys.exit(main())
