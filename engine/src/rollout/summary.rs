//! What a rollout reports: estimates with their standard errors, the
//! passes of a cubeful rollout, and the summary of played trials.

use crate::evaluation::probs::Probs;
use crate::rollout::settings::RolloutSettings;
use crate::rollout::stakes::Stakes;
use crate::rollout::trial::{Trial, TrialEnd};

/// A mean over trials and its standard error.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Estimate {
    /// The mean.
    pub mean: f32,
    /// Its standard error.
    pub se: f32,
}

impl Estimate {
    /// 95% confidence half-width.
    pub fn ci95(&self) -> f32 {
        1.96 * self.se
    }

    pub(crate) fn of(xs: impl Iterator<Item = f64> + Clone) -> Estimate {
        let n = xs.clone().count().max(1) as f64;
        let mean = xs.clone().sum::<f64>() / n;
        let var = if n > 1.0 {
            xs.map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
        } else {
            0.0
        };
        Estimate {
            mean: mean as f32,
            se: (var / n).sqrt() as f32,
        }
    }
}

/// A rollout's estimate with its standard errors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RolloutResult {
    /// Trials played.
    pub trials: u32,
    /// Mean outcome probabilities for the player on roll.
    pub probs: Probs,
    /// Their standard errors.
    pub probs_se: [f32; 5],
    /// Cubeless money equity.
    pub equity: Estimate,
    /// At a match score: the cubeless EMG at the root's cube.
    pub emg: Option<Estimate>,
    /// At a match score: the cubeless match-winning chance.
    pub mwc: Option<Estimate>,
    /// Cubeful rollouts: the cubeful equity per unit of the root's cube
    /// (EMG at a match score).
    pub cubeful: Option<Estimate>,
    /// Cubeful rollouts at a match score: the match-winning chance.
    pub cubeful_mwc: Option<Estimate>,
    /// Cubeful rollouts: how many trials ended in a passed double.
    pub passes: Option<Passes>,
    /// The seed.
    pub seed: u64,
}

/// How many trials of a cubeful rollout ended in a passed double, by who
/// passed. Their chances count as the position's where the pass was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Passes {
    /// The player on roll at the root doubled and the opponent passed.
    pub by_opponent: u32,
    /// The opponent doubled and the player on roll at the root passed.
    pub by_root: u32,
}

impl RolloutResult {
    /// The figure plays and decisions are compared by: the cubeful equity
    /// when the cube was played, else the cubeless EMG at a match score,
    /// else the cubeless equity.
    pub fn value(&self) -> Estimate {
        self.cubeful.or(self.emg).unwrap_or(self.equity)
    }
}

pub(crate) fn summarize(trials: &[Trial], s: &RolloutSettings) -> RolloutResult {
    let mut probs = [0.0f32; 5];
    let mut probs_se = [0.0f32; 5];
    for k in 0..5 {
        let e = Estimate::of(trials.iter().map(|t| t.probs[k]));
        probs[k] = e.mean;
        probs_se[k] = e.se;
    }
    let eq = |t: &Trial| 2.0 * t.probs[0] - 1.0 + t.probs[1] - t.probs[3] + t.probs[2] - t.probs[4];
    let stakes = &s.stakes;
    let (emg, mwc) = match stakes {
        Stakes::Money(_) => (None, None),
        Stakes::Match(m) => {
            // The cubeless MWC is linear in the probabilities, so each
            // trial's luck-adjusted ones give an unbiased MWC.
            let outcomes = m.outcomes();
            let mwcs = trials
                .iter()
                .map(move |t| f64::from(outcomes.mwc(&Probs(t.probs.map(|x| x as f32)), true)));
            (
                Some(Estimate::of(mwcs.clone().map(|v| stakes.root_equity(v)))),
                Some(Estimate::of(mwcs)),
            )
        }
    };
    let cubeful = s
        .cubeful
        .then(|| Estimate::of(trials.iter().map(|t| stakes.root_equity(t.cubeful))));
    let cubeful_mwc = (s.cubeful && matches!(stakes, Stakes::Match(_)))
        .then(|| Estimate::of(trials.iter().map(|t| t.cubeful)));
    let passes = s.cubeful.then(|| {
        let count = |e: TrialEnd| trials.iter().filter(|t| t.end == e).count() as u32;
        Passes {
            by_opponent: count(TrialEnd::OpponentPassed),
            by_root: count(TrialEnd::RootPassed),
        }
    });
    RolloutResult {
        trials: trials.len() as u32,
        probs: Probs(probs),
        probs_se,
        equity: Estimate::of(trials.iter().map(eq)),
        emg,
        mwc,
        cubeful,
        cubeful_mwc,
        passes,
        seed: s.seed,
    }
}
