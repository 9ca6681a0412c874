//! Checkpoints: weights files written atomically, with the training state
//! in their provenance so a run resumes where it stopped.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::calibrate::Calibration;
use crate::prefilter::PrefilterStep;
use sheshbesh_engine::evaluation::evaluator::NetEvaluator;
use sheshbesh_engine::evaluation::weights;
use sheshbesh_engine::formats::files::{read_bounded, write_atomic};

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
    /// Output calibrations applied so far (oldest first).
    #[serde(default)]
    pub calibrations: Vec<Calibration>,
    /// The play pre-filter distilled from these nets, if one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefilter: Option<PrefilterStep>,
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
            calibrations: Vec::new(),
            prefilter: None,
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

/// Loads a checkpoint, or any weights file. A file without a training
/// record has no provenance (a run from it starts its count afresh); a
/// record that cannot be read is refused rather than silently dropped,
/// which would restart the game count of a resumed run.
pub fn load(path: &Path) -> Result<(NetEvaluator, Option<Provenance>)> {
    let bytes = read_bounded(path, weights::FILE_LIMIT)
        .with_context(|| format!("reading {}", path.display()))?;
    let set = weights::decode(&bytes).with_context(|| format!("loading {}", path.display()))?;
    let ev = NetEvaluator::from_weights(&set).with_context(|| format!("{}", path.display()))?;
    if set.provenance.trim().is_empty() {
        return Ok((ev, None));
    }
    let prov = serde_json::from_str(&set.provenance).with_context(|| {
        format!(
            "{}: its training record is not readable (start a new run with --fresh)",
            path.display()
        )
    })?;
    Ok((ev, Some(prov)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sheshbesh_engine::evaluation::inputs::Layout;
    use std::fs;

    #[test]
    fn an_unreadable_training_record_is_refused_and_a_missing_one_is_none() {
        let dir = std::env::temp_dir().join(format!("shb-prov-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let ev = crate::train::fresh(1, 32, 32, Layout::V2);
        let path = dir.join("a.weights");
        write_atomic(&path, &weights::encode(&ev.to_weights("{\"games\": oops"))).unwrap();
        let err = format!("{:#}", load(&path).unwrap_err());
        assert!(err.contains("training record"), "{err}");
        write_atomic(&path, &weights::encode(&ev.to_weights(""))).unwrap();
        assert!(load(&path).unwrap().1.is_none());
        save(&path, &ev, &Provenance::new("x", 3)).unwrap();
        assert_eq!(load(&path).unwrap().1.unwrap().seed, 3);
        fs::remove_dir_all(&dir).unwrap();
    }
}
