//! `sheshbesh._native`: the engine for Python, over the command line's
//! own answers ([`sheshbesh::api`]), so every number is the one `sheshbesh
//! ... --json` prints. Answers cross as JSON text (parsed by the Python
//! layer in `sheshbesh/__init__.py`), probabilities as numpy arrays, and
//! rollout shards as bytes; bad input raises `InputError` with the
//! command's message. The interpreter lock is released while the engine
//! works, so other Python threads (Ray's among them) keep running.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray2};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sheshbesh::api::{self, RolloutOptions, Row};
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;

create_exception!(
    _native,
    InputError,
    PyValueError,
    "Bad input: the message is the one line the command line prints."
);

/// The command's one-line message, as the command line prints it.
fn input_error(e: anyhow::Error) -> PyErr {
    InputError::new_err(format!("{e:#}"))
}

/// Evaluators by weights file (`None`: the shipped weights), loaded once
/// per process: loading decodes the net and reads the bear-off databases.
fn evaluator(weights: Option<PathBuf>) -> PyResult<Arc<NetEvaluator>> {
    static LOADED: OnceLock<Mutex<HashMap<Option<PathBuf>, Arc<NetEvaluator>>>> = OnceLock::new();
    let cache = LOADED.get_or_init(Default::default);
    if let Some(ev) = cache.lock().expect("evaluator cache").get(&weights) {
        return Ok(ev.clone());
    }
    let ev = Arc::new(api::load_evaluator(weights.as_deref()).map_err(input_error)?);
    cache
        .lock()
        .expect("evaluator cache")
        .insert(weights, ev.clone());
    Ok(ev)
}

/// Runs `f` without the interpreter lock and turns its error into
/// `InputError`.
fn work<T: Send>(py: Python<'_>, f: impl FnOnce() -> anyhow::Result<T> + Send) -> PyResult<T> {
    py.detach(f).map_err(input_error)
}

/// The rollout options of the command line, from keyword arguments.
#[allow(clippy::too_many_arguments)]
fn options(
    trials: u32,
    truncate: Option<u32>,
    seed: u64,
    threads: Option<usize>,
    level: Option<String>,
    target_se: Option<f32>,
    luck: bool,
    quasi: bool,
) -> RolloutOptions {
    RolloutOptions {
        trials,
        truncate,
        seed,
        threads,
        level,
        target_se,
        no_luck: !luck,
        no_quasi: !quasi,
    }
}

/// `show POSITION --json`.
#[pyfunction]
fn position(py: Python<'_>, position: String) -> PyResult<String> {
    work(py, || Ok(api::position(&position)?.to_string()))
}

/// `moves POSITION [DICE] --json`.
#[pyfunction]
#[pyo3(signature = (position, dice=None))]
fn moves(py: Python<'_>, position: String, dice: Option<String>) -> PyResult<String> {
    work(py, || {
        Ok(api::moves(&position, dice.as_deref())?.to_string())
    })
}

/// What plays are valued by, as `--cubeless` says.
fn play_equity(cubeless: bool) -> api::PlayEquity {
    if cubeless {
        api::PlayEquity::Cubeless
    } else {
        api::PlayEquity::Cubeful
    }
}

/// `hint POSITION [DICE] --ply PLY [--cubeless] --json`.
#[pyfunction]
#[pyo3(signature = (position, dice=None, ply=0, weights=None, cubeless=false))]
fn hint(
    py: Python<'_>,
    position: String,
    dice: Option<String>,
    ply: u32,
    weights: Option<PathBuf>,
    cubeless: bool,
) -> PyResult<String> {
    let ev = evaluator(weights)?;
    work(py, || {
        Ok(api::hint(&ev, &position, dice.as_deref(), ply, play_equity(cubeless))?.to_string())
    })
}

/// `eval POSITION --ply PLY --json`.
#[pyfunction]
#[pyo3(signature = (position, ply=0, weights=None))]
fn evaluation(
    py: Python<'_>,
    position: String,
    ply: u32,
    weights: Option<PathBuf>,
) -> PyResult<String> {
    let ev = evaluator(weights)?;
    work(py, || Ok(api::eval(&ev, &position, ply)?.to_string()))
}

/// The probabilities `eval --ply PLY` gives, for many positions at once:
/// an array of shape (n, 5), float32.
#[pyfunction]
#[pyo3(signature = (positions, ply=0, weights=None))]
fn evaluate<'py>(
    py: Python<'py>,
    positions: Vec<String>,
    ply: u32,
    weights: Option<PathBuf>,
) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let ev = evaluator(weights)?;
    let rows = work(py, || api::evaluate(&ev, &positions, ply))?;
    let flat: Vec<f32> = rows.iter().flatten().copied().collect();
    let array = Array2::from_shape_vec((rows.len(), 5), flat).expect("five per position");
    Ok(array.into_pyarray(py))
}

/// `cube POSITION --ply PLY --json`.
#[pyfunction]
#[pyo3(signature = (position, ply=0, weights=None))]
fn cube(py: Python<'_>, position: String, ply: u32, weights: Option<PathBuf>) -> PyResult<String> {
    let ev = evaluator(weights)?;
    work(py, || Ok(api::cube(&ev, &position, ply)?.to_string()))
}

/// `cube POSITION --rollout [options] --json`.
#[pyfunction]
#[pyo3(signature = (position, ply=0, trials=1296, truncate=None, seed=1, threads=None,
    level=None, target_se=None, luck=true, quasi=true, weights=None))]
#[allow(clippy::too_many_arguments)]
fn cube_rollout(
    py: Python<'_>,
    position: String,
    ply: u32,
    trials: u32,
    truncate: Option<u32>,
    seed: u64,
    threads: Option<usize>,
    level: Option<String>,
    target_se: Option<f32>,
    luck: bool,
    quasi: bool,
    weights: Option<PathBuf>,
) -> PyResult<String> {
    let ev = evaluator(weights)?;
    let o = options(
        trials, truncate, seed, threads, level, target_se, luck, quasi,
    );
    work(py, || {
        Ok(api::cube_rollout(&ev, &position, ply, &o)?.to_string())
    })
}

/// `rollout POSITION [DICE] [options] --json`.
#[pyfunction]
#[pyo3(signature = (position, dice=None, ply=0, cubeful=false, moves=4, trials=1296,
    truncate=None, seed=1, threads=None, level=None, target_se=None, luck=true, quasi=true,
    weights=None))]
#[allow(clippy::too_many_arguments)]
fn rollout(
    py: Python<'_>,
    position: String,
    dice: Option<String>,
    ply: u32,
    cubeful: bool,
    moves: usize,
    trials: u32,
    truncate: Option<u32>,
    seed: u64,
    threads: Option<usize>,
    level: Option<String>,
    target_se: Option<f32>,
    luck: bool,
    quasi: bool,
    weights: Option<PathBuf>,
) -> PyResult<String> {
    let ev = evaluator(weights)?;
    let o = options(
        trials, truncate, seed, threads, level, target_se, luck, quasi,
    );
    work(py, || {
        let v = api::rollout(&ev, &position, dice.as_deref(), ply, cubeful, moves, &o)?;
        Ok(v.to_string())
    })
}

/// Trials `start..end` of `rollout POSITION [options]`, as a shard's
/// bytes for [`rollout_merge`].
#[pyfunction]
#[pyo3(signature = (position, start, end, ply=0, cubeful=false, trials=1296, truncate=None,
    seed=1, threads=None, level=None, luck=true, quasi=true, weights=None))]
#[allow(clippy::too_many_arguments)]
fn rollout_shard<'py>(
    py: Python<'py>,
    position: String,
    start: u32,
    end: u32,
    ply: u32,
    cubeful: bool,
    trials: u32,
    truncate: Option<u32>,
    seed: u64,
    threads: Option<usize>,
    level: Option<String>,
    luck: bool,
    quasi: bool,
    weights: Option<PathBuf>,
) -> PyResult<Bound<'py, PyBytes>> {
    let ev = evaluator(weights)?;
    let o = options(trials, truncate, seed, threads, level, None, luck, quasi);
    let bytes = work(py, || {
        api::rollout_shard_bytes(&ev, &position, ply, cubeful, &o, start, end)
    })?;
    Ok(PyBytes::new(py, &bytes))
}

/// The JSON `rollout POSITION [options] --json` prints, from shards that
/// cover its trials once (any split, any order).
#[pyfunction]
#[pyo3(signature = (position, shards, ply=0, cubeful=false, trials=1296, truncate=None,
    seed=1, level=None, luck=true, quasi=true))]
#[allow(clippy::too_many_arguments)]
fn rollout_merge(
    py: Python<'_>,
    position: String,
    shards: Vec<Vec<u8>>,
    ply: u32,
    cubeful: bool,
    trials: u32,
    truncate: Option<u32>,
    seed: u64,
    level: Option<String>,
    luck: bool,
    quasi: bool,
) -> PyResult<String> {
    let o = options(trials, truncate, seed, None, level, None, luck, quasi);
    work(py, || {
        Ok(api::rollout_merge(&position, ply, cubeful, &o, &shards)?.to_string())
    })
}

/// Checks that `rollout POSITION [options] --json` would run (the
/// position and the settings), without running it.
#[pyfunction]
#[pyo3(signature = (position, ply=0, cubeful=false, trials=1296, truncate=None, seed=1,
    level=None, luck=true, quasi=true))]
#[allow(clippy::too_many_arguments)]
fn rollout_check(
    position: String,
    ply: u32,
    cubeful: bool,
    trials: u32,
    truncate: Option<u32>,
    seed: u64,
    level: Option<String>,
    luck: bool,
    quasi: bool,
) -> PyResult<()> {
    let o = options(trials, truncate, seed, None, level, None, luck, quasi);
    api::rollout_check(&position, ply, cubeful, &o).map_err(input_error)
}

/// The next round of `sheshbesh train expert ARGS` as pieces to label
/// anywhere: JSON with `round`, `checkpoint`, `teacher`, `label_file` and
/// `piece_files`.
#[pyfunction]
fn label_job(py: Python<'_>, args: Vec<String>) -> PyResult<String> {
    work(py, || Ok(serde_json::to_string(&api::label_job(&args)?)?))
}

/// The texts of `pieces` of the next round of `train expert ARGS`, with
/// the nets read from local copies of its checkpoint and teacher.
#[pyfunction]
#[pyo3(signature = (args, checkpoint, pieces, teacher=None))]
fn label_pieces(
    py: Python<'_>,
    args: Vec<String>,
    checkpoint: PathBuf,
    pieces: Vec<usize>,
    teacher: Option<PathBuf>,
) -> PyResult<Vec<String>> {
    work(py, || {
        api::label_pieces(&args, &checkpoint, teacher.as_deref(), &pieces)
    })
}

/// One round of `train expert ARGS` on this machine, recorded as
/// `command`: joins the round's pieces, fits, checks, writes the
/// checkpoint; gives the rounds the checkpoint has done.
#[pyfunction]
fn train_expert_round(py: Python<'_>, args: Vec<String>, command: String) -> PyResult<u64> {
    work(py, || api::train_expert_round(&args, &command))
}

/// The match files `annotate` reads for these paths (directories
/// expanded, sorted).
#[pyfunction]
fn annotate_files(py: Python<'_>, paths: Vec<PathBuf>) -> PyResult<Vec<PathBuf>> {
    work(py, || api::annotate_files(&paths))
}

/// `annotate FILE --ply PLY --json` for the file at `path`, or named
/// `path` with bytes `data` (read by the caller, perhaps on another
/// machine):
/// its JSON text (an object with `error` when it cannot be read) and its
/// row of the final table (JSON, for [`annotate_table`]).
#[pyfunction]
#[pyo3(signature = (path, data=None, ply=2, weights=None, cubeless=false))]
fn annotate_file(
    py: Python<'_>,
    path: PathBuf,
    data: Option<Vec<u8>>,
    ply: u32,
    weights: Option<PathBuf>,
    cubeless: bool,
) -> PyResult<(String, String)> {
    let ev = evaluator(weights)?;
    work(py, || {
        let equity = play_equity(cubeless);
        let (json, row) = api::annotate_file(&ev, &path, data.as_deref(), ply, equity)?;
        Ok((json, serde_json::to_string(&row)?))
    })
}

/// The table `annotate` prints after several files, from their rows.
#[pyfunction]
fn annotate_table(rows: Vec<String>) -> PyResult<String> {
    let rows = rows
        .iter()
        .map(|r| serde_json::from_str::<Row>(r))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| InputError::new_err(format!("bad annotation row: {e}")))?;
    Ok(api::annotate_table(&rows))
}

/// `met [--table FILE] [--length N] [--score A,B --cube C] --json`.
#[pyfunction]
#[pyo3(signature = (table=None, length=None, score=None, cube=1))]
fn met(
    py: Python<'_>,
    table: Option<PathBuf>,
    length: Option<usize>,
    score: Option<String>,
    cube: u32,
) -> PyResult<String> {
    work(py, || {
        Ok(api::met(table.as_deref(), length, score.as_deref(), cube)?.to_string())
    })
}

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add_function(wrap_pyfunction!(position, m)?)?;
    m.add_function(wrap_pyfunction!(moves, m)?)?;
    m.add_function(wrap_pyfunction!(hint, m)?)?;
    m.add_function(wrap_pyfunction!(evaluation, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(cube, m)?)?;
    m.add_function(wrap_pyfunction!(cube_rollout, m)?)?;
    m.add_function(wrap_pyfunction!(rollout, m)?)?;
    m.add_function(wrap_pyfunction!(rollout_shard, m)?)?;
    m.add_function(wrap_pyfunction!(rollout_merge, m)?)?;
    m.add_function(wrap_pyfunction!(rollout_check, m)?)?;
    m.add_function(wrap_pyfunction!(label_job, m)?)?;
    m.add_function(wrap_pyfunction!(label_pieces, m)?)?;
    m.add_function(wrap_pyfunction!(train_expert_round, m)?)?;
    m.add_function(wrap_pyfunction!(annotate_files, m)?)?;
    m.add_function(wrap_pyfunction!(annotate_file, m)?)?;
    m.add_function(wrap_pyfunction!(annotate_table, m)?)?;
    m.add_function(wrap_pyfunction!(met, m)?)?;
    Ok(())
}
