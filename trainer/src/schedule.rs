//! The learning-rate schedule: exponential decay towards a floor.

use serde::{Deserialize, Serialize};

/// `alpha(g) = end + (start - end) * 0.5^(g / half_life)` after `g` games.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Schedule {
    /// Rate at game 0.
    pub start: f32,
    /// Rate approached as training goes on.
    pub end: f32,
    /// Games over which the excess over `end` halves.
    pub half_life: f64,
}

impl Schedule {
    /// The rate after `games` games.
    pub fn alpha(&self, games: u64) -> f32 {
        let decay = 0.5f64.powf(games as f64 / self.half_life.max(1.0)) as f32;
        self.end + (self.start - self.end) * decay
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_towards_the_floor() {
        let s = Schedule {
            start: 0.1,
            end: 0.02,
            half_life: 1000.0,
        };
        assert!((s.alpha(0) - 0.1).abs() < 1e-7);
        assert!((s.alpha(1000) - 0.06).abs() < 1e-6);
        assert!((s.alpha(1_000_000) - 0.02).abs() < 1e-6);
    }
}
