//! How to roll out: the settings of a rollout and the named levels.

use crate::rollout::stakes::Stakes;

/// How to roll out.
#[derive(Clone, Debug, PartialEq)]
pub struct RolloutSettings {
    /// Most trials.
    pub trials: u32,
    /// Checker play depth during the trials.
    pub ply: u32,
    /// Stop each trial after this many plies and use the evaluator's value.
    pub truncate: Option<u32>,
    /// Play with a cube.
    pub cubeful: bool,
    /// Luck adjustment.
    pub luck: bool,
    /// Stratified first two rolls.
    pub quasi: bool,
    /// Seed of the dice.
    pub seed: u64,
    /// Stop once the standard error of the figure reported (see
    /// [`crate::rollout::RolloutResult::value`]) is below this.
    pub target_se: Option<f32>,
    /// Money or match, with the root's cube (from the player on roll).
    pub stakes: Stakes,
}

impl Default for RolloutSettings {
    fn default() -> Self {
        RolloutSettings {
            trials: 1296,
            ply: 0,
            truncate: None,
            cubeful: false,
            luck: true,
            quasi: true,
            seed: 1,
            target_se: None,
            stakes: Stakes::default(),
        }
    }
}

/// Named analysis levels, from quick mini-rollouts to a full rollout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RolloutLevel {
    /// 72 trials at 0-ply truncated after 7 plies.
    Roller,
    /// 216 trials at 0-ply truncated after 11 plies.
    RollerPlus,
    /// 216 trials at 1-ply truncated after 9 plies.
    RollerPlusPlus,
    /// 1,296 trials at 0-ply played to the end.
    Full,
}

impl RolloutLevel {
    /// The level's settings (seed and stakes from `base`).
    pub fn settings(self, base: RolloutSettings) -> RolloutSettings {
        let (trials, ply, truncate) = match self {
            RolloutLevel::Roller => (72, 0, Some(7)),
            RolloutLevel::RollerPlus => (216, 0, Some(11)),
            RolloutLevel::RollerPlusPlus => (216, 1, Some(9)),
            RolloutLevel::Full => (1296, 0, None),
        };
        RolloutSettings {
            trials,
            ply,
            truncate,
            luck: true,
            quasi: true,
            target_se: None,
            ..base
        }
    }

    /// Reads a level's name (`roller`, `roller+`, `roller++`, `full`).
    pub fn parse(s: &str) -> Option<RolloutLevel> {
        match s.to_ascii_lowercase().as_str() {
            "roller" => Some(RolloutLevel::Roller),
            "roller+" => Some(RolloutLevel::RollerPlus),
            "roller++" => Some(RolloutLevel::RollerPlusPlus),
            "full" => Some(RolloutLevel::Full),
            _ => None,
        }
    }
}
