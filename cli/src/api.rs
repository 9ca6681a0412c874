//! The commands' answers as values, for front ends other than a terminal
//! (the Python package): each function gives exactly what the command
//! prints with `--json`, by the same code, and fails with the command's
//! one-line message.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use anyhow::{bail, Result};
use rayon::prelude::*;
use serde_json::Value;
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::rollout::{merge_shards, rollout_shard, RolloutSettings, RolloutShard};
use sheshbesh_engine::MoveList;

pub use crate::annotate_cmd::Row;
use crate::input::{input_of, parse_position, Input};
pub use crate::rollout_cmd::RolloutOptions;
pub use sheshbesh_engine::cube::decision::PlayEquity;
pub use sheshbesh_trainer::jobs::LabelJob;

use crate::{annotate_cmd, board_cmd, met_cmd, position_cmd, rollout_cmd, train_cmd};

/// The evaluator of `--weights PATH`, or of the shipped weights.
pub fn load_evaluator(weights: Option<&Path>) -> Result<NetEvaluator> {
    crate::nets::load(weights)
}

/// `show POSITION --json`: the IDs, the board and the pip counts.
pub fn position(position: &str) -> Result<Value> {
    Ok(board_cmd::show_answer(&[position], false)?.0)
}

/// `moves POSITION [DICE] --json`.
pub fn moves(position: &str, dice: Option<&str>) -> Result<Value> {
    let parts: Vec<&str> = std::iter::once(position).chain(dice).collect();
    Ok(board_cmd::moves_answer(&parts, &mut MoveList::new())?.0)
}

/// `hint POSITION [DICE] --ply PLY [--cubeless] --json`.
pub fn hint(
    ev: &NetEvaluator,
    position: &str,
    dice: Option<&str>,
    ply: u32,
    equity: PlayEquity,
) -> Result<Value> {
    position_cmd::check_ply(ply)?;
    let parts: Vec<&str> = std::iter::once(position).chain(dice).collect();
    Ok(position_cmd::hint_answer(ev, &parts, ply, equity)?.0)
}

/// `eval POSITION --ply PLY --json`.
pub fn eval(ev: &NetEvaluator, position: &str, ply: u32) -> Result<Value> {
    position_cmd::check_ply(ply)?;
    Ok(position_cmd::eval_answer(ev, &[position], ply)?.0)
}

/// The outcome probabilities `eval --ply PLY` gives for each position, in
/// parallel, unrounded. The first bad position fails the call, named with
/// its index.
pub fn evaluate(ev: &NetEvaluator, positions: &[String], ply: u32) -> Result<Vec<[f32; 5]>> {
    position_cmd::check_ply(ply)?;
    positions
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let input =
                input_of(&[p.as_str()], 1).map_err(|e| anyhow::anyhow!("position {i}: {e}"))?;
            Ok(position_cmd::cube_analysis(ev, &input, ply)?.probs.0)
        })
        .collect()
}

/// `cube POSITION --ply PLY --json`.
pub fn cube(ev: &NetEvaluator, position: &str, ply: u32) -> Result<Value> {
    position_cmd::check_ply(ply)?;
    Ok(position_cmd::cube_answer(ev, &[position], ply)?.0)
}

/// `cube POSITION --rollout --ply PLY [options] --json`.
pub fn cube_rollout(
    ev: &NetEvaluator,
    position: &str,
    ply: u32,
    options: &RolloutOptions,
) -> Result<Value> {
    let pool = options.pool()?;
    let stop = AtomicBool::new(false);
    let answer =
        pool.install(|| rollout_cmd::cube_answer(ev, &[position], ply, options, &stop, false))?;
    Ok(answer.0)
}

/// A rollout's position and settings, read as `rollout` reads them.
fn rollout_input(
    position: &str,
    ply: u32,
    cubeful: bool,
    options: &RolloutOptions,
) -> Result<(Input, RolloutSettings)> {
    let input = parse_position(position)?;
    let s = options.settings(&input, ply, cubeful)?;
    Ok((input, s))
}

/// [`rollout_input`] for a rollout in shards, which rolls out a position
/// before its roll: one that carries dice is refused (`rollout` alone
/// rolls out a roll's plays).
fn shard_input(
    position: &str,
    ply: u32,
    cubeful: bool,
    options: &RolloutOptions,
) -> Result<(Input, RolloutSettings)> {
    let (input, s) = rollout_input(position, ply, cubeful, options)?;
    if let Some(d) = input.state.dice {
        bail!(
            "bad position \"{position}\": it carries the roll {d}; a rollout in shards rolls out a position before its roll (give it without dice, or roll out the roll's plays with rollout)"
        );
    }
    Ok((input, s))
}

/// `rollout POSITION [DICE] --ply PLY [--cubeful] [--moves N] [options]
/// --json`.
pub fn rollout(
    ev: &NetEvaluator,
    position: &str,
    dice: Option<&str>,
    ply: u32,
    cubeful: bool,
    moves: usize,
    options: &RolloutOptions,
) -> Result<Value> {
    let (input, s) = rollout_input(position, ply, cubeful, options)?;
    let pool = options.pool()?;
    let stop = AtomicBool::new(false);
    let answer =
        pool.install(|| rollout_cmd::answer(ev, &input, dice, &s, moves, &stop, &mut |_, _| {}))?;
    Ok(answer.0)
}

/// Checks that `rollout POSITION ... --json` would run, without running
/// it: the position and the settings read as the command reads them,
/// and the settings can be split into shards (no target error).
pub fn rollout_check(
    position: &str,
    ply: u32,
    cubeful: bool,
    options: &RolloutOptions,
) -> Result<()> {
    if options.target_se.is_some() {
        bail!("{}", sheshbesh_engine::rollout::ShardError::TargetSe);
    }
    shard_input(position, ply, cubeful, options).map(|_| ())
}

/// Trials `start..end` of `rollout POSITION ...` as a shard's bytes: the
/// shards of a rollout, played anywhere, merge ([`rollout_merge`]) into
/// exactly its result.
pub fn rollout_shard_bytes(
    ev: &NetEvaluator,
    position: &str,
    ply: u32,
    cubeful: bool,
    options: &RolloutOptions,
    start: u32,
    end: u32,
) -> Result<Vec<u8>> {
    let (input, s) = shard_input(position, ply, cubeful, options)?;
    let pool = options.pool()?;
    let shard = pool.install(|| rollout_shard(ev, &input.position, &s, start..end))?;
    Ok(shard.to_bytes())
}

/// The JSON `rollout POSITION ... --json` prints, from the shards of its
/// trials (any split, any order).
pub fn rollout_merge(
    position: &str,
    ply: u32,
    cubeful: bool,
    options: &RolloutOptions,
    shards: &[Vec<u8>],
) -> Result<Value> {
    let (input, s) = shard_input(position, ply, cubeful, options)?;
    let shards = shards
        .iter()
        .enumerate()
        .map(|(i, b)| RolloutShard::from_bytes(b).map_err(|e| anyhow::anyhow!("shard {i}: {e}")))
        .collect::<Result<Vec<_>>>()?;
    let r = merge_shards(&input.position, &s, &shards)?;
    Ok(rollout_cmd::position_answer(&input, &r, false).0)
}

/// The match files `annotate` reads for these arguments (directories
/// expanded, sorted).
pub fn annotate_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    Ok(sheshbesh_engine::formats::match_files::collect(paths)?)
}

/// `annotate FILE --ply PLY [--cubeless] --json` for one file at `path`, or named
/// `path` and read as `bytes` by the caller (perhaps on another machine):
/// its JSON text
/// (an `{"file", "error"}` object when it cannot be read) and its row of
/// the final table.
pub fn annotate_file(
    ev: &NetEvaluator,
    path: &Path,
    bytes: Option<&[u8]>,
    ply: u32,
    equity: PlayEquity,
) -> Result<(String, Row)> {
    position_cmd::check_ply(ply)?;
    Ok(annotate_cmd::file_answer(ev, path, bytes, ply, equity))
}

/// The table `annotate` ends with for several files.
pub fn annotate_table(rows: &[Row]) -> String {
    annotate_cmd::table(rows)
}

/// `met [--table FILE] [--length N] [--score A,B --cube C] --json`.
pub fn met(
    table: Option<&Path>,
    length: Option<usize>,
    score: Option<&str>,
    cube: u32,
) -> Result<Value> {
    met_cmd::cube_arg(&cube.to_string())
        .map_err(|why| anyhow::anyhow!("bad --cube \"{cube}\": {why}"))?;
    let met = met_cmd::load_table(table)?;
    let length = met_cmd::length_of(&met, length, true)?;
    let facts = score
        .map(|s| met_cmd::facts_at(&met, s, cube))
        .transpose()?;
    Ok(met_cmd::json_answer(&met, length, facts.as_ref(), cube))
}

/// The options of `train expert ARGS`, read as the command line reads
/// them; a bad option fails with clap's first line.
fn expert_args(args: &[String]) -> Result<train_cmd::ExpertArgs> {
    #[derive(clap::Parser)]
    #[command(name = "sheshbesh train expert", no_binary_name = true)]
    struct Expert {
        #[command(flatten)]
        a: train_cmd::ExpertArgs,
    }
    match <Expert as clap::Parser>::try_parse_from(args) {
        Ok(e) => Ok(e.a),
        Err(e) => {
            let text = e.to_string();
            let line = text.lines().next().unwrap_or_default();
            bail!("train expert: {}", line.trim_start_matches("error: "))
        }
    }
}

/// The next round of `train expert ARGS` (which must name `--cache`) as
/// pieces to label anywhere.
pub fn label_job(args: &[String]) -> Result<LabelJob> {
    let a = expert_args(args)?;
    a.job(a.rounds, String::new())?.label_job()
}

/// The texts of `pieces` of the next round of `train expert ARGS`, with
/// the nets read from local copies of the job's checkpoint and teacher.
pub fn label_pieces(
    args: &[String],
    checkpoint: &Path,
    teacher: Option<&Path>,
    pieces: &[usize],
) -> Result<Vec<String>> {
    let a = expert_args(args)?;
    a.job(a.rounds, String::new())?
        .label_pieces(checkpoint, teacher, pieces)
}

/// One round of `train expert ARGS` here, recorded as `command`: with
/// the round's pieces all made (by [`label_pieces`], anywhere) it joins
/// them into the label file, fits, checks and writes the checkpoint. The
/// rounds the checkpoint has done after it (fewer than before plus one
/// when pieces are still missing).
pub fn train_expert_round(args: &[String], command: &str) -> Result<u64> {
    let a = expert_args(args)?;
    Ok(a.job(1, command.to_string())?.run()?.1.distill_rounds)
}
