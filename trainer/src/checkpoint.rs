//! Checkpoints: weights files written atomically, with the training state
//! in their provenance so a run resumes where it stopped.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::evaluation::weights;
use sheshbesh_engine::formats::files::write_atomic;

/// What a checkpoint records besides the nets.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Provenance {
    /// The command line that made it.
    pub command: String,
    /// Seed of the run.
    pub seed: u64,
    /// Self-play games played so far, over all sessions.
    pub games: u64,
    /// Wall-clock seconds of training so far, over all sessions.
    pub seconds: f64,
    /// Strength checks so far (newest last).
    pub checks: Vec<Check>,
    /// Expert-iteration rounds done so far.
    #[serde(default)]
    pub distill_rounds: u64,
}

impl Provenance {
    /// The record of a run that has not played yet.
    pub fn new(command: &str, seed: u64) -> Provenance {
        Provenance {
            command: command.to_string(),
            seed,
            games: 0,
            seconds: 0.0,
            checks: Vec::new(),
            distill_rounds: 0,
        }
    }
}

/// One periodic strength measurement.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Check {
    /// Games trained when measured.
    pub games: u64,
    /// Opponent: `pubeval` or `previous`.
    pub against: String,
    /// Points per game won.
    pub ppg: f64,
    /// Its standard error.
    pub se: f64,
    /// Games in the duel.
    pub duel_games: u64,
}

/// Saves nets and provenance.
pub fn save(path: &Path, ev: &NetEvaluator, prov: &Provenance) -> Result<()> {
    let text = serde_json::to_string(prov).expect("provenance serializes");
    Ok(write_atomic(path, &weights::encode(&ev.to_weights(&text)))?)
}

/// Loads a checkpoint (or any weights file; provenance then starts afresh).
pub fn load(path: &Path) -> Result<(NetEvaluator, Option<Provenance>)> {
    let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let set = weights::decode(&bytes).with_context(|| format!("loading {}", path.display()))?;
    let ev = NetEvaluator::from_weights(&set).with_context(|| format!("{}", path.display()))?;
    Ok((ev, serde_json::from_str(&set.provenance).ok()))
}
