//! Checkpoints: weights files written atomically, with the training state
//! in their provenance so a run resumes where it stopped.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sheshbesh_engine::evaluator::NetEvaluator;
use sheshbesh_engine::weights;

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

/// Writes `bytes` to `path` through a temporary file in the same folder and
/// a rename, so a crash leaves either the old file or the new one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let name = path
        .file_name()
        .with_context(|| format!("{} is not a file path", path.display()))?;
    let tmp = dir.unwrap_or(Path::new(".")).join(format!(
        ".{}.tmp{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let mut f = fs::File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
    f.write_all(bytes)
        .and_then(|_| f.sync_all())
        .with_context(|| format!("writing {}", tmp.display()))?;
    drop(f);
    fs::rename(&tmp, path).with_context(|| format!("renaming onto {}", path.display()))?;
    Ok(())
}

/// Saves nets and provenance.
pub fn save(path: &Path, ev: &NetEvaluator, prov: &Provenance) -> Result<()> {
    let text = serde_json::to_string(prov).expect("provenance serializes");
    write_atomic(path, &weights::encode(&ev.to_weights(&text)))
}

/// Loads a checkpoint (or any weights file; provenance then starts afresh).
pub fn load(path: &Path) -> Result<(NetEvaluator, Option<Provenance>)> {
    let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let set = weights::decode(&bytes).with_context(|| format!("loading {}", path.display()))?;
    let ev = NetEvaluator::from_weights(&set).with_context(|| format!("{}", path.display()))?;
    Ok((ev, serde_json::from_str(&set.provenance).ok()))
}
