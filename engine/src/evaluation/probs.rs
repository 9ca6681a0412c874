//! Outcome probabilities for the side on roll, gnubg's five cumulative
//! outputs, and the cubeless equity they imply.

use serde::Serialize;

/// The five cumulative outcome probabilities for the player on roll:
/// win, win a gammon or more, win a backgammon, lose a gammon or more, lose a
/// backgammon. Losing is `1 - win`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Probs(pub [f32; 5]);

impl Probs {
    /// A certain result for the player on roll: `points` is +1..+3 for a
    /// single win, gammon or backgammon, -1..-3 for losses.
    pub fn certain(points: i32) -> Probs {
        let w = points > 0;
        let k = points.unsigned_abs();
        let f = |b: bool| if b { 1.0 } else { 0.0 };
        Probs([
            f(w),
            f(w && k >= 2),
            f(w && k >= 3),
            f(!w && k >= 2),
            f(!w && k >= 3),
        ])
    }

    /// Probability of winning (any kind).
    #[inline]
    pub fn win(&self) -> f32 {
        self.0[0]
    }

    /// Probability of winning a gammon or a backgammon.
    #[inline]
    pub fn win_gammon(&self) -> f32 {
        self.0[1]
    }

    /// Probability of winning a backgammon.
    #[inline]
    pub fn win_backgammon(&self) -> f32 {
        self.0[2]
    }

    /// Probability of losing a gammon or a backgammon.
    #[inline]
    pub fn lose_gammon(&self) -> f32 {
        self.0[3]
    }

    /// Probability of losing a backgammon.
    #[inline]
    pub fn lose_backgammon(&self) -> f32 {
        self.0[4]
    }

    /// The same outcomes seen by the opponent.
    #[inline]
    pub fn flipped(&self) -> Probs {
        let p = self.0;
        Probs([1.0 - p[0], p[3], p[4], p[1], p[2]])
    }

    /// Cubeless money equity: wins minus losses, gammons and backgammons
    /// counting once more each.
    #[inline]
    pub fn equity(&self) -> f32 {
        let p = self.0;
        2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]
    }

    /// Clamps the outputs into a consistent set: a backgammon is a gammon,
    /// a gammon is a win (or a loss), all within 0..1.
    #[inline]
    pub fn consistent(self) -> Probs {
        let mut p = self.0.map(|x| x.clamp(0.0, 1.0));
        p[1] = p[1].min(p[0]);
        p[2] = p[2].min(p[1]);
        p[3] = p[3].min(1.0 - p[0]);
        p[4] = p[4].min(p[3]);
        Probs(p)
    }

    /// Weighted sum `self * w + other` (accumulating averages over rolls).
    #[inline]
    pub fn add_scaled(&mut self, other: &Probs, w: f32) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b * w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certain_results_have_their_equity() {
        for pts in [-3, -2, -1, 1, 2, 3] {
            assert_eq!(Probs::certain(pts).equity(), pts as f32);
            assert_eq!(Probs::certain(pts).flipped().equity(), -pts as f32);
        }
    }

    #[test]
    fn consistency_orders_the_outputs() {
        let p = Probs([0.4, 0.6, 0.7, 0.9, 0.95]).consistent();
        assert!(p.0[1] <= p.0[0] && p.0[2] <= p.0[1]);
        assert!(p.0[3] <= 1.0 - p.0[0] && p.0[4] <= p.0[3]);
    }
}
