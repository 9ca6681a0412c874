//! Rollouts split into trial ranges and merged exactly.
//!
//! Trial `i` depends only on the position, the settings and `i` (its dice
//! come from `(seed, i)`), and a rollout's result is a summary of its
//! trials in trial order. So a rollout can be played as shards of trial
//! ranges on any number of processes or machines, and the merge of the
//! shards, which summarizes their trials concatenated in order, is
//! bit-identical to the rollout played in one process, for any split.
//!
//! A shard carries a fingerprint of its position and settings, so shards of
//! different rollouts are refused at the merge, and its bytes
//! ([`RolloutShard::to_bytes`]) keep every trial's values exactly.

use std::ops::Range;

use rayon::prelude::*;
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::settings::RolloutSettings;
use super::stakes::TrialCube;
use super::summary::{summarize, RolloutResult};
use super::trial::{permutations, play_trial, Start, Trial, TrialEnd};
use crate::evaluation::evaluator::Evaluator;
use crate::rules::position::Position;

/// A shard that cannot be played, read or merged.
#[derive(Debug, Error, PartialEq)]
pub enum ShardError {
    /// The range is empty or reaches past the rollout's trials.
    #[error("trial range {start}..{end} is not inside the rollout's {trials} trials")]
    Range {
        /// First trial asked for.
        start: u32,
        /// One past the last.
        end: u32,
        /// The rollout's trials.
        trials: u32,
    },
    /// A target error stops a rollout at a point only the whole run knows.
    #[error("a rollout with a target standard error cannot be split into shards")]
    TargetSe,
    /// The bytes are not a shard.
    #[error("not a rollout shard: {0}")]
    Bytes(String),
    /// A shard of another position or other settings.
    #[error("shard of trials {start}..{end} belongs to another position or other settings")]
    Foreign {
        /// Its first trial.
        start: u32,
        /// One past its last.
        end: u32,
    },
    /// The shards do not tile the trials exactly once.
    #[error("the shards do not cover trials 0..{trials} exactly once: trial {at} is {problem}")]
    Tiling {
        /// The rollout's trials.
        trials: u32,
        /// The first trial in question.
        at: u32,
        /// "missing" or "in two shards".
        problem: &'static str,
    },
}

/// Trials `start..start + len` of one rollout, with their luck-adjusted
/// results.
#[derive(Clone, Debug, PartialEq)]
pub struct RolloutShard {
    fingerprint: [u8; 32],
    start: u32,
    trials: Vec<Trial>,
}

/// First bytes of a shard, and its format's version (2: each trial's end).
const MAGIC: &[u8; 8] = b"SBSHARD2";

/// Bytes of one trial: six `f64` and its end.
const TRIAL_BYTES: usize = 49;

impl RolloutShard {
    /// The trials it holds.
    pub fn range(&self) -> Range<u32> {
        self.start..self.start + self.trials.len() as u32
    }

    /// The shard as bytes: a header, then each trial's six values as
    /// little-endian `f64` and a byte for how it ended, so the merge sees
    /// exactly what was played.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(48 + TRIAL_BYTES * self.trials.len());
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&self.fingerprint);
        b.extend_from_slice(&self.start.to_le_bytes());
        b.extend_from_slice(&(self.trials.len() as u32).to_le_bytes());
        for t in &self.trials {
            for x in t.probs.iter().chain(std::iter::once(&t.cubeful)) {
                b.extend_from_slice(&x.to_le_bytes());
            }
            b.push(t.end.byte());
        }
        b
    }

    /// Reads [`RolloutShard::to_bytes`].
    pub fn from_bytes(b: &[u8]) -> Result<RolloutShard, ShardError> {
        let bad = |why: &str| ShardError::Bytes(why.to_string());
        if b.starts_with(b"SBSHARD") && !b.starts_with(MAGIC) {
            return Err(bad("a shard of another version: play it again"));
        }
        let rest = b
            .strip_prefix(MAGIC)
            .ok_or_else(|| bad("no shard header"))?;
        if rest.len() < 40 {
            return Err(bad("header cut short"));
        }
        let (head, body) = rest.split_at(40);
        let fingerprint: [u8; 32] = head[..32].try_into().expect("32 bytes");
        let word = |k: usize| u32::from_le_bytes(head[k..k + 4].try_into().expect("4 bytes"));
        let (start, count) = (word(32), word(36));
        if body.len() != TRIAL_BYTES * count as usize {
            return Err(bad(&format!(
                "{count} trials need {} bytes after the header, found {}",
                TRIAL_BYTES * count as usize,
                body.len()
            )));
        }
        if start.checked_add(count).is_none() {
            return Err(bad("trial range overflows"));
        }
        let trials = body
            .chunks_exact(TRIAL_BYTES)
            .map(|t| {
                let value =
                    |k: usize| f64::from_le_bytes(t[8 * k..8 * k + 8].try_into().expect("8"));
                Ok(Trial {
                    probs: std::array::from_fn(value),
                    cubeful: value(5),
                    end: TrialEnd::of_byte(t[48])
                        .ok_or_else(|| bad("a trial's end is not 0, 1 or 2"))?,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(RolloutShard {
            fingerprint,
            start,
            trials,
        })
    }
}

/// What identifies a rollout: the position and every setting that changes
/// a trial or the summary.
fn fingerprint(pos: &Position, s: &RolloutSettings) -> [u8; 32] {
    Sha256::digest(format!("{pos:?}|{s:?}").as_bytes()).into()
}

/// Plays trials `range` of the rollout of `pos` with settings `s` (over
/// rayon's threads), exactly as [`super::rollout`] plays them.
pub fn rollout_shard<E: Evaluator + ?Sized>(
    ev: &E,
    pos: &Position,
    s: &RolloutSettings,
    range: Range<u32>,
) -> Result<RolloutShard, ShardError> {
    if s.target_se.is_some() {
        return Err(ShardError::TargetSe);
    }
    if range.start >= range.end || range.end > s.trials {
        return Err(ShardError::Range {
            start: range.start,
            end: range.end,
            trials: s.trials,
        });
    }
    let exact = |p: &Position| ev.exact(p);
    let perms = permutations(s.seed);
    let start = Start {
        cube: TrialCube::at_root(&s.stakes),
        root_may_double: true,
        opening: false,
    };
    let trials = range
        .clone()
        .into_par_iter()
        .map(|i| play_trial(ev, &exact, pos, s, start, i, &perms))
        .collect();
    Ok(RolloutShard {
        fingerprint: fingerprint(pos, s),
        start: range.start,
        trials,
    })
}

/// Merges shards (in any order) that cover trials `0..s.trials` exactly
/// once into the result [`super::rollout`] gives in one process.
pub fn merge_shards(
    pos: &Position,
    s: &RolloutSettings,
    shards: &[RolloutShard],
) -> Result<RolloutResult, ShardError> {
    if s.target_se.is_some() {
        return Err(ShardError::TargetSe);
    }
    let print = fingerprint(pos, s);
    if let Some(f) = shards.iter().find(|x| x.fingerprint != print) {
        let r = f.range();
        return Err(ShardError::Foreign {
            start: r.start,
            end: r.end,
        });
    }
    let mut order: Vec<&RolloutShard> = shards.iter().filter(|x| !x.trials.is_empty()).collect();
    order.sort_by_key(|x| x.start);
    let mut trials = Vec::with_capacity(s.trials as usize);
    let mut next = 0u32;
    for x in order {
        let r = x.range();
        if r.start != next {
            let (at, problem) = if r.start > next {
                (next, "missing")
            } else {
                (r.start, "in two shards")
            };
            return Err(ShardError::Tiling {
                trials: s.trials,
                at,
                problem,
            });
        }
        trials.extend_from_slice(&x.trials);
        next = r.end;
    }
    if next != s.trials {
        let (at, problem) = if next < s.trials {
            (next, "missing")
        } else {
            (s.trials, "in a shard but past the rollout's trials")
        };
        return Err(ShardError::Tiling {
            trials: s.trials,
            at,
            problem,
        });
    }
    Ok(summarize(&trials, s))
}
